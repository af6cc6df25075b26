//! Matching two versions of a program: Δdiff (statements added, deleted,
//! modified, moved) and Δmap (old statement → new statement).
//!
//! 1. A source-line diff (Myers, `similar`) maps unchanged lines; a deleted
//!    line whose text reappears once among the inserted lines is *moved*.
//! 2. Statements are matched within the same thread (by start function and
//!    instance), function and call path (`call_paths`: down the call depth,
//!    an instance pairs with the one cloned for its call's counterpart), so
//!    a helper cloned for ten calls pairs instance by instance even when
//!    the patch drops one of the calls. Instances with no counterpart pair
//!    k-th occurrence to k-th occurrence within the thread and function.
//! 3. On unchanged and moved lines, statements pair by kind and normalised
//!    text (local value names removed, so renamed locals and renumbered
//!    temporaries do not count as changes).
//! 4. What remains (statements on changed lines, statements without a line)
//!    is aligned instruction by instruction with a diff of normalised texts;
//!    leftovers of the same kind pair as *modified*, the rest are added or
//!    deleted. Without debug information this step alone matches the IR.
//!
//! Texts compare with their layout constants read as what they stand for
//! (`layout`): a struct field by its member, a struct's changed size as
//! `sizeof`. Statements that carry no line and only name storage (allocas)
//! or merge values (phis) are not reported; nor is a statement on an
//! unchanged line whose text the other version has on that line in the same
//! function (one more or one fewer instance of unchanged code: a helper
//! reached from a new call).

mod call_paths;
mod layout;

use crate::facts::{FactSet, StatementInfo};
use call_paths::CallPathKey;
use layout::Layouts;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use similar::{capture_diff_slices, Algorithm, DiffTag};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Deleted,
    Modified,
    Moved,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Modified => "modified",
            ChangeKind::Moved => "moved",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Change {
    pub kind: ChangeKind,
    pub old: Option<u32>,
    pub new: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchMethod {
    /// Source lines through debug locations, refined per instruction.
    SourceLines,
    /// No source text: the IR alone.
    IrOnly,
}

#[derive(Debug, Clone)]
pub struct VersionMatch {
    /// Δdiff.
    pub changes: Vec<Change>,
    /// Δmap: every old statement that has a counterpart (unchanged, moved or
    /// modified) → that counterpart.
    pub map: BTreeMap<u32, u32>,
    /// Old source line → new source line for unchanged and moved lines.
    pub line_map: BTreeMap<u32, u32>,
    pub method: MatchMethod,
    /// The source lines the patch touched on each side (deleted, inserted
    /// or moved lines of the line diff), when the source texts were known.
    pub touched: Option<TouchedLines>,
}

/// Source lines of one side, by the file name statements carry (`None`:
/// the one source file of a single-file version).
pub type LinesByFile = BTreeMap<Option<String>, BTreeSet<u32>>;

/// The lines a patch touched, per side.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TouchedLines {
    pub old: LinesByFile,
    pub new: LinesByFile,
}

impl VersionMatch {
    pub fn changed_old(&self) -> BTreeSet<u32> {
        self.changes.iter().filter_map(|c| c.old).collect()
    }
    pub fn changed_new(&self) -> BTreeSet<u32> {
        self.changes.iter().filter_map(|c| c.new).collect()
    }
    /// Old statements with an unchanged counterpart.
    pub fn unchanged(&self) -> BTreeMap<u32, u32> {
        let changed = self.changed_old();
        self.map
            .iter()
            .filter(|(o, _)| !changed.contains(o))
            .map(|(&o, &n)| (o, n))
            .collect()
    }
}

/// One version: its facts and, when available, the text of its main source file.
pub struct Version<'a> {
    pub facts: &'a FactSet,
    pub source: Option<&'a str>,
}

/// Replace local value names (`%x`, `%12`, `%"a b"`) so that renamed
/// locals and renumbered temporaries compare equal, and drop the number of
/// string constants (`@.str.3`): clang numbers them in order of appearance,
/// so one new string literal renumbers every later one.
pub fn normalise(text: &str) -> String {
    crate::facts::text::without_string_numbers(&normalise_locals(text))
}

fn normalise_locals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            if chars.peek() == Some(&'"') {
                chars.next();
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                }
            } else {
                while chars.peek().is_some_and(|d| {
                    d.is_ascii_alphanumeric() || matches!(d, '_' | '.' | '-' | '$')
                }) {
                    chars.next();
                }
            }
            // Struct type names (%struct.S) are types, not locals: keep them.
            out.push_str("%_");
        } else {
            out.push(c);
        }
    }
    out
}

/// A statement's text as compared: kind, struct fields by member, local
/// names, string numbers and alignments left out.
fn key(s: &StatementInfo, layouts: &Layouts<'_>) -> String {
    let text = layout::without_alignment(&layouts.fields_named(&s.text));
    format!("{} {}", s.kind, normalise(&text))
}

/// Each distinct (kind, text) of a version's statements with its [`key`],
/// computed once: statements are cloned per thread and call path, so a
/// 50 KLoC program has 664,359 statements and far fewer texts.
struct Keys<'a> {
    /// text -> (kind, key) for each kind the text occurs with
    of_text: HashMap<&'a str, Vec<(&'a str, String)>>,
}

impl<'a> Keys<'a> {
    fn new(facts: &'a FactSet, layouts: &Layouts<'_>) -> Self {
        let mut of_text: HashMap<&'a str, Vec<(&'a str, String)>> = HashMap::default();
        for s in &facts.statements {
            let kinds = of_text.entry(s.text.as_str()).or_default();
            if !kinds.iter().any(|(k, _)| *k == s.kind) {
                kinds.push((s.kind.as_str(), key(s, layouts)));
            }
        }
        Keys { of_text }
    }

    /// `key(s)` for a statement of the version the keys were built from.
    fn of(&self, s: &StatementInfo) -> &str {
        let kinds = &self.of_text[s.text.as_str()];
        let (_, key) = kinds
            .iter()
            .find(|(k, _)| *k == s.kind)
            .expect("a statement of the keyed version");
        key
    }
}

/// Replace the 32-bit constant equal to the statement's own line (what
/// `__LINE__` expands to) with a placeholder.
fn without_line_number(text: &str, line: u32) -> String {
    let token = format!("i32 {line}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find(&token) {
        let after = &rest[pos + token.len()..];
        out.push_str(&rest[..pos]);
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(&token);
        } else {
            out.push_str("i32 __LINE__");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

fn is_substantive(line: &str) -> bool {
    line.chars().any(|c| c.is_ascii_alphanumeric())
}

/// Unchanged lines and moved lines between two source texts (1-based).
fn line_correspondence(old: &str, new: &str) -> (BTreeMap<u32, u32>, BTreeMap<u32, u32>) {
    let old_lines: Vec<&str> = old.lines().map(str::trim).collect();
    let new_lines: Vec<&str> = new.lines().map(str::trim).collect();
    let mut equal = BTreeMap::new();
    let mut deleted: Vec<usize> = Vec::new();
    let mut inserted: Vec<usize> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &old_lines, &new_lines) {
        let (tag, o, n) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                for (a, b) in o.zip(n) {
                    equal.insert(a as u32 + 1, b as u32 + 1);
                }
            }
            DiffTag::Delete => deleted.extend(o),
            DiffTag::Insert => inserted.extend(n),
            DiffTag::Replace => {
                deleted.extend(o);
                inserted.extend(n);
            }
        }
    }
    let count = |lines: &[&str], idx: &[usize]| -> HashMap<String, Vec<usize>> {
        let mut m: HashMap<String, Vec<usize>> = HashMap::default();
        for &i in idx {
            if is_substantive(lines[i]) {
                m.entry(lines[i].to_string()).or_default().push(i);
            }
        }
        m
    };
    let del = count(&old_lines, &deleted);
    let ins = count(&new_lines, &inserted);
    let mut moved = BTreeMap::new();
    for (text, olds) in &del {
        if let (1, Some(news)) = (olds.len(), ins.get(text)) {
            if news.len() == 1 {
                moved.insert(olds[0] as u32 + 1, news[0] as u32 + 1);
            }
        }
    }
    (equal, moved)
}

/// Threads correspond by start function, instance, and order of appearance.
fn thread_keys(facts: &FactSet) -> HashMap<u32, (String, u32, u32)> {
    let mut seen: HashMap<(String, u32), u32> = HashMap::default();
    facts
        .threads
        .iter()
        .map(|t| {
            let n = seen.entry((t.function.clone(), t.instance)).or_insert(0);
            let key = (t.function.clone(), t.instance, *n);
            *n += 1;
            (t.id, key)
        })
        .collect()
}

/// A statement's thread key and function, borrowed: copying them per
/// statement was two allocations each for 1.3 million statements at 50 KLoC.
type GroupKey<'a> = (&'a (String, u32, u32), &'a str);

/// The key of a thread `thread_keys` does not know.
static NO_THREAD: (String, u32, u32) = (String::new(), 0, 0);

/// The statements of one call depth, by thread and function, then by the
/// call path of their function's instance: a helper cloned for ten calls
/// has ten instances, and a patch that drops one call must not shift the
/// others. Per path: the old statements and the new ones.
type DepthGroups<'f> =
    BTreeMap<GroupKey<'f>, BTreeMap<CallPathKey, (Vec<&'f StatementInfo>, Vec<&'f StatementInfo>)>>;

/// Where a statement's line sits in the compared text: its own line for a
/// single source, or its file's offset plus its line when several files
/// are compared as one text (a build). 0: no line to compare.
struct Lines {
    offsets: Option<HashMap<String, u32>>,
}

impl Lines {
    /// The file and line of a line of the compared text (`None` for a
    /// file's header line in a build's combined text).
    fn place(&self, combined: u32) -> Option<(Option<String>, u32)> {
        let Some(offsets) = &self.offsets else {
            return Some((None, combined));
        };
        let (name, at) = offsets
            .iter()
            .filter(|(_, &o)| o < combined)
            .max_by_key(|(_, &o)| o)?;
        Some((Some(name.clone()), combined - at))
    }

    fn of(&self, s: &StatementInfo) -> u32 {
        match (&self.offsets, s.line) {
            (_, 0) => 0,
            (None, line) => line,
            (Some(m), line) => m.get(&s.file).map_or(0, |o| o + line),
        }
    }
}

/// Several source files as one text: each file starts with a line naming
/// it, so the line diff aligns files by name and lines within them.
fn combined(files: &BTreeMap<String, String>) -> (String, HashMap<String, u32>) {
    let mut text = String::new();
    let mut offsets = HashMap::default();
    let mut at = 0u32;
    for (name, body) in files {
        text.push_str(&format!("\u{1}concord file {name}\n"));
        at += 1;
        offsets.insert(name.clone(), at);
        for l in body.lines() {
            text.push_str(l);
            text.push('\n');
            at += 1;
        }
    }
    (text, offsets)
}

pub fn match_versions(old: &Version<'_>, new: &Version<'_>) -> VersionMatch {
    let texts = old.source.zip(new.source);
    let plain = Lines { offsets: None };
    match_with(old, new, texts, &plain, &plain)
}

/// Match two builds (or a build and a single file): statements pair by
/// source file and line. `old_files`/`new_files` map the file names the
/// debug information uses to their text. `line_map` stays empty: its lines
/// would not say which file.
pub fn match_builds(
    old: &Version<'_>,
    old_files: &BTreeMap<String, String>,
    new: &Version<'_>,
    new_files: &BTreeMap<String, String>,
) -> VersionMatch {
    let (old_text, old_offsets) = combined(old_files);
    let (new_text, new_offsets) = combined(new_files);
    let lo = Lines {
        offsets: Some(old_offsets),
    };
    let ln = Lines {
        offsets: Some(new_offsets),
    };
    let texts = (!old_files.is_empty() && !new_files.is_empty())
        .then_some((old_text.as_str(), new_text.as_str()));
    let mut m = match_with(old, new, texts, &lo, &ln);
    m.line_map.clear();
    m
}

fn match_with(
    old: &Version<'_>,
    new: &Version<'_>,
    texts: Option<(&str, &str)>,
    lo: &Lines,
    ln: &Lines,
) -> VersionMatch {
    let (equal, moved, method) = match texts {
        Some((a, b)) => {
            let (e, m) = line_correspondence(a, b);
            (e, m, MatchMethod::SourceLines)
        }
        _ => (BTreeMap::new(), BTreeMap::new(), MatchMethod::IrOnly),
    };
    let mut changes = Vec::new();
    let mut map = BTreeMap::new();
    let old_layouts = Layouts::of(old.facts, new.facts);
    let new_layouts = Layouts::of(new.facts, old.facts);
    let (old_keys, new_keys) = (
        Keys::new(old.facts, &old_layouts),
        Keys::new(new.facts, &new_layouts),
    );
    let new_lines_fixed: BTreeSet<u32> = equal.values().chain(moved.values()).copied().collect();
    let sides = Sides {
        lo,
        ln,
        method,
        old_layouts: &old_layouts,
        new_layouts: &new_layouts,
        old_keys: &old_keys,
        new_keys: &new_keys,
        new_lines_fixed: &new_lines_fixed,
    };
    // Down the call depth (call_paths): an instance pairs with the one
    // cloned for its call's counterpart. Instances with no counterpart (a
    // call the patch added, dropped or moved to another context) pair k-th
    // occurrence to k-th occurrence within their thread and function, last.
    let (old_threads, new_threads) = (thread_keys(old.facts), thread_keys(new.facts));
    fn group_key<'a>(
        keys: &'a HashMap<u32, (String, u32, u32)>,
        s: &'a StatementInfo,
    ) -> GroupKey<'a> {
        (
            keys.get(&s.thread).unwrap_or(&NO_THREAD),
            s.function.as_str(),
        )
    }
    let old_levels = call_paths::by_depth(old.facts);
    let new_levels = call_paths::by_depth(new.facts);
    let mut rest: BTreeMap<GroupKey<'_>, (Vec<&StatementInfo>, Vec<&StatementInfo>)> =
        BTreeMap::new();
    for depth in 0..old_levels.len().max(new_levels.len()) {
        let mut groups: DepthGroups<'_> = BTreeMap::new();
        for (s, chain) in old_levels.get(depth).into_iter().flatten() {
            let path = call_paths::old_key(chain, &map);
            let group = groups.entry(group_key(&old_threads, s)).or_default();
            group.entry(path).or_default().0.push(*s);
        }
        for (s, chain) in new_levels.get(depth).into_iter().flatten() {
            let path = call_paths::new_key(chain);
            let group = groups.entry(group_key(&new_threads, s)).or_default();
            group.entry(path).or_default().1.push(*s);
        }
        for (key, paths) in groups {
            for (os, ns) in paths.into_values() {
                if os.is_empty() || ns.is_empty() {
                    let r = rest.entry(key).or_default();
                    r.0.extend(os);
                    r.1.extend(ns);
                } else {
                    match_group(&os, &ns, &equal, &moved, sides, &mut changes, &mut map);
                }
            }
        }
    }
    for (mut os, mut ns) in rest.into_values() {
        os.sort_by_key(|s| s.id);
        ns.sort_by_key(|s| s.id);
        match_group(&os, &ns, &equal, &moved, sides, &mut changes, &mut map);
    }
    let touched = texts.map(|(a, b)| {
        let old_kept: BTreeSet<u32> = equal.keys().copied().collect();
        let new_kept: BTreeSet<u32> = equal.values().copied().collect();
        TouchedLines {
            old: untouched_complement(a, &old_kept, lo),
            new: untouched_complement(b, &new_kept, ln),
        }
    });
    let mut line_map = equal;
    line_map.extend(moved);
    pair_across_contexts(old, new, &line_map, sides, &mut changes, &mut map);
    if method == MatchMethod::SourceLines {
        changes.retain(|c| !is_storage_or_merge(c, old.facts, new.facts));
        drop_other_instances(old, new, &line_map, sides, &mut changes);
    }
    changes.sort();
    VersionMatch {
        changes,
        map,
        line_map,
        method,
        touched,
    }
}

/// The lines of `text` not in `kept`, placed in their files.
fn untouched_complement(text: &str, kept: &BTreeSet<u32>, lines: &Lines) -> LinesByFile {
    let mut out = LinesByFile::new();
    let count = text.lines().count() as u32;
    for l in (1..=count).filter(|l| !kept.contains(l)) {
        if let Some((file, line)) = lines.place(l) {
            out.entry(file).or_default().insert(line);
        }
    }
    out
}

/// How statements of each side are placed on the compared lines, and
/// their layout constants read.
#[derive(Clone, Copy)]
struct Sides<'a> {
    lo: &'a Lines,
    ln: &'a Lines,
    method: MatchMethod,
    old_layouts: &'a Layouts<'a>,
    new_layouts: &'a Layouts<'a>,
    old_keys: &'a Keys<'a>,
    new_keys: &'a Keys<'a>,
    /// New lines that are unchanged or moved (built once: per group it
    /// was a set of every line of the program).
    new_lines_fixed: &'a BTreeSet<u32>,
}

/// An alloca, phi or plain jump without a source line: it names a local's
/// storage, merges values or joins blocks; what the code does with them
/// is on the lines around them, and a `file:0` entry tells a reader
/// nothing.
fn is_storage_or_merge(c: &Change, old: &FactSet, new: &FactSet) -> bool {
    let line_less = |s: Option<&StatementInfo>| {
        s.map_or(true, |s| {
            let jump = s.kind == "br" && s.text.starts_with("br label ");
            s.line == 0 && (jump || matches!(s.kind.as_str(), "alloca" | "phi"))
        })
    };
    line_less(c.old.and_then(|o| old.statement(o)))
        && line_less(c.new.and_then(|n| new.statement(n)))
}

/// Drop an added (deleted) statement on an unchanged line when the old
/// (new) version has a statement of the same function and text on the
/// corresponding line: it is another instance of code the patch did not
/// touch (a helper cloned into a new call context or thread), not a change.
/// The call that creates the context is on a changed line and is reported.
fn drop_other_instances(
    old: &Version<'_>,
    new: &Version<'_>,
    line_map: &BTreeMap<u32, u32>,
    sides: Sides<'_>,
    changes: &mut Vec<Change>,
) {
    let place = |s: &StatementInfo, lines: &Lines, keys: &Keys<'_>| {
        (
            s.function.clone(),
            lines.of(s),
            without_line_number(keys.of(s), s.line),
        )
    };
    let unchanged_new: BTreeSet<u32> = line_map.values().copied().collect();
    // The (function, new line) places the added and deleted statements
    // ask about: only the other version's statements there are keyed
    // (keying every statement of both versions was a third of matching
    // a 50 KLoC pair).
    let mut asked_old: BTreeSet<(&str, u32)> = BTreeSet::new();
    let mut asked_new: BTreeSet<(&str, u32)> = BTreeSet::new();
    for c in changes.iter() {
        match (c.kind, c.old, c.new) {
            (ChangeKind::Added, None, Some(n)) => {
                if let Some(s) = new.facts.statement(n) {
                    asked_old.insert((s.function.as_str(), sides.ln.of(s)));
                }
            }
            (ChangeKind::Deleted, Some(o), None) => {
                if let Some(s) = old.facts.statement(o) {
                    if let Some(&l) = line_map.get(&sides.lo.of(s)) {
                        asked_new.insert((s.function.as_str(), l));
                    }
                }
            }
            _ => {}
        }
    }
    let old_code: BTreeSet<(String, u32, String)> = old
        .facts
        .statements
        .iter()
        .filter_map(|s| line_map.get(&sides.lo.of(s)).map(|&l| (s, l)))
        .filter(|&(s, l)| asked_old.contains(&(s.function.as_str(), l)))
        .map(|(s, l)| {
            let (f, _, k) = place(s, sides.lo, sides.old_keys);
            (f, l, k)
        })
        .collect();
    let new_code: BTreeSet<(String, u32, String)> = new
        .facts
        .statements
        .iter()
        .filter(|s| sides.ln.of(s) != 0)
        .filter(|s| asked_new.contains(&(s.function.as_str(), sides.ln.of(s))))
        .map(|s| place(s, sides.ln, sides.new_keys))
        .collect();
    changes.retain(|c| match (c.kind, c.old, c.new) {
        (ChangeKind::Added, None, Some(n)) => new.facts.statement(n).map_or(true, |s| {
            let p = place(s, sides.ln, sides.new_keys);
            !(unchanged_new.contains(&p.1) && old_code.contains(&p))
        }),
        (ChangeKind::Deleted, Some(o), None) => old.facts.statement(o).map_or(true, |s| {
            let Some(&l) = line_map.get(&sides.lo.of(s)) else {
                return true;
            };
            let (f, _, k) = place(s, sides.lo, sides.old_keys);
            !new_code.contains(&(f, l, k))
        }),
        _ => true,
    });
}

/// A statement that left one thread or call context for another (a call
/// moved from a worker into main, say) is deleted in one group and added in
/// another. Pair such leftovers when function, instruction and line agree.
fn pair_across_contexts(
    old: &Version<'_>,
    new: &Version<'_>,
    line_map: &BTreeMap<u32, u32>,
    sides: Sides<'_>,
    changes: &mut Vec<Change>,
    map: &mut BTreeMap<u32, u32>,
) {
    if line_map.is_empty() {
        return;
    }
    let key = |s: &StatementInfo, line: u32, keys: &Keys<'_>| {
        (s.function.clone(), line, keys.of(s).to_string())
    };
    let mut added: HashMap<(String, u32, String), Vec<usize>> = HashMap::default();
    for (k, c) in changes.iter().enumerate() {
        if let (ChangeKind::Added, Some(n)) = (c.kind, c.new) {
            if let Some(s) = new.facts.statement(n) {
                added
                    .entry(key(s, sides.ln.of(s), sides.new_keys))
                    .or_default()
                    .push(k);
            }
        }
    }
    let mut rewrite: Vec<(usize, usize)> = Vec::new();
    for (k, c) in changes.iter().enumerate() {
        let (ChangeKind::Deleted, Some(o)) = (c.kind, c.old) else {
            continue;
        };
        let Some(s) = old.facts.statement(o) else {
            continue;
        };
        let Some(&target) = line_map.get(&sides.lo.of(s)) else {
            continue;
        };
        if let Some(list) = added.get_mut(&key(s, target, sides.old_keys)) {
            if !list.is_empty() {
                rewrite.push((k, list.remove(0)));
            }
        }
    }
    let mut drop: BTreeSet<usize> = BTreeSet::new();
    for (del, add) in rewrite {
        let (o, n) = (changes[del].old, changes[add].new);
        map.insert(o.expect("deleted has old"), n.expect("added has new"));
        changes[del] = Change {
            kind: ChangeKind::Moved,
            old: o,
            new: n,
        };
        drop.insert(add);
    }
    let mut k = 0;
    changes.retain(|_| {
        k += 1;
        !drop.contains(&(k - 1))
    });
}

fn match_group(
    os: &[&StatementInfo],
    ns: &[&StatementInfo],
    equal: &BTreeMap<u32, u32>,
    moved: &BTreeMap<u32, u32>,
    sides: Sides<'_>,
    changes: &mut Vec<Change>,
    map: &mut BTreeMap<u32, u32>,
) {
    let Sides { lo, ln, method, .. } = sides;
    let norm_o: Vec<&str> = os.iter().map(|s| sides.old_keys.of(s)).collect();
    let norm_n: Vec<&str> = ns.iter().map(|s| sides.new_keys.of(s)).collect();
    let mut used_o = vec![false; os.len()];
    let mut used_n = vec![false; ns.len()];

    if method == MatchMethod::SourceLines {
        // Statements on unchanged or moved lines.
        let mut by_line: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (j, s) in ns.iter().enumerate() {
            by_line.entry(ln.of(s)).or_default().push(j);
        }
        for (i, s) in os.iter().enumerate() {
            let line = lo.of(s);
            if line == 0 {
                continue;
            }
            let (target, is_move) = match (equal.get(&line), moved.get(&line)) {
                (Some(&l), _) => (l, false),
                (None, Some(&l)) => (l, true),
                _ => continue,
            };
            let candidates: &[usize] = by_line.get(&target).map_or(&[], |c| c.as_slice());
            // The source line is the same text, so `__LINE__` (as in assert)
            // is the one constant allowed to differ. Most statements match
            // a candidate's text as it is: the blanked and sized texts are
            // made only when one does not (once per statement).
            let mut blanked_o: Option<(String, String)> = None;
            let exact = candidates.iter().copied().find(|&j| {
                // Same text, or the same once each side's own line
                // number is blanked (a constant that merely equals the
                // line, like `x = 10;` on line 10, is not __LINE__ when
                // the texts agree as they are), or once the sizes of
                // resized structs read as `sizeof`.
                if used_n[j] {
                    return false;
                }
                if norm_n[j] == norm_o[i] {
                    return true;
                }
                let (own_o, sized_o) = blanked_o.get_or_insert_with(|| {
                    let own = without_line_number(norm_o[i], s.line);
                    let sized = sides.old_layouts.sizes_named(&own);
                    (own, sized)
                });
                let own_n = without_line_number(norm_n[j], ns[j].line);
                own_n == *own_o || sides.new_layouts.sizes_named(&own_n) == *sized_o
            });
            let same_kind = || {
                candidates
                    .iter()
                    .copied()
                    .find(|&j| !used_n[j] && ns[j].kind == s.kind)
            };
            let (j, identical) = match exact {
                Some(j) => (j, true),
                None => match same_kind() {
                    Some(j) => (j, false),
                    None => continue,
                },
            };
            used_o[i] = true;
            used_n[j] = true;
            map.insert(s.id, ns[j].id);
            let kind = if is_move {
                Some(ChangeKind::Moved)
            } else if !identical {
                Some(ChangeKind::Modified)
            } else {
                None
            };
            if let Some(kind) = kind {
                changes.push(Change {
                    kind,
                    old: Some(s.id),
                    new: Some(ns[j].id),
                });
            }
        }
        // A new statement on an unchanged line that nothing matched is new
        // (e.g. an extra call spliced into an existing line).
        for (j, s) in ns.iter().enumerate() {
            if !used_n[j] && ln.of(s) != 0 && sides.new_lines_fixed.contains(&ln.of(s)) {
                used_n[j] = true;
                changes.push(Change {
                    kind: ChangeKind::Added,
                    old: None,
                    new: Some(s.id),
                });
            }
        }
        for (i, s) in os.iter().enumerate() {
            if !used_o[i]
                && lo.of(s) != 0
                && (equal.contains_key(&lo.of(s)) || moved.contains_key(&lo.of(s)))
            {
                used_o[i] = true;
                changes.push(Change {
                    kind: ChangeKind::Deleted,
                    old: Some(s.id),
                    new: None,
                });
            }
        }
    }

    // Anchors: statements matched on unchanged lines. A text match found
    // below counts as unchanged only if it sits between the same anchors
    // in both versions; otherwise it moved.
    let new_index: HashMap<u32, usize> = ns.iter().enumerate().map(|(j, s)| (s.id, j)).collect();
    let anchor_of_o: Vec<Option<usize>> = (0..os.len())
        .map(|i| {
            if !used_o[i] {
                return None;
            }
            map.get(&os[i].id).and_then(|n| new_index.get(n)).copied()
        })
        .collect();
    // The nearest anchor before each position, one pass per side (asked
    // per match, a backward search was quadratic in a long function).
    let mut prev_o: Vec<Option<usize>> = Vec::with_capacity(os.len());
    let mut last = None;
    for a in &anchor_of_o {
        prev_o.push(last);
        last = a.or(last);
    }
    let mut anchored_n = vec![false; ns.len()];
    for &j in anchor_of_o.iter().flatten() {
        anchored_n[j] = true;
    }
    let mut prev_n: Vec<Option<usize>> = Vec::with_capacity(ns.len());
    let mut last = None;
    for (j, &anchored) in anchored_n.iter().enumerate() {
        prev_n.push(last);
        if anchored {
            last = Some(j);
        }
    }

    // The rest: align by normalised instruction text.
    let rest_o: Vec<usize> = (0..os.len()).filter(|&i| !used_o[i]).collect();
    let rest_n: Vec<usize> = (0..ns.len()).filter(|&j| !used_n[j]).collect();
    let seq_o: Vec<&str> = rest_o.iter().map(|&i| norm_o[i]).collect();
    let seq_n: Vec<&str> = rest_n.iter().map(|&j| norm_n[j]).collect();
    let mut left_o = Vec::new();
    let mut left_n = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &seq_o, &seq_n) {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            for (a, b) in o.zip(n) {
                let (i, j) = (rest_o[a], rest_n[b]);
                map.insert(os[i].id, ns[j].id);
                let in_place = method == MatchMethod::IrOnly || prev_o[i] == prev_n[j];
                if !in_place {
                    changes.push(Change {
                        kind: ChangeKind::Moved,
                        old: Some(os[i].id),
                        new: Some(ns[j].id),
                    });
                }
            }
        } else {
            left_o.extend(o.map(|a| rest_o[a]));
            left_n.extend(n.map(|b| rest_n[b]));
        }
    }
    // Leftovers of the same kind pair up in order as modifications.
    let mut taken_n = vec![false; left_n.len()];
    for &i in &left_o {
        let partner = left_n
            .iter()
            .enumerate()
            .find(|(k, &j)| !taken_n[*k] && ns[j].kind == os[i].kind)
            .map(|(k, &j)| (k, j));
        match partner {
            Some((k, j)) => {
                taken_n[k] = true;
                map.insert(os[i].id, ns[j].id);
                changes.push(Change {
                    kind: ChangeKind::Modified,
                    old: Some(os[i].id),
                    new: Some(ns[j].id),
                });
            }
            None => changes.push(Change {
                kind: ChangeKind::Deleted,
                old: Some(os[i].id),
                new: None,
            }),
        }
    }
    for (k, &j) in left_n.iter().enumerate() {
        if !taken_n[k] {
            changes.push(Change {
                kind: ChangeKind::Added,
                old: None,
                new: Some(ns[j].id),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_removes_local_names_but_keeps_globals() {
        assert_eq!(
            normalise("%x.addr = load i32, i32* @g, align 4"),
            normalise("%7 = load i32, i32* @g, align 4")
        );
        assert_ne!(normalise("load i32* @g"), normalise("load i32* @h"));
    }

    #[test]
    fn string_constants_compare_without_their_number() {
        assert_eq!(
            normalise("call i32 @puts(i8* @.str.12)"),
            normalise("call i32 @puts(i8* @.str)")
        );
        assert_eq!(normalise("@.str.x"), "@.str.x");
        assert_ne!(normalise("@.str.1"), normalise("@.strange"));
    }

    #[test]
    fn only_the_own_line_number_is_neutralised() {
        assert_eq!(
            without_line_number("call f(i32 9, i32 90)", 9),
            "call f(i32 __LINE__, i32 90)"
        );
        assert_eq!(
            without_line_number("call f(i32 9)", 9),
            without_line_number("call f(i32 11)", 11)
        );
        assert_ne!(
            without_line_number("call f(i32 9)", 9),
            without_line_number("call f(i32 10)", 11)
        );
    }

    #[test]
    fn blank_lines_shift_but_do_not_change() {
        let (eq, moved) = line_correspondence("a = 1;\nb = 2;\n", "\n\na = 1;\nb = 2;\n");
        assert_eq!(eq.get(&1), Some(&3));
        assert_eq!(eq.get(&2), Some(&4));
        assert!(moved.is_empty());
    }

    #[test]
    fn a_moved_line_is_recognised() {
        let (eq, moved) =
            line_correspondence("x = 1;\ny = 2;\nz = 3;\n", "y = 2;\nz = 3;\nx = 1;\n");
        assert_eq!(moved.get(&1), Some(&3));
        assert_eq!(eq.get(&2), Some(&1));
    }
}
