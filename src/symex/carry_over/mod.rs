//! The carry-over of a fix (`symex OLD NEW` when OLD has a violation and
//! its test cases do not replay on NEW): decide NEW's verdict from OLD's
//! violating classes, exploring NEW only for the classes the rules cannot
//! exclude.
//!
//! Three parts, each with its argument in docs/symex.md ("Carry-over of a
//! fix"):
//!
//! * [`restricting_change`] (`restricting.rs`): the patch only
//!   *restricts* OLD's schedules (added critical sections that cannot
//!   block for ever, a statement moved before a thread start or after a
//!   join), so every execution of NEW, with the added lock and unlock
//!   events left out, is an execution of OLD with the same read-from
//!   relation. What memory a statement touches is read from the IR
//!   (`addresses.rs`).
//! * [`Exclusions`]: a violating class of OLD (a path of a complete `dpor`
//!   exploration, with the read-from edges its reads realised) cannot be
//!   an execution of NEW when it realises a read-from tuple the
//!   synchronisation diff found only in OLD (NEW's rules exclude it).
//! * [`class_targets`]: the classes left are searched for in NEW, each as
//!   a target tuple of its read-from edges.

mod addresses;
mod restricting;

pub use restricting::restricting_change;

use super::engine::{DiffTargets, RfWriter, TargetEdge, TargetWriter, ViolatingClass};
use super::incremental::{self, VersionInput};
use super::slice::InstrId;
use crate::analysis::diff::RfTuple;
use crate::facts::FactSet;
use crate::versions::VersionMatch;
use llvm_ir::Module;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// OLD's statements as the violating classes' events name them, and the
/// tuples only in OLD.
pub struct Exclusions<'a> {
    module: &'a Module,
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
    pub fn new(module: &'a Module, facts: &'a FactSet, old_only: &[RfTuple]) -> Self {
        let mut stmts_of_instr: HashMap<InstrId, Vec<u32>> = HashMap::new();
        for (s, is) in incremental::instrs_of_statements(module, facts) {
            for i in is {
                stmts_of_instr.entry(i).or_default().push(s);
            }
        }
        let init_of = facts
            .statements
            .iter()
            .filter_map(|s| Some((s.initialised_global()?.to_string(), s.id)))
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
            module,
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
        // a read of a private `alloca` reads the same write in every
        // schedule, and a restricting move may have swapped it with a
        // read of a global (docs/symex.md, C4): never used to exclude
        if addresses::private_read_at(self.module, reader) {
            return None;
        }
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

/// OLD's violating classes as targets of a directed exploration of NEW:
/// per class, the tuple of its read-from edges whose reader and writer
/// are known instructions (or the writer a global's initial value) of
/// statements Δmap maps to NEW, each side widened to every instruction of
/// NEW its statements map to. An execution of NEW with a class's
/// read-from relation realises its tuple (fewer or wider edges only add
/// executions). Err when a class has no such edge: its tuple would be
/// empty, and the engine would never count it realised.
pub fn class_targets(
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
    matching: &VersionMatch,
    classes: &[&ViolatingClass],
) -> Result<DiffTargets, String> {
    let mut old_stmts: HashMap<InstrId, Vec<u32>> = HashMap::new();
    for (s, is) in incremental::instrs_of_statements(old.module, old.facts) {
        for i in is {
            old_stmts.entry(i).or_default().push(s);
        }
    }
    let new_instrs = incremental::instrs_of_statements(new.module, new.facts);
    let to_new: HashMap<u32, u32> = matching.map.iter().map(|(o, n)| (*o, *n)).collect();
    // every instruction of NEW the statements of OLD's instruction map to;
    // `None` when one of them does not map
    let in_new = |at: InstrId| -> Option<BTreeSet<InstrId>> {
        let stmts = old_stmts.get(&at)?;
        let mut out = BTreeSet::new();
        for s in stmts {
            let n = to_new.get(s)?;
            out.extend(new_instrs.get(n)?.iter().copied());
        }
        (!out.is_empty()).then_some(out)
    };
    let mut targets = DiffTargets::default();
    // the locations OLD violated, in NEW (for the search's slice): each
    // location's statements (an instruction without one, such as the
    // `unreachable` after an error call, has no counterpart to find), and
    // every location must have one, or the search runs without a slice
    let mut violated: Option<BTreeSet<InstrId>> = Some(BTreeSet::new());
    for c in classes {
        let one = BTreeSet::from([c.location.clone()]);
        let mapped: BTreeSet<InstrId> = crate::symex::engine::instructions_at(old.module, &one)
            .into_iter()
            .filter_map(in_new)
            .flatten()
            .collect();
        match (&mut violated, mapped.is_empty() || c.location.is_empty()) {
            (Some(v), false) => v.extend(mapped),
            _ => violated = None,
        }
    }
    targets.violated = violated;
    let mut edge_ids: BTreeMap<(Option<BTreeSet<InstrId>>, BTreeSet<InstrId>), usize> =
        BTreeMap::new();
    let mut tuples: BTreeSet<Vec<usize>> = BTreeSet::new();
    for c in classes {
        let mut tuple = BTreeSet::new();
        for e in &c.events {
            // a private read may have moved among its thread's accesses
            // (into another transition): left out, which only widens
            if e.reader
                .is_some_and(|r| addresses::private_read_at(old.module, r))
            {
                continue;
            }
            let Some(readers) = e.reader.and_then(in_new) else {
                continue;
            };
            let writer = match &e.writer {
                RfWriter::Unknown => continue,
                RfWriter::Init(_) => None,
                RfWriter::At(_, at) => match in_new(*at) {
                    Some(ws) => Some(ws),
                    None => continue,
                },
            };
            let next = edge_ids.len();
            let k = *edge_ids.entry((writer, readers)).or_insert(next);
            tuple.insert(k);
        }
        if tuple.is_empty() {
            return Err(format!(
                "a violating class of OLD ({:?} at {}) has no read-from edge to search NEW for",
                c.kind, c.location
            ));
        }
        tuples.insert(tuple.into_iter().collect());
    }
    let mut edges: Vec<(usize, TargetEdge)> = edge_ids
        .into_iter()
        .map(|((w, readers), k)| {
            let writer = match w {
                None => TargetWriter::Init,
                Some(ws) => TargetWriter::At(ws),
            };
            (k, TargetEdge { writer, readers })
        })
        .collect();
    edges.sort_by_key(|(k, _)| *k);
    targets.edges = edges.into_iter().map(|(_, e)| e).collect();
    targets.tuples = tuples.into_iter().collect();
    Ok(targets)
}
