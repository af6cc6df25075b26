//! The real rule set (rules/input.dl order.dl hb.dl hb_out.dl hb_may.dl rf.dl rf_may.dl rank2.dl rank2_store.dl rank2_may.dl rank3.dl rank3_may.dl), compiled
//! to ascent and crepe: both engines must agree, and give the answers the
//! EC-Diff paper gives on its small examples.

mod asc {
    include!("generated/concord_ascent.rs");
}
include!("generated/concord_crepe.rs");

const X: u32 = 0; // shared location x
const A: u32 = 1; // shared location a
const COND: u32 = 2; // flag
const MUTEX: u32 = 100;

/// A straight-line thread: every statement runs, in order; program order
/// (each statement its own component, numbered like the statement, each
/// the next one's step and dominator parent) and postdom between every
/// ordered pair. The thread is one chain of its component DAG and one
/// path of its dominator tree, both named by its first statement.
fn straight(i: &mut asc::Input, thread: u32, stmts: &[u32]) {
    let head = stmts[0];
    for (k, &s) in stmts.iter().enumerate() {
        let k = k as u32;
        i.stmt_thread.push((s, thread));
        i.thread_always.push((s,));
        i.po_scc.push((s, s));
        i.po_chain.push((s, head, k));
        i.dom_path.push((s, head, k));
        if k > 0 {
            i.po_chain_before.push((s, head, k - 1));
            i.dom_path_above.push((s, head, k - 1));
        }
        let k = k as usize;
        for &t in &stmts[k + 1..] {
            i.postdom.push((s, t));
        }
        if k + 1 < stmts.len() {
            i.po_next.push((s, stmts[k + 1]));
            i.po_scc_next.push((s, stmts[k + 1]));
            i.dom_parent.push((s, stmts[k + 1]));
        }
    }
}

/// `dom_near_store` as extraction derives it: for each shared access, the
/// nearest store to its location above it in the `dom_parent` tree; and
/// `store_strong` / `load_one` for the accesses of one location (these
/// programs' locations are scalars, each one cell).
fn near_stores(i: &mut asc::Input) {
    let one = |rows: &[(u32, u32)]| -> Vec<(u32, u32)> {
        rows.iter()
            .copied()
            .filter(|&(s, _)| rows.iter().filter(|r| r.0 == s).count() == 1)
            .collect()
    };
    i.store_strong = one(&i.shared_write);
    i.load_one = one(&i.shared_read);
    let parent: std::collections::HashMap<u32, u32> =
        i.dom_parent.iter().map(|&(p, c)| (c, p)).collect();
    let accesses: Vec<(u32, u32)> = i
        .shared_read
        .iter()
        .chain(&i.shared_write)
        .copied()
        .collect();
    for (s, v) in accesses {
        let mut at = parent.get(&s);
        while let Some(&p) = at {
            if i.shared_write.contains(&(p, v)) {
                if !i.dom_near_store.contains(&(s, v, p)) {
                    i.dom_near_store.push((s, v, p));
                }
                break;
            }
            at = parent.get(&p);
        }
    }
}

/// Critical section of `MUTEX` opened by `lock` around `body`.
fn critical(i: &mut asc::Input, lock: u32, unlock: u32, body: &[u32]) {
    i.mutex_lock.push((lock, MUTEX));
    i.mutex_unlock.push((unlock, MUTEX));
    for &s in body {
        i.in_critical_section.push((s, MUTEX, lock));
        for &t in body {
            if s != t {
                i.same_critical_section.push((s, t, MUTEX));
            }
        }
    }
}

fn to_crepe(i: &asc::Input) -> concord_crepe::Input {
    let mut c = concord_crepe::Input::default();
    for (name, _) in asc::INPUT_RELATIONS {
        for row in i.rows(name).unwrap() {
            c.push_row(name, &row).unwrap();
        }
    }
    assert_eq!(format!("{i:?}"), format!("{c:?}"));
    c
}

/// Runs both engines, checks they agree on every output, returns ascent's.
fn run_both(i: &asc::Input) -> asc::Output {
    let a = asc::run(i);
    let c = concord_crepe::run(&to_crepe(i));
    for (name, _) in asc::OUTPUT_RELATIONS {
        assert_eq!(a.rows(name), c.rows(name), "engines disagree on {name}");
    }
    a
}

/// EC-Diff Fig. 9: main writes x (10), creates thread 1 (11), then reads x
/// (13) inside lock/unlock (12, 14) when `main_locks`; thread 1 locks (20),
/// reads x (21), writes x (22), unlocks (23). Statement 1 is x's initial value.
fn fig9(main_locks: bool) -> asc::Input {
    let mut i = asc::Input::default();
    straight(&mut i, 0, &[1, 10, 11, 12, 13, 14]);
    straight(&mut i, 1, &[20, 21, 22, 23]);
    i.shared_write.extend([(1, X), (10, X), (22, X)]);
    i.shared_read.extend([(13, X), (21, X)]);
    i.thread_create.push((11, 0, 1));
    critical(&mut i, 20, 23, &[21, 22]);
    if main_locks {
        critical(&mut i, 12, 14, &[13]);
        for s in [21, 22] {
            i.diff_critical_section.push((13, s, MUTEX));
            i.diff_critical_section.push((s, 13, MUTEX));
        }
    }
    near_stores(&mut i);
    i
}

#[test]
fn fig9_rank1_edges_are_equal_rank2_differs() {
    let a = run_both(&fig9(true));
    let b = run_both(&fig9(false));
    // the initial value is always overwritten by x = 1 before thread 1 starts
    assert!(a.rf_no.contains(&(1, 13)) && a.rf_no.contains(&(1, 21)));
    assert_eq!(a.rf_may, vec![(10, 13), (10, 21), (22, 13)]);
    assert_eq!(a.rf_may, b.rf_may, "no rank-1 difference (paper Fig. 10)");
    // RF(L1,L4) then RF(L1,L2) is impossible with the lock, possible without
    assert!(a.rank2_no.contains(&(10, 21, 10, 13)));
    assert!(!a.rank2_may.contains(&(10, 21, 10, 13)));
    assert!(a.rank2_may.contains(&(10, 13, 10, 21)));
    assert!(b.rank2_may.contains(&(10, 21, 10, 13)));
    // x = 2 (22) then read by main (13) cannot come before thread 1 reads x (21)
    assert!(a.rank2_no.contains(&(22, 13, 10, 21)));
    assert_eq!(a.rank2_may, vec![(10, 13, 10, 21), (10, 21, 22, 13)]);
    assert!(a.rank3_may.is_empty());
}

/// EC-Diff Fig. 5 (ad hoc synchronisation): thread 1 writes a (30) then
/// sets cond (31); thread 2 spins reading cond (40) and then reads a (41).
#[test]
fn fig5_busy_wait_orders_the_flag_write() {
    let mut i = asc::Input::default();
    straight(&mut i, 0, &[1, 2, 3, 4]);
    straight(&mut i, 1, &[30, 31]);
    straight(&mut i, 2, &[40, 41]);
    i.po_scc_cyclic.push((40,)); // the spin loop
    i.shared_write
        .extend([(1, A), (2, COND), (30, A), (31, COND)]);
    i.shared_read.extend([(40, COND), (41, A)]);
    i.thread_create.extend([(3, 0, 1), (4, 0, 2)]);
    i.busy_wait.push((40, COND, 41));
    // the code after the loop (region 41) runs once the load 40 read a
    // true cond: only 31 stores one (the initial value, statement 2, is false)
    i.flag_guard.push((41, 40, 41));
    i.flag_enabler.push((41, 31));
    near_stores(&mut i);
    let o = run_both(&i);
    assert!(o.hb_must.contains(&(31, 41)) && o.hb_must.contains(&(30, 41)));
    assert!(o.rf_no.contains(&(1, 41)), "initial a cannot reach x = a");
    assert_eq!(
        o.rf_may.iter().filter(|e| e.1 == 41).collect::<Vec<_>>(),
        vec![&(30, 41)]
    );
    assert!(o.rf_may.contains(&(2, 40)) && o.rf_may.contains(&(31, 40)));
    assert!(!o.hb_may.contains(&(41, 30)));
}

/// A store in a branch does not hide an earlier store (generic NoRf needs
/// the intervening store to surely run).
#[test]
fn conditional_store_does_not_kill() {
    let mut i = asc::Input::default();
    // 1: x = 0 (init); 10: x = 1; 11: if (c) x = 2; 12: read x
    straight(&mut i, 0, &[1, 10, 12]);
    i.stmt_thread.push((11, 0));
    i.po_scc.push((11, 11));
    i.po_scc_next.extend([(10, 11), (11, 12)]);
    i.dom_parent.push((10, 11));
    // the branch is a chain and a dominator-tree path of its own: chain 1
    // reaches it up to 10 (position 1), and it reaches 12
    i.po_chain.push((11, 11, 0));
    i.po_chain_before.extend([(11, 1, 1), (12, 11, 0)]);
    i.dom_path.push((11, 11, 0));
    i.dom_path_above.push((11, 1, 1));
    i.shared_write.extend([(1, X), (10, X), (11, X)]);
    i.shared_read.push((12, X));
    near_stores(&mut i);
    let o = run_both(&i);
    assert!(o.rf_no.contains(&(1, 12)));
    assert!(o.rf_may.contains(&(10, 12)) && o.rf_may.contains(&(11, 12)));
}

/// Parses Z3's `:print-answer` output: the bit-vector constants of each
/// answer in order, chunked by arity; `unsat` is the empty relation.
fn z3_rows(answer: &str, arity: usize) -> Vec<Vec<u32>> {
    let vals: Vec<u32> = answer
        .split("#x")
        .skip(1)
        .map(|t| u32::from_str_radix(&t[..8], 16).unwrap())
        .collect();
    let mut rows: Vec<Vec<u32>> = vals.chunks(arity).map(|c| c.to_vec()).collect();
    rows.sort();
    rows.dedup();
    rows
}

/// Third engine: the Z3 script gives the same rank-1 and rank-2 answers.
#[test]
fn z3_agrees_on_fig9_when_installed() {
    if std::process::Command::new("z3")
        .arg("-version")
        .output()
        .is_err()
    {
        eprintln!("z3 not installed; skipping");
        return;
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/");
    let mut files: Vec<String> =
        vec![concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/concord_input.dl").to_string()];
    files.extend(
        [
            "order.dl",
            "hb.dl",
            "hb_out.dl",
            "hb_may.dl",
            "rf.dl",
            "rf_may.dl",
            "rank2.dl",
            "rank2_store.dl",
            "rank2_may.dl",
        ]
        .iter()
        .map(|f| format!("{root}{f}")),
    );
    let p = concord_rulec::compile_files(&files).unwrap();
    for locked in [true, false] {
        let i = fig9(locked);
        let o = run_both(&i);
        let mut facts = String::new();
        for (name, _) in asc::INPUT_RELATIONS {
            facts.push_str(&concord_rulec::z3_facts(name, &i.rows(name).unwrap()));
        }
        let mut script = concord_rulec::to_z3_fixedpoint(&p) + &facts;
        let queried = [
            "hb_must",
            "hb_may",
            "rf_no",
            "rf_may",
            "rank2_no",
            "rank2_may",
        ];
        for q in queried {
            script.push_str(&format!("(query {q} :print-answer true)\n"));
        }
        let path =
            std::env::temp_dir().join(format!("rulec-fig9-{}-{locked}.smt2", std::process::id()));
        std::fs::write(&path, &script).unwrap();
        let out = std::process::Command::new("z3")
            .arg("-smt2")
            .arg(&path)
            .output()
            .unwrap();
        std::fs::remove_file(&path).ok();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(!text.contains("error"), "{text}");
        // split the answers at each sat/unsat line
        let mut answers: Vec<String> = Vec::new();
        for line in text.lines() {
            if line == "sat" || line == "unsat" {
                answers.push(String::new());
            }
            if line != "sat" {
                answers.last_mut().unwrap().push_str(line);
            }
        }
        assert_eq!(answers.len(), queried.len(), "{text}");
        for (q, ans) in queried.iter().zip(&answers) {
            let arity = asc::OUTPUT_RELATIONS.iter().find(|r| r.0 == *q).unwrap().1;
            let z = if ans.starts_with("unsat") {
                vec![]
            } else {
                z3_rows(ans, arity)
            };
            assert_eq!(Some(z), o.rows(q), "z3 disagrees on {q} (locked: {locked})");
        }
    }
}

/// Random (not necessarily meaningful) facts over a tiny id domain: the two
/// engines must agree on every output relation.
#[test]
fn engines_agree_on_random_facts() {
    let mut seed: u64 = 0x5eed;
    let mut next = |n: u32| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % n as u64) as u32
    };
    let mut nonempty = std::collections::BTreeSet::new();
    for round in 0..25 {
        let mut i = asc::Input::default();
        let dom = 6 + next(4);
        for (name, arity) in asc::INPUT_RELATIONS {
            // thread ids, mutexes, locations are small; statements range over dom
            if *name == "po_scc" {
                continue; // below: one component per statement
            }
            if matches!(
                *name,
                "sync_dropped"
                    | "access_no_target"
                    | "library_memory"
                    | "join_unmatched"
                    | "thread_bound"
                    | "call_cut"
                    | "thread_end_call"
                    | "callback_escape"
                    | "sync_unmodelled"
            ) {
                continue; // coverage bookkeeping: no rule reads it
            }
            let rows = next(3 * dom);
            for _ in 0..rows {
                let row: Vec<u32> = (0..*arity).map(|_| next(dom)).collect();
                i.push_row(name, &row).unwrap();
            }
        }
        for s in 0..dom {
            i.stmt_thread.push((s, next(3)));
            // each statement its own component: the random po_scc_next
            // rows are then random program-order steps
            i.po_scc.push((s, s));
        }
        let a = asc::run(&i);
        let c = concord_crepe::run(&to_crepe(&i));
        for (name, _) in asc::OUTPUT_RELATIONS {
            assert_eq!(
                a.rows(name),
                c.rows(name),
                "round {round}: engines disagree on {name}"
            );
            if !a.rows(name).unwrap().is_empty() {
                nonempty.insert(*name);
            }
        }
    }
    // the random facts exercise the rules, not just empty relations
    for r in [
        "hb_must",
        "hb_may",
        "rf_no",
        "rf_may",
        "rank2_no",
        "rank2_may",
        "rank3_may",
    ] {
        assert!(
            nonempty.contains(r),
            "{r} always empty; nonempty: {nonempty:?}"
        );
    }
}

#[test]
fn souffle_print_of_the_rules_reparses() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/");
    let mut files: Vec<String> =
        vec![concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/concord_input.dl").to_string()];
    files.extend(
        [
            "order.dl",
            "hb.dl",
            "hb_out.dl",
            "hb_may.dl",
            "rf.dl",
            "rf_may.dl",
            "rank2.dl",
            "rank2_store.dl",
            "rank2_may.dl",
            "rank3.dl",
            "rank3_may.dl",
        ]
        .iter()
        .map(|f| format!("{root}{f}")),
    );
    let p = concord_rulec::compile_files(&files).unwrap();
    let text = concord_rulec::to_souffle(&p);
    let q = concord_rulec::compile_sources(&[("printed.dl", text.as_str())])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(q.program.rules.len(), p.program.rules.len());
    assert_eq!(q.strata.len(), p.strata.len());
    assert!(text.contains(".input stmt_thread\n") && text.contains(".output rank3_may\n"));
}

/// A larger structured program (3 threads of 12 straight-line statements over
/// 3 locations, one thread locking): both engines finish and agree. (Rank 3
/// is cubic in the read-from edges: keep this small in debug builds.)
#[test]
fn engines_agree_on_a_structured_program() {
    let mut i = asc::Input::default();
    let mut main = vec![1000, 1001, 1002]; // initial values of locations 0..3
    for (k, s) in main.iter().enumerate() {
        i.shared_write.push((*s, k as u32));
    }
    for t in 1..=3u32 {
        main.push(2000 + t);
        i.thread_create.push((2000 + t, 0, t));
    }
    for t in 1..=3u32 {
        main.push(3000 + t);
        i.thread_join.push((3000 + t, 0, t));
    }
    main.push(4000);
    i.shared_read.push((4000, 0));
    straight(&mut i, 0, &main);
    let mut seed = 11u64;
    let mut next = |n: u32| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % n as u64) as u32
    };
    for t in 1..=3u32 {
        let base = t * 100;
        let stmts: Vec<u32> = (base..base + 12).collect();
        straight(&mut i, t, &stmts);
        for &s in &stmts[1..11] {
            if next(2) == 0 {
                i.shared_read.push((s, next(3)));
            } else {
                i.shared_write.push((s, next(3)));
            }
        }
        if t % 2 == 0 {
            critical(&mut i, stmts[0], stmts[11], &stmts[1..11]);
        }
    }
    let start = std::time::Instant::now();
    let a = run_both(&i);
    eprintln!(
        "both engines: {:?}; rf_may {}, rank2_may {}, rank3_may {}",
        start.elapsed(),
        a.rf_may.len(),
        a.rank2_may.len(),
        a.rank3_may.len()
    );
    assert!(!a.rank2_may.is_empty());
}
