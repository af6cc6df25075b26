//! The statement table (`statements.csv`): location, function, thread,
//! opcode and text of every statement, and unique names for locations.

use super::ir;
use super::program::{ProgramModel, Site, StmtId};
use crate::facts::{LocationInfo, StatementInfo};
use crate::ir::InstrLoc;
use llvm_ir::HasDebugLoc;
use std::collections::HashMap;

pub(super) fn statement_table(model: &ProgramModel<'_>) -> Vec<StatementInfo> {
    let module = model.module;
    (0..model.stmts.len() as StmtId)
        .map(|s| {
            let stmt = &model.stmts[s as usize];
            let (loc, function, kind, text, instr) = match stmt.site {
                Site::Init { global } => {
                    let g = &module.global_vars[global];
                    let init = g
                        .initializer
                        .as_ref()
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| "zeroinitializer".into());
                    (
                        g.debugloc.clone(),
                        String::new(),
                        "init".to_string(),
                        // read back by StatementInfo::initialised_global
                        format!("@{} = {}", ir::plain_name(&g.name), init),
                        None,
                    )
                }
                Site::Instr {
                    finst,
                    block,
                    index,
                } => {
                    let i = model.instr(s).expect("instruction");
                    (
                        i.get_debug_loc().clone(),
                        model.func(finst).name.clone(),
                        ir::opcode(i).to_string(),
                        i.to_string(),
                        Some(InstrLoc {
                            function: model.finsts[finst].func,
                            block,
                            index,
                        }),
                    )
                }
                Site::Term { finst, block } => {
                    let t = model.term(s).expect("terminator");
                    (
                        t.get_debug_loc().clone(),
                        model.func(finst).name.clone(),
                        ir::term_opcode(t).to_string(),
                        t.to_string(),
                        Some(InstrLoc {
                            function: model.finsts[finst].func,
                            block,
                            index: model.func(finst).basic_blocks[block].instrs.len(),
                        }),
                    )
                }
            };
            let (file, line, col) = loc
                .map(|d| (d.filename, d.line, d.col.unwrap_or(0)))
                .unwrap_or_default();
            StatementInfo {
                id: s,
                file,
                line,
                col,
                function,
                thread: stmt.thread,
                kind,
                text: shorten(&text, 1000),
                instr,
            }
        })
        .collect()
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
    let mut seen: HashMap<String, u32> = HashMap::new();
    for l in locs.iter_mut() {
        let n = seen.entry(l.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            l.name = format!("{}#{}", l.name, n);
        }
    }
}
