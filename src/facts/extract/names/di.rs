//! The metadata of a module's textual IR: just enough of `DICompositeType`
//! and `DIDerivedType` to name struct members.

use super::Layout;
use rustc_hash::FxHashMap as HashMap;

#[derive(Debug, Default)]
struct Node {
    kind: String,
    fields: HashMap<String, String>,
    /// For a tuple `!{!1, !2}`: its node references.
    items: Vec<u32>,
}

#[derive(Debug, Default)]
pub struct Metadata {
    nodes: HashMap<u32, Node>,
}

pub fn parse(text: &str) -> Metadata {
    let mut nodes = HashMap::default();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix('!') else {
            continue;
        };
        let Some((id, body)) = rest.split_once(" = ") else {
            continue;
        };
        let Ok(id) = id.parse::<u32>() else {
            continue;
        };
        let body = body.strip_prefix("distinct ").unwrap_or(body);
        if let Some(tuple) = body.strip_prefix("!{").and_then(|b| b.strip_suffix('}')) {
            let items = tuple.split(", ").filter_map(reference).collect();
            nodes.insert(
                id,
                Node {
                    kind: "tuple".into(),
                    items,
                    ..Node::default()
                },
            );
        } else if let Some(open) = body.find('(') {
            let kind = body[..open].trim_start_matches('!');
            if kind != "DICompositeType" && kind != "DIDerivedType" {
                continue;
            }
            let inner = body[open + 1..]
                .strip_suffix(')')
                .unwrap_or(&body[open + 1..]);
            nodes.insert(
                id,
                Node {
                    kind: kind.to_string(),
                    fields: fields(inner),
                    items: Vec::new(),
                },
            );
        }
    }
    Metadata { nodes }
}

/// `!12` -> 12.
fn reference(s: &str) -> Option<u32> {
    s.trim().strip_prefix('!')?.parse().ok()
}

/// `tag: DW_TAG_member, name: "a, b", size: 32` -> key/value pairs
/// (commas inside strings and parentheses do not split).
fn fields(inner: &str) -> HashMap<String, String> {
    let mut out = HashMap::default();
    let (mut depth, mut quoted, mut escaped) = (0i32, false, false);
    let mut start = 0;
    let bytes = inner.as_bytes();
    let mut push = |piece: &str| {
        if let Some((k, v)) = piece.split_once(':') {
            out.insert(k.trim().to_string(), v.trim().to_string());
        }
    };
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            b'(' if !quoted => depth += 1,
            b')' if !quoted => depth -= 1,
            b',' if !quoted && depth == 0 => {
                push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&inner[start..]);
    out
}

/// A string field without its quotes (LLVM writes `\XX` for odd bytes).
fn string(v: &str) -> Option<String> {
    let s = v.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let hex: String = chars.by_ref().take(2).collect();
            if let Ok(b) = u8::from_str_radix(&hex, 16) {
                out.push(b as char);
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

impl Metadata {
    fn node(&self, id: u32) -> Option<&Node> {
        self.nodes.get(&id)
    }
    fn field(&self, id: u32, key: &str) -> Option<&str> {
        self.node(id)?.fields.get(key).map(String::as_str)
    }
    fn tag(&self, id: u32) -> &str {
        self.field(id, "tag").unwrap_or("")
    }
    fn name(&self, id: u32) -> Option<String> {
        self.field(id, "name").and_then(string)
    }
    fn num(&self, id: u32, key: &str) -> Option<u64> {
        self.field(id, key).and_then(|v| v.parse().ok())
    }

    pub fn size_of(&self, id: u32) -> Option<u64> {
        self.num(id, "size")
    }

    /// Through typedefs and qualifiers to a struct or union type.
    fn composite(&self, mut id: u32) -> Option<u32> {
        for _ in 0..16 {
            let n = self.node(id)?;
            match self.tag(id) {
                "DW_TAG_structure_type" | "DW_TAG_union_type" if n.kind == "DICompositeType" => {
                    return Some(id)
                }
                "DW_TAG_typedef" | "DW_TAG_const_type" | "DW_TAG_volatile_type" => {
                    id = reference(self.field(id, "baseType")?)?;
                }
                _ => return None,
            }
        }
        None
    }

    /// Per C name, the struct or union types an IR struct of that
    /// name may be, with their C names: `struct base`/`union base`,
    /// then typedefs named `base` (clang names an anonymous typedef'd
    /// struct so); each group in metadata order. Built once: asking
    /// per IR struct scanned every node (structs x nodes).
    pub fn candidate_index(&self) -> HashMap<String, Vec<(String, u32)>> {
        let mut ids: Vec<u32> = self.nodes.keys().copied().collect();
        ids.sort_unstable();
        let mut composites: HashMap<String, Vec<(String, u32)>> = HashMap::default();
        let mut typedefs: HashMap<String, Vec<(String, u32)>> = HashMap::default();
        for id in ids {
            let Some(name) = self.name(id) else { continue };
            let entry = match self.tag(id) {
                "DW_TAG_structure_type" => (format!("struct {name}"), id),
                "DW_TAG_union_type" => (format!("union {name}"), id),
                "DW_TAG_typedef" => {
                    if let Some(c) = self.composite(id) {
                        typedefs.entry(name.clone()).or_default().push((name, c));
                    }
                    continue;
                }
                _ => continue,
            };
            composites.entry(name).or_default().push(entry);
        }
        for (name, list) in typedefs {
            composites.entry(name).or_default().extend(list);
        }
        composites
    }

    /// The member names of composite `c` per IR field of `layout`:
    /// the members starting inside the field's bytes; of several
    /// (bit-fields, a union's members), those as large as the field,
    /// and of those the one whose type is the field's struct type.
    pub fn fields(&self, c: u32, layout: &Layout) -> Vec<Option<String>> {
        let members: Vec<u32> = self
            .field(c, "elements")
            .and_then(reference)
            .and_then(|e| self.node(e))
            .map(|n| n.items.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|&m| self.tag(m) == "DW_TAG_member")
            .collect();
        let end_bits = layout.size * 8;
        (0..layout.offsets.len())
            .map(|k| {
                let start = layout.offsets[k] * 8;
                let next = layout.offsets.get(k + 1).map_or(end_bits, |o| o * 8);
                let end = next.max(start + 1);
                let inside: Vec<u32> = members
                    .iter()
                    .copied()
                    .filter(|&m| {
                        let off = self.num(m, "offset").unwrap_or(0);
                        off >= start && off < end
                    })
                    .collect();
                self.pick(&inside, layout.bits[k], layout.elem_struct[k].as_deref())
            })
            .collect()
    }

    fn pick(&self, inside: &[u32], bits: u64, elem_struct: Option<&str>) -> Option<String> {
        let named =
            |ms: &[u32]| -> Vec<String> { ms.iter().filter_map(|&m| self.name(m)).collect() };
        if inside.len() <= 1 {
            return named(inside).into_iter().next();
        }
        let same_size: Vec<u32> = inside
            .iter()
            .copied()
            .filter(|&m| self.num(m, "size") == Some(bits))
            .collect();
        if same_size.len() == 1 {
            return named(&same_size).into_iter().next();
        }
        if let (Some(ir), false) = (elem_struct, same_size.is_empty()) {
            let base = ir
                .split_once('.')
                .map_or(ir, |(_, b)| b.split('.').next().unwrap_or(b));
            let typed: Vec<u32> = same_size
                .iter()
                .copied()
                .filter(|&m| self.type_is_named(m, base))
                .collect();
            if typed.len() == 1 {
                return named(&typed).into_iter().next();
            }
        }
        let all = named(inside);
        (!all.is_empty()).then(|| all.join("|"))
    }

    /// Does member `m`'s type, through typedefs, carry the name `base`?
    fn type_is_named(&self, m: u32, base: &str) -> bool {
        let mut id = self.field(m, "baseType").and_then(reference);
        for _ in 0..16 {
            let Some(t) = id else { return false };
            if self.name(t).as_deref() == Some(base) {
                return true;
            }
            id = self.field(t, "baseType").and_then(reference);
        }
        false
    }
}
