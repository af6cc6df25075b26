//! POSIX threads: creation, join, mutexes, condition variables.

use super::*;

/// Is `name` a pthread call the model implements?
pub(crate) fn is_pthread(name: &str) -> bool {
    name.starts_with("pthread_")
}

impl<'c, 'm> Engine<'c, 'm> {
    pub(crate) fn call_pthread(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of(name, args, k);
        match name {
            "pthread_create" => {
                let fp = self.op_val(st, tid, arg(2)?)?.simplify();
                let fi = match self
                    .ptr_parts(&fp)
                    .0
                    .and_then(|o| st.objs.get(o as usize).map(|x| x.kind.clone()))
                {
                    Some(ObjKind::Func(i)) if i != usize::MAX => i,
                    _ => return Err("pthread_create with an unknown start routine".into()),
                };
                let a = self.op_val(st, tid, arg(3)?)?.simplify();
                let asv = if self.ag {
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
                st.threads.push(Thread {
                    frames: vec![Rc::new(fr)],
                    status: TStatus::Run,
                    ret: None,
                    atomic: 0,
                    clock,
                    tail: false,
                    parent: Some(tid),
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
                        let k = off.as_u64().ok_or("pthread_t at a symbolic offset")?;
                        let v = self.bv(nt as u64, 64);
                        if self.is_shared(st, o) {
                            let a = self.mem_access(st, o, Some(k), 8, true);
                            st.tr_acc.push(a);
                        }
                        self.mem_store(st, o, k, 8, v.clone());
                        if self.ag {
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
            "pthread_join" => {
                let t = self
                    .op_val(st, tid, arg(0)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("pthread_join on a symbolic thread id")?
                    as usize;
                if t >= st.threads.len() {
                    return Err(Self::finding(
                        FindingKind::MemoryError,
                        "pthread_join on an unknown thread",
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
            "pthread_exit" => {
                let v = self.op_val(st, tid, arg(0)?)?;
                self.thread_done(st, tid, Some(v));
                Ok(Step::Continue)
            }
            "pthread_self" => self.ret(st, tid, c, Some(self.bv(tid as u64, 64))),
            "pthread_mutex_init" | "pthread_mutex_destroy" => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Mutex(a),
                    write: true,
                });
                if name == "pthread_mutex_init" {
                    st.mutex.remove(&a);
                } else if st.mutex.contains_key(&a) {
                    return Err(Self::finding(
                        FindingKind::MemoryError,
                        "pthread_mutex_destroy on a locked mutex",
                    ));
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            "pthread_mutex_lock" | "pthread_mutex_trylock" => {
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
                    Some(_) if name == "pthread_mutex_trylock" => {
                        self.ret(st, tid, c, Some(self.bv(16, 32)))
                    }
                    Some(o) if *o == tid => Err(Self::finding(
                        FindingKind::Deadlock,
                        "thread locks a mutex it already holds",
                    )),
                    Some(_) => Ok(Step::Yield),
                }
            }
            "pthread_mutex_unlock" => {
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
            "pthread_cond_init" | "pthread_cond_destroy" => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("condition at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Cond(a),
                    write: true,
                });
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            "pthread_cond_wait" => {
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
                    _ => {
                        if st.mutex.get(&mx) != Some(&tid) {
                            return Err(Self::finding(
                                FindingKind::MemoryError,
                                "pthread_cond_wait without holding the mutex",
                            ));
                        }
                        st.mutex.remove(&mx);
                        st.conds.entry(cv).or_default().push(tid);
                        st.threads[tid].status = TStatus::WaitCond {
                            cond: cv,
                            mutex: mx,
                        };
                        st.seg.bad = true;
                        Ok(Step::Yield)
                    }
                }
            }
            "pthread_cond_signal" | "pthread_cond_broadcast" => {
                let cv = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("condition at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Cond(cv),
                    write: true,
                });
                let waiters = st.conds.entry(cv).or_default();
                let woken: Vec<usize> = if name == "pthread_cond_signal" {
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
                    if let TStatus::WaitCond { mutex, .. } = st.threads[w].status {
                        st.threads[w].status = TStatus::Reacquire { mutex };
                    }
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            // Attributes are accepted and ignored: default threads and
            // mutexes are what the model implements.
            "pthread_attr_init"
            | "pthread_attr_destroy"
            | "pthread_mutexattr_init"
            | "pthread_mutexattr_settype"
            | "pthread_mutexattr_destroy" => self.ret(st, tid, c, Some(self.bv(0, 32))),
            other => Err(unsupported_call(other)),
        }
    }

    /// Footprint of a synchronisation call (see `call_footprint`).
    pub(crate) fn pthread_footprint(
        &self,
        st: &State<'c>,
        tid: usize,
        c: &ins::Call,
        name: &str,
    ) -> Option<(Vec<Access>, bool)> {
        if !SYNC_CALLS.contains(&name) {
            return None;
        }
        let arg = |k: usize| c.arguments.get(k).map(|a| &a.0);
        match name {
            // Creation changes which threads are enabled, so it ends
            // the transition (FG-DPOR: one visible step per
            // transition); it conflicts with no access.
            "pthread_create" => Some((vec![], true)),
            "pthread_join" => {
                let t = self.op_val(st, tid, arg(0)?).ok()?.simplify().as_u64()? as usize;
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
            "pthread_mutex_lock" => {
                let a = self.sync_addr(st, tid, arg(0)?)?;
                Some((
                    vec![Access {
                        res: Res::Mutex(a),
                        write: true,
                    }],
                    !st.mutex.contains_key(&a),
                ))
            }
            "pthread_mutex_unlock"
            | "pthread_mutex_trylock"
            | "pthread_mutex_init"
            | "pthread_mutex_destroy" => {
                let a = self.sync_addr(st, tid, arg(0)?)?;
                Some((
                    vec![Access {
                        res: Res::Mutex(a),
                        write: true,
                    }],
                    true,
                ))
            }
            "pthread_cond_wait" => {
                let c0 = self.sync_addr(st, tid, arg(0)?)?;
                let m0 = self.sync_addr(st, tid, arg(1)?)?;
                Some((
                    vec![
                        Access {
                            res: Res::Cond(c0),
                            write: true,
                        },
                        Access {
                            res: Res::Mutex(m0),
                            write: true,
                        },
                    ],
                    true,
                ))
            }
            "pthread_cond_signal"
            | "pthread_cond_broadcast"
            | "pthread_cond_init"
            | "pthread_cond_destroy" => {
                let a = self.sync_addr(st, tid, arg(0)?)?;
                Some((
                    vec![Access {
                        res: Res::Cond(a),
                        write: true,
                    }],
                    true,
                ))
            }
            _ => Some((
                vec![Access {
                    res: Res::All,
                    write: true,
                }],
                true,
            )),
        }
    }
}

/// Calls that synchronise threads (scheduling points).
const SYNC_CALLS: &[&str] = &[
    "pthread_create",
    "pthread_join",
    "pthread_mutex_lock",
    "pthread_mutex_unlock",
    "pthread_mutex_trylock",
    "pthread_mutex_init",
    "pthread_mutex_destroy",
    "pthread_cond_wait",
    "pthread_cond_signal",
    "pthread_cond_broadcast",
    "pthread_cond_init",
    "pthread_cond_destroy",
    "__VERIFIER_atomic_begin",
];
