//! Summaries across runs and versions (the summary store, +SCIA).
//!
//! A summary PS[s] is a formula over state variables (`r!…` registers of
//! the frames at s, `m!…` memory cells) that says which states at s were
//! explored without finding anything.  It keeps its meaning in another run
//! — of this program or of another version — at a state with the same
//! *portable key*: every frame's function and the code *ahead* of it up to
//! local names (`fingerprint`: the rest of its block, every block
//! reachable from it, and the whole code of every function those
//! reference), thread statuses, lock owners, condition waiters, the
//! globals by name and the objects made at run time (kind, liveness, heap
//! sizes).  Code already run may differ (its effect is in the state the
//! formula is checked against); code ahead may not, except for the names
//! of its values: a stored formula names registers by their canonical
//! number in the code ahead of their frame (`r!t!d!~k`), mapped to this
//! version's names when adopted.  This is Δmap restricted to unchanged
//! code: a summary is reused exactly where the code it summarises did not
//! change.

use super::fingerprint::{fingerprints, Fingerprints, Fnv};
use super::notes::{Note, StoreWarning};
use super::state::{ObjKind, State, TStatus};
use super::summary::PsEntry;
use super::summary_store::{StoredAccess, StoredRes, StoredSummary, SummaryStore};
use super::transitions::{Access, Res};
use super::val::Cond;
use super::{summary, Addr, Engine, PW};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Instant;
use z3::ast::{Ast, Bool, BV};
use z3::{Context, Solver};

/// The position (function, block, instruction) of every frame, per thread.
type Positions = Vec<Vec<(usize, usize, usize)>>;

/// A summary read from the store.
pub(super) struct Imported<'c> {
    /// Registers named canonically (`r!t!d!~k`).
    f: Bool<'c>,
    /// Its registers: name and width.
    regs: Vec<(String, u32)>,
    asleep: BTreeSet<usize>,
    rw: Vec<(usize, Access, u64)>,
}

pub(super) struct Persist<'c> {
    store: Box<dyn SummaryStore>,
    fps: Fingerprints,
    imported: HashMap<u64, Imported<'c>>,
    /// Local key → portable key (None: states with one local key had
    /// different portable keys; such a summary is not exported).
    portable: HashMap<u64, Option<u64>>,
    /// Local key → the position (function, block, instruction) of every
    /// frame of every thread (the local key is made of them).
    frames: HashMap<u64, Positions>,
    /// Local keys already looked up in `imported`.
    checked: HashSet<u64>,
    /// (merges, accesses) of each local key when last written.
    written: HashMap<u64, (u32, usize)>,
    last_flush: Instant,
}

/// An access as stored: its object by portable name.
fn to_stored(fps: &Fingerprints, t: usize, a: &Access, after: u64) -> StoredAccess {
    let (res, obj) = match &a.res {
        Res::Mem(o, lo, hi) => (
            StoredRes::Mem {
                object: 0,
                lo: *lo,
                hi: *hi,
            },
            Some(*o),
        ),
        Res::Mutex((o, off)) => (
            StoredRes::Mutex {
                object: 0,
                offset: *off,
            },
            Some(*o),
        ),
        Res::Cond((o, off)) => (
            StoredRes::Cond {
                object: 0,
                offset: *off,
            },
            Some(*o),
        ),
        Res::ThreadEnd(u) => (StoredRes::ThreadEnd(*u), None),
        Res::All => (StoredRes::All, None),
        Res::Independent => (StoredRes::Independent, None),
    };
    StoredAccess {
        thread: t,
        res,
        write: a.write,
        object_name: obj.map(|o| fps.obj_name(o)),
        after,
    }
}

/// A stored access in this program's object numbers (None: its object
/// has no counterpart here, or it predates portable names).
fn from_stored(fps: &Fingerprints, s: &StoredAccess) -> Option<(usize, Access, u64)> {
    let obj = match &s.object_name {
        Some(n) => Some(fps.obj_id(n)?),
        None => None,
    };
    let res = match (&s.res, obj) {
        (StoredRes::Mem { lo, hi, .. }, Some(o)) => Res::Mem(o, *lo, *hi),
        (StoredRes::Mutex { offset, .. }, Some(o)) => Res::Mutex((o, *offset)),
        (StoredRes::Cond { offset, .. }, Some(o)) => Res::Cond((o, *offset)),
        (StoredRes::ThreadEnd(u), _) => Res::ThreadEnd(*u),
        (StoredRes::All, _) => Res::All,
        (StoredRes::Independent, _) => Res::Independent,
        _ => return None,
    };
    Some((
        s.thread,
        Access {
            res,
            write: s.write,
        },
        s.after,
    ))
}

/// The constants an SMT-LIB text declares, with their bit widths, and
/// the PW-bit numerals it contains (quantifier bodies included: the text
/// shows everything, where the AST walk of the z3 crate stops at binders).
fn scan_smt(text: &str) -> (Vec<(String, u32)>, Vec<u128>) {
    let mut consts = Vec::new();
    for l in text.lines() {
        let Some(rest) = l.trim_start().strip_prefix("(declare-fun ") else {
            continue;
        };
        let (name, after) = match rest.strip_prefix('|') {
            Some(q) => match q.split_once('|') {
                Some((n, a)) => (n, a),
                None => continue,
            },
            None => match rest.split_once(' ') {
                Some((n, a)) => (n, a),
                None => continue,
            },
        };
        let w = after
            .split_once("(_ BitVec ")
            .and_then(|(_, x)| x.split(')').next())
            .and_then(|x| x.trim().parse().ok());
        if let (Some(w), true) = (w, after.trim_start().starts_with("()")) {
            consts.push((name.to_string(), w));
        }
    }
    let digits = PW as usize / 4;
    let mut nums = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(k) = text[i..].find("#x") {
        let s0 = i + k + 2;
        let mut e = s0;
        while e < b.len() && b[e].is_ascii_hexdigit() {
            e += 1;
        }
        if e - s0 == digits {
            if let Ok(v) = u128::from_str_radix(&text[s0..e], 16) {
                nums.push(v);
            }
        }
        i = e;
    }
    (consts, nums)
}

/// Rename the objects a summary refers to: `m!<object>!…` state variables
/// and pointer numerals (PW bits wide — no C integer type is —, the object
/// in the bits above 64).  `to_names`: this program's numbers → portable
/// names (a pointer's base becomes the constant `P!<name>`); else portable
/// names → this program's numbers.  `text`: the formula in SMT-LIB.  None
/// when a name has no object here or cannot be written.  Registers
/// (`r!<thread>!<frame>!<name>`) are renamed by `regs` (None: the summary
/// cannot be carried).
fn rename_objects<'c>(
    ctx: &'c Context,
    fps: &Fingerprints,
    f: &Bool<'c>,
    text: &str,
    to_names: bool,
    regs: &dyn Fn(usize, usize, &str) -> Option<String>,
) -> Option<Bool<'c>> {
    let (consts, nums) = scan_smt(text);
    let mut from: Vec<BV<'c>> = Vec::new();
    let mut to: Vec<BV<'c>> = Vec::new();
    if to_names {
        for v in nums {
            let (o, off) = ((v >> 64) as u32, v as u64);
            if o == 0 {
                continue;
            }
            let n = fps.obj_name(o);
            if n.contains('|') {
                return None;
            }
            from.push(BV::from_str(ctx, PW, &v.to_string())?);
            to.push(BV::new_const(ctx, format!("P!{n}"), PW).bvadd(&BV::from_u64(ctx, off, PW)));
        }
    }
    for (name, w) in consts {
        if let Some(obj) = name.strip_prefix("P!") {
            if to_names {
                continue;
            }
            let v = (fps.obj_id(obj)? as u128) << 64;
            from.push(BV::new_const(ctx, name.as_str(), w));
            to.push(BV::from_str(ctx, PW, &v.to_string())?);
            continue;
        }
        if let Some(rest) = name.strip_prefix("r!") {
            let (t, d, r) = split_reg(rest)?;
            from.push(BV::new_const(ctx, name.as_str(), w));
            to.push(BV::new_const(
                ctx,
                format!("r!{t}!{d}!{}", regs(t, d, r)?),
                w,
            ));
            continue;
        }
        let Some(rest) = name.strip_prefix("m!") else {
            continue;
        };
        let (obj, tail) = rest.split_once('!')?;
        let new = if to_names {
            let n = fps.obj_name(obj.parse().ok()?);
            if n.contains('!') || n.contains('|') {
                return None;
            }
            n
        } else {
            fps.obj_id(obj)?.to_string()
        };
        from.push(BV::new_const(ctx, name.as_str(), w));
        to.push(BV::new_const(ctx, format!("m!{new}!{tail}"), w));
    }
    if from.is_empty() {
        return Some(f.clone());
    }
    let pairs: Vec<(&BV<'c>, &BV<'c>)> = from.iter().zip(&to).collect();
    Some(f.substitute(&pairs))
}

/// The position of every frame of every thread.
fn frame_positions(st: &State<'_>) -> Positions {
    st.threads
        .iter()
        .map(|t| t.frames.iter().map(|fr| (fr.f, fr.bb, fr.ip)).collect())
        .collect()
}

/// `<thread>!<frame>!<register>` of a register's state variable.
fn split_reg(rest: &str) -> Option<(usize, usize, &str)> {
    let mut it = rest.splitn(3, '!');
    let t = it.next()?.parse().ok()?;
    let d = it.next()?.parse().ok()?;
    Some((t, d, it.next()?))
}

/// Rename `f`'s registers (`regs`: name and width) by `map`; None when
/// one has no counterpart.
fn rename_regs<'c>(
    ctx: &'c Context,
    f: &Bool<'c>,
    regs: &[(String, u32)],
    map: &dyn Fn(usize, usize, &str) -> Option<String>,
) -> Option<Bool<'c>> {
    if regs.is_empty() {
        return Some(f.clone());
    }
    let mut from = Vec::new();
    let mut to = Vec::new();
    for (name, w) in regs {
        let (t, d, r) = split_reg(name.strip_prefix("r!")?)?;
        from.push(BV::new_const(ctx, name.as_str(), *w));
        to.push(BV::new_const(
            ctx,
            format!("r!{t}!{d}!{}", map(t, d, r)?),
            *w,
        ));
    }
    let pairs: Vec<(&BV<'c>, &BV<'c>)> = from.iter().zip(&to).collect();
    Some(f.substitute(&pairs))
}

fn addr(h: &mut Fnv, fps: &Fingerprints, a: &Addr) {
    h.str(&fps.obj_name(a.0));
    h.u64(a.1);
}

impl<'c, 'm> Engine<'c, 'm> {
    /// Open the store and read the summaries for this loop bound; their
    /// formulas are parsed by `loader` (which must outlive the engine).
    pub(super) fn persist_open(
        &mut self,
        loader: &'c Solver<'c>,
        mut store: Box<dyn SummaryStore>,
    ) {
        if !self.track_wp {
            return;
        }
        let fps = fingerprints(self.m);
        if fps.obj_names.len() != self.init_objs.len() {
            // The object names must follow `init_globals`' numbering.
            self.note(Note::Store(StoreWarning::NotStored(
                "object layout not understood".into(),
            )));
            return;
        }
        let mut imported = HashMap::new();
        {
            match store.load(self.opts.loop_bound) {
                Ok(rows) => {
                    for s in rows {
                        // A scope, not `reset`: a reset solver is set up
                        // again, which costs more than the parse.
                        loader.push();
                        loader.from_string(s.formula.as_str());
                        let mut v = loader.get_assertions();
                        loader.pop(1);
                        if v.len() != 1 {
                            continue;
                        }
                        // Objects that do not exist here: the summary
                        // cannot apply (and is not guessed at).
                        let f = v.pop().unwrap();
                        let keep = |_: usize, _: usize, r: &str| Some(r.to_string());
                        let Some(f) = rename_objects(self.ctx, &fps, &f, &s.formula, false, &keep)
                        else {
                            continue;
                        };
                        let regs = scan_smt(&s.formula)
                            .0
                            .into_iter()
                            .filter(|(n, _)| n.starts_with("r!"))
                            .collect();
                        let Some(rw) = s
                            .accesses
                            .iter()
                            .map(|a| from_stored(&fps, a))
                            .collect::<Option<Vec<_>>>()
                        else {
                            continue;
                        };
                        imported.insert(
                            s.state_key,
                            Imported {
                                f,
                                regs,
                                asleep: s.asleep.iter().copied().collect(),
                                rw,
                            },
                        );
                    }
                }
                Err(e) => self.note(Note::Store(StoreWarning::NotRead(e))),
            }
        }
        self.stats.summaries_imported = imported.len() as u64;
        self.persist = Some(Persist {
            store,
            fps,
            imported,
            portable: HashMap::new(),
            frames: HashMap::new(),
            checked: HashSet::new(),
            written: HashMap::new(),
            last_flush: Instant::now(),
        });
    }

    fn portable_key(&self, fps: &Fingerprints, st: &State<'c>) -> u64 {
        let mut h = Fnv::new();
        // Keys of this scheme never equal those of the first one (object
        // numbers, whole-program globals), whose formulas named objects by
        // number.
        // (v3: frames by function and canonical code ahead, registers by
        // canonical number).
        h.str("portable-v3");
        for t in &st.threads {
            match &t.status {
                TStatus::Run => h.u64(1),
                TStatus::Cut => h.u64(2),
                TStatus::WaitCond { cond, mutex } => {
                    h.u64(3);
                    addr(&mut h, fps, cond);
                    addr(&mut h, fps, mutex);
                }
                TStatus::Reacquire { mutex } => {
                    h.u64(4);
                    addr(&mut h, fps, mutex);
                }
                TStatus::Done => h.u64(5),
                TStatus::TimedWait { cond, mutex } => {
                    h.u64(6);
                    addr(&mut h, fps, cond);
                    addr(&mut h, fps, mutex);
                }
            }
            h.u64(t.atomic as u64);
            h.u64(t.tail as u64);
            h.u64(t.frames.len() as u64);
            // The position itself is not needed: the code ahead, up to
            // local names, is what the frame will run.
            for fr in &t.frames {
                h.str(&self.m.functions[fr.f].name);
                h.u64(fps.ahead(fr.f, fr.bb, fr.ip).fp);
            }
        }
        for (a, o) in &st.mutex {
            addr(&mut h, fps, a);
            h.u64(*o as u64);
        }
        for (a, ws) in &st.conds {
            addr(&mut h, fps, a);
            h.u64(ws.len() as u64);
            for w in ws {
                h.u64(*w as u64);
            }
        }
        // Objects made before the program runs are the same by name (code
        // ahead names the globals it uses, and its text is in the key);
        // those made at run time are compared in order.
        let init = fps.obj_names.len();
        h.u64(st.objs.len().saturating_sub(init) as u64);
        for o in st.objs.iter().skip(init) {
            h.u64(match o.kind {
                ObjKind::Global => 1,
                ObjKind::Stack => 2,
                ObjKind::Heap => 3 + (o.size << 4),
                ObjKind::Func(f) => 4 + ((f as u64) << 4),
                ObjKind::Null => 5,
            });
            h.u64(o.alive as u64);
        }
        h.finish()
    }

    /// Hook at every summarised node (scheduling point, b-PP, deferred
    /// tail): remember the node's portable key, and adopt a stored summary
    /// for it when the run has none yet.
    pub(super) fn persist_visit(&mut self, st: &State<'c>, key: u64) {
        let Some(p) = self.persist.as_ref() else {
            return;
        };
        let pk = self.portable_key(&p.fps, st);
        if std::env::var_os("CONCORD_PERSIST_DEBUG").is_some() {
            let mut d = String::new();
            for (i, t) in st.threads.iter().enumerate() {
                d += &format!(" T{i}:{:?}{}", t.status, if t.tail { "/tail" } else { "" });
                for fr in &t.frames {
                    d += &format!(
                        " {}@{}.{}#{:x}",
                        self.m.functions[fr.f].name,
                        fr.bb,
                        fr.ip,
                        p.fps.ahead(fr.f, fr.bb, fr.ip).fp & 0xffff
                    );
                }
            }
            self.note(Note::Debug(format!(
                "persist: pk={pk:016x} stored={} objs={}{d}",
                p.imported.contains_key(&pk),
                st.objs.len()
            )));
        }
        let adopt =
            !p.imported.is_empty() && !p.checked.contains(&key) && self.ps_entry(key).is_none();
        let p = self.persist.as_mut().unwrap();
        if p.store.saves() && !p.frames.contains_key(&key) {
            p.frames.insert(key, frame_positions(st));
        }
        match p.portable.get(&key) {
            None => {
                p.portable.insert(key, Some(pk));
            }
            Some(Some(k)) if *k != pk => {
                p.portable.insert(key, None);
            }
            _ => {}
        }
        if !adopt {
            return;
        }
        p.checked.insert(key);
        let Some(im) = p.imported.get(&pk) else {
            return;
        };
        // Canonical register numbers → this version's names, through the
        // code ahead of each frame here.
        let fps = &p.fps;
        let to_local = |t: usize, d: usize, r: &str| -> Option<String> {
            let k: u32 = r.strip_prefix('~')?.parse().ok()?;
            let fr = st.threads.get(t)?.frames.get(d)?;
            fps.ahead(fr.f, fr.bb, fr.ip).name_of(k).map(str::to_string)
        };
        let Some(f) = rename_regs(self.ctx, &im.f, &im.regs, &to_local) else {
            return;
        };
        let f = Cond::S(f);
        let (asleep, rw) = (im.asleep.clone(), im.rw.clone());
        let n = self.opts.summary_table_size.max(1);
        self.ps.insert(
            (key as usize) % n,
            PsEntry {
                key,
                f,
                merges: 1,
                asleep,
            },
        );
        let e = self.rw.entry(key).or_default();
        for (t, a, after) in rw {
            e.entry((t, a)).and_modify(|m| *m &= after).or_insert(after);
        }
        self.stats.summaries_reused += 1;
    }

    /// Write the summaries that changed since the last write (one
    /// transaction); `force`: now, else at most every two seconds.
    pub(super) fn persist_flush(&mut self, force: bool) {
        let Some(p) = self.persist.as_ref() else {
            return;
        };
        if !p.store.saves() || (!force && p.last_flush.elapsed().as_secs_f64() < 2.0) {
            return;
        }
        let mut items = Vec::new();
        let mut marks = Vec::new();
        let printer = SmtPrinter::new(self.ctx);
        for e in self.ps.values() {
            let Some(Some(pk)) = p.portable.get(&e.key) else {
                continue;
            };
            let rw = self.rw.get(&e.key);
            let mark = (e.merges, rw.map_or(0, |r| r.len()));
            if p.written.get(&e.key) == Some(&mark) {
                continue;
            }
            // Another run has not reported this run's findings.
            let strict = self.with_known(&e.f.bool(self.ctx), false);
            if strict.as_bool() == Some(false) {
                continue;
            }
            // A summary too large to pay back its printing and parsing
            // (one grew to 13 MB of text) is not stored; storing fewer
            // summaries only means less reuse.
            if !summary::dag_within(&strict, summary::MAX_SUMMARY_TERMS) {
                continue;
            }
            let strict_text = printer.print(&strict);
            // Registers by canonical number in the code ahead of their
            // frame (the positions the local key stands for).
            let Some(frames) = p.frames.get(&e.key) else {
                continue;
            };
            let fps = &p.fps;
            let to_canon = |t: usize, d: usize, r: &str| -> Option<String> {
                let (f, bb, ip) = *frames.get(t)?.get(d)?;
                Some(format!("~{}", fps.ahead(f, bb, ip).regs.get(r)?))
            };
            let Some(f) = rename_objects(self.ctx, fps, &strict, &strict_text, true, &to_canon)
            else {
                continue;
            };
            let formula = printer.print(&f);
            let mut accesses: Vec<StoredAccess> = rw
                .into_iter()
                .flatten()
                .map(|((t, a), after)| to_stored(fps, *t, a, *after))
                .collect();
            accesses.sort_by_key(|a| format!("{a:?}"));
            items.push(StoredSummary {
                state_key: *pk,
                loop_bound: self.opts.loop_bound,
                formula,
                asleep: e.asleep.iter().copied().collect(),
                accesses,
            });
            marks.push((e.key, mark));
        }
        let p = self.persist.as_mut().unwrap();
        p.last_flush = Instant::now();
        if items.is_empty() {
            return;
        }
        match p.store.save(&items) {
            Ok(()) => {
                p.written.extend(marks);
                self.stats.summaries_stored += items.len() as u64;
            }
            Err(e) => self.note(Note::Store(StoreWarning::NotStored(e))),
        }
    }
}

/// Prints formulas as SMT-LIB scripts (declarations and one assertion)
/// through one solver: a solver's first assertion sets it up, which costs
/// far more than printing (most of the summary store's time when each
/// formula had a solver of its own).
struct SmtPrinter<'c> {
    solver: Solver<'c>,
}

impl<'c> SmtPrinter<'c> {
    fn new(ctx: &'c Context) -> Self {
        SmtPrinter {
            solver: Solver::new(ctx),
        }
    }

    fn print(&self, f: &Bool<'c>) -> String {
        self.solver.push();
        self.solver.assert(f);
        let text = self.solver.to_string();
        self.solver.pop(1);
        text
    }
}

#[cfg(test)]
mod tests {
    use crate::symex::engine::summary;
    use z3::ast::{Ast, BV};
    use z3::Context;

    /// Sharing counts once: t(k+1) = t(k) + t(k) is a tree of 2^k leaves
    /// but a DAG of k + 1 additions, one variable and the comparison.
    #[test]
    fn dag_size_counts_shared_terms_once() {
        let cfg = z3::Config::new();
        let ctx = Context::new(&cfg);
        let mut t = BV::new_const(&ctx, "x", 32);
        for _ in 0..40 {
            t = t.bvadd(&t);
        }
        let f = t._eq(&BV::from_u64(&ctx, 0, 32));
        // 40 additions, x, the constant 0 and the equality: 43 terms.
        assert!(summary::dag_within(&f, 43));
        assert!(!summary::dag_within(&f, 42));
    }
}
