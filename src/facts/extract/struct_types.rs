//! Which named struct types a pointer to a struct may address the root of:
//! the table behind the points-to rules' type check of a GEP at an
//! object's root (`ir_obj_struct`, `ir_gep_struct`, `ir_struct_fits`).
//!
//! Why: a registry of `{ops, self}` pairs (`e->ops->put(e->self, ...)`)
//! hands every `put` every module's `self`, so without a check each
//! module's `struct tab0 *t = self; t->count++` touches every module's
//! table, and the read-from relation grows with the square of the modules.
//! C's effective-type rule says an object declared `struct tab1` is not
//! accessed through a `struct tab0 *` unless one type begins with the
//! other, so a GEP over `struct tab0` at the root of `tab1` names nothing.
//!
//! What is checked and what is not (so the check never hides a real
//! access):
//! - only objects whose type the IR fixes (globals and `alloca`s; a heap
//!   object's type is not known) and only GEPs whose source is a named
//!   struct;
//! - types are compared by name, without the `.N` suffix linking adds
//!   (`%struct.node.12` is `%struct.node`);
//! - a type fits another when one begins with the other (the first field,
//!   recursively, through arrays: `struct derived { struct base b; ... }`);
//! - types used for punning are never checked: unions, and structs that
//!   hold a union or a byte array at any depth (`struct sockaddr_storage`
//!   cast to `struct sockaddr_in *`).

use super::paths::resolve;
use llvm_ir::types::Type;
use llvm_ir::{Module, TypeRef};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

/// A named struct type, by name without a link suffix.
pub type StructId = u32;

#[derive(Default)]
pub struct StructTypes {
    /// What [`StructTypes::checked_id`] answered for each type asked.
    answers: HashMap<TypeRef, Option<StructId>>,
    ids: HashMap<String, StructId>,
    /// Every type seen under each id (two translation units may define the
    /// same tag differently).
    types: Vec<Vec<TypeRef>>,
}

impl StructTypes {
    /// The id of `ty` if it is a named struct the check may use (not a
    /// union, opaque or punning type; arrays stand for their element).
    pub fn checked_id(&mut self, module: &Module, ty: &TypeRef) -> Option<StructId> {
        if let Some(&known) = self.answers.get(ty) {
            return known;
        }
        let answer = self.new_checked_id(module, ty);
        self.answers.insert(ty.clone(), answer);
        answer
    }

    fn new_checked_id(&mut self, module: &Module, ty: &TypeRef) -> Option<StructId> {
        let ty = array_element(ty);
        let Type::NamedStructType { name } = ty.as_ref() else {
            return None;
        };
        if !is_defined(module, &ty) || is_punning(module, &ty, 0) {
            return None;
        }
        let key = without_link_suffix(name).to_string();
        let next = self.ids.len() as StructId;
        let id = *self.ids.entry(key).or_insert(next);
        if id == next {
            self.types.push(Vec::new());
        }
        if !self.types[id as usize].contains(&ty) {
            self.types[id as usize].push(ty);
        }
        Some(id)
    }

    /// Pairs `(s, t)` such that a pointer to struct `s` may address the
    /// root of an object of type `t`: the same type, or one begins with
    /// the other.
    pub fn fits(&self, module: &Module) -> Vec<(StructId, StructId)> {
        let prefixes: Vec<BTreeSet<String>> = self
            .types
            .iter()
            .map(|tys| {
                let mut keys = BTreeSet::new();
                for t in tys {
                    prefix_keys(module, t, &mut keys, 0);
                }
                keys
            })
            .collect();
        let key_of: HashMap<StructId, &str> =
            self.ids.iter().map(|(k, &id)| (id, k.as_str())).collect();
        let n = self.types.len() as StructId;
        let mut out = Vec::new();
        for s in 0..n {
            for t in 0..n {
                let (ks, kt) = (key_of[&s], key_of[&t]);
                if s == t || prefixes[t as usize].contains(ks) || prefixes[s as usize].contains(kt)
                {
                    out.push((s, t));
                }
            }
        }
        out
    }
}

/// Deepest nesting followed; deeper types count as punning (unchecked).
const MAX_NESTING: usize = 8;

fn array_element(ty: &TypeRef) -> TypeRef {
    match ty.as_ref() {
        Type::ArrayType { element_type, .. } => array_element(element_type),
        _ => ty.clone(),
    }
}

fn is_defined(module: &Module, ty: &TypeRef) -> bool {
    matches!(resolve(module, ty).as_ref(), Type::StructType { .. })
}

/// `%struct.node.12` -> `%struct.node`: the suffix linking gives a second
/// definition of a name.
fn without_link_suffix(name: &str) -> &str {
    let mut s = name;
    while let Some((head, tail)) = s.rsplit_once('.') {
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) && head.contains('.') {
            s = head;
        } else {
            break;
        }
    }
    s
}

/// A union, or a struct holding a union or a byte array at any depth: a
/// type programs read as another (`sockaddr_storage`).
fn is_punning(module: &Module, ty: &TypeRef, depth: usize) -> bool {
    if depth > MAX_NESTING {
        return true;
    }
    match ty.as_ref() {
        Type::NamedStructType { name } if name.starts_with("union.") => true,
        Type::NamedStructType { .. } => {
            let def = resolve(module, ty);
            !matches!(def.as_ref(), Type::NamedStructType { .. })
                && is_punning(module, &def, depth + 1)
        }
        Type::StructType { element_types, .. } => element_types
            .iter()
            .any(|t| is_punning(module, t, depth + 1)),
        Type::ArrayType { element_type, .. } => {
            matches!(element_type.as_ref(), Type::IntegerType { bits: 8 })
                || is_punning(module, element_type, depth + 1)
        }
        _ => false,
    }
}

/// The names of `ty` and of the types it begins with (its first field,
/// recursively; an array's element).
fn prefix_keys(module: &Module, ty: &TypeRef, out: &mut BTreeSet<String>, depth: usize) {
    if depth > MAX_NESTING {
        return;
    }
    let ty = array_element(ty);
    if let Type::NamedStructType { name } = ty.as_ref() {
        out.insert(without_link_suffix(name).to_string());
    }
    if let Type::StructType { element_types, .. } = resolve(module, &ty).as_ref() {
        if let Some(first) = element_types.first() {
            prefix_keys(module, first, out, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::without_link_suffix;

    #[test]
    fn link_suffixes_are_dropped_and_names_kept() {
        assert_eq!(without_link_suffix("struct.node.12"), "struct.node");
        assert_eq!(without_link_suffix("struct.node.1.2"), "struct.node");
        assert_eq!(without_link_suffix("struct.node"), "struct.node");
        assert_eq!(without_link_suffix("struct.v2"), "struct.v2");
        assert_eq!(without_link_suffix("struct.anon.3"), "struct.anon");
    }
}
