//! The coverage account and the honest verdict (issue 26): every answer
//! says what the model left out, and a comparison whose changed code was
//! not analysed exits 10, never 0. The expected results come from the
//! cases' READMEs under `coverage-programs/`.

mod common;
use common::*;
use serde_json::Value;
use std::process::{Command, Output};

fn concord(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .unwrap()
}

fn case(name: &str) -> (String, String) {
    (
        format!("coverage-programs/{name}/v1.c"),
        format!("coverage-programs/{name}/v2.c"),
    )
}

fn json_of(command: &str, name: &str) -> (i32, Value) {
    let (v1, v2) = case(name);
    let o = concord(&["-q", command, "--format", "json", &v1, &v2]);
    let doc = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{command} {name}: {e}: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code().unwrap(), doc)
}

/// The count of a gap kind in one version's account of a JSON document.
fn gap_count(doc: &Value, side: &str, kind: &str) -> u64 {
    doc["coverage"]["versions"][side]["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["kind"] == kind)
        .map_or(0, |g| g["count"].as_u64().unwrap())
}

fn unseen(doc: &Value) -> Vec<(String, u64, String)> {
    doc["coverage"]["unseen_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let file = u["file"].as_str().unwrap();
            let file = file.rsplit('/').next().unwrap().to_string();
            (
                file,
                u["line"].as_u64().unwrap(),
                u["why"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_per_object_lock_through_the_accessing_pointer_sees_the_moved_access() {
    // the lock, unlock and increment go through the same `l`: correlated
    let (code, doc) = json_of("changes", "per-object-lock");
    assert_eq!(code, 1);
    assert!(unseen(&doc).is_empty(), "{doc}");
    assert_eq!(doc["coverage"]["complete"], true);
    for side in ["old", "new"] {
        assert_eq!(gap_count(&doc, side, "sync_ambiguous"), 0, "{side}");
    }
    let (code, doc) = json_of("diff", "per-object-lock");
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["first_rank"], 2, "{doc}");
    assert!(unseen(&doc).is_empty(), "{doc}");
    let (code, _) = json_of("impact", "per-object-lock");
    assert_eq!(code, 1);
}

#[test]
fn a_patch_moving_a_signal_on_a_per_object_condvar_is_inconclusive() {
    // the mutex is correlated; the condition variable is not
    let expected = vec![
        ("v1.c".to_string(), 17, "sync_dropped".to_string()),
        ("v2.c".to_string(), 16, "sync_dropped".to_string()),
    ];
    for (command, exit) in [("changes", 1), ("diff", 10), ("impact", 1)] {
        let (code, doc) = json_of(command, "per-object-condvar");
        assert_eq!(code, exit, "{command}");
        assert_eq!(unseen(&doc), expected, "{command}");
        for side in ["old", "new"] {
            assert_eq!(
                gap_count(&doc, side, "sync_ambiguous"),
                1,
                "{command} {side}"
            );
        }
    }
}

#[test]
fn a_patch_in_a_function_no_thread_reaches_is_inconclusive() {
    let expected = vec![("v1.c".to_string(), 9, "unreached_code".to_string())];
    for command in ["changes", "diff"] {
        let (code, doc) = json_of(command, "unreached-function");
        assert_eq!(code, 10, "{command}");
        assert_eq!(unseen(&doc), expected, "{command}");
        for side in ["old", "new"] {
            assert_eq!(gap_count(&doc, side, "unreached_function"), 1);
        }
    }
    // the text says so in words, after the report
    let (v1, v2) = case("unreached-function");
    let o = concord(&["-q", "changes", &v1, &v2]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("inconclusive: 1 changed place(s) not analysed")
            && text.contains("(old, in on_reload): in a function no thread reaches"),
        "{text}"
    );
}

#[test]
fn the_same_program_twice_is_clean_and_complete() {
    let (v1, _) = case("unreached-function");
    let (code, doc) = {
        let o = concord(&["-q", "diff", "--format", "json", &v1, &v1]);
        (
            o.status.code().unwrap(),
            serde_json::from_slice::<Value>(&o.stdout).unwrap(),
        )
    };
    // nothing changed, so nothing changed was unseen: the gap is counted
    // but does not make the answer inconclusive
    assert_eq!(code, 0);
    assert!(unseen(&doc).is_empty());
    assert_eq!(gap_count(&doc, "old", "unreached_function"), 1);
}

#[test]
fn sarif_carries_the_unseen_changes_as_warnings() {
    let (v1, v2) = case("unreached-function");
    let o = concord(&["-q", "diff", "--format", "sarif", &v1, &v2]);
    assert_eq!(o.status.code(), Some(10));
    let log: Value = serde_json::from_slice(&o.stdout).unwrap();
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .expect("notifications");
    assert!(notes
        .iter()
        .any(|n| n["level"] == "warning"
            && n["message"]["text"].as_str().unwrap().contains("on_reload")));
    assert!(notes.iter().any(|n| n["level"] == "note"
        && n["message"]["text"]
            .as_str()
            .unwrap()
            .contains("functions no thread reaches")));
}

#[test]
fn the_fact_directory_holds_the_account() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f");
    let (v1, _) = case("unreached-function");
    let o = concord(&["facts", &v1, "-o", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("1 functions no thread reaches"), "{stderr}");
    let unreached = std::fs::read_to_string(out.join("unreached.tsv")).unwrap();
    assert!(
        unreached.lines().nth(1).unwrap().starts_with("on_reload\t"),
        "{unreached}"
    );
    let account: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("coverage.json")).unwrap()).unwrap();
    assert_eq!(account["gaps"][0]["kind"], "unreached_function");
    assert_eq!(account["gaps"][0]["first"][0]["function"], "on_reload");
    // and it reads back: a fact directory compared with itself is complete
    let o = concord(&[
        "-q",
        "changes",
        out.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
}

/// The lock-order part of a `diff --format json` document: pairs only in
/// old and new, and the lock sets of each version's potential deadlocks.
fn lock_order(name: &str) -> (i32, Value) {
    let (code, doc) = json_of("diff", name);
    (code, doc["lock_order"].clone())
}

#[test]
fn lock_wrappers_keep_their_lock_and_an_inversion_through_them_is_a_cycle() {
    let (code, l) = lock_order("lock-wrappers-inversion");
    assert_eq!(code, 1);
    assert_eq!(l["only_in_new"].as_array().unwrap().len(), 0, "{l}");
    assert_eq!(l["only_in_old"].as_array().unwrap().len(), 1, "{l}");
    assert_eq!(l["old_deadlocks"].as_array().unwrap().len(), 1, "{l}");
    assert_eq!(l["new_deadlocks"].as_array().unwrap().len(), 0, "{l}");
    // the two locks are two objects: the cycle has both
    let locks = l["old_deadlocks"][0]["locks"].as_array().unwrap();
    assert_eq!(locks.len(), 2);
    assert_ne!(locks[0], locks[1]);
    // and no lock call was dropped on the way through the wrappers
    let (_, doc) = json_of("diff", "lock-wrappers-inversion");
    assert_eq!(doc["coverage"]["complete"], true, "{}", doc["coverage"]);
}

#[test]
fn a_patch_that_only_shifts_allocation_lines_changes_no_lock_order() {
    let (code, l) = lock_order("lock-names-shift");
    assert_eq!(l["only_in_old"], serde_json::json!([]), "{l}");
    assert_eq!(l["only_in_new"], serde_json::json!([]), "{l}");
    assert_eq!(code, 0);
    // the same one edge in both versions
    assert_eq!(
        l["old_edges"].as_array().unwrap().len(),
        l["new_edges"].as_array().unwrap().len()
    );
    assert!(!l["old_edges"].as_array().unwrap().is_empty());
}

#[test]
fn a_lock_call_through_a_macro_on_an_unknown_mutex_is_counted_not_lost() {
    // issue 27: `MUTEX_LOCK(job->done_mutex)` once produced no fact at all.
    // Here the job comes from a library function (no body), so what its
    // `done_mutex` points to is unknown: the lock and unlock must each be a
    // `sync_dropped` row with 0 targets, counted as `sync_no_target`, and
    // the three accesses through `job` (two loads of `done_mutex`, the
    // store to `done`) as `access_no_target`.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("job.c");
    std::fs::write(
        &src,
        "#include <pthread.h>\n\
         #include <stdlib.h>\n\
         struct job { pthread_mutex_t *done_mutex; int done; };\n\
         extern struct job *next_job(void);\n\
         #define MUTEX_LOCK(m) do { if (pthread_mutex_lock(m)) abort(); } while (0)\n\
         #define MUTEX_UNLOCK(m) do { if (pthread_mutex_unlock(m)) abort(); } while (0)\n\
         void *worker(void *a) {\n\
             struct job *job = next_job();\n\
             MUTEX_LOCK(job->done_mutex);\n\
             job->done = 1;\n\
             MUTEX_UNLOCK(job->done_mutex);\n\
             return a;\n\
         }\n\
         int main(void) { pthread_t t; pthread_create(&t, 0, worker, 0); pthread_join(t, 0); return 0; }\n",
    )
    .unwrap();
    let out = dir.path().join("f");
    let o = concord(&["facts", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let account: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("coverage.json")).unwrap()).unwrap();
    let count = |kind: &str| {
        account["gaps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["kind"] == kind)
            .map_or(0, |g| g["count"].as_u64().unwrap())
    };
    assert_eq!(count("sync_no_target"), 2, "{account}");
    assert_eq!(count("access_no_target"), 3, "{account}");
    let dropped = std::fs::read_to_string(out.join("sync_dropped.facts")).unwrap();
    assert_eq!(dropped.lines().count(), 2, "{dropped}");
    assert!(dropped.lines().all(|l| l.ends_with("\t0")), "{dropped}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("2 lock/condition calls on an unknown object"),
        "{stderr}"
    );
}
