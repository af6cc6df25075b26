//! Summaries across runs and versions (the summary store, +SCIA).
//!
//! A summary PS[s] is a formula over state variables (`r!…` registers of
//! the frames at s, `m!…` memory cells) that says which states at s were
//! explored without finding anything.  It keeps its meaning in another run
//! — of this program or of another version — at a state with the same
//! *portable key*: the same global control state written in statement
//! identity (function name, block and instruction index of every frame,
//! thread statuses, lock owners, condition waiters), the same code *ahead*
//! of every frame (the rest of its block, every block reachable from it,
//! and the whole code of every function those reference: callees, thread
//! start routines, every function when an indirect call is possible), the
//! same globals (names and types: object ids follow their order) and the same object layout (kind, liveness, heap sizes).  Code
//! already run may differ (its effect is in the state the formula is
//! checked against); code ahead may not.  This is Δmap restricted to
//! unchanged code: a summary is reused exactly where the code it
//! summarises did not change.

use super::*;
use crate::symex::store::{Store, StoreOptions, StoredAccess, StoredRes, StoredSummary};

/// Stable 64-bit FNV-1a (the std hasher may change between Rust releases;
/// stored keys must not).
#[derive(Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for x in b {
            self.0 ^= *x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub(crate) fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// Code fingerprints of a module.
pub(crate) struct Fingerprints {
    /// Per function: its code and everything it references (callees,
    /// thread start routines), transitively.
    closure: Vec<u64>,
    /// Portable names of the objects created before the program runs
    /// (null, globals, functions, declarations: `memory::init_globals`'
    /// order) and the inverse map.
    obj_names: Vec<String>,
    obj_ids: HashMap<String, u32>,
    /// Per function and block: instruction texts (terminator last) and
    /// the functions each references.
    texts: Vec<Vec<Vec<String>>>,
    refs: Vec<Vec<Vec<Vec<usize>>>>,
    succ: Vec<Vec<Vec<usize>>>,
    /// Per function and block: its text and the closures it references.
    block_fp: Vec<Vec<u64>>,
    /// Functions with an indirect call reach every function.
    indirect: Vec<bool>,
    all_fp: u64,
    /// Fingerprint of the code ahead of a position (function, block, ip).
    ahead: std::cell::RefCell<HashMap<(usize, usize, usize), u64>>,
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
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b"._$-".contains(&b[j])) {
                j += 1;
            }
            out.push(text[i + 1..j].to_string());
            i = j;
        } else {
            i += 1;
        }
    }
}

pub(crate) fn fingerprints(m: &Module) -> Fingerprints {
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
    let mut own = Vec::new();
    let mut edges: Vec<Vec<usize>> = Vec::new();
    let mut indirect = Vec::new();
    let mut texts = Vec::new();
    let mut refs = Vec::new();
    let mut succ = Vec::new();
    for f in &m.functions {
        let mut h = Fnv::new();
        h.str(&f.name);
        h.str(&format!("{:?}", f.return_type));
        for p in &f.parameters {
            h.str(&format!("{} {:?}", name_str(&p.name), p.ty));
        }
        let mut ind = false;
        let mut ftexts = Vec::new();
        let mut frefs = Vec::new();
        let mut all_refs = Vec::new();
        for b in &f.basic_blocks {
            h.str(&name_str(&b.name));
            let mut bt = Vec::new();
            let mut br = Vec::new();
            let texts_b = b
                .instrs
                .iter()
                .map(|i| i.to_string())
                .chain(std::iter::once(b.term.to_string()));
            for t in texts_b {
                let t = canon_text(t);
                let mut r = Vec::new();
                referenced(&t, &mut r);
                let mut th = Fnv::new();
                th.str(&t);
                for n in &r {
                    if let Some(g) = gfp.get(n) {
                        th.u64(*g);
                    }
                }
                let t = format!("{t}#{:x}", th.finish());
                h.str(&t);
                let r: Vec<usize> = r
                    .iter()
                    .filter_map(|n| idx.get(n.as_str()).copied())
                    .collect();
                all_refs.extend(r.iter().copied());
                br.push(r);
                bt.push(t);
            }
            for i in &b.instrs {
                if let Instruction::Call(c) = i {
                    if c.function.is_right() && callee_name(c).is_none() {
                        ind = true;
                    }
                }
            }
            ftexts.push(bt);
            frefs.push(br);
        }
        succ.push(
            f.basic_blocks
                .iter()
                .map(|b| crate::symex::slice::block_successors(f, &b.term))
                .collect::<Vec<_>>(),
        );
        own.push(h.finish());
        edges.push(all_refs);
        indirect.push(ind);
        texts.push(ftexts);
        refs.push(frefs);
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
    let block_fp = texts
        .iter()
        .zip(&refs)
        .map(|(ft, fr): (&Vec<Vec<String>>, &Vec<Vec<Vec<usize>>>)| {
            ft.iter()
                .zip(fr)
                .map(|(bt, br)| {
                    let mut h = Fnv::new();
                    for (t, r) in bt.iter().zip(br) {
                        h.str(t);
                        for x in r {
                            h.u64(closure[*x]);
                        }
                    }
                    h.finish()
                })
                .collect()
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
        texts,
        refs,
        succ,
        block_fp,
        indirect,
        all_fp,
        ahead: Default::default(),
    }
}

impl Fingerprints {
    /// The portable name of object `o` (objects made at run time are
    /// numbered from the first of them).
    fn obj_name(&self, o: u32) -> String {
        match self.obj_names.get(o as usize) {
            Some(n) => n.clone(),
            None => format!("o:{}", o as usize - self.obj_names.len()),
        }
    }

    fn obj_id(&self, name: &str) -> Option<u32> {
        if let Some(k) = name.strip_prefix("o:") {
            return Some(self.obj_names.len() as u32 + k.parse::<u32>().ok()?);
        }
        self.obj_ids.get(name).copied()
    }

    /// The code a frame at (f, bb, ip) may still run: the rest of its
    /// block, every block reachable from it, and all they reference.
    fn ahead(&self, f: usize, bb: usize, ip: usize) -> u64 {
        if let Some(x) = self.ahead.borrow().get(&(f, bb, ip)) {
            return *x;
        }
        let mut h = Fnv::new();
        h.u64(self.indirect[f] as u64 * self.all_fp);
        let (bt, br) = (&self.texts[f][bb], &self.refs[f][bb]);
        for k in ip.min(bt.len())..bt.len() {
            h.str(&bt[k]);
            for x in &br[k] {
                h.u64(self.closure[*x]);
            }
        }
        let mut seen = vec![false; self.succ[f].len()];
        let mut stack: Vec<usize> = self.succ[f][bb].clone();
        while let Some(b) = stack.pop() {
            if std::mem::replace(&mut seen[b], true) {
                continue;
            }
            stack.extend(self.succ[f][b].iter().copied());
        }
        for (b, s) in seen.iter().enumerate() {
            if *s {
                h.u64(b as u64);
                h.u64(self.block_fp[f][b]);
            }
        }
        let x = h.finish();
        self.ahead.borrow_mut().insert((f, bb, ip), x);
        x
    }
}

/// A summary read from the store.
pub(crate) struct Imported<'c> {
    f: Bool<'c>,
    asleep: BTreeSet<usize>,
    rw: Vec<(usize, Access)>,
}

pub(crate) struct Persist<'c> {
    opts: StoreOptions,
    store: Store,
    fps: Fingerprints,
    imported: HashMap<u64, Imported<'c>>,
    /// Local key → portable key (None: states with one local key had
    /// different portable keys; such a summary is not exported).
    portable: HashMap<u64, Option<u64>>,
    /// Local keys already looked up in `imported`.
    checked: HashSet<u64>,
    /// (merges, accesses) of each local key when last written.
    written: HashMap<u64, (u32, usize)>,
    last_flush: Instant,
}

/// An access as stored: its object by portable name.
fn to_stored(fps: &Fingerprints, t: usize, a: &Access) -> StoredAccess {
    let (res, obj) = match &a.res {
        Res::Mem(o, lo, hi) => (
            StoredRes::Mem {
                object: 0,
                lo: *lo,
                hi: *hi,
            },
            Some(*o),
        ),
        Res::Mutex((o, off)) => (
            StoredRes::Mutex {
                object: 0,
                offset: *off,
            },
            Some(*o),
        ),
        Res::Cond((o, off)) => (
            StoredRes::Cond {
                object: 0,
                offset: *off,
            },
            Some(*o),
        ),
        Res::ThreadEnd(u) => (StoredRes::ThreadEnd(*u), None),
        Res::All => (StoredRes::All, None),
    };
    StoredAccess {
        thread: t,
        res,
        write: a.write,
        object_name: obj.map(|o| fps.obj_name(o)),
    }
}

/// A stored access in this program's object numbers (None: its object
/// has no counterpart here, or it predates portable names).
fn from_stored(fps: &Fingerprints, s: &StoredAccess) -> Option<(usize, Access)> {
    let obj = match &s.object_name {
        Some(n) => Some(fps.obj_id(n)?),
        None => None,
    };
    let res = match (&s.res, obj) {
        (StoredRes::Mem { lo, hi, .. }, Some(o)) => Res::Mem(o, *lo, *hi),
        (StoredRes::Mutex { offset, .. }, Some(o)) => Res::Mutex((o, *offset)),
        (StoredRes::Cond { offset, .. }, Some(o)) => Res::Cond((o, *offset)),
        (StoredRes::ThreadEnd(u), _) => Res::ThreadEnd(*u),
        (StoredRes::All, _) => Res::All,
        _ => return None,
    };
    Some((
        s.thread,
        Access {
            res,
            write: s.write,
        },
    ))
}

/// The constants an SMT-LIB text declares, with their bit widths, and
/// the PW-bit numerals it contains (quantifier bodies included: the text
/// shows everything, where the AST walk of the z3 crate stops at binders).
fn scan_smt(text: &str) -> (Vec<(String, u32)>, Vec<u128>) {
    let mut consts = Vec::new();
    for l in text.lines() {
        let Some(rest) = l.trim_start().strip_prefix("(declare-fun ") else {
            continue;
        };
        let (name, after) = match rest.strip_prefix('|') {
            Some(q) => match q.split_once('|') {
                Some((n, a)) => (n, a),
                None => continue,
            },
            None => match rest.split_once(' ') {
                Some((n, a)) => (n, a),
                None => continue,
            },
        };
        let w = after
            .split_once("(_ BitVec ")
            .and_then(|(_, x)| x.split(')').next())
            .and_then(|x| x.trim().parse().ok());
        if let (Some(w), true) = (w, after.trim_start().starts_with("()")) {
            consts.push((name.to_string(), w));
        }
    }
    let digits = PW as usize / 4;
    let mut nums = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(k) = text[i..].find("#x") {
        let s0 = i + k + 2;
        let mut e = s0;
        while e < b.len() && b[e].is_ascii_hexdigit() {
            e += 1;
        }
        if e - s0 == digits {
            if let Ok(v) = u128::from_str_radix(&text[s0..e], 16) {
                nums.push(v);
            }
        }
        i = e;
    }
    (consts, nums)
}

/// Rename the objects a summary refers to: `m!<object>!…` state variables
/// and pointer numerals (PW bits wide — no C integer type is —, the object
/// in the bits above 64).  `to_names`: this program's numbers → portable
/// names (a pointer's base becomes the constant `P!<name>`); else portable
/// names → this program's numbers.  `text`: the formula in SMT-LIB.  None
/// when a name has no object here or cannot be written.
fn rename_objects<'c>(
    ctx: &'c Context,
    fps: &Fingerprints,
    f: &Bool<'c>,
    text: &str,
    to_names: bool,
) -> Option<Bool<'c>> {
    let (consts, nums) = scan_smt(text);
    let mut from: Vec<BV<'c>> = Vec::new();
    let mut to: Vec<BV<'c>> = Vec::new();
    if to_names {
        for v in nums {
            let (o, off) = ((v >> 64) as u32, v as u64);
            if o == 0 {
                continue;
            }
            let n = fps.obj_name(o);
            if n.contains('|') {
                return None;
            }
            from.push(BV::from_str(ctx, PW, &v.to_string())?);
            to.push(BV::new_const(ctx, format!("P!{n}"), PW).bvadd(&BV::from_u64(ctx, off, PW)));
        }
    }
    for (name, w) in consts {
        if let Some(obj) = name.strip_prefix("P!") {
            if to_names {
                continue;
            }
            let v = (fps.obj_id(obj)? as u128) << 64;
            from.push(BV::new_const(ctx, name.as_str(), w));
            to.push(BV::from_str(ctx, PW, &v.to_string())?);
            continue;
        }
        let Some(rest) = name.strip_prefix("m!") else {
            continue;
        };
        let (obj, tail) = rest.split_once('!')?;
        let new = if to_names {
            let n = fps.obj_name(obj.parse().ok()?);
            if n.contains('!') || n.contains('|') {
                return None;
            }
            n
        } else {
            fps.obj_id(obj)?.to_string()
        };
        from.push(BV::new_const(ctx, name.as_str(), w));
        to.push(BV::new_const(ctx, format!("m!{new}!{tail}"), w));
    }
    if from.is_empty() {
        return Some(f.clone());
    }
    let pairs: Vec<(&BV<'c>, &BV<'c>)> = from.iter().zip(&to).collect();
    Some(f.substitute(&pairs))
}

fn addr(h: &mut Fnv, fps: &Fingerprints, a: &Addr) {
    h.str(&fps.obj_name(a.0));
    h.u64(a.1);
}

impl<'c, 'm> Engine<'c, 'm> {
    /// Open the store and read the summaries for this loop bound; their
    /// formulas are parsed by `loader` (which must outlive the engine).
    pub(crate) fn persist_open(&mut self, loader: &'c Solver<'c>) {
        if !self.ag {
            return;
        }
        let Some(so) = self.opts.store.clone() else {
            return;
        };
        let store = match Store::open(&so.path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("concord: warning: summaries not stored: {e}");
                return;
            }
        };
        let fps = fingerprints(self.m);
        if fps.obj_names.len() != self.init_objs.len() {
            // The object names must follow `init_globals`' numbering.
            eprintln!("concord: warning: summaries not stored: object layout not understood");
            return;
        }
        let mut imported = HashMap::new();
        if so.import {
            match store.summaries(self.opts.loop_bound) {
                Ok(rows) => {
                    for s in rows {
                        loader.reset();
                        loader.from_string(s.formula.as_str());
                        let mut v = loader.get_assertions();
                        if v.len() != 1 {
                            continue;
                        }
                        // Objects that do not exist here: the summary
                        // cannot apply (and is not guessed at).
                        let f = v.pop().unwrap();
                        let Some(f) = rename_objects(self.ctx, &fps, &f, &s.formula, false) else {
                            continue;
                        };
                        let Some(rw) = s
                            .accesses
                            .iter()
                            .map(|a| from_stored(&fps, a))
                            .collect::<Option<Vec<_>>>()
                        else {
                            continue;
                        };
                        imported.insert(
                            s.state_key,
                            Imported {
                                f,
                                asleep: s.asleep.iter().copied().collect(),
                                rw,
                            },
                        );
                    }
                }
                Err(e) => eprintln!("concord: warning: stored summaries not read: {e}"),
            }
        }
        self.stats.summaries_imported = imported.len() as u64;
        self.persist = Some(Persist {
            opts: so,
            store,
            fps,
            imported,
            portable: HashMap::new(),
            checked: HashSet::new(),
            written: HashMap::new(),
            last_flush: Instant::now(),
        });
    }

    fn portable_key(&self, fps: &Fingerprints, st: &State<'c>) -> u64 {
        let mut h = Fnv::new();
        // Keys of this scheme never equal those of the first one (object
        // numbers, whole-program globals), whose formulas named objects by
        // number.
        h.str("portable-v2");
        for t in &st.threads {
            match &t.status {
                TStatus::Run => h.u64(1),
                TStatus::Cut => h.u64(2),
                TStatus::WaitCond { cond, mutex } => {
                    h.u64(3);
                    addr(&mut h, fps, cond);
                    addr(&mut h, fps, mutex);
                }
                TStatus::Reacquire { mutex } => {
                    h.u64(4);
                    addr(&mut h, fps, mutex);
                }
                TStatus::Done => h.u64(5),
            }
            h.u64(t.atomic as u64);
            h.u64(t.tail as u64);
            h.u64(t.frames.len() as u64);
            for fr in &t.frames {
                h.str(&self.m.functions[fr.f].name);
                h.u64(fr.bb as u64);
                h.u64(fr.ip as u64);
                h.u64(fps.ahead(fr.f, fr.bb, fr.ip));
            }
        }
        for (a, o) in &st.mutex {
            addr(&mut h, fps, a);
            h.u64(*o as u64);
        }
        for (a, ws) in &st.conds {
            addr(&mut h, fps, a);
            h.u64(ws.len() as u64);
            for w in ws {
                h.u64(*w as u64);
            }
        }
        // Objects made before the program runs are the same by name (code
        // ahead names the globals it uses, and its text is in the key);
        // those made at run time are compared in order.
        let init = fps.obj_names.len();
        h.u64(st.objs.len().saturating_sub(init) as u64);
        for o in st.objs.iter().skip(init) {
            h.u64(match o.kind {
                ObjKind::Global => 1,
                ObjKind::Stack => 2,
                ObjKind::Heap => 3 + (o.size << 4),
                ObjKind::Func(f) => 4 + ((f as u64) << 4),
                ObjKind::Null => 5,
            });
            h.u64(o.alive as u64);
        }
        h.finish()
    }

    /// Hook at every summarised node (scheduling point, b-PP, deferred
    /// tail): remember the node's portable key, and adopt a stored summary
    /// for it when the run has none yet.
    pub(crate) fn persist_visit(&mut self, st: &State<'c>, key: u64) {
        let Some(p) = self.persist.as_ref() else {
            return;
        };
        let pk = self.portable_key(&p.fps, st);
        if std::env::var_os("CONCORD_PERSIST_DEBUG").is_some() {
            let mut d = String::new();
            for (i, t) in st.threads.iter().enumerate() {
                d += &format!(" T{i}:{:?}{}", t.status, if t.tail { "/tail" } else { "" });
                for fr in &t.frames {
                    d += &format!(
                        " {}@{}.{}#{:x}",
                        self.m.functions[fr.f].name,
                        fr.bb,
                        fr.ip,
                        p.fps.ahead(fr.f, fr.bb, fr.ip) & 0xffff
                    );
                }
            }
            eprintln!(
                "persist: pk={pk:016x} stored={} objs={}{d}",
                p.imported.contains_key(&pk),
                st.objs.len()
            );
        }
        let adopt =
            !p.imported.is_empty() && !p.checked.contains(&key) && self.ps_entry(key).is_none();
        let p = self.persist.as_mut().unwrap();
        match p.portable.get(&key) {
            None => {
                p.portable.insert(key, Some(pk));
            }
            Some(Some(k)) if *k != pk => {
                p.portable.insert(key, None);
            }
            _ => {}
        }
        if !adopt {
            return;
        }
        p.checked.insert(key);
        let Some(im) = p.imported.get(&pk) else {
            return;
        };
        let (f, asleep, rw) = (Cond::S(im.f.clone()), im.asleep.clone(), im.rw.clone());
        let n = self.opts.summary_table_size.max(1);
        self.ps.insert(
            (key as usize) % n,
            PsEntry {
                key,
                f,
                merges: 1,
                asleep,
            },
        );
        self.rw.entry(key).or_default().extend(rw);
        self.stats.summaries_reused += 1;
    }

    /// Write the summaries that changed since the last write (one
    /// transaction); `force`: now, else at most every two seconds.
    pub(crate) fn persist_flush(&mut self, force: bool) {
        let Some(p) = self.persist.as_ref() else {
            return;
        };
        if !p.opts.export || (!force && p.last_flush.elapsed().as_secs_f64() < 2.0) {
            return;
        }
        let mut items = Vec::new();
        let mut marks = Vec::new();
        for e in self.ps.values() {
            let Some(Some(pk)) = p.portable.get(&e.key) else {
                continue;
            };
            let rw = self.rw.get(&e.key);
            let mark = (e.merges, rw.map_or(0, |r| r.len()));
            if p.written.get(&e.key) == Some(&mark) {
                continue;
            }
            // Another run has not reported this run's findings.
            let strict = self.with_known(&e.f.bool(self.ctx), false);
            if strict.as_bool() == Some(false) {
                continue;
            }
            let s = Solver::new(self.ctx);
            s.assert(&strict);
            let Some(f) = rename_objects(self.ctx, &p.fps, &strict, &s.to_string(), true) else {
                continue;
            };
            let s = Solver::new(self.ctx);
            s.assert(&f);
            let mut accesses: Vec<StoredAccess> = rw
                .into_iter()
                .flatten()
                .map(|(t, a)| to_stored(&p.fps, *t, a))
                .collect();
            accesses.sort_by_key(|a| format!("{a:?}"));
            items.push(StoredSummary {
                state_key: *pk,
                loop_bound: self.opts.loop_bound,
                formula: s.to_string(),
                asleep: e.asleep.iter().copied().collect(),
                accesses,
            });
            marks.push((e.key, mark));
        }
        let p = self.persist.as_mut().unwrap();
        p.last_flush = Instant::now();
        if items.is_empty() {
            return;
        }
        match p.store.put_summaries(&p.opts.program_hash, &items) {
            Ok(()) => {
                p.written.extend(marks);
                self.stats.summaries_stored += items.len() as u64;
            }
            Err(e) => eprintln!("concord: warning: summaries not stored: {e}"),
        }
    }
}
