//! Code no thread reaches: the functions defined in the module of which the
//! program model has no instance (called from nowhere, or only through a
//! pointer the points-to rules could not resolve, or only from such
//! functions). Their statements are not in the facts, so a patch inside
//! one would be invisible; the table (`unreached.tsv`) lets the coverage
//! account count them and lets a two-version answer notice a change in
//! them (by source line, or by fingerprint when there is no source text).

use super::program::ProgramModel;
use crate::facts::text::without_string_numbers;
use crate::facts::{LineRanges, UnreachedFunction};
use llvm_ir::HasDebugLoc;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;

pub(super) fn unreached_functions(model: &ProgramModel<'_>) -> Vec<UnreachedFunction> {
    let reached: BTreeSet<usize> = model.finsts.iter().map(|f| f.func).collect();
    let mut out: Vec<UnreachedFunction> = model
        .module
        .functions
        .iter()
        .enumerate()
        .filter(|(i, _)| !reached.contains(i))
        .map(|(_, f)| {
            let mut lines: BTreeSet<u32> = BTreeSet::new();
            let mut files: BTreeSet<String> = BTreeSet::new();
            let mut h = Sha256::new();
            for bb in &f.basic_blocks {
                let texts = bb
                    .instrs
                    .iter()
                    .map(|i| (i.get_debug_loc(), i.to_string()))
                    .chain(std::iter::once((
                        bb.term.get_debug_loc(),
                        bb.term.to_string(),
                    )));
                for (loc, text) in texts {
                    if let Some(d) = loc {
                        if d.line > 0 {
                            lines.insert(d.line);
                            files.insert(source_name(d));
                        }
                    }
                    h.update(without_string_numbers(&text).as_bytes());
                    h.update(b"\n");
                }
            }
            // A function's code lies in one file; a function whose lines
            // come from several (an inlined header body) is named by its
            // own debug location.
            let file = f
                .debugloc
                .as_ref()
                .map(source_name)
                .or_else(|| files.into_iter().next())
                .unwrap_or_default();
            UnreachedFunction {
                function: f.name.clone(),
                file,
                lines: LineRanges::from_lines(lines),
                fingerprint: format!("{:x}", h.finalize())[..16].to_string(),
            }
        })
        .collect();
    out.sort_by(|a, b| (&a.file, &a.function).cmp(&(&b.file, &b.function)));
    out
}

/// The file name statements carry for this location (as in `statements.tsv`).
fn source_name(d: &llvm_ir::DebugLoc) -> String {
    d.filename.clone()
}
