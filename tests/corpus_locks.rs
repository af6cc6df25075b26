//! Lock order on a real program nobody here wrote (issue 27): pigz takes
//! its locks through yarn's wrappers (`possess`, `twist`, `release`) and
//! keeps them in heap objects made by `new_lock()`. A lock-order inversion
//! introduced by moving two `possess` calls must show as a new deadlock
//! cycle, and nothing else about lock order may change. The corpus is found
//! by `common::corpus`; without it the test says so and passes,
//! unless `CONCORD_REQUIRE_CORPUS=1`.

use crate::common;
use common::corpus::{checkout_bundle, corpus, run_tool};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Compile pigz.c and yarn.c in `dir` and link them into `out`.
fn build(dir: &Path, out: &str) {
    run_tool(
        dir,
        "clang-14",
        &[
            "-g",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-c",
            "-emit-llvm",
            "-w",
            "pigz.c",
            "yarn.c",
        ],
    );
    run_tool(dir, "llvm-link-14", &["pigz.bc", "yarn.bc", "-o", out]);
}

/// Replace the one occurrence of `from` (after `after`, if given) by `to`.
fn edit(text: &mut String, after: Option<&str>, from: &str, to: &str) {
    let start = after.map_or(0, |a| text.find(a).expect("anchor") + a.len());
    let at = start + text[start..].find(from).expect("text to move");
    text.replace_range(at..at + from.len(), to);
}

/// The lock names of each potential deadlock in one version's JSON (the
/// names lock order compares versions by).
fn cycles(doc: &Value, key: &str) -> Vec<Vec<String>> {
    doc["lock_order"][key]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            c["locks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn pigz_lock_inversion_introduced_by_moving_two_possess_calls_is_a_new_cycle() {
    let Some(corpus) = corpus("corpus_locks") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path();
    let bundle = corpus.join("pigz-2007-2018.bundle");
    checkout_bundle(&bundle, "9ef658b", src);
    build(src, "old.bc");
    // The inversion (reasoning, pigz.c at 9ef658b):
    // - compress_thread takes a job holding `compress_have` and releases it
    //   with `twist(compress_have, BY, -1)`; later it takes `write_first`
    //   to queue the job for the writer. Moving that `possess(write_first)`
    //   up, before the twist, makes it take write_first while holding
    //   compress_have.
    // - write_thread's final check takes `compress_have`, releases it, then
    //   takes `write_first`. Moving `possess(write_first)` up, before
    //   `possess(compress_have)`, makes it take compress_have while holding
    //   write_first.
    // compress_have -> write_first in the compress threads and write_first
    // -> compress_have in the write thread: an AB-BA cycle between
    // distinct threads, with no lock held around both. Both locks are made
    // by `new_lock()` in setup_jobs (pigz.c:1135 compress_have, 1138
    // write_first). Each global is assigned only that lock (and NULL, line
    // 1186), and no other global or heap location keeps a pointer to it,
    // so each lock is named through its global: `compress_have->mutex`,
    // `write_first->mutex` (names with no line in them, the same in both
    // versions). Nothing else about lock order changes; the cycle the
    // old version already has (pool->have and a space's use lock, in
    // get_space and drop_space: a false one, as a space on the free list is
    // held by nobody) is in both.
    let path = src.join("pigz.c");
    let mut text = std::fs::read_to_string(&path).unwrap();
    edit(
        &mut text,
        None,
        "        twist(compress_have, BY, -1);\n",
        "        possess(write_first);\n        twist(compress_have, BY, -1);\n",
    );
    edit(
        &mut text,
        Some("        possess(write_first);\n        twist(compress_have, BY, -1);\n"),
        "        possess(write_first);\n",
        "",
    );
    edit(
        &mut text,
        None,
        "    possess(compress_have);\n    assert(compress_head == NULL",
        "    possess(write_first);\n    possess(compress_have);\n    assert(compress_head == NULL",
    );
    edit(
        &mut text,
        Some("    release(compress_have);\n"),
        "    possess(write_first);\n",
        "",
    );
    std::fs::write(&path, text).unwrap();
    build(src, "new.bc");

    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["-q", "diff", "--max-rank", "1", "--format", "json"])
        .arg(src.join("old.bc"))
        .arg(src.join("new.bc"))
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    assert_eq!(o.status.code(), Some(1), "{}", doc["lock_order"]);
    let (old, new) = (cycles(&doc, "old_deadlocks"), cycles(&doc, "new_deadlocks"));
    let names = |c: &Vec<String>| c.join(" ");
    let inversion = |c: &Vec<String>| {
        let n = names(c);
        n.contains("compress_have->mutex") && n.contains("write_first->mutex")
    };
    assert!(!old.iter().any(inversion), "{old:?}");
    assert_eq!(new.iter().filter(|c| inversion(c)).count(), 1, "{new:?}");
    // the other cycle is the same one in both versions
    let others = |cs: &[Vec<String>]| -> Vec<String> {
        cs.iter().filter(|c| !inversion(c)).map(names).collect()
    };
    assert_eq!(others(&old), others(&new));
    assert!(
        others(&old)
            .iter()
            .any(|c| c.contains("pool->have") && c.contains("space->use->mutex")),
        "{old:?}"
    );
}
