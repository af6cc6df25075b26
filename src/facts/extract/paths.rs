//! Field paths inside abstract objects, as a finite table the points-to
//! rules can join on (the rules have no functors, so "apply this GEP to
//! that path" is a precomputed relation, `ir_path_step`).
//!
//! A path is a short list of steps below an object's root: struct fields,
//! array elements with a small constant index, and `[*]` for any other
//! element. Paths are bounded ([`MAX_DEPTH`] steps; deeper fields fold into
//! their ancestor) and indices are bounded ([`MAX_INDEX`]; larger ones
//! become `[*]`), so the table is finite and small: it grows with the
//! program's struct types, not with its size.
//!
//! A GEP applies to a path when the path's type is the GEP's source element
//! type (or the path is an object root, whose type the IR does not fix:
//! `malloc` returns `i8*`). Paths remember the type the GEP that produced
//! them pointed to.

use llvm_ir::types::{NamedStructDef, Type};
use llvm_ir::{Module, TypeRef};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

/// Deepest field path kept; deeper accesses fold into their ancestor.
pub const MAX_DEPTH: usize = 4;
/// Constant array indices at or above this become `[*]`.
pub const MAX_INDEX: u64 = 16;

pub type PathId = u32;
/// The empty path: an object's root.
pub const ROOT: PathId = 0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Field(u32),
    Index(u64),
    AnyIndex,
}

impl Step {
    pub fn index(i: Option<u64>) -> Step {
        match i {
            Some(k) if k < MAX_INDEX => Step::Index(k),
            _ => Step::AnyIndex,
        }
    }

    /// Two steps may name the same memory (`[*]` may be any element).
    fn may_meet(self, other: Step) -> bool {
        self == other
            || matches!(
                (self, other),
                (Step::AnyIndex, Step::Index(_) | Step::AnyIndex)
                    | (Step::Index(_), Step::AnyIndex)
            )
    }
}

/// A GEP's shape: its source element type and constant indices (None for
/// a variable index). Interned; its id is the `g` column of `ir_gep`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GepShape {
    pub source: TypeRef,
    pub indices: Vec<Option<u64>>,
}

#[derive(Default)]
pub struct PathTable {
    paths: Vec<Vec<Step>>,
    index: HashMap<Vec<Step>, PathId>,
    /// Type each path was produced with (None: an object root or unknown).
    types: Vec<Option<TypeRef>>,
    shapes: Vec<GepShape>,
    shape_index: HashMap<GepShape, u32>,
    /// `(p, g, q)`: GEP shape g applied to a pointer at path p gives q.
    pub steps: BTreeSet<(PathId, u32, PathId)>,
}

impl PathTable {
    pub fn new() -> PathTable {
        let mut t = PathTable::default();
        t.intern(Vec::new(), None);
        t
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The interned GEP shapes; a shape's index is its id.
    pub fn shapes(&self) -> &[GepShape] {
        &self.shapes
    }

    pub fn steps_of(&self, p: PathId) -> &[Step] {
        &self.paths[p as usize]
    }

    pub fn intern(&mut self, path: Vec<Step>, ty: Option<TypeRef>) -> PathId {
        if let Some(&id) = self.index.get(&path) {
            if self.types[id as usize].is_none() && id != ROOT {
                self.types[id as usize] = ty;
            }
            return id;
        }
        let id = self.paths.len() as PathId;
        self.index.insert(path.clone(), id);
        self.paths.push(path);
        self.types.push(ty);
        id
    }

    pub fn shape(&mut self, shape: GepShape) -> u32 {
        if let Some(&id) = self.shape_index.get(&shape) {
            return id;
        }
        let id = self.shapes.len() as u32;
        self.shape_index.insert(shape.clone(), id);
        self.shapes.push(shape);
        id
    }

    /// Apply a GEP to one path: the first index moves the pointer in units
    /// of the source type (an array step), the rest descend into fields and
    /// elements.
    pub fn apply(&mut self, module: &Module, p: PathId, shape: &GepShape) -> PathId {
        let mut path = self.paths[p as usize].clone();
        match shape.indices.first().copied().flatten() {
            Some(0) => {}
            first => {
                let step = Step::index(first);
                match path.last_mut() {
                    Some(last @ Step::Index(_)) => {
                        *last = match (*last, first) {
                            (Step::Index(j), Some(k)) => Step::index(Some(j.saturating_add(k))),
                            _ => Step::AnyIndex,
                        }
                    }
                    Some(Step::AnyIndex) => {}
                    _ => path.push(step),
                }
            }
        }
        let mut ty = shape.source.clone();
        for i in shape.indices.iter().skip(1) {
            let (step, next) = match resolve(module, &ty).as_ref() {
                Type::StructType { element_types, .. } => {
                    let k = i.unwrap_or(0) as usize;
                    match element_types.get(k) {
                        Some(t) => (Step::Field(k as u32), t.clone()),
                        None => break,
                    }
                }
                Type::ArrayType { element_type, .. } | Type::VectorType { element_type, .. } => {
                    (Step::index(*i), element_type.clone())
                }
                _ => break,
            };
            path.push(step);
            ty = next;
        }
        path.truncate(MAX_DEPTH);
        self.intern(path, Some(ty))
    }

    /// Close the table under the GEP shapes seen: every path gets its
    /// `ir_path_step` rows for the shapes that apply to it.
    pub fn close(&mut self, module: &Module) {
        let mut by_source: HashMap<TypeRef, Vec<u32>> = HashMap::default();
        let mut arithmetic: Vec<u32> = Vec::new();
        // The types the module steps over as array elements: the source of
        // pointer arithmetic (`tasks + i`) and the element of an indexed
        // array type (`pool[i]` of `struct task pool[4]`).
        let mut element_types: Vec<TypeRef> = Vec::new();
        for (g, s) in self.shapes.iter().enumerate() {
            if s.indices.len() <= 1 {
                arithmetic.push(g as u32);
                element_types.push(s.source.clone());
            } else {
                by_source
                    .entry(s.source.clone())
                    .or_default()
                    .push(g as u32);
                if let Type::ArrayType { element_type, .. } = resolve(module, &s.source).as_ref() {
                    element_types.push(element_type.clone());
                }
            }
        }
        // ... and the types pointers are cast to: a byte offset cast to a
        // struct pointer (`(block_t *)(page + offset)`) makes `[*]` one.
        element_types.extend(cast_pointees(module));
        let mut seen_types = rustc_hash::FxHashSet::default();
        element_types.retain(|t| seen_types.insert(t.clone()));
        // An element of an array at an object's root (`tasks[*]`) may be of
        // any element type: the first GEP that reached the path typed it,
        // and an array of another struct type (`queue[*]`) has the same
        // path. It takes the field GEPs of every type the module steps
        // over as elements or casts a pointer to (not of every type:
        // pigz's path steps grew tenfold that way).
        let element_shapes: Vec<u32> = element_types
            .iter()
            .flat_map(|t| by_source.get(t).into_iter().flatten())
            .chain(arithmetic.iter())
            .copied()
            .collect();
        let mut next = 0usize;
        while next < self.paths.len() {
            let p = next as PathId;
            next += 1;
            let applicable: Vec<u32> = match &self.types[p as usize] {
                // A root, whose type the IR does not fix, takes every shape.
                _ if p == ROOT => (0..self.shapes.len() as u32).collect(),
                _ if self.is_root_element(p) => element_shapes.clone(),
                None => arithmetic.clone(),
                Some(t) => by_source
                    .get(t)
                    .into_iter()
                    .flatten()
                    .chain(arithmetic.iter())
                    .copied()
                    .collect(),
            };
            for g in applicable {
                let shape = self.shapes[g as usize].clone();
                let q = self.apply(module, p, &shape);
                self.steps.insert((p, g, q));
            }
        }
    }

    /// `[k]` or `[*]`: an element of an array at an object's root.
    fn is_root_element(&self, p: PathId) -> bool {
        matches!(
            self.paths[p as usize].as_slice(),
            [Step::Index(_) | Step::AnyIndex]
        )
    }

    /// Pairs of paths that may name overlapping memory: one is a prefix of
    /// the other, step by step, with `[*]` meeting any element.
    ///
    /// Walks a trie of the paths instead of testing every pair: the answer
    /// is a path's compatible prefixes plus the subtree under each node
    /// its own steps reach, so the cost follows the answer's size (libuv
    /// has tens of thousands of paths; the pairwise test never finished).
    pub fn overlaps(&self) -> Vec<(PathId, PathId)> {
        let trie = PathTrie::build(&self.paths);
        let mut out = Vec::new();
        for (a, pa) in self.paths.iter().enumerate() {
            let mut frontier = vec![0usize];
            for &step in pa {
                let mut next = Vec::new();
                for &node in &frontier {
                    // A shorter path met along the way overlaps `a`.
                    if let Some(b) = trie.nodes[node].path {
                        out.push((a as PathId, b));
                    }
                    next.extend(
                        trie.nodes[node]
                            .children
                            .iter()
                            .filter(|(s, _)| step.may_meet(*s))
                            .map(|&(_, c)| c),
                    );
                }
                frontier = next;
            }
            // Every path at or below a node `a`'s steps reach overlaps it.
            for &node in &frontier {
                trie.subtree_paths(node, &mut |b| out.push((a as PathId, b)));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The pairwise definition of [`PathTable::overlaps`], kept as the
    /// reference the trie walk is tested against.
    #[cfg(test)]
    fn overlaps_pairwise(&self) -> Vec<(PathId, PathId)> {
        let mut out = Vec::new();
        for (a, pa) in self.paths.iter().enumerate() {
            for (b, pb) in self.paths.iter().enumerate() {
                if pa.iter().zip(pb.iter()).all(|(x, y)| x.may_meet(*y)) {
                    out.push((a as PathId, b as PathId));
                }
            }
        }
        out
    }

    /// Does an access through path `access` touch the cell at path `cell`?
    /// (`cell` lies under `access`, with `[*]` in the access meeting any element.)
    pub fn covers(&self, access: PathId, cell: PathId) -> bool {
        let (pa, pc) = (self.steps_of(access), self.steps_of(cell));
        pa.len() <= pc.len()
            && pa
                .iter()
                .zip(pc.iter())
                .all(|(x, y)| x == y || *x == Step::AnyIndex)
    }

    /// Does `longer` strictly refine `shorter` (same steps, more of them)?
    pub fn refines(&self, longer: PathId, shorter: PathId) -> bool {
        let (pl, ps) = (self.steps_of(longer), self.steps_of(shorter));
        pl.len() > ps.len() && pl[..ps.len()] == ps[..]
    }

    /// `.1[3][*]` style suffix for names.
    pub fn suffix(&self, p: PathId) -> String {
        let mut s = String::new();
        for step in self.steps_of(p) {
            match step {
                Step::Field(k) => s.push_str(&format!(".{k}")),
                Step::Index(k) => s.push_str(&format!("[{k}]")),
                Step::AnyIndex => s.push_str("[*]"),
            }
        }
        s
    }
}

/// The interned paths as a trie: node 0 is the root path; a node holds
/// the id of the path ending there, if any.
struct PathTrie {
    nodes: Vec<TrieNode>,
}

#[derive(Default)]
struct TrieNode {
    path: Option<PathId>,
    children: Vec<(Step, usize)>,
}

impl PathTrie {
    fn build(paths: &[Vec<Step>]) -> PathTrie {
        let mut trie = PathTrie {
            nodes: vec![TrieNode::default()],
        };
        for (id, steps) in paths.iter().enumerate() {
            let mut node = 0usize;
            for &step in steps {
                let found = trie.nodes[node]
                    .children
                    .iter()
                    .find(|(s, _)| *s == step)
                    .map(|&(_, c)| c);
                node = match found {
                    Some(c) => c,
                    None => {
                        trie.nodes.push(TrieNode::default());
                        let c = trie.nodes.len() - 1;
                        trie.nodes[node].children.push((step, c));
                        c
                    }
                };
            }
            trie.nodes[node].path = Some(id as PathId);
        }
        trie
    }

    fn subtree_paths(&self, node: usize, visit: &mut impl FnMut(PathId)) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if let Some(p) = self.nodes[n].path {
                visit(p);
            }
            stack.extend(self.nodes[n].children.iter().map(|&(_, c)| c));
        }
    }
}

/// The pointee types of the module's pointer casts (`bitcast`,
/// `inttoptr`).
fn cast_pointees(module: &Module) -> Vec<TypeRef> {
    use llvm_ir::instruction::Instruction as I;
    let mut out = Vec::new();
    for f in &module.functions {
        for b in &f.basic_blocks {
            for i in &b.instrs {
                let to = match i {
                    I::BitCast(c) => &c.to_type,
                    I::IntToPtr(c) => &c.to_type,
                    _ => continue,
                };
                if let Type::PointerType { pointee_type, .. } = to.as_ref() {
                    out.push(pointee_type.clone());
                }
            }
        }
    }
    out
}

/// Follow named struct types to their definition.
pub fn resolve(module: &Module, ty: &TypeRef) -> TypeRef {
    match ty.as_ref() {
        Type::NamedStructType { name } => match module.types.named_struct_def(name) {
            Some(NamedStructDef::Defined(t)) => t.clone(),
            _ => ty.clone(),
        },
        _ => ty.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::{PathTable, Step};

    /// The trie walk gives exactly the pairwise definition's pairs, on
    /// tables with fields, small indices and `[*]` at every depth.
    #[test]
    fn trie_overlaps_equal_the_pairwise_definition() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..20 {
            let mut table = PathTable::new();
            for _ in 0..(20 + round * 10) {
                let depth = next(5) as usize;
                let steps: Vec<Step> = (0..depth)
                    .map(|_| match next(4) {
                        0 => Step::AnyIndex,
                        1 => Step::Index(next(3)),
                        _ => Step::Field(next(3) as u32),
                    })
                    .collect();
                table.intern(steps, None);
            }
            let mut pairwise = table.overlaps_pairwise();
            pairwise.sort_unstable();
            assert_eq!(table.overlaps(), pairwise, "round {round}");
            assert!(
                pairwise.len() > table.len(),
                "the table has overlaps to find"
            );
        }
    }
}
