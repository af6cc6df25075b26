//! Fingerprints of the code ahead of a frame, for summaries across runs
//! and versions (`persist`).
//!
//! The code a frame may still run is the rest of its block, every block
//! reachable from it, and the whole code of every function those
//! reference (callees, thread start routines; every function when an
//! indirect call is possible), with the types and constant contents of
//! the globals it names and the module's struct layouts.  It is written
//! *up to the names of the function's own values and blocks*: blocks in
//! depth-first order from the position, each local name replaced by the
//! order of its first appearance.  Two positions with the same
//! fingerprint run the same code — renaming values is not a change — and
//! `Ahead::regs` maps each local name to its canonical number, so a
//! summary's registers can be carried from one version to the other
//! (clang numbers unnamed values and suffixes block names per function:
//! one statement added before a position renames much of what follows).

use super::{callee_name, name_str};
use llvm_ir::{Instruction, Module};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Stable 64-bit FNV-1a (the std hasher may change between Rust releases;
/// stored keys must not).
#[derive(Clone, Copy)]
pub(super) struct Fnv(u64);

impl Fnv {
    pub(super) fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for x in b {
            self.0 ^= *x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub(super) fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }
    pub(super) fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
    pub(super) fn finish(&self) -> u64 {
        self.0
    }
}

/// One instruction (or terminator) as fingerprinted.
struct Ins {
    /// Its text (`canon_text`), local names as written.
    text: String,
    /// Fingerprints of the globals it names.
    gsig: u64,
    /// Functions it references.
    refs: Vec<usize>,
}

/// The code ahead of a position.
pub(super) struct Ahead {
    pub(super) fp: u64,
    /// Local name (without `%`) → canonical number.
    pub(super) regs: HashMap<String, u32>,
}

impl Ahead {
    /// The local name with canonical number `k`.
    pub(super) fn name_of(&self, k: u32) -> Option<&str> {
        self.regs
            .iter()
            .find(|(_, v)| **v == k)
            .map(|(n, _)| n.as_str())
    }
}

/// Code fingerprints of a module.
pub(super) struct Fingerprints {
    /// Per function: its code and everything it references (callees,
    /// thread start routines), transitively.
    closure: Vec<u64>,
    /// Portable names of the objects created before the program runs
    /// (null, globals, functions, declarations: `memory::init_globals`'
    /// order) and the inverse map.
    pub(super) obj_names: Vec<String>,
    obj_ids: HashMap<String, u32>,
    /// Per function and block: its instructions, terminator last.
    code: Vec<Vec<Vec<Ins>>>,
    succ: Vec<Vec<Vec<usize>>>,
    /// Per function and block: the block's name as instructions write it.
    labels: Vec<Vec<String>>,
    /// Per function: its local names (parameters, values, blocks), `%`
    /// included.
    locals: Vec<HashSet<String>>,
    /// Functions with an indirect call reach every function.
    indirect: Vec<bool>,
    all_fp: u64,
    /// The module's named struct layouts (a field added changes offsets
    /// the instruction texts do not show).
    types_fp: u64,
    ahead: std::cell::RefCell<HashMap<(usize, usize, usize), Rc<Ahead>>>,
}

/// An instruction's text as fingerprinted: a call of `__assert_fail`
/// keeps only its callee (its arguments — message strings, line number,
/// function name — only shape the report, and a failing assertion ends
/// its path whatever they are: a summary means "nothing is found ahead").
fn canon_text(t: String) -> String {
    if t.contains("@__assert_fail(") {
        "call @__assert_fail".to_string()
    } else {
        t
    }
}

/// Is `c` part of a name after `@` or `%`?
fn name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"._$-".contains(&c)
}

/// Names after `@` in an instruction's text (callees, thread start
/// routines, addresses taken).
fn referenced(text: &str, out: &mut Vec<String>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'@' {
            let mut j = i + 1;
            if j < b.len() && b[j] == b'"' {
                let k = text[j + 1..].find('"').map_or(b.len(), |k| j + 1 + k);
                out.push(text[j + 1..k].to_string());
                i = k;
                continue;
            }
            while j < b.len() && name_char(b[j]) {
                j += 1;
            }
            out.push(text[i + 1..j].to_string());
            i = j;
        } else {
            i += 1;
        }
    }
}

/// `text` with each local name of `locals` replaced by its canonical
/// number (`%~k`), numbering new names in order of appearance.
fn rename_locals(text: &str, locals: &HashSet<String>, names: &mut HashMap<String, u32>) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let mut j = i + 1;
            while j < b.len() && name_char(b[j]) {
                j += 1;
            }
            if j > i + 1 && locals.contains(&text[i..j]) {
                let n = names.len() as u32;
                let k = *names.entry(text[i + 1..j].to_string()).or_insert(n);
                out.push_str(&format!("%~{k}"));
                i = j;
                continue;
            }
        }
        // Copy one character (texts may hold non-ASCII in names).
        let c = text[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

pub(super) fn fingerprints(m: &Module) -> Fingerprints {
    let idx: HashMap<&str, usize> = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    // A global referenced by code: its type, and for a constant its
    // contents (code reads them; a writable global's value is in the state).
    let gfp: HashMap<String, u64> = m
        .global_vars
        .iter()
        .map(|gv| {
            let mut h = Fnv::new();
            h.str(&format!("{:?}", gv.ty));
            h.u64(gv.is_constant as u64);
            if gv.is_constant {
                h.str(&format!("{:?}", gv.initializer));
            }
            (name_str(&gv.name), h.finish())
        })
        .collect();
    let types_fp = {
        let mut names: Vec<&String> = m.types.all_struct_names().collect();
        names.sort();
        let mut h = Fnv::new();
        for n in names {
            h.str(n);
            h.str(&format!("{:?}", m.types.named_struct_def(n)));
        }
        h.finish()
    };
    let mut own = Vec::new();
    let mut edges: Vec<Vec<usize>> = Vec::new();
    let mut indirect = Vec::new();
    let mut code = Vec::new();
    let mut succ = Vec::new();
    let mut labels = Vec::new();
    let mut locals = Vec::new();
    for f in &m.functions {
        let mut h = Fnv::new();
        h.str(&f.name);
        h.str(&format!("{:?}", f.return_type));
        let mut loc: HashSet<String> = HashSet::new();
        for p in &f.parameters {
            h.str(&format!("{} {:?}", name_str(&p.name), p.ty));
            loc.insert(p.name.to_string());
        }
        let mut ind = false;
        let mut fcode = Vec::new();
        let mut all_refs = Vec::new();
        for b in &f.basic_blocks {
            h.str(&name_str(&b.name));
            loc.insert(b.name.to_string());
            let mut bcode = Vec::new();
            for i in &b.instrs {
                if let Some(n) = i.try_get_result() {
                    loc.insert(n.to_string());
                }
                if let Instruction::Call(c) = i {
                    if c.function.is_right() && callee_name(c).is_none() {
                        ind = true;
                    }
                }
            }
            let texts_b = b
                .instrs
                .iter()
                .map(|i| i.to_string())
                .chain(std::iter::once(b.term.to_string()));
            for t in texts_b {
                let t = canon_text(t);
                let mut r = Vec::new();
                referenced(&t, &mut r);
                let mut g = Fnv::new();
                for n in &r {
                    if let Some(x) = gfp.get(n) {
                        g.u64(*x);
                    }
                }
                h.str(&t);
                h.u64(g.finish());
                let r: Vec<usize> = r
                    .iter()
                    .filter_map(|n| idx.get(n.as_str()).copied())
                    .collect();
                all_refs.extend(r.iter().copied());
                bcode.push(Ins {
                    text: t,
                    gsig: g.finish(),
                    refs: r,
                });
            }
            fcode.push(bcode);
        }
        succ.push(
            f.basic_blocks
                .iter()
                .map(|b| crate::symex::slice::block_successors(f, &b.term))
                .collect::<Vec<_>>(),
        );
        labels.push(
            f.basic_blocks
                .iter()
                .map(|b| b.name.to_string())
                .collect::<Vec<_>>(),
        );
        own.push(h.finish());
        edges.push(all_refs);
        indirect.push(ind);
        code.push(fcode);
        locals.push(loc);
    }
    let all_fp = {
        let mut h = Fnv::new();
        for x in &own {
            h.u64(*x);
        }
        h.finish()
    };
    let closure: Vec<u64> = (0..m.functions.len())
        .map(|f0| {
            let mut seen = vec![false; own.len()];
            let mut stack = vec![f0];
            let mut any_indirect = false;
            while let Some(f) = stack.pop() {
                if std::mem::replace(&mut seen[f], true) {
                    continue;
                }
                any_indirect |= indirect[f];
                stack.extend(edges[f].iter().copied());
            }
            if any_indirect {
                return all_fp;
            }
            let mut h = Fnv::new();
            for (f, s) in seen.iter().enumerate() {
                if *s {
                    h.u64(own[f]);
                }
            }
            h.finish()
        })
        .collect();
    // Objects created before the program runs, named as the code names
    // them: a global or function added elsewhere shifts the numbers of
    // the others, not their names (`memory::init_globals`' order).
    let mut obj_names = vec!["null".to_string()];
    obj_names.extend(
        m.global_vars
            .iter()
            .map(|g| format!("g:{}", name_str(&g.name))),
    );
    obj_names.extend(m.functions.iter().map(|f| format!("f:{}", f.name)));
    obj_names.extend(m.func_declarations.iter().map(|d| format!("d:{}", d.name)));
    let obj_ids = obj_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), i as u32))
        .collect();
    Fingerprints {
        closure,
        obj_names,
        obj_ids,
        code,
        succ,
        labels,
        locals,
        indirect,
        all_fp,
        types_fp,
        ahead: Default::default(),
    }
}

impl Fingerprints {
    /// The portable name of object `o` (objects made at run time are
    /// numbered from the first of them).
    pub(super) fn obj_name(&self, o: u32) -> String {
        match self.obj_names.get(o as usize) {
            Some(n) => n.clone(),
            None => format!("o:{}", o as usize - self.obj_names.len()),
        }
    }

    pub(super) fn obj_id(&self, name: &str) -> Option<u32> {
        if let Some(k) = name.strip_prefix("o:") {
            return Some(self.obj_names.len() as u32 + k.parse::<u32>().ok()?);
        }
        self.obj_ids.get(name).copied()
    }

    /// The code a frame at (f, bb, ip) may still run, up to local names:
    /// the rest of its block, then every block reachable from it in
    /// depth-first order (successors in terminator order), each marked
    /// with its canonical name, and all they reference.
    pub(super) fn ahead(&self, f: usize, bb: usize, ip: usize) -> Rc<Ahead> {
        if let Some(x) = self.ahead.borrow().get(&(f, bb, ip)) {
            return x.clone();
        }
        let mut names: HashMap<String, u32> = HashMap::new();
        let mut h = Fnv::new();
        h.u64(self.indirect[f] as u64 * self.all_fp);
        h.u64(self.types_fp);
        let emit = |b: usize, from: usize, h: &mut Fnv, names: &mut HashMap<String, u32>| {
            let bc = &self.code[f][b];
            for i in &bc[from.min(bc.len())..] {
                h.str(&rename_locals(&i.text, &self.locals[f], names));
                h.u64(i.gsig);
                for x in &i.refs {
                    h.u64(self.closure[*x]);
                }
            }
        };
        emit(bb, ip, &mut h, &mut names);
        let mut seen = vec![false; self.succ[f].len()];
        let mut stack: Vec<usize> = self.succ[f][bb].iter().rev().copied().collect();
        while let Some(b) = stack.pop() {
            if std::mem::replace(&mut seen[b], true) {
                continue;
            }
            h.str("block");
            h.str(&rename_locals(
                &self.labels[f][b],
                &self.locals[f],
                &mut names,
            ));
            emit(b, 0, &mut h, &mut names);
            stack.extend(self.succ[f][b].iter().rev().copied());
        }
        let x = Rc::new(Ahead {
            fp: h.finish(),
            regs: names,
        });
        self.ahead.borrow_mut().insert((f, bb, ip), x.clone());
        x
    }
}

#[cfg(test)]
mod tests {
    use super::{fingerprints, Fingerprints};

    /// Compile `src` and fingerprint it; the position of the first
    /// instruction of `func` whose text starts with `prefix`.
    fn at(src: &str, func: &str, prefix: &str) -> (Fingerprints, (usize, usize, usize), String) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.c");
        std::fs::write(&p, src).unwrap();
        let m = crate::symex::testutil::load(&p).unwrap();
        let fps = fingerprints(&m);
        let fi = m.functions.iter().position(|f| f.name == func).unwrap();
        for (bi, b) in m.functions[fi].basic_blocks.iter().enumerate() {
            for (ii, i) in b.instrs.iter().enumerate() {
                let t = i.to_string();
                if t.starts_with(prefix) {
                    return (fps, (fi, bi, ii), t);
                }
            }
        }
        panic!("no `{prefix}` in {func}");
    }

    const V1: &str = "int x, y, z;
void *w(void *a) {
  int p = x;
  y = p + 1;
  int q = y;
  z = q * 2;
  return 0;
}";

    /// v2 adds a statement before `y = p + 1` that reads `z` (a new
    /// unnamed value): clang numbers the loads after it one higher, so
    /// the code after it is the same up to value names.  The load of `x`
    /// is `%0` in v1 and `%1` in v2; both are the same canonical register
    /// ahead of `y = p + 1`.
    #[test]
    fn renamed_values_give_the_same_code_ahead() {
        let v2 = V1.replace("int p = x;", "int s = z;\n  x = s;\n  int p = x;");
        let (f1, p1, t1) = at(V1, "w", "%add = add");
        let (f2, p2, t2) = at(&v2, "w", "%add = add");
        assert_ne!(t1, t2, "the added statement no longer renames the loads");
        assert!(t1.contains("%0") && t2.contains("%1"), "{t1} / {t2}");
        let (a1, a2) = (f1.ahead(p1.0, p1.1, p1.2), f2.ahead(p2.0, p2.1, p2.2));
        assert_eq!(a1.fp, a2.fp);
        assert_eq!(a1.regs.get("0"), a2.regs.get("1"));
        assert!(a1.regs.contains_key("0"));
        // Before the added statement the code ahead differs.
        let (g1, q1, _) = at(V1, "w", "%0 = load");
        let (g2, q2, _) = at(&v2, "w", "%0 = load");
        assert_ne!(g1.ahead(q1.0, q1.1, q1.2).fp, g2.ahead(q2.0, q2.1, q2.2).fp);
    }

    /// A change ahead is a change, whatever the names: `y = p + 2`.
    #[test]
    fn changed_code_ahead_differs() {
        let v2 = V1.replace("p + 1", "p + 2");
        let (f1, p1, _) = at(V1, "w", "%add = add");
        let (f2, p2, _) = at(&v2, "w", "%add = add");
        assert_ne!(f1.ahead(p1.0, p1.1, p1.2).fp, f2.ahead(p2.0, p2.1, p2.2).fp);
    }

    /// A struct layout change changes the fingerprint although no
    /// instruction text shows it (the code names the struct type; its
    /// fields are in the module's type table).
    #[test]
    fn struct_layouts_are_part_of_the_code() {
        let a = "struct s { int a; int b; } g;
void *w(void *p) { g.b = 1; return 0; }";
        let b = a.replace("int a; int b;", "int a; int b; int c;");
        let (f1, p1, _) = at(a, "w", "store");
        let (f2, p2, _) = at(&b, "w", "store");
        assert_ne!(f1.ahead(p1.0, p1.1, p1.2).fp, f2.ahead(p2.0, p2.1, p2.2).fp);
    }
}
