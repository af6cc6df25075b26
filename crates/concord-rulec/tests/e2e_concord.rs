//! The real rule set (rules/input.dl hb.dl rf.dl rank2.dl rank3.dl), compiled
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

/// Straight-line thread: po, dom and postdom between every ordered pair.
fn straight(i: &mut asc::Input, thread: u32, stmts: &[u32]) {
    for (k, &s) in stmts.iter().enumerate() {
        i.stmt_thread.push((s, thread));
        for &t in &stmts[k + 1..] {
            i.po.push((s, t));
            i.dom.push((s, t));
            i.postdom.push((s, t));
        }
        if k + 1 < stmts.len() {
            i.po_next.push((s, stmts[k + 1]));
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
        let rows = match *name {
            "stmt_thread" => &i.stmt_thread,
            "po" => &i.po,
            "po_next" => &i.po_next,
            "dom" => &i.dom,
            "postdom" => &i.postdom,
            "mutex_lock" => &i.mutex_lock,
            "mutex_unlock" => &i.mutex_unlock,
            "shared_read" => &i.shared_read,
            "shared_write" => &i.shared_write,
            _ => continue,
        };
        for &(a, b) in rows {
            c.push_row(name, &[a, b]).unwrap();
        }
    }
    c.thread_create = i.thread_create.clone();
    c.thread_join = i.thread_join.clone();
    c.busy_wait = i.busy_wait.clone();
    c.in_critical_section = i.in_critical_section.clone();
    c.same_critical_section = i.same_critical_section.clone();
    c.diff_critical_section = i.diff_critical_section.clone();
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
    i.po.push((40, 40)); // the spin loop
    i.shared_write.extend([(1, A), (2, COND), (30, A), (31, COND)]);
    i.shared_read.extend([(40, COND), (41, A)]);
    i.thread_create.extend([(3, 0, 1), (4, 0, 2)]);
    i.busy_wait.push((40, COND, 41));
    let o = run_both(&i);
    assert!(o.hb_must.contains(&(31, 41)) && o.hb_must.contains(&(30, 41)));
    assert!(o.rf_no.contains(&(1, 41)), "initial a cannot reach x = a");
    assert_eq!(o.rf_may.iter().filter(|e| e.1 == 41).collect::<Vec<_>>(), vec![&(30, 41)]);
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
    i.po.extend([(1, 11), (10, 11), (11, 12)]);
    i.dom.extend([(1, 11), (10, 11)]);
    i.shared_write.extend([(1, X), (10, X), (11, X)]);
    i.shared_read.push((12, X));
    let o = run_both(&i);
    assert!(o.rf_no.contains(&(1, 12)));
    assert!(o.rf_may.contains(&(10, 12)) && o.rf_may.contains(&(11, 12)));
}
