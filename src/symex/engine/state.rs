use super::fasthash::FastMap;
use super::strategy::Wut;
use super::transitions::Access;
use super::val::{Cond, Val};
use super::{directed, term, trace, Addr, Engine, PW};
use llvm_ir::Name;
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use z3::ast::{Bool, BV};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ObjKind {
    Global,
    Stack,
    Heap,
    Func(usize),
    Null,
}

#[derive(Clone)]
pub(super) struct Cell<'c> {
    pub(super) bytes: u64,
    pub(super) val: Val<'c>,
}

#[derive(Clone)]
pub(super) struct Obj<'c> {
    pub(super) size: u64,
    pub(super) cells: BTreeMap<u64, Cell<'c>>,
    pub(super) kind: ObjKind,
    pub(super) escaped: bool,
    pub(super) alive: bool,
    pub(super) readonly: bool,
    /// Where the program made it (stack and heap objects), for names.
    pub(super) made_at: Option<super::place_names::MadeAt>,
    /// The name of an object the engine made itself (`argv`, `argv[1]`)
    /// and the size of its elements, for names.
    pub(super) label: Option<(std::rc::Rc<str>, u64)>,
}

#[derive(Clone)]
pub(super) struct Frame<'c> {
    pub(super) f: usize,
    pub(super) bb: usize,
    pub(super) ip: usize,
    pub(super) prev_bb: usize,
    pub(super) regs: FastMap<Name, Val<'c>>,
    pub(super) allocas: Vec<u32>,
    pub(super) ret_to: Option<Name>,
    pub(super) visits: FastMap<usize, u32>,
    pub(super) atomic_fn: bool,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) enum TStatus {
    Run,
    /// Stopped at the loop bound: the thread makes no further progress but
    /// the others keep running (so DPOR still sees their later accesses).
    Cut,
    WaitCond {
        cond: Addr,
        mutex: Addr,
    },
    Reacquire {
        mutex: Addr,
    },
    /// In `pthread_cond_timedwait`: waiting for a signal on `cond` (which
    /// makes it `Reacquire`), or to time out at any moment, re-acquiring
    /// `mutex` as soon as it is free.
    TimedWait {
        cond: Addr,
        mutex: Addr,
    },
    Done,
}

#[derive(Clone)]
pub(super) struct Thread<'c> {
    pub(super) frames: Vec<Rc<Frame<'c>>>,
    pub(super) status: TStatus,
    pub(super) ret: Option<Val<'c>>,
    pub(super) atomic: u32,
    pub(super) clock: Vec<usize>,
    /// The rest of the thread is thread-local code that ends the thread
    /// (e.g. its final assertion check): it is run as late as possible.
    pub(super) tail: bool,
    /// The thread that created this one (None for main).
    pub(super) parent: Option<usize>,
    /// The `pthread_create` call that created it (None for main).
    pub(super) created_at: Option<Site>,
}

/// Effects of the current segment (between two nodes) over the state
/// variables of the segment's first node.
#[derive(Clone, Default)]
pub(super) struct Seg<'c> {
    /// Written through [`Seg::overwrite`], which keeps `ov_mask`.
    pub(super) ov: FastMap<String, Val<'c>>,
    /// The names of `ov` as a [`term::var_mask`] filter: a summary term
    /// that mentions none of them is left as it is by `apply_seg`.
    pub(super) ov_mask: u64,
    pub(super) assumes: Vec<Cond<'c>>,
    pub(super) bad: bool,
    /// Objects allocated in this segment.
    pub(super) fresh: HashSet<u32>,
    /// State variables of inputs created in this segment (quantified).
    pub(super) havoc: Vec<BV<'c>>,
}

impl<'c> Seg<'c> {
    /// Record that the segment overwrote state variable `n` with `v`.
    pub(super) fn overwrite(&mut self, n: String, v: Val<'c>) {
        self.ov_mask |= term::var_mask(&n);
        self.ov.insert(n, v);
    }
}

impl<'c> State<'c> {
    pub(super) fn seg_fresh(&mut self, o: u32) {
        self.seg.fresh.insert(o);
    }

    /// Object `o`, copied first if another state shares it.
    pub(super) fn obj_mut(&mut self, o: u32) -> &mut Obj<'c> {
        Rc::make_mut(&mut self.objs[o as usize])
    }

    /// The current frame of thread `t`, copied first if shared.
    pub(super) fn top_mut(&mut self, t: usize) -> &mut Frame<'c> {
        Rc::make_mut(self.threads[t].frames.last_mut().expect("a frame"))
    }
}

/// An instruction: function, block, index (the terminator: the block's
/// length).
pub(super) type Site = (usize, usize, usize);

/// The last writer of a shared byte: its thread and the visible
/// instructions of the transition that wrote it.
pub(super) type Writer = (usize, Rc<Vec<Site>>);

#[derive(Clone)]
pub(super) struct State<'c> {
    pub(super) threads: Vec<Thread<'c>>,
    /// Copy-on-write: a child state shares every object and frame with its
    /// parent until it writes to it (`obj_mut`, `top_mut`).
    pub(super) objs: Vec<Rc<Obj<'c>>>,
    pub(super) mutex: BTreeMap<Addr, usize>,
    pub(super) conds: BTreeMap<Addr, Vec<usize>>,
    pub(super) pcon: Vec<Bool<'c>>,
    pub(super) inputs: Vec<(String, Val<'c>)>,
    pub(super) nondet_count: usize,
    pub(super) seg: Seg<'c>,
    pub(super) sched: Vec<usize>,
    pub(super) tr_acc: Vec<Access>,
    pub(super) created: Vec<usize>,
    pub(super) steps: u64,
    /// Running a new thread's local prefix up to its first visible
    /// operation: not a transition of its own.
    pub(super) normalizing: bool,
    /// The thread whose deferred tail is being run.
    pub(super) tail_run: Option<usize>,
    /// `--max-interferences`: the thread that last wrote each shared byte
    /// (object, offset), and the cross-thread reads so far.
    pub(super) writers: BTreeMap<(u32, u64), Writer>,
    pub(super) interferences: u32,
    /// The visible instructions of the transition in progress (with
    /// `--max-interferences` and `rf_may`), and whether the path made an
    /// interference `rf_may` does not allow.
    pub(super) tr_at: Vec<Site>,
    pub(super) rf_disallowed: bool,
    /// The visible steps so far (shared with the parent state).
    pub(super) trace: Option<Rc<trace::Node<'c>>>,
    /// Directed mode: the recorded branch decisions so far.
    pub(super) decisions: Option<Rc<directed::DNodeList>>,
    /// Diff-directed mode: the target edges realised so far, and whether
    /// the path realised a target.
    pub(super) diff: super::diff_targets::DiffProgress,
    /// `rf_classes`: the reads of the path so far, last first.
    pub(super) rf_log: Option<Rc<super::rf_classes::RfNode>>,
    /// `odpor`: the wakeup subtree the next scheduling node starts with.
    pub(super) wut: Wut,
}

impl<'c, 'm> Engine<'c, 'm> {
    // ---------------------------------------------------------------- state

    pub(super) fn empty_state(&self) -> State<'c> {
        State {
            threads: Vec::new(),
            objs: Vec::new(),
            mutex: BTreeMap::new(),
            conds: BTreeMap::new(),
            pcon: Vec::new(),
            inputs: Vec::new(),
            nondet_count: 0,
            seg: Seg::default(),
            sched: Vec::new(),
            tr_acc: Vec::new(),
            created: Vec::new(),
            steps: 0,
            normalizing: false,
            tail_run: None,
            writers: BTreeMap::new(),
            interferences: 0,
            tr_at: Vec::new(),
            rf_disallowed: false,
            trace: None,
            decisions: None,
            diff: Default::default(),
            rf_log: None,
            wut: Wut::default(),
        }
    }

    pub(super) fn initial_state(&self, f: usize) -> State<'c> {
        let mut st = self.empty_state();
        st.objs = self.init_objs.clone();
        let mut fr = self.frame(f);
        // main(argc, argv[, envp]): argc = number of arguments, argv = the
        // strings and a NULL, envp = NULL.  Other parameters are 0.
        let argv = self.make_argv(&mut st);
        for (k, p) in self.m.functions[f].parameters.iter().enumerate() {
            let w = self.bits_of(&p.ty).unwrap_or(32);
            let v = match (k, w) {
                (0, w) if w != PW => self.bv(self.opts.args.len() as u64, w),
                (1, PW) => argv.clone(),
                _ => self.bv(0, w),
            };
            fr.regs.insert(p.name.clone(), v);
        }
        st.threads.push(Thread {
            frames: vec![Rc::new(fr)],
            status: TStatus::Run,
            ret: None,
            atomic: 0,
            clock: vec![],
            tail: false,
            parent: None,
            created_at: None,
        });
        st
    }

    /// The `argv` array: one NUL-terminated object per argument, then NULL.
    fn make_argv(&self, st: &mut State<'c>) -> Val<'c> {
        let n = self.opts.args.len() as u64;
        let arr = self.new_obj(st, (n + 1) * 8, ObjKind::Stack);
        st.obj_mut(arr).label = Some(("argv".into(), 8));
        for (k, a) in self.opts.args.iter().enumerate() {
            let bytes = a.as_bytes();
            let s = self.new_obj(st, bytes.len() as u64 + 1, ObjKind::Stack);
            st.obj_mut(s).label = Some((format!("argv[{k}]").into(), 1));
            for (i, b) in bytes.iter().enumerate() {
                self.mem_store(st, s, i as u64, 1, self.bv(*b as u64, 8));
            }
            self.mem_store(st, s, bytes.len() as u64, 1, self.bv(0, 8));
            self.mem_store(st, arr, k as u64 * 8, 8, self.ptr(s, 0));
        }
        self.mem_store(st, arr, n * 8, 8, self.bv(0, PW));
        self.ptr(arr, 0)
    }

    pub(super) fn frame(&self, f: usize) -> Frame<'c> {
        let atomic_fn = self.m.functions[f].name.starts_with("__VERIFIER_atomic_");
        Frame {
            f,
            bb: 0,
            ip: 0,
            prev_bb: usize::MAX,
            regs: FastMap::default(),
            allocas: Vec::new(),
            ret_to: None,
            visits: FastMap::from_iter([(0usize, 1u32)]),
            atomic_fn,
        }
    }

    /// The global control state's key where summaries use it (dpor+ag);
    /// other modes skip the hashing.
    pub(super) fn node_key(&self, st: &State<'c>) -> u64 {
        if self.track_wp {
            self.gcs_key(st)
        } else {
            0
        }
    }

    pub(super) fn gcs_key(&self, st: &State<'c>) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for t in &st.threads {
            t.status.hash(&mut h);
            t.atomic.hash(&mut h);
            t.tail.hash(&mut h);
            for fr in &t.frames {
                (fr.f, fr.bb, fr.ip).hash(&mut h);
            }
            0xffu8.hash(&mut h);
        }
        st.mutex.hash(&mut h);
        st.conds.hash(&mut h);
        h.finish()
    }
}
