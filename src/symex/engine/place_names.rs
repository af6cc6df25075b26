//! Names of memory in traces and deadlock stories, as a person reads the
//! program rather than the engine's object numbers (`object#83+96`): a
//! global and its field path (`stats.hits`), a local variable
//! (`worker::buf[2]`), a heap object by its type and the line that
//! allocates it, in parentheses (`(struct pool @ prog.c:24).lock`;
//! inside an allocation wrapper, the line that calls the wrapper). These
//! are the allocation-site forms of the facts' `names.tsv` (naming a heap
//! object through the global that holds it needs the points-to results,
//! which a run does not compute). C member names come from the debug
//! information, which the caller hands in ([`MemberNames`]); without it
//! fields keep their numbers (`.2`).

use super::state::State;
use super::{name_str, Engine};
use llvm_ir::instruction::Instruction as I;
use llvm_ir::types::NamedStructDef;
use llvm_ir::{HasDebugLoc, Operand, Type, TypeRef};
use std::collections::HashMap;

/// Where the engine made an object: the instruction (function, block,
/// index) of the `alloca` or the allocation call, then the call sites of
/// the frames below it, innermost first.
pub(super) type MadeAt = std::rc::Rc<[(usize, usize, usize)]>;

/// The C names of a module's struct types (from its debug information).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberNames {
    /// Per IR struct name (`struct.pool`): its C spelling (`struct pool`,
    /// a typedef's name) and, per IR field, the member stored there
    /// (`None` for padding or no match).
    pub structs: HashMap<String, (String, Vec<Option<String>>)>,
}

impl<'c> Engine<'c, '_> {
    /// The name of byte `k` of object `o` in state `st`.
    pub(super) fn place_name(&self, st: &State<'c>, o: u32, k: u64) -> String {
        self.name_at(st, o, k, true)
    }

    /// What a pointer to byte `k` of object `o` points to: the object
    /// itself at its start (`&(struct pool @ p.c:3)`, not its first field).
    pub(super) fn pointee_name(&self, st: &State<'c>, o: u32, k: u64) -> String {
        self.name_at(st, o, k, k != 0)
    }

    /// `into_fields`: name the innermost field at byte `k` (an access),
    /// else the object when `k` is 0.
    fn name_at(&self, st: &State<'c>, o: u32, k: u64, into_fields: bool) -> String {
        let (base, ty, heap) = match self.obj_global.get(&o) {
            Some(g) => {
                let ty = self
                    .m
                    .global_vars
                    .iter()
                    .find(|v| &v.name == g)
                    .and_then(|v| pointee(&v.ty));
                (name_str(g), ty, false)
            }
            None if st.objs.get(o as usize).is_some_and(|x| x.label.is_some()) => {
                return self.labelled_name(st, o, k, into_fields);
            }
            None => match st.objs.get(o as usize).and_then(|x| x.made_at.clone()) {
                Some(at) => self.made_name(&at),
                None => {
                    return if k == 0 {
                        format!("object#{o}")
                    } else {
                        format!("object#{o}+{k}")
                    }
                }
            },
        };
        // a heap object in parentheses, so that `&(struct pool @ p.c:3)`
        // and its fields read as one name
        let path = if into_fields {
            self.field_path(ty, k)
        } else {
            String::new()
        };
        if heap {
            format!("({base}){path}")
        } else {
            format!("{base}{path}")
        }
    }

    /// An object the engine made itself (`argv`): its label, and the
    /// element at byte `k` (`argv[1]`, `argv[1][2]`).
    fn labelled_name(&self, st: &State<'c>, o: u32, k: u64, into_fields: bool) -> String {
        let Some((label, elem)) = st.objs.get(o as usize).and_then(|x| x.label.clone()) else {
            return format!("object#{o}");
        };
        if !into_fields && k == 0 {
            return label.to_string();
        }
        let elem = elem.max(1);
        match k % elem {
            0 => format!("{label}[{}]", k / elem),
            r => format!("{label}[{}]+{r}", k / elem),
        }
    }

    /// The name of an object the program made, its type, and whether it is
    /// on the heap.
    fn made_name(&self, at: &[(usize, usize, usize)]) -> (String, Option<TypeRef>, bool) {
        let Some(&first) = at.first() else {
            return ("object".into(), None, false);
        };
        if let Some(I::Alloca(a)) = self.instr(first) {
            let var = name_str(&a.dest);
            let f = &self.m.functions[first.0].name;
            return (format!("{f}::{var}"), Some(a.allocated_type.clone()), false);
        }
        // The first call, from the allocation outwards, whose result the
        // caller casts (or whose callee returns a typed pointer) says what
        // the object is; an allocation wrapper's `void *` says nothing.
        let typed = at.iter().find_map(|&p| self.result_type(p).map(|t| (p, t)));
        let (site, ty) = match typed {
            Some((p, t)) => (p, Some(t)),
            None => (first, None),
        };
        let what = ty.as_ref().map_or("heap".to_string(), |t| self.c_type(t));
        (format!("{what} @ {}", self.line_of(site)), ty, true)
    }

    fn instr(&self, (f, bb, ip): (usize, usize, usize)) -> Option<&I> {
        self.m
            .functions
            .get(f)?
            .basic_blocks
            .get(bb)?
            .instrs
            .get(ip)
    }

    /// `file:line` of an instruction, the file without its directory.
    fn line_of(&self, (f, bb, ip): (usize, usize, usize)) -> String {
        let block = &self.m.functions[f].basic_blocks[bb];
        let dl = match block.instrs.get(ip) {
            Some(i) => i.get_debug_loc().clone(),
            None => block.term.get_debug_loc().clone(),
        };
        match dl {
            Some(d) => {
                let file = d.filename.rsplit('/').next().unwrap_or(&d.filename);
                format!("{file}:{}", d.line)
            }
            None => format!("{}()", self.m.functions[f].name),
        }
    }

    /// The type a call's result is cast to in its function, else the
    /// pointee of what its callee returns unless that is `void *`.
    fn result_type(&self, at: (usize, usize, usize)) -> Option<TypeRef> {
        let Some(I::Call(c)) = self.instr(at) else {
            return None;
        };
        let dest = c.dest.as_ref()?;
        let cast = self.m.functions[at.0]
            .basic_blocks
            .iter()
            .flat_map(|b| b.instrs.iter())
            .find_map(|i| match i {
                I::BitCast(b) if matches!(&b.operand, Operand::LocalOperand { name, .. } if name == dest) => {
                    pointee(&b.to_type)
                }
                _ => None,
            });
        cast.or_else(|| {
            let callee = crate::ir::callee_name(c)?;
            let f = self.m.get_func_by_name(callee)?;
            pointee(&f.return_type)
                .filter(|t| !matches!(t.as_ref(), Type::IntegerType { bits: 8 } | Type::VoidType))
        })
    }

    /// `.lock`, `.slots[3].key`: the field path to byte `k` of a `ty`;
    /// a byte past the type is an element of an array of it (`[2].key`),
    /// a byte inside a scalar or union its offset (`+4`).
    fn field_path(&self, ty: Option<TypeRef>, mut k: u64) -> String {
        let mut out = String::new();
        let Some(mut ty) = ty else {
            return if k == 0 { out } else { format!("+{k}") };
        };
        let whole = self.size_of(&ty);
        if whole > 0 && k >= whole {
            out.push_str(&format!("[{}]", k / whole));
            k %= whole;
        }
        loop {
            let resolved = match ty.as_ref() {
                // A union's members overlap (and the pthread types are
                // unions): the field that holds one is its name.
                Type::NamedStructType { name } if name.starts_with("union.") => break,
                Type::NamedStructType { name } => match self.m.types.named_struct_def(name) {
                    Some(NamedStructDef::Defined(t)) => t.clone(),
                    _ => break,
                },
                _ => ty.clone(),
            };
            match resolved.as_ref() {
                Type::StructType { element_types, .. } => {
                    let field = (0..element_types.len() as u64).rev().find_map(|i| {
                        let (off, t) = self.field_offset(&resolved, i);
                        (off <= k && k < off + self.size_of(&t).max(1)).then_some((i, off, t))
                    });
                    let Some((i, off, t)) = field else { break };
                    match self.member(&ty, i as usize) {
                        Some(m) => out.push_str(&format!(".{m}")),
                        None => out.push_str(&format!(".{i}")),
                    }
                    k -= off;
                    ty = t;
                }
                Type::ArrayType { element_type, .. } => {
                    let size = self.size_of(element_type).max(1);
                    out.push_str(&format!("[{}]", k / size));
                    k %= size;
                    ty = element_type.clone();
                }
                _ => break,
            }
        }
        if k != 0 {
            out.push_str(&format!("+{k}"));
        }
        out
    }

    fn member(&self, ty: &TypeRef, i: usize) -> Option<String> {
        let Type::NamedStructType { name } = ty.as_ref() else {
            return None;
        };
        let names = self.opts.member_names.as_ref()?;
        names.structs.get(name)?.1.get(i)?.clone()
    }

    /// A type as C spells it (structs by their debug names, pointers and
    /// arrays in C's syntax, scalars as LLVM names them).
    fn c_type(&self, ty: &TypeRef) -> String {
        match ty.as_ref() {
            Type::NamedStructType { name } => self
                .opts
                .member_names
                .as_ref()
                .and_then(|n| n.structs.get(name))
                .map_or_else(|| name.replacen('.', " ", 1), |s| s.0.clone()),
            Type::PointerType { pointee_type, .. } => format!("{} *", self.c_type(pointee_type)),
            Type::ArrayType {
                element_type,
                num_elements,
            } => format!("{}[{num_elements}]", self.c_type(element_type)),
            _ => ty.to_string(),
        }
    }
}

fn pointee(ty: &TypeRef) -> Option<TypeRef> {
    match ty.as_ref() {
        Type::PointerType { pointee_type, .. } => Some(pointee_type.clone()),
        _ => None,
    }
}
