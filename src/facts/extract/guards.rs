//! Flag-guarded regions (EC-Diff §4.4 generalised from spin loops): a
//! conditional branch on a value loaded from one shared location opens, on
//! each side whose block the branch alone leads to, a region that runs only
//! after the load returned a value sending the branch that way. That value
//! was written by an *enabling* store: a constant store whose value passes
//! the branch's predicate, or a store of unknown value. The rules order the
//! region after whatever precedes every enabling store (rules/hb.dl).
//!
//! The predicate is evaluated on constants, so only conditions built from
//! the load by integer casts, one `icmp` against a constant, `trunc` to i1
//! and `xor` with true are understood; anything else opens no region.

use super::order::ThreadGraph;
use super::pointsto::{LocId, PointsTo};
use super::program::{ProgramModel, Site, StmtId};
use crate::ir::int_constant;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::terminator::Terminator as T;
use llvm_ir::types::Typed;
use llvm_ir::{Constant, IntPredicate, Operand, Type};
use rustc_hash::FxHashSet as HashSet;
use std::collections::{BTreeMap, BTreeSet};

/// How many SSA steps the condition may take from the load.
const DEPTH: usize = 8;

/// Width of a constant that is zero at every width (a zero initialiser).
pub const ANY_WIDTH: u32 = 0;

/// A region guarded by a flag: `entry` is its first statement.
pub struct FlagGuard {
    pub entry: StmtId,
    pub load: StmtId,
    pub loc: LocId,
    /// Hb events of the region (statements `entry` dominates).
    pub region: Vec<StmtId>,
    /// Stores of `loc` whose value may send the branch into the region.
    pub enablers: Vec<StmtId>,
}

/// What the search needs about memory.
pub struct FlagMemory<'a> {
    /// Loads with a single target location (shared).
    pub single_read: &'a BTreeMap<StmtId, LocId>,
    /// Every store of each shared location (initial values included).
    pub writers: &'a BTreeMap<LocId, Vec<StmtId>>,
    /// The constant a store writes to its one location, when known: (bits, value).
    pub constant: &'a dyn Fn(StmtId) -> Option<(u32, u64)>,
    pub events: &'a HashSet<StmtId>,
}

type IntFn = Box<dyn Fn(u64) -> u64>;
type BoolFn = Box<dyn Fn(u64) -> bool>;

fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

fn signed(v: u64, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        return v as i64;
    }
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

fn int_bits(t: &Type) -> Option<u32> {
    match t {
        Type::IntegerType { bits } => Some(*bits),
        _ => None,
    }
}

fn def<'m>(model: &ProgramModel<'m>, finst: usize, op: &Operand) -> Option<(StmtId, &'m I)> {
    let Operand::LocalOperand { name, .. } = op else {
        return None;
    };
    let d = *model.finsts[finst].defs.get(name)?;
    Some((d, model.instr(d)?))
}

/// An integer computed from one load by casts: (load, load bits, value fn, result bits).
fn int_of(
    model: &ProgramModel<'_>,
    finst: usize,
    op: &Operand,
    depth: usize,
) -> Option<(StmtId, u32, IntFn, u32)> {
    if depth == 0 {
        return None;
    }
    let (d, instr) = def(model, finst, op)?;
    match instr {
        I::Load(l) => {
            let bits = int_bits(l.get_type(&model.module.types).as_ref())?;
            Some((d, bits, Box::new(move |v| mask(v, bits)), bits))
        }
        I::ZExt(z) => {
            let (l, lb, f, _) = int_of(model, finst, &z.operand, depth - 1)?;
            let to = int_bits(z.to_type.as_ref())?;
            Some((l, lb, f, to))
        }
        I::SExt(s) => {
            let (l, lb, f, from) = int_of(model, finst, &s.operand, depth - 1)?;
            let to = int_bits(s.to_type.as_ref())?;
            Some((
                l,
                lb,
                Box::new(move |v| mask(signed(f(v), from) as u64, to)),
                to,
            ))
        }
        I::Trunc(t) => {
            let (l, lb, f, _) = int_of(model, finst, &t.operand, depth - 1)?;
            let to = int_bits(t.to_type.as_ref())?;
            Some((l, lb, Box::new(move |v| mask(f(v), to)), to))
        }
        _ => None,
    }
}

fn compare(p: IntPredicate, a: u64, b: u64, bits: u32) -> bool {
    let (sa, sb) = (signed(a, bits), signed(b, bits));
    match p {
        IntPredicate::EQ => a == b,
        IntPredicate::NE => a != b,
        IntPredicate::UGT => a > b,
        IntPredicate::UGE => a >= b,
        IntPredicate::ULT => a < b,
        IntPredicate::ULE => a <= b,
        IntPredicate::SGT => sa > sb,
        IntPredicate::SGE => sa >= sb,
        IntPredicate::SLT => sa < sb,
        IntPredicate::SLE => sa <= sb,
    }
}

fn swap(p: IntPredicate) -> IntPredicate {
    match p {
        IntPredicate::UGT => IntPredicate::ULT,
        IntPredicate::UGE => IntPredicate::ULE,
        IntPredicate::ULT => IntPredicate::UGT,
        IntPredicate::ULE => IntPredicate::UGE,
        IntPredicate::SGT => IntPredicate::SLT,
        IntPredicate::SGE => IntPredicate::SLE,
        IntPredicate::SLT => IntPredicate::SGT,
        IntPredicate::SLE => IntPredicate::SGE,
        other => other,
    }
}

/// A branch condition as a predicate on the loaded value: (load, load bits, predicate).
fn bool_of(
    model: &ProgramModel<'_>,
    finst: usize,
    op: &Operand,
    depth: usize,
) -> Option<(StmtId, u32, BoolFn)> {
    if depth == 0 {
        return None;
    }
    let (_, instr) = def(model, finst, op)?;
    match instr {
        I::ICmp(c) => {
            let (x, k, p) = match (int_constant(&c.operand0), int_constant(&c.operand1)) {
                (None, Some((_, k))) => (&c.operand0, k, c.predicate),
                (Some((_, k)), None) => (&c.operand1, k, swap(c.predicate)),
                _ => return None,
            };
            let (l, lb, f, bits) = int_of(model, finst, x, depth - 1)?;
            let k = mask(k, bits);
            Some((l, lb, Box::new(move |v| compare(p, f(v), k, bits))))
        }
        I::Xor(x) => {
            let other = match (int_constant(&x.operand0), int_constant(&x.operand1)) {
                (None, Some((1, 1))) => &x.operand0,
                (Some((1, 1)), None) => &x.operand1,
                _ => return None,
            };
            let (l, lb, f) = bool_of(model, finst, other, depth - 1)?;
            Some((l, lb, Box::new(move |v| !f(v))))
        }
        I::Trunc(t) if int_bits(t.to_type.as_ref()) == Some(1) => {
            let (l, lb, f, _) = int_of(model, finst, &t.operand, depth - 1)?;
            Some((l, lb, Box::new(move |v| f(v) & 1 == 1)))
        }
        _ => None,
    }
}

/// The flag-guarded regions of one thread.
pub fn flag_guards(
    model: &ProgramModel<'_>,
    tg: &ThreadGraph,
    mem: &FlagMemory<'_>,
) -> Vec<FlagGuard> {
    let n = tg.nodes.len();
    let mut preds: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for (a, ss) in tg.succ.iter().enumerate() {
        for &b in ss {
            preds[b].insert(a);
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, d) in tg.idom.iter().enumerate() {
        if let Some(d) = *d {
            if d != i {
                children[d].push(i);
            }
        }
    }
    let mut out = Vec::new();
    for (b, &s) in tg.nodes.iter().enumerate() {
        let Some(T::CondBr(br)) = model.term(s) else {
            continue;
        };
        let Site::Term { finst, .. } = model.stmts[s as usize].site else {
            continue;
        };
        if br.true_dest == br.false_dest {
            continue;
        }
        let Some((load, bits, pass)) = bool_of(model, finst, &br.condition, DEPTH) else {
            continue;
        };
        let Some(&loc) = mem.single_read.get(&load) else {
            continue;
        };
        let writers = mem.writers.get(&loc).map(Vec::as_slice).unwrap_or(&[]);
        // an uninitialised flag (no initial value) may hold anything
        let initialised = writers
            .iter()
            .any(|&w| matches!(model.stmts[w as usize].site, Site::Init { .. }));
        if !initialised {
            continue;
        }
        let func = model.func(finst);
        // An assertion's branch is no guard: a failing assertion is an
        // observation, the code after it still counts as running.
        let asserts = |dest: &llvm_ir::Name| {
            func.basic_blocks
                .iter()
                .position(|bb| &bb.name == dest)
                .and_then(|db| model.finsts[finst].blocks.get(db))
                .is_some_and(|stmts| {
                    stmts
                        .iter()
                        .any(|&x| model.libcall(x) == super::ir::LibCall::AssertFail)
                })
        };
        if asserts(&br.true_dest) || asserts(&br.false_dest) {
            continue;
        }
        for (dest, taken) in [(&br.true_dest, true), (&br.false_dest, false)] {
            let Some(db) = func.basic_blocks.iter().position(|bb| &bb.name == dest) else {
                continue;
            };
            let Some(&first) = model.finsts[finst].blocks.get(db).and_then(|b| b.first()) else {
                continue;
            };
            let Some(&d) = tg.local.get(&first) else {
                continue;
            };
            if preds[d].len() != 1 || !preds[d].contains(&b) {
                continue;
            }
            let mut region = Vec::new();
            let mut stack = vec![d];
            while let Some(x) = stack.pop() {
                if mem.events.contains(&tg.nodes[x]) {
                    region.push(tg.nodes[x]);
                }
                stack.extend(children[x].iter().copied());
            }
            if region.is_empty() {
                continue;
            }
            let enablers = writers
                .iter()
                .copied()
                .filter(|&w| match (mem.constant)(w) {
                    Some((wb, v)) if wb == bits || wb == ANY_WIDTH => pass(v) == taken,
                    _ => true,
                })
                .collect();
            region.sort_unstable();
            out.push(FlagGuard {
                entry: first,
                load,
                loc,
                region,
                enablers,
            });
        }
    }
    out
}

/// The constant a store (or a global's initial value) surely writes to its
/// one location, as (bits, value): a store of an integer constant with a
/// single target, the integer initialiser of a one-cell global, or zero (of
/// any width) for a zero initialiser.
pub fn store_constant(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    strong_write: &BTreeMap<StmtId, LocId>,
    s: StmtId,
) -> Option<(u32, u64)> {
    match model.stmts[s as usize].site {
        Site::Init { global } => {
            let init = model.module.global_vars[global].initializer.as_ref()?;
            match init.as_ref() {
                Constant::Int { bits, value } if pt.global_cells(global).len() == 1 => {
                    Some((*bits, *value))
                }
                Constant::AggregateZero(_) => Some((ANY_WIDTH, 0)),
                _ => None,
            }
        }
        _ => match model.instr(s) {
            Some(I::Store(st)) if strong_write.contains_key(&s) => int_constant(&st.value),
            _ => None,
        },
    }
}
