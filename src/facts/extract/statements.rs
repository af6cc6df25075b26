//! The statement table (`statements.csv`): location, function, thread,
//! opcode and text of every statement, and unique names for locations.

use super::ir;
use super::program::{FInstId, ProgramModel, Site, StmtId};
use crate::facts::{LocationInfo, StatementInfo};
use crate::ir::InstrLoc;
use llvm_ir::HasDebugLoc;
use rustc_hash::FxHashMap as HashMap;

/// What a statement shows of its instruction: the same for every thread
/// and call-path instance of it.
struct Shown {
    file: String,
    line: u32,
    col: u32,
    function: String,
    kind: String,
    text: String,
}

impl Shown {
    fn new(loc: Option<llvm_ir::DebugLoc>, function: String, kind: String, text: &str) -> Shown {
        let (file, line, col) = loc
            .map(|d| (d.filename, d.line, d.col.unwrap_or(0)))
            .unwrap_or_default();
        Shown {
            file,
            line,
            col,
            function,
            kind,
            text: shorten(text, 1000),
        }
    }
}

pub(super) fn statement_table(model: &ProgramModel<'_>) -> Vec<StatementInfo> {
    // A 50 KLoC program has 80K instructions and 664K statements (one per
    // thread and call-path instance): each instruction is printed once,
    // its instances copy the text (printing every instance was most of
    // this table's time).
    let mut shown: HashMap<InstrLoc, Shown> = HashMap::default();
    (0..model.stmts.len() as StmtId)
        .map(|s| {
            let stmt = &model.stmts[s as usize];
            let (finst, block, index) = match stmt.site {
                Site::Init { global } => {
                    return statement(s, stmt.thread, &initial_value(model, global), None)
                }
                Site::Instr {
                    finst,
                    block,
                    index,
                } => (finst, block, index),
                // a terminator sits after its block's instructions
                Site::Term { finst, block } => (
                    finst,
                    block,
                    model.func(finst).basic_blocks[block].instrs.len(),
                ),
            };
            let at = InstrLoc {
                function: model.finsts[finst].func,
                block,
                index,
            };
            let info = shown
                .entry(at)
                .or_insert_with(|| instruction_shown(model, s, finst));
            statement(s, stmt.thread, info, Some(at))
        })
        .collect()
}

/// Statement `s` of `thread`, showing `info`.
fn statement(s: StmtId, thread: u32, info: &Shown, instr: Option<InstrLoc>) -> StatementInfo {
    StatementInfo {
        id: s,
        file: info.file.clone(),
        line: info.line,
        col: info.col,
        function: info.function.clone(),
        thread,
        kind: info.kind.clone(),
        text: info.text.clone(),
        instr,
    }
}

/// The `init` statement of a global: its initial value.
fn initial_value(model: &ProgramModel<'_>, global: usize) -> Shown {
    let g = &model.module.global_vars[global];
    let value = g
        .initializer
        .as_ref()
        .map(|c| c.to_string())
        .unwrap_or_else(|| "zeroinitializer".into());
    Shown::new(
        g.debugloc.clone(),
        String::new(),
        "init".to_string(),
        // read back by StatementInfo::initialised_global
        &format!("@{} = {}", ir::plain_name(&g.name), value),
    )
}

/// How statement `s` (an instruction or terminator of `finst`) shows.
fn instruction_shown(model: &ProgramModel<'_>, s: StmtId, finst: FInstId) -> Shown {
    let function = model.func(finst).name.clone();
    match model.instr(s) {
        Some(i) => Shown::new(
            i.get_debug_loc().clone(),
            function,
            ir::opcode(i).to_string(),
            &i.to_string(),
        ),
        None => {
            let t = model.term(s).expect("an instruction or a terminator");
            Shown::new(
                t.get_debug_loc().clone(),
                function,
                ir::term_opcode(t).to_string(),
                &t.to_string(),
            )
        }
    }
}

fn shorten(text: &str, max: usize) -> String {
    // llvm-ir's Display appends this marker; the location columns say it already.
    let text = text.trim_end_matches(" (with debugloc)");
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

/// Two instances of one function have stack slots with one name: number them.
pub(super) fn dedupe_location_names(locs: &mut [LocationInfo]) {
    let mut seen: HashMap<String, u32> = HashMap::default();
    for l in locs.iter_mut() {
        let n = seen.entry(l.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            l.name = format!("{}#{}", l.name, n);
        }
    }
}
