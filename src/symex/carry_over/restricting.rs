//! Does a patch only restrict OLD's schedules? Added critical sections
//! and restricting moves (docs/symex.md, "Carry-over of a fix", C2).

use super::addresses::{
    accessed_global, address_base, callee, is_pure, private_access, private_alloca, stmt_call,
    stmt_instr, stmt_role, touches_alloca, Base, JOIN_RESULT,
};
use crate::calls::Role;
use crate::facts::StatementInfo;
use crate::symex::incremental::{self, VersionInput};
use crate::symex::slice::InstrId;
use crate::versions::{ChangeKind, VersionMatch};
use llvm_ir::instruction::Call;
use llvm_ir::{Constant, Instruction, Module, Operand};
use std::collections::{BTreeSet, HashMap};

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

fn call_at(m: &Module, (f, b, i): InstrId) -> Option<&Call> {
    match m.functions.get(f)?.basic_blocks.get(b)?.instrs.get(i)? {
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
///   global (its address seen through GEPs and casts) and a
///   `pthread_create` swapped so that the access now comes first, or a
///   `pthread_join` and such an access swapped so that the join now comes
///   first; the call writes only its thread's private memory (the handle,
///   the result: a non-escaping `alloca` of its function, or no result)
///   and points into no global the access touches. The moved statement
///   may be either; what else it crosses must commute with it (an address
///   computation, an access to a private `alloca` the other leaves alone).
///
/// Everything is read from NEW's IR: each statement's instruction is
/// reached through its place in the facts.
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
                let set = match stmt_role(new.module, s) {
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

/// Does the thread call `sync` of NEW leave everything but its thread's
/// own memory alone, so that it commutes with other threads' events and
/// with an access to `global`? A `pthread_create` whose handle is a
/// private `alloca` (no other thread can read it before or after the
/// create writes it), or a `pthread_join` whose result pointer is null or
/// a private `alloca`; no argument points into `global`.
fn private_thread_call(m: &Module, sync: &StatementInfo, role: Role, global: &str) -> bool {
    let Some((fun, c)) = stmt_call(m, sync) else {
        return false;
    };
    let names_global = c
        .arguments
        .iter()
        .any(|(a, _)| address_base(fun, a) == Base::Global(global.to_string()));
    if names_global {
        return false;
    }
    let written = match role {
        Role::ThreadCreate => callee(c)
            .and_then(crate::calls::lookup)
            .and_then(|r| r.footprint.thread),
        Role::ThreadJoin => Some(JOIN_RESULT),
        _ => None,
    };
    let Some((arg, _)) = written.and_then(|k| c.arguments.get(k)) else {
        return false;
    };
    match address_base(fun, arg) {
        Base::Alloca(a) => private_alloca(fun, a),
        Base::Null => role == Role::ThreadJoin,
        _ => false,
    }
}

/// Does NEW's order of the data access `data` and the thread call `sync`
/// (`data_first`: `data` comes first in NEW; the other way in OLD) only
/// restrict OLD's schedules?  A load or store of one global (its address
/// seen through GEPs and casts) now before a `pthread_create`, or now
/// after a `pthread_join`, the call writing only its thread's private
/// memory and not pointing into that global ([`private_thread_call`]).
fn restricting_pair(
    m: &Module,
    data: &StatementInfo,
    sync: &StatementInfo,
    data_first: bool,
) -> bool {
    let Some(global) = accessed_global(m, data) else {
        return false;
    };
    match stmt_role(m, sync) {
        Some(r @ Role::ThreadCreate) if data_first => private_thread_call(m, sync, r, &global),
        Some(r @ Role::ThreadJoin) if !data_first => private_thread_call(m, sync, r, &global),
        _ => false,
    }
}

/// Do two statements of one thread commute whatever the other threads
/// do? One computes without memory (an address or an index for the moved
/// access), or one accesses a private `alloca` (no other thread sees it)
/// that the other does not touch (the load of a thread handle before its
/// join).
fn commuting_pair(m: &Module, a: &StatementInfo, b: &StatementInfo) -> bool {
    let pure = |s: &StatementInfo| stmt_instr(m, s).is_some_and(|(_, i)| is_pure(i));
    let private_apart = |x: &StatementInfo, y: &StatementInfo| {
        private_access(m, x).is_some_and(|al| !touches_alloca(m, y, al))
    };
    pure(a) || pure(b) || private_apart(a, b) || private_apart(b, a)
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
        let ok = commuting_pair(new.module, sn, t)
            || restricting_pair(new.module, sn, t, moved_first)
            || restricting_pair(new.module, t, sn, !moved_first);
        if !ok {
            return not(&format!(
                "it crossed `{}`: not a global access now before a thread start or after a join that write only their thread's own memory",
                t.text
            ));
        }
    }
    if crossed == 0 {
        return not("it crossed no statement of its block");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::restricting_change;
    use crate::symex::incremental::VersionInput;
    use crate::versions::{match_versions, Version};

    /// `restricting_change` of two programs that share `globals` and a
    /// worker, with `main` bodies `old` and `new`.
    fn restricting(globals: &str, old: &str, new: &str) -> Result<Vec<String>, String> {
        let dir = tempfile::tempdir().unwrap();
        let program = |body: &str| {
            format!(
                "#include <pthread.h>\n{globals}\nint out;\n\
                 void *worker(void *arg) {{ out = 1; return 0; }}\n\
                 int main(void) {{\n  pthread_t w;\n{body}\n  return 0;\n}}\n"
            )
        };
        let load = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let p = crate::frontend::load_module(&path, &Default::default()).unwrap();
            let f = crate::facts::extract::extract(&p, &Default::default()).unwrap();
            (p, f)
        };
        let (old_text, new_text) = (program(old), program(new));
        let ((op, of), (np, nf)) = (load("old.c", &old_text), load("new.c", &new_text));
        let matching = match_versions(
            &Version {
                facts: &of,
                source: Some(&old_text),
            },
            &Version {
                facts: &nf,
                source: Some(&new_text),
            },
        );
        fn input<'a>(
            p: &'a crate::frontend::Program,
            facts: &'a crate::facts::FactSet,
            source: &'a str,
        ) -> VersionInput<'a> {
            VersionInput {
                module: &p.module,
                facts,
                source: Some(source),
                program_hash: "",
            }
        }
        restricting_change(
            &input(&op, &of, &old_text),
            &input(&np, &nf, &new_text),
            &matching,
        )
    }

    const CREATE: &str = "  pthread_create(&w, 0, worker, 0);";

    #[test]
    fn a_store_through_a_gep_of_a_global_moved_before_a_start_restricts() {
        // `config[which]` is a GEP instruction on @config: its statement
        // text names no global (`store i32 21, i32* %arrayidx`)
        let globals = "int config[2];\nint which = 1;";
        let set = "  config[which] = 21;";
        let join = "  pthread_join(w, 0);";
        let r = restricting(
            globals,
            &format!("{CREATE}\n{set}\n{join}"),
            &format!("{set}\n{CREATE}\n{join}"),
        );
        assert!(
            r.as_ref().is_ok_and(|c| c[0].contains("restricting moves")),
            "{r:?}"
        );
    }

    #[test]
    fn a_store_through_a_loaded_pointer_does_not_restrict() {
        // the address is loaded: which object it is, the IR does not say
        let globals = "int config;\nint *cp = &config;";
        let set = "  *cp = 21;";
        let r = restricting(
            globals,
            &format!("{CREATE}\n{set}\n  pthread_join(w, 0);"),
            &format!("{set}\n{CREATE}\n  pthread_join(w, 0);"),
        );
        assert!(r.is_err(), "{r:?}");
    }

    #[test]
    fn a_join_writing_a_private_result_restricts_a_global_one_does_not() {
        // a global read moved after the join: the join writes its result
        // into a local no other thread can see (not a literal null)
        let read = "  int seen = out;";
        let local = "  void *res;\n  pthread_join(w, &res);";
        let r = restricting(
            "int config;",
            &format!("{CREATE}\n{read}\n{local}\n  return seen + (res != 0);"),
            &format!("{CREATE}\n{local}\n{read}\n  return seen + (res != 0);"),
        );
        assert!(
            r.as_ref().is_ok_and(|c| c[0].contains("restricting moves")),
            "{r:?}"
        );
        // the result written to a global: another thread may read it
        let global = "  pthread_join(w, &gres);";
        let r = restricting(
            "void *gres;",
            &format!("{CREATE}\n{read}\n{global}\n  return seen;"),
            &format!("{CREATE}\n{global}\n{read}\n  return seen;"),
        );
        assert!(r.is_err(), "{r:?}");
    }

    #[test]
    fn a_start_whose_handle_escapes_does_not_restrict() {
        // the handle's address is published: another thread may read the
        // handle before the create writes it
        let globals = "int config;\npthread_t *published;";
        let publish = "  published = &w;";
        let set = "  config = 21;";
        let join = "  pthread_join(w, 0);";
        let r = restricting(
            globals,
            &format!("{publish}\n{CREATE}\n{set}\n{join}"),
            &format!("{publish}\n{set}\n{CREATE}\n{join}"),
        );
        assert!(
            r.as_ref().is_err_and(|e| e.contains("thread's own memory")),
            "{r:?}"
        );
        // the same move with a private handle restricts
        let r = restricting(
            globals,
            &format!("{CREATE}\n{set}\n{join}"),
            &format!("{set}\n{CREATE}\n{join}"),
        );
        assert!(r.is_ok(), "{r:?}");
    }
}
