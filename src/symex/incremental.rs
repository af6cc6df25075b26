//! Incremental symbolic execution (`concord symex OLD NEW`, Conc-iSE §4–6).
//!
//! The change-impact rules (`rules/cia.dl`, as `concord impact` runs them)
//! give the impacted statements of NEW (IS_fwd ∪ IS_bwd, including the
//! closures of deleted statements mapped through Δmap).  They are mapped
//! to NEW's instructions and seed the +CIA slice
//! ([`crate::symex::slice::Criteria::Impacted`]): branches and shared
//! accesses no impacted finding depends on are not explored separately.
//! Findings of OLD at statements outside the impacted set are carried over
//! to NEW through Δmap and reported as "unchanged from OLD".

use super::{Exploration, Finding, FindingKind, Reason, Stats, Verdict};
use crate::analysis::impact::{self, ImpactResult};
use crate::facts::FactSet;
use crate::symex::slice::InstrId;
use crate::symex::store::{Store, StoreOptions};
use crate::versions::{self, VersionMatch};
use llvm_ir::{HasDebugLoc, Module};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// One version as the incremental mode needs it.
pub struct VersionInput<'a> {
    pub module: &'a Module,
    pub facts: &'a FactSet,
    /// The C source, when the version is a C file (line matching).
    pub source: Option<&'a str>,
    /// Program hash (`Program::input_sha256`): the store's key.
    pub program_hash: &'a str,
}

/// What the change-impact analysis says about NEW, in the executor's terms.
pub struct Plan {
    pub matching: VersionMatch,
    pub impact: ImpactResult,
    /// Impacted statements of NEW (IS_fwd ∪ IS_bwd).
    pub impacted_stmts: BTreeSet<u32>,
    /// Impacted statements of OLD (closures of deleted statements).
    pub impacted_old_stmts: BTreeSet<u32>,
    /// The impacted statements as instructions of NEW's module.
    pub impacted: BTreeSet<InstrId>,
    /// A synchronisation statement changed: everything is impacted.
    pub sync_changed: bool,
}

/// A module's instructions, for mapping statements to them: by the
/// instruction id a statement carries when it was extracted from this
/// module, else (facts read from a fact directory) by function and
/// printed text, built on first need.
struct InstrIndex<'m> {
    m: &'m Module,
    by_text: std::cell::OnceCell<HashMap<(String, String), Vec<InstrId>>>,
}

impl<'m> InstrIndex<'m> {
    fn new(m: &'m Module) -> Self {
        InstrIndex {
            m,
            by_text: std::cell::OnceCell::new(),
        }
    }

    fn by_text(&self) -> &HashMap<(String, String), Vec<InstrId>> {
        self.by_text.get_or_init(|| {
            let mut by_text: HashMap<(String, String), Vec<InstrId>> = HashMap::new();
            for (fi, f) in self.m.functions.iter().enumerate() {
                for (bi, b) in f.basic_blocks.iter().enumerate() {
                    for (ii, i) in b.instrs.iter().enumerate() {
                        by_text
                            .entry((f.name.clone(), plain_text(&i.to_string())))
                            .or_default()
                            .push((fi, bi, ii));
                    }
                    by_text
                        .entry((f.name.clone(), plain_text(&b.term.to_string())))
                        .or_default()
                        .push((fi, bi, b.instrs.len()));
                }
            }
            by_text
        })
    }

    /// The statement's own instruction, when its id names an instruction
    /// of this module with the statement's function and text (facts of
    /// another build of the program fall back to the text).
    fn by_id(&self, s: &crate::facts::StatementInfo) -> Option<InstrId> {
        let at = s.instr?;
        let f = self.m.functions.get(at.function)?;
        let b = f.basic_blocks.get(at.block)?;
        let text = match b.instrs.get(at.index) {
            Some(i) => i.to_string(),
            None if at.index == b.instrs.len() => b.term.to_string(),
            None => return None,
        };
        // Long texts are shortened in the statement table (ending in '…').
        let same_text = plain_text(&text) == s.text || s.text.ends_with('…');
        (f.name == s.function && same_text).then_some((at.function, at.block, at.index))
    }

    fn debug_loc(&self, id: InstrId) -> (String, u32) {
        let b = &self.m.functions[id.0].basic_blocks[id.1];
        let dl = if id.2 < b.instrs.len() {
            b.instrs[id.2].get_debug_loc().clone()
        } else {
            b.term.get_debug_loc().clone()
        };
        super::engine::loc_of(&dl)
    }

    /// Is `id` a conditional branch inside a loop?
    fn loop_branch(&self, id: InstrId) -> bool {
        let f = &self.m.functions[id.0];
        let b = &f.basic_blocks[id.1];
        if id.2 != b.instrs.len() {
            return false;
        }
        let succ: Vec<Vec<usize>> = f
            .basic_blocks
            .iter()
            .map(|x| crate::symex::slice::block_successors(f, &x.term))
            .collect();
        if succ[id.1].len() < 2 {
            return false;
        }
        let mut seen = vec![false; succ.len()];
        let mut stack = succ[id.1].clone();
        while let Some(x) = stack.pop() {
            if x == id.1 {
                return true;
            }
            if !std::mem::replace(&mut seen[x], true) {
                stack.extend(succ[x].iter().copied());
            }
        }
        false
    }

    /// The instructions a statement stands for: its own (by id), else
    /// those with its function and text at its line and column (all of
    /// them if none is there: a statement matching several instructions
    /// impacts each of them).
    fn instrs_of(&self, facts: &FactSet, stmt: u32) -> Vec<InstrId> {
        let Some(s) = facts.statement(stmt) else {
            return Vec::new();
        };
        if let Some(id) = self.by_id(s) {
            return vec![id];
        }
        let Some(cands) = self.by_text().get(&(s.function.clone(), s.text.clone())) else {
            return Vec::new();
        };
        let at: Vec<InstrId> = cands
            .iter()
            .copied()
            .filter(|id| {
                let (loc, line) = self.debug_loc(*id);
                line == s.line && loc_col(&loc) == Some(s.col)
            })
            .collect();
        if at.is_empty() {
            cands.clone()
        } else {
            at
        }
    }
}

/// Each instruction of `m` that stands for a statement of `facts`, with
/// that statement (directed mode maps decisions back to statements).
pub(crate) fn statement_of_instrs(m: &Module, facts: &FactSet) -> HashMap<InstrId, u32> {
    let idx = InstrIndex::new(m);
    let mut out = HashMap::new();
    for s in &facts.statements {
        for id in idx.instrs_of(facts, s.id) {
            out.entry(id).or_insert(s.id);
        }
    }
    out
}

/// The instructions each statement of `facts` stands for (a statement
/// per thread instance of the same code: several statements share them).
pub(crate) fn instrs_of_statements(m: &Module, facts: &FactSet) -> HashMap<u32, Vec<InstrId>> {
    let idx = InstrIndex::new(m);
    facts
        .statements
        .iter()
        .map(|s| (s.id, idx.instrs_of(facts, s.id)))
        .collect()
}

/// An instruction as the facts print it (llvm-ir marks those with a
/// debug location; the statement table does not).
fn plain_text(t: &str) -> String {
    t.trim_end_matches(" (with debugloc)").to_string()
}

/// The column of a `file:line:col` location.
fn loc_col(loc: &str) -> Option<u32> {
    loc.rsplit(':').next()?.parse().ok()
}

/// Run the change-impact analysis of OLD → NEW and map it to NEW's
/// instructions.
pub fn plan(old: &VersionInput<'_>, new: &VersionInput<'_>) -> Plan {
    let matching = versions::match_versions(
        &versions::Version {
            facts: old.facts,
            source: old.source,
        },
        &versions::Version {
            facts: new.facts,
            source: new.source,
        },
    );
    plan_matched(matching, old, new)
}

/// [`plan`] with the versions already matched (a build's versions are
/// matched file by file: `load::match_loaded`).
pub fn plan_matched(
    matching: VersionMatch,
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
) -> Plan {
    let groups = impact::change_groups(&matching, old.facts, new.facts);
    let result = impact::analyse(
        crate::analysis::Engine::Ascent,
        groups,
        Some(old.facts),
        new.facts,
        &matching.map,
    );
    let impacted_stmts: BTreeSet<u32> = result
        .fwd
        .keys()
        .chain(result.bwd.keys())
        .copied()
        .chain(matching.changed_new())
        .collect();
    let impacted_old_stmts: BTreeSet<u32> = result
        .fwd_old
        .keys()
        .chain(result.bwd_old.keys())
        .copied()
        .chain(matching.changed_old())
        .collect();
    // Data and control dependences do not say which interleavings exist:
    // a change of synchronisation impacts everything.
    let sync_changed = matching
        .changed_new()
        .iter()
        .filter_map(|s| new.facts.statement(*s))
        .chain(
            matching
                .changed_old()
                .iter()
                .filter_map(|s| old.facts.statement(*s)),
        )
        .any(is_sync);
    // A changed loop condition may be a busy wait (ad-hoc synchronisation):
    // the code after a loop does not depend on it, yet the loop orders it.
    let (old_idx, new_idx) = (InstrIndex::new(old.module), InstrIndex::new(new.module));
    let loop_changed = matching.changed_new().iter().any(|s| {
        new_idx
            .instrs_of(new.facts, *s)
            .iter()
            .any(|i| new_idx.loop_branch(*i))
    }) || matching.changed_old().iter().any(|s| {
        old_idx
            .instrs_of(old.facts, *s)
            .iter()
            .any(|i| old_idx.loop_branch(*i))
    });
    let sync_changed = sync_changed || loop_changed;
    let (impacted_stmts, impacted_old_stmts) = if sync_changed {
        (
            new.facts.statements.iter().map(|s| s.id).collect(),
            old.facts.statements.iter().map(|s| s.id).collect(),
        )
    } else {
        (impacted_stmts, impacted_old_stmts)
    };
    let impacted = impacted_stmts
        .iter()
        .flat_map(|s| new_idx.instrs_of(new.facts, *s))
        .collect();
    Plan {
        matching,
        impact: result,
        impacted_stmts,
        impacted_old_stmts,
        impacted,
        sync_changed,
    }
}

/// A synchronisation statement: thread, lock, condition and atomic
/// operations.
fn is_sync(s: &crate::facts::StatementInfo) -> bool {
    matches!(s.kind.as_str(), "atomicrmw" | "cmpxchg" | "fence")
        || (s.kind == "call"
            && global_names(&s.text).any(|n| {
                crate::calls::is_pthread_api(n)
                    || n.starts_with("__VERIFIER_atomic")
                    || n.starts_with("sem_")
            }))
}

/// The `@name`s an instruction's text refers to (callee and arguments).
fn global_names(text: &str) -> impl Iterator<Item = &str> {
    text.split('@').skip(1)
}

/// Where an OLD finding stands in NEW.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Carried {
    /// Its statements are unchanged and not impacted: the finding holds in
    /// NEW at this location.
    Unchanged { location: String, line: u32 },
    /// Impacted (or changed): NEW's exploration decides.
    Impacted,
    /// No statement of OLD at its location, or none with a counterpart in
    /// NEW (deleted code): it does not carry over.
    Unmapped,
}

/// The statements of `facts` at a finding's location.
fn stmts_at(facts: &FactSet, f: &Finding) -> Vec<u32> {
    let Some(col) = loc_col(&f.location) else {
        return Vec::new();
    };
    facts
        .statements
        .iter()
        .filter(|s| {
            s.line == f.line
                && s.line > 0
                && s.col == col
                && s.function == f.function
                && f.location.contains(&s.file)
        })
        .map(|s| s.id)
        .collect()
}

/// Map OLD's finding `f` to NEW.
pub fn carry(plan: &Plan, old: &VersionInput<'_>, new: &VersionInput<'_>, f: &Finding) -> Carried {
    // A deadlock is a state of every thread, not of the statement it is
    // reported at: a patch that moves a wait under a guard (the wait's
    // text unchanged) removes it while that statement stays unchanged.
    if f.kind == FindingKind::Deadlock {
        return Carried::Impacted;
    }
    let olds = stmts_at(old.facts, f);
    if olds.iter().any(|s| plan.impacted_old_stmts.contains(s)) {
        return Carried::Impacted;
    }
    let news: Vec<u32> = olds
        .iter()
        .filter_map(|s| plan.matching.map.get(s).copied())
        .collect();
    if news.is_empty() {
        return Carried::Unmapped;
    }
    if news.iter().any(|s| plan.impacted_stmts.contains(s)) {
        return Carried::Impacted;
    }
    let idx = InstrIndex::new(new.module);
    for n in &news {
        for id in idx.instrs_of(new.facts, *n) {
            let (location, line) = idx.debug_loc(id);
            if line > 0 {
                return Carried::Unchanged { location, line };
            }
        }
    }
    Carried::Unmapped
}

/// Counters of the incremental mode (`incremental.json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct IncrementalStats {
    pub changes: usize,
    pub impacted_statements: usize,
    pub impacted_instructions: usize,
    /// A synchronisation statement changed, so everything is impacted.
    pub sync_changed: bool,
    /// Findings of OLD reported as unchanged from OLD.
    pub unchanged_from_old: usize,
    /// Findings of OLD at impacted statements (NEW's exploration decides).
    pub impacted_old_findings: usize,
    /// Findings of OLD with no counterpart in NEW.
    pub unmapped_old_findings: usize,
    /// Runs of OLD's exploration in this invocation (0 when reused).
    pub old_runs: u64,
    /// OLD's result came from the summary store.
    pub old_reused: bool,
    pub old_verdict: Verdict,
}

/// NEW's pruned exploration plus OLD's unchanged findings.
pub fn combine(
    plan: &Plan,
    old_in: &VersionInput<'_>,
    new_in: &VersionInput<'_>,
    old: &Exploration,
    new: &Exploration,
) -> (Exploration, Vec<Finding>, IncrementalStats) {
    let mut findings = new.findings.clone();
    let mut carried = Vec::new();
    let mut st = IncrementalStats {
        changes: plan.matching.changes.len(),
        impacted_statements: plan.impacted_stmts.len(),
        impacted_instructions: plan.impacted.len(),
        sync_changed: plan.sync_changed,
        old_verdict: old.stats.verdict,
        ..Default::default()
    };
    let seen: BTreeSet<(FindingKind, String)> = findings
        .iter()
        .map(|f| (f.kind, f.location.clone()))
        .collect();
    for f in &old.findings {
        match carry(plan, old_in, new_in, f) {
            Carried::Unchanged { location, line } => {
                st.unchanged_from_old += 1;
                if seen.contains(&(f.kind, location.clone())) {
                    continue;
                }
                let mut g = f.clone();
                g.location = location;
                g.line = line;
                g.message = format!("unchanged from OLD: {}", f.message);
                carried.push(g.clone());
                findings.push(g);
            }
            Carried::Impacted => st.impacted_old_findings += 1,
            Carried::Unmapped => st.unmapped_old_findings += 1,
        }
    }
    let mut x = Exploration {
        findings,
        stats: new.stats.clone(),
        paths: new.paths.clone(),
        violating_classes: Vec::new(),
    };
    let (verdict, mut reasons) = x.decide(new.stats.loop_bound);
    // OLD's exploration vouches for the unimpacted part: what kept it from
    // concluding keeps the combined answer from concluding too.
    for r in &old.stats.reasons {
        if !reasons.contains(r) && !matches!(r, Reason::Unsupported { .. }) {
            reasons.push(r.clone());
        }
    }
    x.stats.verdict = match verdict {
        Verdict::Verified if !reasons.is_empty() => Verdict::Inconclusive,
        v => v,
    };
    x.stats.reasons = reasons;
    (x, carried, st)
}

/// `Stats` of OLD's run, for the report.
pub fn old_runs(s: &Stats) -> u64 {
    s.runs() + s.partial_runs
}

/// The options of an exploration as the store keys runs by them (every
/// option that changes what is found; argv[0] left out: it names the file).
pub fn options_key(o: &super::SymexOptions) -> String {
    serde_json::json!({
        "reduction": o.reduction.to_string(),
        "loop_bound": o.loop_bound,
        "max_loop_bound": o.max_loop_bound,
        "max_runs": o.max_runs,
        "max_seconds": o.max_seconds,
        "entry": o.entry,
        "args": o.args.iter().skip(1).collect::<Vec<_>>(),
        "summary_table": o.summary_table_size,
        "summary_merges": o.summary_max_merges,
        "slice": o.slice,
    })
    .to_string()
}

/// Explore OLD for the incremental mode: its completed run from the store
/// when there is one, else a fresh exploration that fills the store.
/// Returns the result and whether it was reused.
pub fn old_exploration(
    old: &VersionInput<'_>,
    opts: &super::SymexOptions,
    store: Option<&Store>,
    label: &str,
    on_finding: &mut dyn FnMut(&Finding, u32),
) -> Result<(Exploration, bool), super::SymexError> {
    let mut o = opts.clone();
    o.impacted = None;
    let key = options_key(&o);
    let Some(st) = store else {
        return Ok((super::explore_with(old.module, &o, on_finding)?, false));
    };
    if let Ok(Some(x)) = st.completed_run(old.program_hash, &key) {
        return Ok((x, true));
    }
    o.store = Some(StoreOptions {
        path: st.path().to_path_buf(),
        program_hash: old.program_hash.to_string(),
        import: true,
        export: true,
    });
    let run = st.begin_run(label, old.program_hash, &key).ok();
    let x = super::explore_with(old.module, &o, &mut |f, b| {
        if let Some(r) = run {
            let _ = st.add_finding(r, b, f);
        }
        on_finding(f, b)
    })?;
    if let (Some(r), false) = (run, x.stats.incomplete) {
        let _ = st.finish_run(r, &x);
    }
    Ok((x, false))
}

/// NEW's options: +CIA (the impacted instructions) and, with a store, +SCIA
/// (stored summaries at states whose code ahead did not change; NEW's own
/// summaries are not written: the +CIA slice only keeps impacted findings).
pub fn new_options(
    plan: &Plan,
    new: &VersionInput<'_>,
    opts: &super::SymexOptions,
    store: Option<&Store>,
) -> super::SymexOptions {
    let mut o = opts.clone();
    o.impacted = Some(std::sync::Arc::new(plan.impacted.clone()));
    o.store = store.map(|s| StoreOptions {
        path: s.path().to_path_buf(),
        program_hash: new.program_hash.to_string(),
        import: true,
        export: false,
    });
    o
}

/// `symex OLD NEW` as a library call: plan, explore OLD (or reuse its run
/// from the store), explore NEW with +CIA (and +SCIA with a store), combine.
pub fn explore_incremental(
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
    opts: &super::SymexOptions,
    store: Option<&Store>,
) -> Result<(Exploration, IncrementalStats), super::SymexError> {
    let plan = plan(old, new);
    let (old_res, reused) = old_exploration(old, opts, store, "OLD", &mut |_, _| {})?;
    let new_res = super::explore(new.module, &new_options(&plan, new, opts, store))?;
    let (x, _, mut st) = combine(&plan, old, new, &old_res, &new_res);
    st.old_runs = if reused { 0 } else { old_runs(&old_res.stats) };
    st.old_reused = reused;
    Ok((x, st))
}

#[cfg(test)]
mod tests {
    use super::statement_of_instrs;
    use crate::facts::extract::{extract, ExtractOptions};
    use crate::frontend::{load_program, CompileOptions};

    const PROGRAM: &str = r#"#include <pthread.h>
int x;
pthread_mutex_t m;
void *worker(void *a) { pthread_mutex_lock(&m); x = x + 1; pthread_mutex_unlock(&m); return 0; }
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  x = 2;
  pthread_join(t, 0);
  return x;
}
"#;

    /// Extracted statements carry their instruction: mapping by id gives
    /// what mapping by (function, text, line, column) gave, and facts
    /// without ids (as read from a fact directory) still map by text.
    #[test]
    fn statements_map_to_instructions_by_id_and_without_ids_by_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prog.c");
        std::fs::write(&path, PROGRAM).unwrap();
        let program = load_program(&path, &CompileOptions::default()).unwrap();
        let facts = extract(&program, &ExtractOptions::default()).unwrap();
        let with_ids: Vec<_> = facts
            .statements
            .iter()
            .filter(|s| s.instr.is_some())
            .collect();
        assert!(
            with_ids.len() > 10,
            "{} statements with ids",
            with_ids.len()
        );
        let by_id = statement_of_instrs(&program.module, &facts);
        for s in &with_ids {
            let at = s.instr.unwrap();
            assert!(
                by_id.contains_key(&(at.function, at.block, at.index)),
                "{s:?}"
            );
        }
        let mut without = facts.clone();
        for s in &mut without.statements {
            s.instr = None;
        }
        assert_eq!(statement_of_instrs(&program.module, &without), by_id);
    }
}
