//! Names for people: the `names.tsv` table. Locations keep their ids and
//! their `locations.tsv` names (which the analyses compare across
//! versions); this module adds what a reviewer reads instead: struct fields
//! by their C names, taken from the debug information (`pool.head` rather
//! than `pool.0`), and heap objects by type and allocation site
//! (`struct pool @ pigz.c:1402` rather than `heap@1402`).
//!
//! The debug information is not in llvm-ir's model, so [`DebugTypes::of`]
//! takes it from the LLVM C API (`frontend::LlvmView`, read as the module
//! was normalised): LLVM gives each IR struct's field offsets and the
//! module's metadata as text, whose
//! `DICompositeType` members are matched to the IR fields by bit offset.
//! Anything that does not match (padding, a type without debug
//! information) keeps its field number, so a name is never a guess.

use super::ir::plain_name;
use super::ir_facts::{InsnId, ObjKind};
use super::paths::{resolve, PathId, Step, ROOT};
use super::pointsto::{AbsObj, Loc, LocId, PointsTo};
use crate::facts::relations::IrAllocator;
use crate::facts::{NameInfo, StructLayout};
use llvm_ir::instruction::Instruction as I;
use llvm_ir::types::Type;
use llvm_ir::{HasDebugLoc, Module, Operand, TypeRef};
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// C names of the module's struct types, by IR name (`struct.pool`).
#[derive(Debug, Clone, Default)]
pub struct DebugTypes {
    structs: HashMap<String, StructNames>,
    /// ABI size in bytes of every named struct LLVM laid out.
    sizes: HashMap<String, u64>,
}

/// One struct type: its C name and, per IR field, the member(s) stored there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructNames {
    /// `struct pool`, `union u`, or a typedef's name for an anonymous type.
    pub c_name: String,
    /// Per IR field: the C member name; `None` for padding or no match.
    /// Bit-fields sharing one IR field are joined with `|`.
    pub fields: Vec<Option<String>>,
}

pub use crate::frontend::Layout;

impl DebugTypes {
    /// The struct names of a program; empty when it has no debug
    /// information or LLVM cannot read it (names then keep field numbers).
    pub fn of(program: &crate::frontend::Program) -> DebugTypes {
        match crate::frontend::llvm_view(program) {
            Some(view) => DebugTypes::from_parts(&view.layouts, &view.metadata),
            None => DebugTypes::default(),
        }
    }

    /// Match IR layouts with the `DICompositeType`s of the metadata text.
    pub fn from_parts(layouts: &BTreeMap<String, Layout>, metadata: &str) -> DebugTypes {
        let md = di::parse(metadata);
        let candidates = md.candidate_index();
        let mut structs = HashMap::default();
        for (ir_name, layout) in layouts {
            let Some(base) = ir_name
                .strip_prefix("struct.")
                .or_else(|| ir_name.strip_prefix("union."))
            else {
                continue;
            };
            // `struct.pool.12`: a renamed copy (linking); C names have no dots.
            let base = base.split('.').next().unwrap_or(base);
            let best = candidates
                .get(base)
                .into_iter()
                .flatten()
                .filter(|(_, c)| md.size_of(*c) == Some(layout.size * 8))
                .map(|(c_name, c)| StructNames {
                    c_name: c_name.clone(),
                    fields: md.fields(*c, layout),
                })
                .max_by_key(|s| s.fields.iter().filter(|f| f.is_some()).count());
            if let Some(s) = best {
                structs.insert(ir_name.clone(), s);
            }
        }
        let sizes = layouts.iter().map(|(n, l)| (n.clone(), l.size)).collect();
        DebugTypes { structs, sizes }
    }

    /// Every laid-out struct of `module`: member names (where the debug
    /// information gives them), IR field types and size.
    pub fn layouts(&self, module: &Module) -> BTreeMap<String, StructLayout> {
        let mut out = BTreeMap::new();
        for (name, &size) in &self.sizes {
            let Some(ty) = module.types.named_struct_def(name) else {
                continue;
            };
            let llvm_ir::types::NamedStructDef::Defined(ty) = ty else {
                continue;
            };
            let Type::StructType { element_types, .. } = ty.as_ref() else {
                continue;
            };
            let names = self.structs.get(name).map(|s| s.fields.as_slice());
            let fields = element_types
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let member = names.and_then(|n| n.get(k)).cloned().flatten();
                    (member, t.to_string())
                })
                .collect();
            out.insert(name.clone(), StructLayout { fields, size });
        }
        out
    }

    /// Every named struct type: its IR name and C names.
    pub fn structs(&self) -> impl Iterator<Item = (&String, &StructNames)> {
        self.structs.iter()
    }

    pub fn get(&self, ir_struct: &str) -> Option<&StructNames> {
        self.structs.get(ir_struct)
    }

    pub fn is_empty(&self) -> bool {
        self.structs.is_empty()
    }
}

/// The names of the exported locations: `(exported id, cell)` pairs, in
/// the order of `locations.tsv`.
pub fn location_names(
    module: &Module,
    pt: &PointsTo,
    debug: &DebugTypes,
    cells: &[(u32, LocId)],
) -> Vec<NameInfo> {
    let namer = Namer {
        module,
        pt,
        debug,
        holders: Holders::of(pt),
        held_as: RefCell::new(HashMap::default()),
    };
    let mut out: Vec<NameInfo> = cells.iter().map(|&(id, c)| namer.name(id, c)).collect();
    disambiguate(&mut out, cells, &namer);
    out
}

struct Namer<'a> {
    module: &'a Module,
    pt: &'a PointsTo,
    debug: &'a DebugTypes,
    holders: Holders,
    /// Per heap object, the pointer expression that holds it, once worked
    /// out ([`Namer::held_as`]).
    held_as: RefCell<HashMap<AbsObj, Option<String>>>,
}

/// Which locations may hold pointers to what (the points-to rules'
/// `pt_heap`), indexed both ways.
struct Holders {
    /// Per object, the global and heap locations that may hold a pointer
    /// to its start (a function's local variables are left out: they are
    /// the code's temporaries on the way).
    of_object: HashMap<AbsObj, BTreeSet<LocId>>,
    /// Per holding object: each path a pointer was stored at, and to what.
    stored: HashMap<AbsObj, Vec<(PathId, Loc)>>,
}

impl Holders {
    fn of(pt: &PointsTo) -> Holders {
        let mut of_object: HashMap<AbsObj, BTreeSet<LocId>> = HashMap::default();
        let mut stored: HashMap<AbsObj, Vec<(PathId, Loc)>> = HashMap::default();
        for &(holder, held) in pt.held_pointers() {
            let (h, d) = (pt.locs[holder as usize], pt.locs[held as usize]);
            stored.entry(h.obj).or_default().push((h.path, d));
            let lasting = matches!(
                pt.ir.objs[h.obj.site as usize],
                ObjKind::Global(_) | ObjKind::Heap(_)
            );
            if d.path == ROOT && lasting {
                of_object.entry(d.obj).or_default().insert(holder);
            }
        }
        Holders { of_object, stored }
    }
}

/// An object as a reader sees it.
struct Object {
    display: String,
    kind: &'static str,
    ty: Option<TypeRef>,
    site: String,
    /// For a heap object: the one pointer that holds it (`pool`,
    /// `g->lock`), which names it (`pool->have`, `*pool`).
    held_as: Option<String>,
}

impl Namer<'_> {
    fn name(&self, id: u32, cell: LocId) -> NameInfo {
        let loc = self.pt.locs[cell as usize];
        let obj = self.object(loc.obj.site, loc.obj.ctx);
        let suffix = self.path_suffix(obj.ty.as_ref(), self.pt.ir.paths.steps_of(loc.path));
        let name = if let Some(pointer) = &obj.held_as {
            through(pointer, &suffix)
        } else if suffix.is_empty() {
            obj.display.clone()
        } else if obj.kind == "heap" {
            format!("({}){suffix}", obj.display)
        } else {
            format!("{}{suffix}", obj.display)
        };
        NameInfo {
            id,
            name,
            object: obj.display,
            kind: obj.kind.to_string(),
            ty: obj.ty.as_ref().map(|t| self.c_type(t)).unwrap_or_default(),
            site: obj.site,
        }
    }

    fn object(&self, site: u32, ctx: u32) -> Object {
        let m = self.module;
        match self.pt.ir.objs[site as usize] {
            ObjKind::Global(g) => Object {
                display: plain_name(&m.global_vars[g].name),
                kind: "global",
                ty: pointee(&m.global_vars[g].ty),
                site: String::new(),
                held_as: None,
            },
            ObjKind::Func(f) => Object {
                display: m.functions[f].name.clone(),
                kind: "function",
                ty: None,
                site: String::new(),
                held_as: None,
            },
            ObjKind::Extern(e) => Object {
                display: m.func_declarations[e].name.clone(),
                kind: "function",
                ty: None,
                site: String::new(),
                held_as: None,
            },
            ObjKind::Stack(i) => {
                let (f, instr) = self.insn(i);
                let (var, ty) = match instr {
                    Some(I::Alloca(a)) => (plain_name(&a.dest), Some(a.allocated_type.clone())),
                    _ => (String::new(), None),
                };
                Object {
                    display: format!("{}::{var}", m.functions[f].name),
                    kind: "stack",
                    ty,
                    site: self.line_of(i).unwrap_or_default(),
                    held_as: None,
                }
            }
            ObjKind::Heap(i) => {
                let (at, ty) = self.heap_type(i, ctx);
                let line = self
                    .line_of(at)
                    .or_else(|| self.line_of(i))
                    .unwrap_or_else(|| "?".into());
                let what = ty.as_ref().map_or("heap".to_string(), |t| self.c_type(t));
                // The one pointer that holds it names it as a person reads
                // the code (`pool->have`); else the member it is made for
                // (`pool->have = new_lock(0)` in new_pool, any pool), else
                // its type and line.
                let held_as = self.held_as(AbsObj { site, ctx });
                let display = match (&held_as, self.stored_into_member(at)) {
                    (Some(pointer), _) => through(pointer, ""),
                    (None, Some(member)) => format!("{member} = {what} @ {line}"),
                    (None, None) => format!("{what} @ {line}"),
                };
                Object {
                    display,
                    kind: "heap",
                    ty,
                    site: line,
                    held_as,
                }
            }
        }
    }

    /// A heap object's type, and the call that makes it as the caller sees
    /// it: inside an allocation wrapper, the wrapper's call site (its
    /// context), where the caller says what it allocates.
    fn heap_type(&self, i: InsnId, ctx: u32) -> (InsnId, Option<TypeRef>) {
        let at = self.wrapper_call(i, ctx).unwrap_or(i);
        let ty = self
            .cast_type(at)
            .or_else(|| self.returned_type(at))
            .or_else(|| self.cast_type(i));
        (at, ty)
    }

    /// The C expression of the one pointer that holds heap object `obj`
    /// (`pool`, `stats.buf`, `g->lock`), when the points-to rules show
    /// that it is the only global or heap location that may point to the
    /// object and that it may point to nothing else: then every instance
    /// of the object is the one that pointer holds, and the name is never
    /// wrong. A pointer that may hold several objects (a global assigned
    /// twice, one allocation for two pools) names none of them.
    fn held_as(&self, obj: AbsObj) -> Option<String> {
        if let Some(known) = self.held_as.borrow().get(&obj) {
            return known.clone();
        }
        // a cycle of heap objects holding each other has no global root:
        // an object met again on the way is held by none
        self.held_as.borrow_mut().insert(obj, None);
        let found = self.find_holder(obj);
        self.held_as.borrow_mut().insert(obj, found.clone());
        found
    }

    fn find_holder(&self, obj: AbsObj) -> Option<String> {
        let holders = self.holders.of_object.get(&obj)?;
        let [holder] = holders.iter().copied().collect::<Vec<_>>()[..] else {
            return None;
        };
        let h = self.pt.locs[holder as usize];
        let paths = &self.pt.ir.paths;
        let only_this = Loc { obj, path: ROOT };
        let exclusive = self.holders.stored.get(&h.obj).is_some_and(|stores| {
            stores.iter().all(|&(at, held)| {
                held == only_this || !may_overlap(paths.steps_of(at), paths.steps_of(h.path))
            })
        });
        if !exclusive {
            return None;
        }
        let steps = paths.steps_of(h.path);
        match self.pt.ir.objs[h.obj.site as usize] {
            ObjKind::Global(g) => {
                let global = &self.module.global_vars[g];
                let suffix = self.path_suffix(pointee(&global.ty).as_ref(), steps);
                Some(format!("{}{suffix}", plain_name(&global.name)))
            }
            ObjKind::Heap(i) => {
                let pointer = self.held_as(h.obj)?;
                let (_, ty) = self.heap_type(i, h.obj.ctx);
                Some(through(&pointer, &self.path_suffix(ty.as_ref(), steps)))
            }
            _ => None,
        }
    }

    fn insn(&self, i: InsnId) -> (usize, Option<&I>) {
        let s = self.pt.ir.insns[i as usize];
        let f = &self.module.functions[s.func];
        (s.func, s.index.map(|k| &f.basic_blocks[s.block].instrs[k]))
    }

    /// `file:line` of an instruction (the file without its directory).
    fn line_of(&self, i: InsnId) -> Option<String> {
        let s = self.pt.ir.insns.get(i as usize)?;
        if s.func == usize::MAX {
            return None;
        }
        let f = &self.module.functions[s.func];
        let d = match s.index {
            Some(k) => f.basic_blocks[s.block].instrs[k].get_debug_loc().clone(),
            None => f.basic_blocks[s.block].term.get_debug_loc().clone(),
        }?;
        let file = Path::new(&d.filename)
            .file_name()
            .map_or(d.filename.clone(), |n| n.to_string_lossy().to_string());
        Some(format!("{file}:{}", d.line))
    }

    /// The call of an allocation wrapper that context `ctx` of allocation
    /// `i` stands for, if `i` lies in a wrapper and `ctx` is a call.
    fn wrapper_call(&self, i: InsnId, ctx: u32) -> Option<InsnId> {
        if ctx == 0 || ctx >= self.pt.ir.first_thread_ctx {
            return None;
        }
        let func = self.pt.ir.insns[i as usize].func as u32;
        let in_wrapper = self.pt.ir.contains(IrAllocator { f: func });
        in_wrapper.then_some(ctx)
    }

    /// The type a call's result is cast to (`(struct pool *)malloc(..)`).
    fn cast_type(&self, call: InsnId) -> Option<TypeRef> {
        let (f, instr) = self.insn(call);
        let dest = match instr? {
            I::Call(c) => c.dest.clone()?,
            _ => return None,
        };
        self.module.functions[f]
            .basic_blocks
            .iter()
            .flat_map(|b| b.instrs.iter())
            .find_map(|ins| match ins {
                I::BitCast(b) if matches!(&b.operand, Operand::LocalOperand { name, .. } if *name == dest) => {
                    pointee(&b.to_type)
                }
                _ => None,
            })
    }

    /// The struct member an allocation's result is stored into, in the
    /// function that makes it (`pool->have` for `pool->have =
    /// new_lock(0)`): one store of the result (or its cast) to a field of a
    /// struct pointer. `None` when there is no such store, or several, or
    /// the store is to a global (`p = malloc(..)`: a global that holds
    /// only this object names it through [`Namer::held_as`]; one that
    /// holds several objects says nothing of which this is).
    fn stored_into_member(&self, call: InsnId) -> Option<String> {
        let (f, instr) = self.insn(call);
        let dest = match instr? {
            I::Call(c) => c.dest.clone()?,
            _ => return None,
        };
        let instrs = || {
            self.module.functions[f]
                .basic_blocks
                .iter()
                .flat_map(|b| b.instrs.iter())
        };
        let is_local = |op: &Operand, n: &llvm_ir::Name| matches!(op, Operand::LocalOperand { name, .. } if name == n);
        // the result and its casts
        let mut values = vec![dest];
        for ins in instrs() {
            if let I::BitCast(b) = ins {
                if values.iter().any(|v| is_local(&b.operand, v)) {
                    values.push(b.dest.clone());
                }
            }
        }
        let mut members = instrs().filter_map(|ins| match ins {
            I::Store(st) if values.iter().any(|v| is_local(&st.value, v)) => Some(&st.address),
            _ => None,
        });
        let address = members.next()?;
        if members.next().is_some() {
            return None;
        }
        let Operand::LocalOperand { name, .. } = address else {
            return None;
        };
        let gep = instrs().find_map(|ins| match ins {
            I::GetElementPtr(g) if &g.dest == name => Some(g),
            _ => None,
        })?;
        let Operand::LocalOperand { ty, .. } = &gep.address else {
            return None;
        };
        let root = pointee(ty)?;
        let Type::NamedStructType { .. } = root.as_ref() else {
            return None;
        };
        let (first, rest) = gep.indices.split_first()?;
        if crate::ir::int_constant(first)?.1 != 0 || rest.is_empty() {
            return None;
        }
        let steps: Vec<Step> = rest
            .iter()
            .map(|i| crate::ir::int_constant(i).map(|(_, k)| Step::Field(k as u32)))
            .collect::<Option<_>>()?;
        let object = self.c_type(&root);
        let object = object
            .strip_prefix("struct ")
            .unwrap_or(&object)
            .to_string();
        let suffix = self.path_suffix(Some(&root), &steps);
        Some(format!("{object}->{}", suffix.trim_start_matches('.')))
    }

    /// The pointee of what a call's (defined) callee returns, unless it
    /// is the untyped `i8*` (`struct node *new_node(void)`).
    fn returned_type(&self, call: InsnId) -> Option<TypeRef> {
        let (_, instr) = self.insn(call);
        let I::Call(c) = instr? else {
            return None;
        };
        let callee = super::ir::direct_callee(c)?;
        let f = self.module.get_func_by_name(callee)?;
        pointee(&f.return_type)
            .filter(|t| !matches!(t.as_ref(), Type::IntegerType { bits: 8 } | Type::VoidType))
    }

    /// `.head[3].next`: a field path with the C names the debug
    /// information gives, field numbers where it gives none.
    fn path_suffix(&self, root: Option<&TypeRef>, steps: &[Step]) -> String {
        let mut ty = root.cloned();
        let mut out = String::new();
        for step in steps {
            match step {
                Step::Field(k) => {
                    let k = *k as usize;
                    let named = ty.as_ref().and_then(|t| self.field_name(t, k));
                    match named {
                        Some(n) => out.push_str(&format!(".{n}")),
                        None => out.push_str(&format!(".{k}")),
                    }
                    ty = ty.and_then(|t| match resolve(self.module, &t).as_ref() {
                        Type::StructType { element_types, .. } => element_types.get(k).cloned(),
                        _ => None,
                    });
                }
                Step::Index(k) => {
                    out.push_str(&format!("[{k}]"));
                    ty = ty.map(|t| element_of(&t));
                }
                Step::AnyIndex => {
                    out.push_str("[*]");
                    ty = ty.map(|t| element_of(&t));
                }
            }
        }
        out
    }

    fn field_name(&self, ty: &TypeRef, k: usize) -> Option<String> {
        let Type::NamedStructType { name } = ty.as_ref() else {
            return None;
        };
        self.debug.get(name)?.fields.get(k)?.clone()
    }

    /// A type as C spells it: structs and unions by the names the debug
    /// information gives, pointers and arrays in C's syntax; scalars keep
    /// LLVM's names (`i32`: the IR does not say `int` or `unsigned`).
    fn c_type(&self, ty: &TypeRef) -> String {
        match ty.as_ref() {
            Type::NamedStructType { name } => match self.debug.get(name) {
                Some(s) => s.c_name.clone(),
                None => name.replacen('.', " ", 1),
            },
            Type::PointerType { pointee_type, .. } => format!("{} *", self.c_type(pointee_type)),
            Type::ArrayType {
                element_type,
                num_elements,
            } => format!("{}[{num_elements}]", self.c_type(element_type)),
            _ => ty.to_string(),
        }
    }
}

/// A location reached through `pointer` by the field path `suffix`, in C:
/// `*p`, `p->head`, `p[3]`, `(*pp)->next`.
fn through(pointer: &str, suffix: &str) -> String {
    let pointer = if pointer.starts_with('*') {
        format!("({pointer})")
    } else {
        pointer.to_string()
    };
    match suffix.strip_prefix('.') {
        _ if suffix.is_empty() => format!("*{pointer}"),
        Some(field_path) => format!("{pointer}->{field_path}"),
        None => format!("{pointer}{suffix}"),
    }
}

/// Two paths may name overlapping memory: one is a prefix of the other,
/// step by step, with `[*]` meeting any element (as `ir_path_overlap`).
fn may_overlap(a: &[Step], b: &[Step]) -> bool {
    a.iter().zip(b).all(|(x, y)| {
        x == y
            || matches!(
                (x, y),
                (Step::AnyIndex, Step::Index(_)) | (Step::Index(_), Step::AnyIndex)
            )
    })
}

/// An array's element type; any other type stays (a pointer step moves
/// between objects of the same type).
fn element_of(ty: &TypeRef) -> TypeRef {
    match ty.as_ref() {
        Type::ArrayType { element_type, .. } | Type::VectorType { element_type, .. } => {
            element_type.clone()
        }
        _ => ty.clone(),
    }
}

fn pointee(ty: &TypeRef) -> Option<TypeRef> {
    match ty.as_ref() {
        Type::PointerType { pointee_type, .. } => Some(pointee_type.clone()),
        _ => None,
    }
}

/// Two objects with one name (one allocation site reached in several
/// calling contexts, or two instances of one function's stack slot): the
/// context's call site tells them apart where it has a line, else `#n`.
fn disambiguate(names: &mut [NameInfo], cells: &[(u32, LocId)], namer: &Namer<'_>) {
    let mut count: HashMap<String, u32> = HashMap::default();
    for n in names.iter() {
        *count.entry(n.name.clone()).or_default() += 1;
    }
    let mut seen: HashMap<String, u32> = HashMap::default();
    for (n, &(_, cell)) in names.iter_mut().zip(cells) {
        if count[&n.name] < 2 {
            continue;
        }
        let k = seen.entry(n.name.clone()).or_default();
        *k += 1;
        let ctx = namer.pt.locs[cell as usize].obj.ctx;
        let via = (ctx != 0 && ctx < namer.pt.ir.first_thread_ctx)
            .then(|| namer.line_of(ctx))
            .flatten();
        let tag = match via {
            Some(l) => format!(" via {l}"),
            None => format!("#{k}"),
        };
        // The tag belongs to the object: put it before the field path.
        if n.kind == "heap" && n.name.starts_with('(') {
            n.name = n.name.replacen(')', &format!("{tag})"), 1);
        } else {
            n.name.push_str(&tag);
        }
        n.object.push_str(&tag);
    }
    // A context line may still repeat (one call site, two thread
    // instances): number what remains.
    let mut seen: HashMap<String, u32> = HashMap::default();
    for n in names.iter_mut() {
        let k = seen.entry(n.name.clone()).or_default();
        *k += 1;
        if *k > 1 {
            n.name = format!("{}#{k}", n.name);
        }
    }
}

mod di;

#[cfg(test)]
mod tests {
    use super::*;

    /// The metadata clang-14 writes for
    /// `struct pool { struct pool *next; int count; unsigned a:3, b:5; };`
    /// and `typedef struct { int lo, hi; } range_t;` (abridged by hand to
    /// the nodes that matter).
    const MD: &str = r#"!7 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "pool", file: !3, line: 3, size: 128, elements: !8)
!8 = !{!9, !11, !13, !15}
!9 = !DIDerivedType(tag: DW_TAG_member, name: "next", scope: !7, file: !3, line: 3, baseType: !10, size: 64)
!11 = !DIDerivedType(tag: DW_TAG_member, name: "count", scope: !7, file: !3, line: 3, baseType: !12, size: 32, offset: 64)
!13 = !DIDerivedType(tag: DW_TAG_member, name: "a", scope: !7, file: !3, line: 3, baseType: !14, size: 3, offset: 96, flags: DIFlagBitField, extraData: i64 96)
!15 = !DIDerivedType(tag: DW_TAG_member, name: "b", scope: !7, file: !3, line: 3, baseType: !14, size: 5, offset: 99, flags: DIFlagBitField, extraData: i64 96)
!20 = !DIDerivedType(tag: DW_TAG_typedef, name: "range_t", file: !3, line: 4, baseType: !21)
!21 = distinct !DICompositeType(tag: DW_TAG_structure_type, file: !3, line: 4, size: 64, elements: !22)
!22 = !{!23, !24}
!23 = !DIDerivedType(tag: DW_TAG_member, name: "lo", scope: !21, file: !3, line: 4, baseType: !12, size: 32)
!24 = !DIDerivedType(tag: DW_TAG_member, name: "hi", scope: !21, file: !3, line: 4, baseType: !12, size: 32, offset: 32)
"#;

    fn layout(offsets: &[u64], bits: &[u64], size: u64) -> Layout {
        Layout {
            offsets: offsets.to_vec(),
            bits: bits.to_vec(),
            elem_struct: vec![None; offsets.len()],
            size,
        }
    }

    #[test]
    fn members_match_ir_fields_by_offset() {
        let mut layouts = BTreeMap::new();
        // { %struct.pool*, i32, i8, [3 x i8] }: the bit-fields share the i8,
        // the padding array has no member.
        layouts.insert(
            "struct.pool".to_string(),
            layout(&[0, 8, 12, 13], &[64, 32, 8, 24], 16),
        );
        layouts.insert("struct.range_t".to_string(), layout(&[0, 4], &[32, 32], 8));
        // A linked copy under another name, and a type of the wrong size.
        layouts.insert(
            "struct.pool.3".to_string(),
            layout(&[0, 8, 12, 13], &[64, 32, 8, 24], 16),
        );
        layouts.insert("struct.range_t.1".to_string(), layout(&[0], &[32], 4));
        let d = DebugTypes::from_parts(&layouts, MD);
        let pool = d.get("struct.pool").unwrap();
        assert_eq!(pool.c_name, "struct pool");
        assert_eq!(
            pool.fields,
            vec![
                Some("next".into()),
                Some("count".into()),
                Some("a|b".into()),
                None
            ]
        );
        assert_eq!(d.get("struct.pool.3"), Some(pool));
        let range = d.get("struct.range_t").unwrap();
        assert_eq!(range.c_name, "range_t");
        assert_eq!(range.fields, vec![Some("lo".into()), Some("hi".into())]);
        assert!(
            d.get("struct.range_t.1").is_none(),
            "sizes differ: no names"
        );
    }
}
