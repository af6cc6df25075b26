use super::fasthash::FastSet;
use super::models::is_thread_local_call;
use super::state::{State, TStatus};
use super::transitions::{Access, Res};
use super::{callee_name, Addr, Engine};
use llvm_ir::{Constant, Function, Instruction, Name, Operand, TypeRef};

#[derive(Clone)]
pub(super) enum Next {
    Enabled(Vec<Access>),
    Disabled(Vec<Access>),
    /// Only thread-local code is left (deferred).
    Tail,
    /// Stopped at the loop bound.
    Cut,
    Done,
}

impl<'c, 'm> Engine<'c, 'm> {
    pub(super) fn next_of(&self, st: &State<'c>, t: usize) -> Next {
        match self.next_of_raw(st, t) {
            Next::Enabled(a) => Next::Enabled(self.relevant_acc(a)),
            Next::Disabled(a) => Next::Disabled(self.relevant_acc(a)),
            Next::Tail => Next::Tail,
            Next::Cut => Next::Cut,
            Next::Done => Next::Done,
        }
    }

    pub(super) fn next_of_raw(&self, st: &State<'c>, t: usize) -> Next {
        let th = &st.threads[t];
        if th.tail && th.status == TStatus::Run {
            return Next::Tail;
        }
        match &th.status {
            TStatus::Done => Next::Done,
            TStatus::Cut => Next::Cut,
            TStatus::WaitCond { cond, .. } => Next::Disabled(vec![Access {
                res: Res::Cond(*cond),
                write: true,
            }]),
            // Timing out removes the thread from the waiters (a signal
            // then goes elsewhere) and takes the mutex.
            TStatus::TimedWait { cond, mutex } => {
                let a = vec![
                    Access {
                        res: Res::Cond(*cond),
                        write: true,
                    },
                    Access {
                        res: Res::Mutex(*mutex),
                        write: true,
                    },
                ];
                if st.mutex.contains_key(mutex) {
                    Next::Disabled(a)
                } else {
                    Next::Enabled(a)
                }
            }
            TStatus::Reacquire { mutex } => {
                let a = vec![Access {
                    res: Res::Mutex(*mutex),
                    write: true,
                }];
                if st.mutex.contains_key(mutex) {
                    Next::Disabled(a)
                } else {
                    Next::Enabled(a)
                }
            }
            TStatus::Run => {
                let fr = th.frames.last().unwrap();
                let bb = &self.m.functions[fr.f].basic_blocks[fr.bb];
                if fr.ip >= bb.instrs.len() {
                    return Next::Enabled(vec![]);
                }
                match self.visible_access(st, t, &bb.instrs[fr.ip]) {
                    Some((acc, enabled)) if acc.iter().any(|a| matches!(a.res, Res::All)) => {
                        let acc = self.atomic_peek(fr.f, fr.bb, fr.ip).unwrap_or(acc);
                        if enabled {
                            Next::Enabled(acc)
                        } else {
                            Next::Disabled(acc)
                        }
                    }
                    Some((acc, enabled)) => {
                        if enabled {
                            Next::Enabled(acc)
                        } else {
                            Next::Disabled(acc)
                        }
                    }
                    None => Next::Enabled(vec![]),
                }
            }
        }
    }

    /// Accesses of a straight-line atomic section starting at a call to
    /// `__VERIFIER_atomic_begin`, when every access in it is to a global
    /// named directly (otherwise `None`: dependent with everything).
    pub(super) fn atomic_peek(&self, f: usize, bb: usize, ip: usize) -> Option<Vec<Access>> {
        let block = &self.m.functions[f].basic_blocks[bb];
        match &block.instrs[ip] {
            Instruction::Call(c)
                if callee_name(c).as_deref() == Some("__VERIFIER_atomic_begin") => {}
            _ => return None,
        }
        let global = |op: &Operand| -> Option<u32> {
            match op {
                Operand::ConstantOperand(c) => match c.as_ref() {
                    Constant::GlobalReference { name, .. } => self.obj_global_rev(name),
                    _ => None,
                },
                _ => None,
            }
        };
        let mut acc = Vec::new();
        for i in &block.instrs[ip + 1..] {
            let (o, w) = match i {
                Instruction::Load(l) => (global(&l.address)?, false),
                Instruction::Store(s) => (global(&s.address)?, true),
                Instruction::Call(c) => {
                    let n = callee_name(c).unwrap_or_default();
                    if n.starts_with("llvm.dbg.") {
                        continue;
                    }
                    return (n == "__VERIFIER_atomic_end").then_some(acc);
                }
                Instruction::AtomicRMW(_) | Instruction::CmpXchg(_) => return None,
                _ => continue,
            };
            let size = self.init_objs.get(o as usize).map(|x| x.size).unwrap_or(1);
            acc.push(Access {
                res: Res::Mem(o, 0, size.max(1)),
                write: w,
            });
        }
        None
    }

    pub(super) fn obj_global_rev(&self, name: &Name) -> Option<u32> {
        self.globals
            .get(name)
            .copied()
            .filter(|o| self.obj_global.contains_key(o))
    }
}

impl<'c, 'm> Engine<'c, 'm> {
    /// Is every instruction thread `t` can still execute thread-local, and
    /// does it end the thread?  (Static and conservative.)
    pub(super) fn is_tail(&self, st: &State<'c>, t: usize) -> bool {
        let th = &st.threads[t];
        let n = th.frames.len();
        for (k, fr) in th.frames.iter().enumerate().rev() {
            let f = &self.m.functions[fr.f];
            let start = if k + 1 == n { fr.ip } else { fr.ip + 1 };
            let bb = &f.basic_blocks[fr.bb];
            if bb
                .instrs
                .iter()
                .skip(start)
                .any(|i| self.static_visible(fr.f, i))
            {
                return false;
            }
            let succ = crate::symex::slice::block_successors(f, &bb.term);
            if succ.iter().any(|b| self.bb_reach_visible[fr.f][*b]) {
                return false;
            }
        }
        true
    }

    /// May this instruction be (or lead to) a visible operation, or create
    /// a thread?
    pub(super) fn static_visible(&self, f: usize, i: &Instruction) -> bool {
        match i {
            Instruction::Load(l) => !self.is_private_alloca(f, &l.address),
            Instruction::Store(s) => !self.is_private_alloca(f, &s.address),
            Instruction::AtomicRMW(_) | Instruction::CmpXchg(_) | Instruction::Fence(_) => true,
            Instruction::Call(c) => match callee_name(c) {
                Some(n) => match self.fidx.get(&n) {
                    Some(&fi) if !self.m.functions[fi].basic_blocks.is_empty() => {
                        self.fn_visible.get(fi).copied().unwrap_or(true)
                    }
                    _ => !is_thread_local_call(&n),
                },
                None => true,
            },
            _ => false,
        }
    }

    /// An address that is an `alloca` of `f` never stored or passed on.
    pub(super) fn is_private_alloca(&self, f: usize, op: &Operand) -> bool {
        match op {
            Operand::LocalOperand { name, .. } => self
                .private_allocas
                .get(f)
                .map(|s| s.contains(name))
                .unwrap_or(false),
            _ => false,
        }
    }

    pub(super) fn compute_private_allocas(&self, func: &Function) -> FastSet<Name> {
        let mut out = FastSet::default();
        let instrs: Vec<&Instruction> = func
            .basic_blocks
            .iter()
            .flat_map(|b| b.instrs.iter())
            .collect();
        for i in &instrs {
            let Instruction::Alloca(a) = i else { continue };
            let name = &a.dest;
            let uses_as_value =
                |o: &Operand| matches!(o, Operand::LocalOperand { name: n, .. } if n == name);
            let escapes = instrs.iter().any(|i| match i {
                Instruction::Store(s) => uses_as_value(&s.value),
                Instruction::Call(c) => {
                    !callee_name(c)
                        .map(|n| n.starts_with("llvm."))
                        .unwrap_or(false)
                        && c.arguments.iter().any(|(a, _)| uses_as_value(a))
                }
                Instruction::GetElementPtr(_)
                | Instruction::BitCast(_)
                | Instruction::PtrToInt(_) => {
                    crate::ir::pointer_source(i).is_some_and(uses_as_value)
                }
                _ => false,
            });
            if !escapes {
                out.insert(name.clone());
            }
        }
        out
    }

    pub(super) fn compute_tail_info(&mut self) {
        self.private_allocas = self
            .m
            .functions
            .iter()
            .map(|f| self.compute_private_allocas(f))
            .collect();
        let nf = self.m.functions.len();
        self.fn_visible = vec![true; nf];
        // Fixpoint from "nothing visible" upwards.
        let mut vis = vec![false; nf];
        loop {
            self.fn_visible = vis.clone();
            let mut changed = false;
            for (fi, f) in self.m.functions.iter().enumerate() {
                if vis[fi] {
                    continue;
                }
                let v = f.name.starts_with("__VERIFIER_atomic_")
                    || f.basic_blocks
                        .iter()
                        .flat_map(|b| b.instrs.iter())
                        .any(|i| self.static_visible(fi, i));
                if v {
                    vis[fi] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.fn_visible = vis;
        self.bb_reach_visible = self
            .m
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                let n = f.basic_blocks.len();
                let succ: Vec<Vec<usize>> = f
                    .basic_blocks
                    .iter()
                    .map(|b| crate::symex::slice::block_successors(f, &b.term))
                    .collect();
                let own: Vec<bool> = f
                    .basic_blocks
                    .iter()
                    .map(|b| b.instrs.iter().any(|i| self.static_visible(fi, i)))
                    .collect();
                let mut reach = own.clone();
                let mut changed = true;
                while changed {
                    changed = false;
                    for b in 0..n {
                        if !reach[b] && succ[b].iter().any(|s| reach[*s]) {
                            reach[b] = true;
                            changed = true;
                        }
                    }
                }
                reach
            })
            .collect();
        self.suffix_visible = self
            .m
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                f.basic_blocks
                    .iter()
                    .map(|b| {
                        let mut v = vec![false; b.instrs.len() + 1];
                        for k in (0..b.instrs.len()).rev() {
                            v[k] = v[k + 1] || self.static_visible(fi, &b.instrs[k]);
                        }
                        v
                    })
                    .collect()
            })
            .collect();
    }
}

impl<'c, 'm> Engine<'c, 'm> {
    // ---------------------------------------------------------- visibility

    pub(super) fn addr_of(
        &self,
        st: &State<'c>,
        tid: usize,
        op: &Operand,
    ) -> Option<(u32, Option<u64>)> {
        let p = self.op_val(st, tid, op).ok()?;
        let (o, off) = self.ptr_parts(&p);
        Some((o?, off.as_u64()))
    }

    pub(super) fn is_shared(&self, st: &State<'c>, o: u32) -> bool {
        st.objs
            .get(o as usize)
            .map(|ob| ob.escaped && !ob.readonly)
            .unwrap_or(true)
    }

    pub(super) fn mem_access(
        &self,
        st: &State<'c>,
        o: u32,
        off: Option<u64>,
        bytes: u64,
        write: bool,
    ) -> Access {
        let size = st.objs.get(o as usize).map(|x| x.size).unwrap_or(0);
        let (lo, hi) = match off {
            Some(x) => (x, x + bytes.max(1)),
            None => (0, size.max(1)),
        };
        Access {
            res: Res::Mem(o, lo, hi),
            write,
        }
    }

    pub(super) fn sync_addr(&self, st: &State<'c>, tid: usize, op: &Operand) -> Option<Addr> {
        let (o, off) = self.addr_of(st, tid, op)?;
        Some((o, off?))
    }

    /// If the instruction is visible: its accesses and whether it is enabled.
    pub(super) fn visible_access(
        &self,
        st: &State<'c>,
        tid: usize,
        i: &Instruction,
    ) -> Option<(Vec<Access>, bool)> {
        let memop = |addr: &Operand, ty: TypeRef, write: bool| -> Option<(Vec<Access>, bool)> {
            match self.addr_of(st, tid, addr) {
                Some((o, off)) => {
                    if !self.is_shared(st, o) || self.cia_invisible(o) {
                        return None;
                    }
                    let b = self.size_of(&ty);
                    Some((vec![self.mem_access(st, o, off, b, write)], true))
                }
                None => Some((
                    vec![Access {
                        res: Res::All,
                        write: true,
                    }],
                    true,
                )),
            }
        };
        match i {
            Instruction::Load(l) => memop(&l.address, self.m.type_of(l), false),
            Instruction::Store(s) => memop(&s.address, self.m.type_of(&s.value), true),
            Instruction::AtomicRMW(a) => memop(&a.address, self.m.type_of(&a.value), true),
            Instruction::CmpXchg(a) => memop(&a.address, self.m.type_of(&a.expected), true),
            Instruction::Call(c) => self.call_footprint(st, tid, c),
            _ => None,
        }
    }
}
