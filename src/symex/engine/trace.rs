//! Readable traces: every visible step of a run (thread, source line,
//! operation with the value read or written) and the locks held after it.
//!
//! While exploring, a run's steps are a persistent list shared by a state
//! and its children (one small node per visible step, no formatting);
//! only a run that reports a finding turns its list into text.

use super::state::State;
use super::val::Val;
use super::{callee_name, loc_of, Addr, Engine, PW};
use crate::symex::TraceStep;
use llvm_ir::{HasDebugLoc, Instruction, Name, Operand};
use std::collections::BTreeMap;
use std::rc::Rc;

/// What a visible step did, in terms of the state.
#[derive(Clone)]
pub(super) enum Op<'c> {
    Read(u32, u64, Val<'c>),
    Write(u32, u64, Val<'c>),
    Update(u32, u64, Val<'c>),
    Lock(Addr),
    LockBlocked(Addr),
    TryLock(Addr, bool),
    Unlock(Addr),
    Wait(Addr, Addr),
    Reacquire(Addr),
    Signal(Addr),
    Broadcast(Addr),
    Join(usize),
    JoinBlocked(usize),
    Create(usize),
    AtomicBegin,
    Call(String),
    Local,
}

/// One step and the steps before it.
pub(super) struct Node<'c> {
    tid: usize,
    at: (usize, usize, usize),
    op: Op<'c>,
    prev: Option<Rc<Node<'c>>>,
}

impl<'c, 'm> Engine<'c, 'm> {
    /// The operation thread `tid` just performed with instruction `i`
    /// (`st` is the state after it; `yielded`: it blocked).
    pub(super) fn trace_op(
        &self,
        st: &State<'c>,
        tid: usize,
        i: &Instruction,
        yielded: bool,
        reacquired: bool,
    ) -> Op<'c> {
        let at = |op: &Operand| self.addr_of(st, tid, op).map(|(o, k)| (o, k.unwrap_or(0)));
        let reg = |n: &Name| {
            st.threads[tid]
                .frames
                .last()
                .and_then(|fr| fr.regs.get(n).cloned())
        };
        match i {
            Instruction::Load(l) => match (at(&l.address), reg(&l.dest)) {
                (Some((o, k)), Some(v)) => Op::Read(o, k, v),
                _ => Op::Local,
            },
            Instruction::Store(s) => match (at(&s.address), self.op_val(st, tid, &s.value)) {
                (Some((o, k)), Ok(v)) => Op::Write(o, k, v),
                _ => Op::Local,
            },
            Instruction::AtomicRMW(a) => match at(&a.address) {
                Some((o, k)) => {
                    let bytes = self.size_of(&self.m.type_of(&a.value));
                    let v = self.mem_load(st, o, k, bytes, (bytes * 8) as u32).0;
                    Op::Update(o, k, v)
                }
                None => Op::Local,
            },
            Instruction::CmpXchg(a) => match at(&a.address) {
                Some((o, k)) => {
                    let bytes = self.size_of(&self.m.type_of(&a.expected));
                    let v = self.mem_load(st, o, k, bytes, (bytes * 8) as u32).0;
                    Op::Update(o, k, v)
                }
                None => Op::Local,
            },
            Instruction::Call(c) => {
                use crate::calls::{PthreadOp as P, Semantics as S, VerifierOp as V};
                let name = callee_name(c).unwrap_or_default();
                let arg = |k: usize| c.arguments.get(k).map(|a| &a.0);
                let sync = |k: usize| arg(k).and_then(|a| self.sync_addr(st, tid, a));
                match (crate::calls::semantics(&name), sync(0)) {
                    (Some(S::Pthread(P::MutexLock)), Some(m)) if yielded => Op::LockBlocked(m),
                    (Some(S::Pthread(P::MutexLock)), Some(m)) => Op::Lock(m),
                    (Some(S::Pthread(P::MutexTrylock)), Some(m)) => {
                        Op::TryLock(m, st.mutex.get(&m) == Some(&tid))
                    }
                    (Some(S::Pthread(P::MutexUnlock)), Some(m)) => Op::Unlock(m),
                    (Some(S::Pthread(P::CondWait | P::CondTimedWait)), Some(cv)) => match sync(1) {
                        Some(m) if reacquired => Op::Reacquire(m),
                        Some(m) => Op::Wait(cv, m),
                        None => Op::Call(name),
                    },
                    (Some(S::Pthread(P::CondSignal)), Some(cv)) => Op::Signal(cv),
                    (Some(S::Pthread(P::CondBroadcast)), Some(cv)) => Op::Broadcast(cv),
                    (Some(S::Pthread(P::Join)), _) => {
                        match arg(0).and_then(|a| self.op_val(st, tid, a).ok()?.as_u64()) {
                            Some(t) if yielded => Op::JoinBlocked(t as usize),
                            Some(t) => Op::Join(t as usize),
                            None => Op::Call(name),
                        }
                    }
                    (Some(S::Pthread(P::Create)), _) => Op::Create(st.threads.len() - 1),
                    (Some(S::Verifier(V::AtomicBegin)), _) => Op::AtomicBegin,
                    _ => Op::Call(name),
                }
            }
            _ => Op::Local,
        }
    }

    /// Append a step to the state's trace.
    pub(super) fn trace_push(
        &self,
        st: &mut State<'c>,
        tid: usize,
        at: (usize, usize, usize),
        op: Op<'c>,
    ) {
        if !self.trace {
            return;
        }
        let prev = st.trace.take();
        st.trace = Some(Rc::new(Node { tid, at, op, prev }));
    }

    fn show(&self, st: &State<'c>, v: &Val<'c>) -> String {
        match v {
            Val::C(w, x) if *w == PW => {
                let (o, k) = ((x >> 64) as u32, *x as u64);
                if o == 0 && k == 0 {
                    "NULL".into()
                } else {
                    format!("&{}", self.pointee_name(st, o, k))
                }
            }
            Val::C(w, x) if *w <= 64 && *w > 1 => {
                let s = ((*x as i128) << (128 - w)) >> (128 - w);
                format!("{s}")
            }
            Val::C(_, x) => format!("{x}"),
            Val::S(_) | Val::T(_) => "(symbolic)".into(),
        }
    }

    /// The trace of `st` as text, first step first.
    pub(super) fn trace_of(&self, st: &State<'c>) -> Vec<TraceStep> {
        let mut nodes = Vec::new();
        let mut cur = st.trace.as_ref();
        while let Some(n) = cur {
            nodes.push(n);
            cur = n.prev.as_ref();
        }
        nodes.reverse();
        let mut locks: BTreeMap<Addr, usize> = BTreeMap::new();
        let mut out = Vec::new();
        for (k, n) in nodes.iter().enumerate() {
            let (f, bb, ip) = n.at;
            let func = &self.m.functions[f];
            let block = &func.basic_blocks[bb];
            let dl = if ip < block.instrs.len() {
                block.instrs[ip].get_debug_loc().clone()
            } else {
                block.term.get_debug_loc().clone()
            };
            let (loc, line) = loc_of(&dl);
            let s = |a: &Addr| self.sync_name(st, a);
            let op = match &n.op {
                Op::Read(o, k, v) => format!(
                    "read {} = {}",
                    self.place_name(st, *o, *k),
                    self.show(st, v)
                ),
                Op::Write(o, k, v) => format!(
                    "write {} = {}",
                    self.place_name(st, *o, *k),
                    self.show(st, v)
                ),
                Op::Update(o, k, v) => {
                    format!(
                        "atomic update {} (now {})",
                        self.place_name(st, *o, *k),
                        self.show(st, v)
                    )
                }
                Op::Lock(m) => {
                    locks.insert(*m, n.tid);
                    format!("lock {}", s(m))
                }
                Op::LockBlocked(m) => format!("lock {} (blocked: held)", s(m)),
                Op::TryLock(m, ok) => {
                    if *ok {
                        locks.insert(*m, n.tid);
                    }
                    format!("trylock {} ({})", s(m), if *ok { "taken" } else { "busy" })
                }
                Op::Unlock(m) => {
                    locks.remove(m);
                    format!("unlock {}", s(m))
                }
                Op::Wait(c, m) => {
                    locks.remove(m);
                    format!("wait {} (releases {})", s(c), s(m))
                }
                Op::Reacquire(m) => {
                    locks.insert(*m, n.tid);
                    format!("wake up and lock {}", s(m))
                }
                Op::Signal(c) => format!("signal {}", s(c)),
                Op::Broadcast(c) => format!("broadcast {}", s(c)),
                Op::Join(t) => format!("join T{t}"),
                Op::JoinBlocked(t) => format!("join T{t} (blocked: running)"),
                Op::Create(t) => format!("create T{t}"),
                Op::AtomicBegin => "atomic section".into(),
                Op::Call(c) => format!("call {c}"),
                Op::Local => "local step".into(),
            };
            out.push(TraceStep {
                step: k + 1,
                thread: n.tid,
                location: if loc.is_empty() {
                    func.name.clone()
                } else {
                    loc
                },
                line,
                op,
                locks: locks
                    .iter()
                    .map(|(a, t)| format!("{} by T{t}", self.sync_name(st, a)))
                    .collect(),
            });
        }
        out
    }
}
