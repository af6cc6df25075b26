//! Layout constants in instruction texts, read as what they stand for.
//!
//! Adding one field to a struct renumbers the fields after it and changes
//! its size, so every `p->count` (`getelementptr %struct.pool* %p, i32 0,
//! i32 3`) and every `malloc(sizeof(struct pool))` differs in text while
//! doing what it did. Two versions are compared with field indices
//! replaced by the member's name and type (`field count: i32`), and, where
//! a struct's size changed, with its old and new size read as
//! `sizeof(struct pool)`. A field index stays a number where the debug
//! information names no member, or the struct is not laid out on both
//! sides (facts read from a directory carry no layouts).

use crate::facts::{FactSet, StructLayout};
use std::collections::{BTreeMap, BTreeSet};

/// The text without alignments (`, align 8`): a load or store of a field
/// that moved to another offset is aligned differently and does the same.
pub fn without_alignment(text: &str) -> String {
    const ALIGN: &str = ", align ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find(ALIGN) {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + ALIGN.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            out.push_str(ALIGN);
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// One side of a comparison: its struct types, restricted to those both
/// versions lay out.
pub struct Layouts<'a> {
    structs: BTreeMap<&'a str, &'a StructLayout>,
    /// Size in bytes -> the structs whose size changed and is this on
    /// this side.
    resized: BTreeMap<u64, BTreeSet<&'a str>>,
}

impl<'a> Layouts<'a> {
    /// The layouts of `mine` as compared with `other`'s.
    pub fn of(mine: &'a FactSet, other: &'a FactSet) -> Layouts<'a> {
        let mut structs = BTreeMap::new();
        let mut resized: BTreeMap<u64, BTreeSet<&str>> = BTreeMap::new();
        for (name, layout) in &mine.struct_layouts {
            let Some(theirs) = other.struct_layouts.get(name) else {
                continue;
            };
            structs.insert(name.as_str(), layout);
            if theirs.size != layout.size {
                resized
                    .entry(layout.size)
                    .or_default()
                    .insert(name.as_str());
            }
        }
        Layouts { structs, resized }
    }

    /// The text with each struct field index of a `getelementptr`
    /// (instruction or constant expression) replaced by its member.
    pub fn fields_named(&self, text: &str) -> String {
        if self.structs.is_empty() || !text.contains("getelementptr ") {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(pos) = rest.find("getelementptr ") {
            let start = pos + "getelementptr ".len();
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            let consumed = self.rewrite_gep(rest, &mut out);
            rest = &rest[consumed..];
        }
        out.push_str(rest);
        out
    }

    /// Rewrite one GEP's operands (`inbounds (T* @g, i32 0, i32 2)` or
    /// `T* %p, i64 0, i32 2`) into `out`; returns the bytes consumed.
    fn rewrite_gep(&self, text: &str, out: &mut String) -> usize {
        let mut at = 0;
        for prefix in ["inbounds ", "("] {
            if text[at..].starts_with(prefix) {
                out.push_str(prefix);
                at += prefix.len();
            }
        }
        let operands = split_operands(&text[at..]);
        let Some((address, indices)) = operands.split_first() else {
            return at;
        };
        let mut ty = pointer_target(address.text);
        out.push_str(address.text);
        // The first index steps over the pointer; the rest go inside.
        for (k, index) in indices.iter().enumerate() {
            out.push_str(", ");
            let inside = if k == 0 {
                None
            } else {
                ty.as_deref().and_then(|t| self.step(t, index.text))
            };
            match inside {
                Some((shown, next)) => {
                    out.push_str(&shown);
                    ty = next;
                }
                None => {
                    out.push_str(index.text);
                    ty = if k == 0 {
                        ty
                    } else {
                        ty.and_then(|t| element(&t))
                    };
                }
            }
        }
        at + operands.last().map_or(0, |o| o.end)
    }

    /// A struct field step: how it is shown and the field's type.
    fn step(&self, ty: &str, index: &str) -> Option<(String, Option<String>)> {
        let name = ty.strip_prefix('%')?;
        let layout = self.structs.get(name)?;
        let k: usize = index.strip_prefix("i32 ")?.parse().ok()?;
        let (member, field_ty) = layout.fields.get(k)?;
        let member = member.as_ref()?;
        let shown_ty = field_ty
            .replace("%struct.", "struct ")
            .replace("%union.", "union ");
        Some((
            format!("field {member}: {shown_ty}"),
            Some(field_ty.clone()),
        ))
    }

    /// The text with each 64-bit constant equal to the size of a struct
    /// whose size changed replaced by `sizeof(that struct)`.
    pub fn sizes_named(&self, text: &str) -> String {
        if self.resized.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(pos) = rest.find("i64 ") {
            out.push_str(&rest[..pos]);
            let after = &rest[pos + 4..];
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let named = after[..digits]
                .parse::<u64>()
                .ok()
                .and_then(|n| self.resized.get(&n))
                .filter(|_| digits > 0);
            match named {
                Some(names) => {
                    let names: Vec<&str> = names.iter().copied().collect();
                    out.push_str(&format!("i64 sizeof({})", names.join("|")));
                }
                None => out.push_str(&rest[pos..pos + 4 + digits]),
            }
            rest = &after[digits..];
        }
        out.push_str(rest);
        out
    }
}

/// An operand of a GEP and where it ends in the text.
struct Operand<'t> {
    text: &'t str,
    end: usize,
}

/// The comma-separated operands at depth 0, up to the closing parenthesis
/// of a constant expression or a ` (` / end of text.
fn split_operands(text: &str) -> Vec<Operand<'_>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'[' | b'{' | b'(' | b'<' => depth += 1,
            b']' | b'}' | b'>' => depth -= 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            b',' if depth == 0 => {
                out.push(Operand {
                    text: &text[start..i],
                    end: i,
                });
                // skip ", "
                i += 1;
                if bytes.get(i) == Some(&b' ') {
                    i += 1;
                }
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(Operand {
        text: &text[start..i],
        end: i,
    });
    out
}

/// `%struct.pool* %p` -> `%struct.pool`: the type an address points to
/// (the operand's type up to its value, without the last `*`).
fn pointer_target(address: &str) -> Option<String> {
    let mut depth = 0i32;
    for (i, c) in address.char_indices() {
        match c {
            '[' | '{' | '(' | '<' => depth += 1,
            ']' | '}' | ')' | '>' => depth -= 1,
            ' ' if depth == 0 => {
                let ty = &address[..i];
                return ty.strip_suffix('*').map(str::to_string);
            }
            _ => {}
        }
    }
    None
}

/// `[4 x T]` -> `T`; any other type has no element to step into.
fn element(ty: &str) -> Option<String> {
    let inner = ty.strip_prefix('[')?.strip_suffix(']')?;
    let (_, elem) = inner.split_once(" x ")?;
    Some(elem.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A struct by IR name: its (member, IR type) fields and size.
    type Struct<'a> = (&'a str, &'a [(&'a str, &'a str)], u64);

    fn facts(layouts: &[Struct<'_>]) -> FactSet {
        let mut f = FactSet::default();
        for (name, fields, size) in layouts {
            f.struct_layouts.insert(
                name.to_string(),
                StructLayout {
                    fields: fields
                        .iter()
                        .map(|(m, t)| ((!m.is_empty()).then(|| m.to_string()), t.to_string()))
                        .collect(),
                    size: *size,
                },
            );
        }
        f
    }

    /// `struct pool { struct lock_s *have; int made; int count; }` gains
    /// `long stopped` after `have`.
    fn pair() -> (FactSet, FactSet) {
        let old = facts(&[(
            "struct.pool",
            &[
                ("have", "%struct.lock_s*"),
                ("made", "i32"),
                ("count", "i32"),
            ],
            16,
        )]);
        let new = facts(&[(
            "struct.pool",
            &[
                ("have", "%struct.lock_s*"),
                ("stopped", "i64"),
                ("made", "i32"),
                ("count", "i32"),
            ],
            24,
        )]);
        (old, new)
    }

    #[test]
    fn a_shifted_field_reads_the_same_and_another_field_does_not() {
        let (old, new) = pair();
        let (lo, ln) = (Layouts::of(&old, &new), Layouts::of(&new, &old));
        let o = lo.fields_named("%a = getelementptr inbounds %struct.pool* %p, i32 0, i32 2");
        let n = ln.fields_named("%b = getelementptr inbounds %struct.pool* %q, i32 0, i32 3");
        assert_eq!(
            o,
            "%a = getelementptr inbounds %struct.pool* %p, i32 0, field count: i32"
        );
        assert_eq!(super::super::normalise(&o), super::super::normalise(&n));
        // the same index is another member now
        let n2 = ln.fields_named("%b = getelementptr inbounds %struct.pool* %q, i32 0, i32 2");
        assert_ne!(super::super::normalise(&o), super::super::normalise(&n2));
    }

    #[test]
    fn constant_expressions_and_arrays_are_followed() {
        let (old, new) = pair();
        let lo = Layouts::of(&old, &new);
        assert_eq!(
            lo.fields_named("store i32 1, i32* getelementptr inbounds ([2 x %struct.pool]* @ps, i64 0, i64 1, i32 0), align 4"),
            "store i32 1, i32* getelementptr inbounds ([2 x %struct.pool]* @ps, i64 0, i64 1, field have: struct lock_s*), align 4"
        );
        // a struct only one side lays out keeps its numbers
        let other = facts(&[]);
        let alone = Layouts::of(&old, &other);
        let t = "%a = getelementptr inbounds %struct.pool* %p, i32 0, i32 2";
        assert_eq!(alone.fields_named(t), t);
    }

    #[test]
    fn alignments_are_left_out() {
        assert_eq!(
            without_alignment("store i32 0, i32* %made, align 8"),
            without_alignment("store i32 0, i32* %made, align 4")
        );
        assert_eq!(
            without_alignment("%a = alloca i32, align 4, !x"),
            "%a = alloca i32, !x"
        );
    }

    #[test]
    fn a_changed_struct_size_reads_as_sizeof() {
        let (old, new) = pair();
        let (lo, ln) = (Layouts::of(&old, &new), Layouts::of(&new, &old));
        assert_eq!(
            lo.sizes_named("%c = call noalias i8* @malloc(i64 16)"),
            "%c = call noalias i8* @malloc(i64 sizeof(struct.pool))"
        );
        assert_eq!(
            lo.sizes_named("@malloc(i64 16)"),
            ln.sizes_named("@malloc(i64 24)")
        );
        // other constants stay, so they still compare as numbers
        assert_eq!(lo.sizes_named("i64 160, i64 1"), "i64 160, i64 1");
        assert_ne!(
            lo.sizes_named("@malloc(i64 16)"),
            ln.sizes_named("@malloc(i64 16)")
        );
    }
}
