//! POSIX threads: creation, join, mutexes, condition variables.

use super::super::state::ObjKind;
use super::super::state::State;
use super::super::state::TStatus;
use super::super::state::Thread;
use super::super::transitions::Access;
use super::super::transitions::Res;
use super::super::val::Cond;
use super::super::Engine;
use super::super::Step;
use super::super::Stop;
use super::super::PW;
use super::super::R;
use super::arg_of;
use crate::calls::Footprint;
use crate::calls::{PthreadOp, SyncObject};
use crate::symex::FindingKind;
use llvm_ir::instruction as ins;
use llvm_ir::Instruction;
use llvm_ir::Operand;
use std::rc::Rc;

/// `ETIMEDOUT` on Linux: what a timed wait returns when it times out.
const ETIMEDOUT: u64 = 110;

impl<'c, 'm> Engine<'c, 'm> {
    pub(crate) fn call_pthread(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        op: PthreadOp,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of(name, args, k);
        match op {
            PthreadOp::Create => {
                // A thread that starts itself (or a creation loop the loop
                // bound does not cut) would grow every state without end:
                // the creating thread is cut here, as at the loop bound.
                if st.threads.len() >= super::super::MAX_THREADS {
                    return Err(Stop::Cut);
                }
                let fp = self.op_val(st, tid, arg(2)?)?.simplify();
                let fi = match self
                    .ptr_parts(&fp)
                    .0
                    .and_then(|o| st.objs.get(o as usize).map(|x| x.kind.clone()))
                {
                    Some(ObjKind::Func(i)) if i != usize::MAX => i,
                    _ => return Err(format!("{name} with an unknown start routine").into()),
                };
                let a = self.op_val(st, tid, arg(3)?)?.simplify();
                let asv = if self.track_wp {
                    Some(self.op_sv(st, tid, arg(3)?)?)
                } else {
                    None
                };
                if let (Some(o), _) = self.ptr_parts(&a) {
                    if st.objs.get(o as usize).is_some_and(|x| !x.escaped) {
                        st.obj_mut(o).escaped = true;
                    }
                }
                let nt = st.threads.len();
                let mut fr = self.frame(fi);
                let nphi = self.m.functions[fi].basic_blocks[0]
                    .instrs
                    .iter()
                    .take_while(|i| matches!(i, Instruction::Phi(_)))
                    .count();
                fr.ip = nphi;
                let clock = st.threads[tid].clock.clone();
                let created_at = st.threads[tid].frames.last().map(|f| (f.f, f.bb, f.ip));
                st.threads.push(Thread {
                    frames: vec![Rc::new(fr)],
                    status: TStatus::Run,
                    ret: None,
                    atomic: 0,
                    clock,
                    tail: false,
                    parent: Some(tid),
                    created_at,
                });
                if let Some(p) = self.m.functions[fi].parameters.first() {
                    let w = self.bits_of(&p.ty).unwrap_or(PW);
                    let v = self.adapt(a, w);
                    let sv = asv.map(|s| self.adapt(s, w));
                    self.set_reg(st, nt, &p.name, v, sv);
                }
                st.created.push(nt);
                // *thread = id
                let tp = self.op_val(st, tid, arg(0)?)?.simplify();
                if let (Some(o), off) = self.ptr_parts(&tp) {
                    if o != 0 {
                        let k = off.as_u64().ok_or("thread handle at a symbolic offset")?;
                        let v = self.bv(nt as u64, 64);
                        if self.is_shared(st, o) {
                            let a = self.mem_access(st, o, Some(k), 8, true);
                            st.tr_acc.push(a);
                        }
                        self.mem_store(st, o, k, 8, v.clone());
                        if self.track_wp {
                            if let Ok(psv) = self.op_sv(st, tid, arg(0)?) {
                                let psv = psv.simplify();
                                if psv.as_u64().is_none() {
                                    st.seg.assumes.push(psv._eq(&tp));
                                }
                            }
                            st.seg.ov.insert(format!("m!{o}!{k}!8!64"), v);
                        }
                    }
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            PthreadOp::Join => {
                let t = self
                    .op_val(st, tid, arg(0)?)?
                    .simplify()
                    .as_u64()
                    .ok_or_else(|| format!("{name} on a symbolic thread id"))?
                    as usize;
                if t >= st.threads.len() {
                    return Err(Self::finding(
                        FindingKind::MemoryError,
                        format!("{name} on an unknown thread"),
                    ));
                }
                st.tr_acc.push(Access {
                    res: Res::ThreadEnd(t),
                    write: false,
                });
                let rp = self.op_val(st, tid, arg(1)?)?.simplify();
                if let (Some(o), off) = self.ptr_parts(&rp) {
                    if o != 0 {
                        let k = off.as_u64().ok_or("join result at symbolic offset")?;
                        let rv = st.threads[t]
                            .ret
                            .clone()
                            .map(|v| self.adapt(v, PW))
                            .unwrap_or_else(|| self.bv(0, PW));
                        self.mem_store(st, o, k, 8, rv);
                        st.seg.bad = true;
                    }
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            PthreadOp::Exit => {
                let v = self.op_val(st, tid, arg(0)?)?;
                self.thread_done(st, tid, Some(v));
                Ok(Step::Continue)
            }
            PthreadOp::Self_ => self.ret(st, tid, c, Some(self.bv(tid as u64, 64))),
            PthreadOp::MutexInit | PthreadOp::MutexDestroy => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Mutex(a),
                    write: true,
                });
                if op == PthreadOp::MutexInit {
                    st.mutex.remove(&a);
                } else if st.mutex.contains_key(&a) {
                    return Err(Self::finding(
                        FindingKind::MemoryError,
                        format!("{name} on a locked mutex"),
                    ));
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            PthreadOp::MutexLock | PthreadOp::MutexTrylock => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Mutex(a),
                    write: true,
                });
                match st.mutex.get(&a) {
                    None => {
                        st.mutex.insert(a, tid);
                        self.ret(st, tid, c, Some(self.bv(0, 32)))
                    }
                    Some(_) if op == PthreadOp::MutexTrylock => {
                        self.ret(st, tid, c, Some(self.bv(16, 32)))
                    }
                    Some(o) if *o == tid => Err(Self::finding(
                        FindingKind::Deadlock,
                        "thread locks a mutex it already holds",
                    )),
                    Some(_) => Ok(Step::Yield),
                }
            }
            PthreadOp::MutexUnlock => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Mutex(a),
                    write: true,
                });
                if st.mutex.get(&a) != Some(&tid) {
                    return Err(Self::finding(
                        FindingKind::MemoryError,
                        "unlock of a mutex the thread does not hold",
                    ));
                }
                st.mutex.remove(&a);
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            PthreadOp::CondInit | PthreadOp::CondDestroy => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("condition at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Cond(a),
                    write: true,
                });
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            PthreadOp::CondWait | PthreadOp::CondTimedWait => {
                let cv = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("condition at a symbolic address")?;
                let mx = self
                    .sync_addr(st, tid, arg(1)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Cond(cv),
                    write: true,
                });
                st.tr_acc.push(Access {
                    res: Res::Mutex(mx),
                    write: true,
                });
                match st.threads[tid].status.clone() {
                    TStatus::Reacquire { mutex } => {
                        st.mutex.insert(mutex, tid);
                        st.threads[tid].status = TStatus::Run;
                        self.ret(st, tid, c, Some(self.bv(0, 32)))
                    }
                    TStatus::TimedWait { cond, mutex } => {
                        // Timed out (or woken spuriously): no longer a
                        // waiter; returns ETIMEDOUT or 0, either may be.
                        if let Some(ws) = st.conds.get_mut(&cond) {
                            ws.retain(|w| *w != tid);
                            if ws.is_empty() {
                                st.conds.remove(&cond);
                            }
                        }
                        st.mutex.insert(mutex, tid);
                        st.threads[tid].status = TStatus::Run;
                        let (v, h) = self.fresh_input(st, "timedwait", 32);
                        let either =
                            Cond::any(&[v._eq(&self.bv(0, 32)), v._eq(&self.bv(ETIMEDOUT, 32))]);
                        self.pc_add(&mut st.pcon, &either);
                        let d = c.dest.clone().ok_or("timed wait without result")?;
                        self.set_reg(st, tid, &d, v, Some(h));
                        Self::advance(st, tid);
                        Ok(Step::Continue)
                    }
                    _ => {
                        if st.mutex.get(&mx) != Some(&tid) {
                            return Err(Self::finding(
                                FindingKind::MemoryError,
                                format!("{name} without holding the mutex"),
                            ));
                        }
                        st.mutex.remove(&mx);
                        st.conds.entry(cv).or_default().push(tid);
                        st.threads[tid].status = if op == PthreadOp::CondTimedWait {
                            TStatus::TimedWait {
                                cond: cv,
                                mutex: mx,
                            }
                        } else {
                            TStatus::WaitCond {
                                cond: cv,
                                mutex: mx,
                            }
                        };
                        st.seg.bad = true;
                        Ok(Step::Yield)
                    }
                }
            }
            PthreadOp::CondSignal | PthreadOp::CondBroadcast => {
                let cv = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("condition at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Cond(cv),
                    write: true,
                });
                let waiters = st.conds.entry(cv).or_default();
                let woken: Vec<usize> = if op == PthreadOp::CondSignal {
                    if waiters.is_empty() {
                        vec![]
                    } else {
                        vec![waiters.remove(0)]
                    }
                } else {
                    std::mem::take(waiters)
                };
                if st.conds.get(&cv).map(|w| w.is_empty()).unwrap_or(false) {
                    st.conds.remove(&cv);
                }
                for w in woken {
                    if let TStatus::WaitCond { mutex, .. } | TStatus::TimedWait { mutex, .. } =
                        st.threads[w].status
                    {
                        st.threads[w].status = TStatus::Reacquire { mutex };
                    }
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            // Attributes are accepted and ignored: default threads and
            // mutexes are what the model implements.
            PthreadOp::Ignored => self.ret(st, tid, c, Some(self.bv(0, 32))),
        }
    }

    /// Footprint of a synchronisation call (see `call_footprint`): the
    /// sync objects its table row names, and whether it can run now.
    pub(crate) fn pthread_footprint(
        &self,
        st: &State<'c>,
        tid: usize,
        c: &ins::Call,
        op: PthreadOp,
        footprint: &Footprint,
    ) -> Option<(Vec<Access>, bool)> {
        if !footprint.synchronises() {
            return None;
        }
        let arg = |k: usize| c.arguments.get(k).map(|a| &a.0);
        match op {
            // Creation changes which threads are enabled, so it ends
            // the transition (FG-DPOR: one visible step per
            // transition); it conflicts with no access.
            PthreadOp::Create => Some((vec![], true)),
            PthreadOp::Join => {
                let t = self
                    .op_val(st, tid, arg(footprint.thread?)?)
                    .ok()?
                    .simplify()
                    .as_u64()? as usize;
                let done = st
                    .threads
                    .get(t)
                    .map(|x| x.status == TStatus::Done)
                    .unwrap_or(true);
                Some((
                    vec![Access {
                        res: Res::ThreadEnd(t),
                        write: false,
                    }],
                    done,
                ))
            }
            _ => {
                let mut accesses = Vec::with_capacity(footprint.sync.len());
                for &(k, object) in footprint.sync {
                    let a = self.sync_addr(st, tid, arg(k)?)?;
                    let res = match object {
                        SyncObject::Mutex => Res::Mutex(a),
                        SyncObject::Cond => Res::Cond(a),
                    };
                    accesses.push(Access { res, write: true });
                }
                // Only a lock waits for its mutex to be free.
                let enabled = match (op, accesses.first()) {
                    (
                        PthreadOp::MutexLock,
                        Some(Access {
                            res: Res::Mutex(a), ..
                        }),
                    ) => !st.mutex.contains_key(a),
                    _ => true,
                };
                Some((accesses, enabled))
            }
        }
    }
}
