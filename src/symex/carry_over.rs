//! The carry-over of a fix (`symex OLD NEW` when OLD has a violation and
//! its test cases do not replay on NEW): decide that NEW has none of OLD's
//! violations without exploring NEW.
//!
//! Two parts, each with its argument in docs/symex.md ("Carry-over of a
//! fix"):
//!
//! * [`restricting_change`]: the patch only *restricts* OLD's schedules
//!   (added critical sections that cannot block for ever, a statement
//!   moved before a thread start or after a join), so every execution of
//!   NEW, with the added lock and unlock events left out, is an execution
//!   of OLD with the same read-from relation.
//! * [`Exclusions`]: a violating class of OLD (a path of a complete `dpor`
//!   exploration, with the read-from edges its reads realised) cannot be
//!   an execution of NEW when it realises a read-from tuple the
//!   synchronisation diff found only in OLD (NEW's rules exclude it).

use super::engine::{RfWriter, ViolatingClass};
use super::incremental::{self, VersionInput};
use super::slice::InstrId;
use crate::analysis::diff::RfTuple;
use crate::calls::Role;
use crate::facts::{FactSet, StatementInfo};
use crate::versions::{ChangeKind, VersionMatch};
use llvm_ir::instruction::Call;
use llvm_ir::{Constant, Instruction, Module, Operand};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The callee of a direct call.
fn callee(c: &Call) -> Option<&str> {
    crate::ir::callee_name(c)
}

/// The global a constant operand names (`@m`), if it is one.
fn global_operand(o: &Operand) -> Option<String> {
    match o {
        Operand::ConstantOperand(k) => match k.as_ref() {
            Constant::GlobalReference { name, .. } => Some(crate::ir::plain_name(name)),
            _ => None,
        },
        _ => None,
    }
}

/// The callee named in a statement's text (`call ... @name(`).
fn text_callee(text: &str) -> Option<&str> {
    text.split('@').nth(1)?.split(['(', ' ', ',']).next()
}

/// The globals a statement's text names (`@x`), without call targets.
fn text_globals(text: &str) -> BTreeSet<String> {
    text.split('@')
        .skip(1)
        .filter_map(|t| {
            let name: String = t
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            (!name.is_empty() && !t[name.len()..].starts_with('(')).then_some(name)
        })
        .collect()
}

fn instr_at(m: &Module, (f, b, i): InstrId) -> Option<&Instruction> {
    m.functions.get(f)?.basic_blocks.get(b)?.instrs.get(i)
}

fn call_at(m: &Module, at: InstrId) -> Option<&Call> {
    match instr_at(m, at)? {
        Instruction::Call(c) => Some(c),
        _ => None,
    }
}

/// Calls that take a mutex: the lock calls, and waits (their second
/// argument).
fn mutex_arguments(c: &Call) -> Vec<&Operand> {
    let Some(name) = callee(c) else {
        return Vec::new();
    };
    match crate::calls::role(name) {
        Role::MutexLock | Role::MutexUnlock | Role::MutexTrylock => {
            c.arguments.first().map(|a| &a.0).into_iter().collect()
        }
        Role::CondWait => c.arguments.get(1).map(|a| &a.0).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Why a patch restricts OLD's schedules only (one line per change kind),
/// or why it cannot be shown to.
///
/// Allowed changes, and nothing else (no statement deleted or modified):
///
/// * **added critical sections**: an added `pthread_mutex_lock(&m)` and
///   an added `pthread_mutex_unlock(&m)` later in the same basic block,
///   with no call between them (debug intrinsics aside), on a global
///   mutex `m` that no other call of NEW takes, every other mutex call of
///   NEW naming its mutex as a global (no aliasing through pointers);
/// * **restricting moves**: within a block, a load or store of one
///   global and a `pthread_create` (handle in a local) swapped so that the
///   access now comes first, or a `pthread_join` (null result pointer)
///   and such an access swapped so that the join now comes first; the
///   call not naming the global. The moved statement may be either.
pub fn restricting_change(
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
    matching: &VersionMatch,
) -> Result<Vec<String>, String> {
    let new_instrs = incremental::instrs_of_statements(new.module, new.facts);
    let mut added_locks: BTreeSet<InstrId> = BTreeSet::new();
    let mut added_unlocks: BTreeSet<InstrId> = BTreeSet::new();
    let mut moves = 0usize;
    for c in &matching.changes {
        match (c.kind, c.old, c.new) {
            (ChangeKind::Added, _, Some(n)) => {
                let s = new
                    .facts
                    .statement(n)
                    .ok_or("an added statement not in NEW")?;
                let role = (s.kind == "call")
                    .then(|| text_callee(&s.text))
                    .flatten()
                    .map(crate::calls::role);
                let set = match role {
                    Some(Role::MutexLock) => &mut added_locks,
                    Some(Role::MutexUnlock) => &mut added_unlocks,
                    _ => {
                        return Err(format!(
                            "statement added at {}: not a lock or unlock call",
                            s.location()
                        ))
                    }
                };
                let at = new_instrs.get(&n).map(Vec::as_slice).unwrap_or(&[]);
                if at.is_empty() {
                    return Err(format!("added call at {} has no instruction", s.location()));
                }
                set.extend(at.iter().copied());
            }
            (ChangeKind::Moved, Some(o), Some(n)) => {
                restricting_move(old, new, matching, o, n)?;
                moves += 1;
            }
            (k, o, n) => {
                let s = n
                    .and_then(|n| new.facts.statement(n))
                    .or_else(|| o.and_then(|o| old.facts.statement(o)));
                return Err(format!(
                    "a {k:?} statement{}: not a synchronisation-only change",
                    s.map(|s| format!(" at {}", s.location()))
                        .unwrap_or_default()
                ));
            }
        }
    }
    let sections = added_sections(new.module, &added_locks, &added_unlocks)?;
    let mut out = Vec::new();
    if sections > 0 {
        out.push(format!("{sections} added critical sections"));
    }
    if moves > 0 {
        out.push(format!(
            "{moves} restricting moves (a global access now before a thread start or after a join)"
        ));
    }
    if out.is_empty() {
        return Err("no change to carry OLD's classes over".into());
    }
    Ok(out)
}

/// Pair every added lock with an added unlock of the same global mutex
/// later in its block, with no call between; check that no other call
/// takes that mutex and that every mutex call names a global. Returns the
/// number of sections.
fn added_sections(
    m: &Module,
    locks: &BTreeSet<InstrId>,
    unlocks: &BTreeSet<InstrId>,
) -> Result<usize, String> {
    let mut paired: BTreeSet<InstrId> = BTreeSet::new();
    let mut mutexes: BTreeSet<String> = BTreeSet::new();
    for &(f, b, i) in locks {
        let lock = call_at(m, (f, b, i)).ok_or("an added lock that is not a call")?;
        let mutex = lock
            .arguments
            .first()
            .and_then(|a| global_operand(&a.0))
            .ok_or("an added lock of a mutex that is not a global")?;
        let block = &m.functions[f].basic_blocks[b];
        let mut found = None;
        for (k, ins) in block.instrs.iter().enumerate().skip(i + 1) {
            let Instruction::Call(c) = ins else {
                continue;
            };
            let name = callee(c).unwrap_or("");
            if name.starts_with("llvm.dbg.") {
                continue;
            }
            let same = c.arguments.first().and_then(|a| global_operand(&a.0));
            if unlocks.contains(&(f, b, k)) && same.as_deref() == Some(mutex.as_str()) {
                found = Some(k);
                break;
            }
            return Err(format!(
                "a call to {name} inside an added critical section of {mutex}"
            ));
        }
        let k = found.ok_or(format!(
            "an added lock of {mutex} without an added unlock in its block"
        ))?;
        paired.insert((f, b, k));
        mutexes.insert(mutex);
    }
    if let Some(u) = unlocks.difference(&paired).next() {
        return Err(format!(
            "an added unlock without an added lock before it: {u:?}"
        ));
    }
    for (f, fun) in m.functions.iter().enumerate() {
        for (b, blk) in fun.basic_blocks.iter().enumerate() {
            for (i, ins) in blk.instrs.iter().enumerate() {
                let Instruction::Call(c) = ins else {
                    continue;
                };
                if locks.contains(&(f, b, i)) || paired.contains(&(f, b, i)) {
                    continue;
                }
                for a in mutex_arguments(c) {
                    match global_operand(a) {
                        Some(g) if mutexes.contains(&g) => {
                            return Err(format!(
                            "the added critical sections' mutex {g} is also taken by other calls"
                        ))
                        }
                        Some(_) => {}
                        None => {
                            return Err(
                                "a mutex call through a pointer (it may take the added mutex)"
                                    .into(),
                            )
                        }
                    }
                }
            }
        }
    }
    Ok(locks.len())
}

/// The role of a call statement, from its text.
fn stmt_role(t: &StatementInfo) -> Option<Role> {
    (t.kind == "call")
        .then(|| text_callee(&t.text))
        .flatten()
        .map(crate::calls::role)
}

/// The first argument of a call statement, as printed.
fn first_arg(t: &StatementInfo) -> String {
    t.text
        .split_once('(')
        .map(|(_, a)| a.split(',').next().unwrap_or("").trim().to_string())
        .unwrap_or_default()
}

/// Does NEW's order of the data access `data` and the thread call `sync`
/// (`data_first`: `data` comes first in NEW; the other way in OLD) only
/// restrict OLD's schedules?  A load or store of one global now before a
/// `pthread_create` (writing its handle into a local), or now after a
/// `pthread_join` with a null result pointer, the call not naming that
/// global.
fn restricting_pair(data: &StatementInfo, sync: &StatementInfo, data_first: bool) -> bool {
    if !matches!(data.kind.as_str(), "load" | "store") {
        return false;
    }
    let globals = text_globals(&data.text);
    if globals.len() != 1 || !text_globals(&sync.text).is_disjoint(&globals) {
        return false;
    }
    match stmt_role(sync) {
        // the create's handle is a local: no other thread reads it before
        // it is written (assumed, docs/symex.md)
        Some(Role::ThreadCreate) => data_first && !first_arg(sync).contains('@'),
        // a join with a null result pointer writes nothing
        Some(Role::ThreadJoin) => !data_first && sync.text.contains("null)"),
        _ => false,
    }
}

/// Is the move of OLD's statement `o` to NEW's `n` a restricting move (see
/// [`restricting_change`])? Either side of each crossed pair may be the
/// moved one: a store moved before a create, or the create moved after it.
fn restricting_move(
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
    matching: &VersionMatch,
    o: u32,
    n: u32,
) -> Result<(), String> {
    let (so, sn) = match (old.facts.statement(o), new.facts.statement(n)) {
        (Some(a), Some(b)) => (a, b),
        _ => return Err("a moved statement missing from the facts".into()),
    };
    let not = |why: &str| Err(format!("statement moved to {}: {why}", sn.location()));
    let (Some(lo), Some(ln)) = (so.instr, sn.instr) else {
        return not("no instruction");
    };
    // the statements of its block in both versions, through Δmap
    let back: HashMap<u32, u32> = matching.map.iter().map(|(a, b)| (*b, *a)).collect();
    let mut crossed = 0usize;
    for t in new.facts.statements.iter().filter(|t| t.id != n) {
        let Some(tn) = t.instr else { continue };
        if tn.function != ln.function || tn.block != ln.block || t.thread != sn.thread {
            continue;
        }
        let Some(to) = back.get(&t.id).and_then(|x| old.facts.statement(*x)) else {
            continue;
        };
        let Some(tol) = to.instr else { continue };
        if tol.function != lo.function || tol.block != lo.block {
            return not("a statement of its block moved to another block");
        }
        let moved_first = ln.index < tn.index;
        if moved_first == (lo.index < tol.index) {
            continue;
        }
        crossed += 1;
        let ok = restricting_pair(sn, t, moved_first) || restricting_pair(t, sn, !moved_first);
        if !ok {
            return not(&format!(
                "it crossed `{}`: not a global access now before a thread start or after a join",
                t.text
            ));
        }
    }
    if crossed == 0 {
        return not("it crossed no statement of its block");
    }
    Ok(())
}

/// OLD's statements as the violating classes' events name them, and the
/// tuples only in OLD.
pub struct Exclusions<'a> {
    facts: &'a FactSet,
    stmts_of_instr: HashMap<InstrId, Vec<u32>>,
    init_of: HashMap<String, u32>,
    rank1: HashSet<(u32, u32)>,
    rank2: HashSet<((u32, u32), (u32, u32))>,
}

/// Candidate tuples of one class checked at most per pair of reads.
const MAX_CANDIDATES: usize = 4096;
/// Reads of a class whose pairs are checked at most (rank 2 is quadratic
/// in them; a longer class is checked at rank 1 only).
const MAX_PAIR_EVENTS: usize = 512;

/// An edge of a class: the read event's thread, and the writer's thread
/// (`None`: a global's initial value) with the candidate statements.
struct EventStmts {
    reader_tid: usize,
    writer_tid: Option<usize>,
    readers: Vec<u32>,
    writers: Vec<u32>,
}

impl<'a> Exclusions<'a> {
    /// `old_only`: the tuples of rank 1 and 2 the diff found only in OLD
    /// (statement ids of OLD); higher ranks are not used.
    pub fn new(module: &Module, facts: &'a FactSet, old_only: &[RfTuple]) -> Self {
        let mut stmts_of_instr: HashMap<InstrId, Vec<u32>> = HashMap::new();
        for (s, is) in incremental::instrs_of_statements(module, facts) {
            for i in is {
                stmts_of_instr.entry(i).or_default().push(s);
            }
        }
        let init_of = facts
            .statements
            .iter()
            .filter(|s| s.kind == "init")
            .filter_map(|s| {
                let g = s.text.strip_prefix('@')?.split(" = ").next()?;
                Some((g.to_string(), s.id))
            })
            .collect();
        let mut rank1 = HashSet::new();
        let mut rank2 = HashSet::new();
        for t in old_only {
            match t.as_slice() {
                [e] => {
                    rank1.insert(*e);
                }
                [a, b] => {
                    rank2.insert((*a, *b));
                }
                _ => {}
            }
        }
        Exclusions {
            facts,
            stmts_of_instr,
            init_of,
            rank1,
            rank2,
        }
    }

    /// The model threads (fact `threads`) engine thread `tid` of `c` can
    /// be: the entry thread's, or those created at its creation call by
    /// a candidate of its parent.
    fn model_threads(
        &self,
        c: &ViolatingClass,
        tid: usize,
        memo: &mut BTreeMap<usize, BTreeSet<u32>>,
    ) -> BTreeSet<u32> {
        if let Some(s) = memo.get(&tid) {
            return s.clone();
        }
        let out: BTreeSet<u32> = match c.threads.get(tid) {
            None => BTreeSet::new(),
            Some(o) => match (o.parent, o.created_at) {
                (None, _) => self
                    .facts
                    .threads
                    .iter()
                    .filter(|t| t.parent.is_none())
                    .map(|t| t.id)
                    .collect(),
                (Some(p), Some(at)) => {
                    let parents = self.model_threads(c, p, memo);
                    let sites: BTreeSet<u32> = self
                        .stmts_of_instr
                        .get(&at)
                        .into_iter()
                        .flatten()
                        .copied()
                        .collect();
                    self.facts
                        .threads
                        .iter()
                        .filter(|t| {
                            t.parent.is_some_and(|q| parents.contains(&q))
                                && t.create_stmt.is_some_and(|s| sites.contains(&s))
                        })
                        .map(|t| t.id)
                        .collect()
                }
                (Some(_), None) => BTreeSet::new(),
            },
        };
        memo.insert(tid, out.clone());
        out
    }

    /// The statements an event can be, per thread candidates; `None` when
    /// the event is not precise enough to use.
    fn event_stmts(
        &self,
        c: &ViolatingClass,
        k: usize,
        memo: &mut BTreeMap<usize, BTreeSet<u32>>,
    ) -> Option<EventStmts> {
        let e = &c.events[k];
        let reader = e.reader?;
        let of_thread = |at: InstrId, tid: usize, memo: &mut BTreeMap<usize, BTreeSet<u32>>| {
            let threads = self.model_threads(c, tid, memo);
            self.stmts_of_instr
                .get(&at)
                .into_iter()
                .flatten()
                .copied()
                .filter(|s| {
                    self.facts
                        .statement(*s)
                        .is_some_and(|x| threads.contains(&x.thread))
                })
                .collect::<Vec<u32>>()
        };
        let readers = of_thread(reader, e.thread, memo);
        let (writer_tid, writers) = match &e.writer {
            RfWriter::Unknown => return None,
            RfWriter::Init(g) => (None, vec![*self.init_of.get(g)?]),
            RfWriter::At(t, at) => (Some(*t), of_thread(*at, *t, memo)),
        };
        if readers.is_empty() || writers.is_empty() {
            return None;
        }
        Some(EventStmts {
            reader_tid: e.thread,
            writer_tid,
            readers,
            writers,
        })
    }

    /// Every assignment of statements to the events' edges in which each
    /// engine thread is one model thread; `None` past the cap.
    fn candidates(&self, evs: &[&EventStmts]) -> Option<Vec<Vec<(u32, u32)>>> {
        let mut out = Vec::new();
        let mut cur: Vec<(u32, u32)> = Vec::new();
        let mut binding: BTreeMap<usize, u32> = BTreeMap::new();
        self.assign(evs, 0, &mut cur, &mut binding, &mut out);
        (out.len() <= MAX_CANDIDATES).then_some(out)
    }

    fn bind(&self, binding: &mut BTreeMap<usize, u32>, tid: usize, s: u32) -> Option<bool> {
        let th = self.facts.statement(s)?.thread;
        match binding.get(&tid) {
            Some(t) if *t != th => None,
            Some(_) => Some(false),
            None => {
                binding.insert(tid, th);
                Some(true)
            }
        }
    }

    fn assign(
        &self,
        evs: &[&EventStmts],
        k: usize,
        cur: &mut Vec<(u32, u32)>,
        binding: &mut BTreeMap<usize, u32>,
        out: &mut Vec<Vec<(u32, u32)>>,
    ) {
        if out.len() > MAX_CANDIDATES {
            return;
        }
        let Some(e) = evs.get(k) else {
            out.push(cur.clone());
            return;
        };
        for &r in &e.readers {
            let Some(new_r) = self.bind(binding, e.reader_tid, r) else {
                continue;
            };
            for &w in &e.writers {
                let new_w = match e.writer_tid {
                    None => Some(false),
                    Some(t) => self.bind(binding, t, w),
                };
                let Some(new_w) = new_w else { continue };
                cur.push((w, r));
                self.assign(evs, k + 1, cur, binding, out);
                cur.pop();
                if new_w {
                    binding.remove(&e.writer_tid.unwrap_or(usize::MAX));
                }
            }
            if new_r {
                binding.remove(&e.reader_tid);
            }
        }
    }

    /// A tuple of rank ≤ 2 that NEW's rules exclude and that every
    /// execution with this class's reads realises, if any.
    pub fn excluding_tuple(&self, c: &ViolatingClass) -> Option<RfTuple> {
        let mut memo = BTreeMap::new();
        let evs: Vec<Option<EventStmts>> = (0..c.events.len())
            .map(|k| self.event_stmts(c, k, &mut memo))
            .collect();
        // rank 1: every statement the read can be reads along an edge only
        // in OLD
        for e in evs.iter().flatten() {
            let Some(cands) = self.candidates(&[e]) else {
                continue;
            };
            if !cands.is_empty() && cands.iter().all(|t| self.rank1.contains(&t[0])) {
                return Some(cands[0].clone());
            }
        }
        if self.rank2.is_empty() || evs.len() > MAX_PAIR_EVENTS {
            return None;
        }
        // rank 2: two reads, in path order i < j; in one thread that order
        // is program order (NEW keeps it: no data statement changed its
        // place among the others), else both orders must be excluded
        for (i, a) in evs.iter().enumerate() {
            let Some(a) = a else { continue };
            for b in evs.iter().skip(i + 1) {
                let Some(b) = b else { continue };
                let Some(cands) = self.candidates(&[a, b]) else {
                    continue;
                };
                let same_thread = a.reader_tid == b.reader_tid;
                let excluded = |t: &Vec<(u32, u32)>| {
                    let (e1, e2) = (t[0], t[1]);
                    self.rank1.contains(&e1)
                        || self.rank1.contains(&e2)
                        || (self.rank2.contains(&(e1, e2))
                            && (same_thread || self.rank2.contains(&(e2, e1))))
                };
                if !cands.is_empty() && cands.iter().all(excluded) {
                    return Some(cands[0].clone());
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{text_callee, text_globals};

    #[test]
    fn statement_texts_name_their_globals_and_callees() {
        let store = "store i32 21, i32* @config, align 4";
        assert_eq!(
            text_globals(store).into_iter().collect::<Vec<_>>(),
            ["config"]
        );
        // (thread calls are named in src/calls.rs only: a lookalike)
        let create = "%call = call @spawn(i64* %w, %union.pthread_attr_t* null, @worker, i8* null)";
        assert_eq!(text_callee(create), Some("spawn"));
        // the callee is not a global the call accesses; a start routine
        // passed along is named
        assert_eq!(
            text_globals(create).into_iter().collect::<Vec<_>>(),
            ["worker"]
        );
        assert!(text_globals("%0 = load i32, i32* %p, align 4").is_empty());
    }
}
