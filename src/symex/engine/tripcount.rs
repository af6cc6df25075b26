//! Loops with a constant trip count: `for (k = C0; k < C; k += S)` with
//! the test in the loop header, as clang emits it (after mem2reg the
//! induction variable is a phi of the header).  Such a loop needs no
//! bound: its blocks may be entered as often as the loop runs, so a bug in
//! its last iteration is found without deepening.

use crate::ir::int_constant;
use crate::symex::slice::block_successors;
use llvm_ir::{Function, Instruction, IntPredicate, Name, Operand, Terminator};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Trip counts above this are left to the loop bound (unrolling them would
/// multiply the paths and interleavings).
pub(super) const MAX_TRIP: u64 = 100;

/// Per block of `f`: how many times it may be entered per activation
/// because every loop around it has a constant trip count (0: no such
/// allowance, the loop bound applies).
pub(super) fn block_allowance(f: &Function) -> Vec<u64> {
    let n = f.basic_blocks.len();
    let succ: Vec<Vec<usize>> = f
        .basic_blocks
        .iter()
        .map(|b| block_successors(f, &b.term))
        .collect();
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for s in ss {
            pred[*s].push(b);
        }
    }
    // Back edges: edges to a block on the DFS stack.
    let mut back: Vec<(usize, usize)> = Vec::new();
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    if n > 0 {
        state[0] = 1;
    }
    while let Some((b, k)) = stack.pop() {
        if k < succ[b].len() {
            stack.push((b, k + 1));
            let s = succ[b][k];
            match state[s] {
                0 => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                1 => back.push((b, s)),
                _ => {}
            }
        } else {
            state[b] = 2;
        }
    }
    // Natural loop of each header (union over its back edges).
    let mut loops: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (latch, h) in &back {
        let body = loops.entry(*h).or_insert_with(|| BTreeSet::from([*h]));
        let mut work = vec![*latch];
        while let Some(b) = work.pop() {
            if body.insert(b) {
                work.extend(pred[b].iter().copied());
            }
        }
    }
    // Per block: the product of the entries its loops need; blocks in any
    // loop without a constant trip count get no allowance.
    let mut allow: Vec<Option<u64>> = vec![Some(1); n];
    for (h, body) in &loops {
        let trip = trip_count(f, *h, body);
        for b in body {
            allow[*b] = match (allow[*b], trip) {
                (Some(a), Some(t)) => {
                    let k = if b == h { t + 1 } else { t };
                    a.checked_mul(k.max(1))
                }
                _ => None,
            };
        }
    }
    allow
        .into_iter()
        .enumerate()
        .map(|(b, a)| {
            let in_loop = loops.values().any(|l| l.contains(&b));
            match a {
                Some(a) if in_loop => a,
                _ => 0,
            }
        })
        .collect()
}

fn is_local(op: &Operand, n: &Name) -> bool {
    matches!(op, Operand::LocalOperand { name, .. } if name == n)
}

/// Body runs of the loop headed by `h`, when it is a counted loop.
fn trip_count(f: &Function, h: usize, body: &BTreeSet<usize>) -> Option<u64> {
    let hb = &f.basic_blocks[h];
    let Terminator::CondBr(br) = &hb.term else {
        return None;
    };
    let names: HashMap<&Name, usize> = f
        .basic_blocks
        .iter()
        .enumerate()
        .map(|(k, b)| (&b.name, k))
        .collect();
    let t_in = body.contains(names.get(&br.true_dest)?);
    let f_in = body.contains(names.get(&br.false_dest)?);
    if t_in == f_in {
        return None;
    }
    let Operand::LocalOperand { name: cname, .. } = &br.condition else {
        return None;
    };
    let cmp = hb.instrs.iter().find_map(|i| match i {
        Instruction::ICmp(c) if &c.dest == cname => Some(c),
        _ => None,
    })?;
    // One side is the phi, the other a constant.
    for phi in hb.instrs.iter().filter_map(|i| match i {
        Instruction::Phi(p) => Some(p),
        _ => None,
    }) {
        let (limit, phi_left) = if is_local(&cmp.operand0, &phi.dest) {
            (int_constant(&cmp.operand1)?, true)
        } else if is_local(&cmp.operand1, &phi.dest) {
            (int_constant(&cmp.operand0)?, false)
        } else {
            continue;
        };
        // Initial value from outside the loop, the step from inside.
        let mut init = None;
        let mut step = None;
        for (v, from) in &phi.incoming_values {
            let inside = names.get(from).map(|b| body.contains(b)).unwrap_or(false);
            if !inside {
                if init.is_some() {
                    return None;
                }
                init = Some(int_constant(v)?);
            } else {
                let Operand::LocalOperand { name, .. } = v else {
                    return None;
                };
                let s = step_of(f, body, name, &phi.dest)?;
                if step.is_some_and(|x| x != s) {
                    return None;
                }
                step = Some(s);
            }
        }
        let ((w, i0), s) = (init?, step?);
        if w > 64 || w == 0 {
            return None;
        }
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let sx = |v: u64| -> i64 { ((v << (64 - w)) as i64) >> (64 - w) };
        let stays = |i: u64| -> bool {
            let (a, b) = if phi_left { (i, limit.1) } else { (limit.1, i) };
            let r = match cmp.predicate {
                IntPredicate::EQ => a == b,
                IntPredicate::NE => a != b,
                IntPredicate::UGT => a > b,
                IntPredicate::UGE => a >= b,
                IntPredicate::ULT => a < b,
                IntPredicate::ULE => a <= b,
                IntPredicate::SGT => sx(a) > sx(b),
                IntPredicate::SGE => sx(a) >= sx(b),
                IntPredicate::SLT => sx(a) < sx(b),
                IntPredicate::SLE => sx(a) <= sx(b),
            };
            r == t_in
        };
        let mut i = i0 & mask;
        let mut trips = 0u64;
        while stays(i) {
            trips += 1;
            if trips > MAX_TRIP {
                return None;
            }
            i = i.wrapping_add(s) & mask;
        }
        return Some(trips);
    }
    None
}

/// The constant step of `next = add phi, S` (or `sub phi, S`) inside the loop.
fn step_of(f: &Function, body: &BTreeSet<usize>, next: &Name, phi: &Name) -> Option<u64> {
    for b in body {
        for i in &f.basic_blocks[*b].instrs {
            match i {
                Instruction::Add(a) if &a.dest == next => {
                    if is_local(&a.operand0, phi) {
                        return int_constant(&a.operand1).map(|x| x.1);
                    }
                    if is_local(&a.operand1, phi) {
                        return int_constant(&a.operand0).map(|x| x.1);
                    }
                    return None;
                }
                Instruction::Sub(a) if &a.dest == next => {
                    if is_local(&a.operand0, phi) {
                        return int_constant(&a.operand1).map(|x| x.1.wrapping_neg());
                    }
                    return None;
                }
                _ => {}
            }
        }
    }
    None
}
