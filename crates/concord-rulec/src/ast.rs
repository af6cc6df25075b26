//! Syntax tree of the supported Soufflé subset.

use std::fmt;

/// A source position: file name, 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Span {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Column type as written in `.decl`. Every column becomes `u32` in the
/// generated Rust code; `symbol` is rejected by the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColType {
    Number,
    Unsigned,
}

impl ColType {
    pub fn souffle_name(self) -> &'static str {
        match self {
            ColType::Number => "number",
            ColType::Unsigned => "unsigned",
        }
    }
}

/// `.decl name(col: type, ...)`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decl {
    pub name: String,
    pub columns: Vec<(String, ColType)>,
    pub span: Span,
    /// `.decl r(...) inline`: a view expanded into every rule that uses it
    /// (`inline.rs`), unless it is an output.
    pub inline: bool,
}

impl Decl {
    pub fn arity(&self) -> usize {
        self.columns.len()
    }
}

/// An argument of an atom or a comparison operand.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// A named variable, as written (e.g. `X`, `s1`).
    Var(String),
    /// `_`
    Wildcard,
    /// An unsigned integer constant (fits in `u32`).
    Const(u32),
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Var(v) => write!(f, "{v}"),
            Term::Wildcard => write!(f, "_"),
            Term::Const(c) => write!(f, "{c}"),
        }
    }
}

/// `rel(arg, ...)`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Atom {
    pub rel: String,
    pub args: Vec<Term>,
    pub span: Span,
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.rel)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{a}")?;
        }
        write!(f, ")")
    }
}

/// Comparison operators usable in rule bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator as written in Soufflé and in Rust (they agree).
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
    pub fn rust(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            other => other.symbol(),
        }
    }
}

/// One conjunct of a rule body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Literal {
    Pos(Atom),
    Neg(Atom),
    Cmp {
        lhs: Term,
        op: CmpOp,
        rhs: Term,
        span: Span,
    },
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Pos(a) => write!(f, "{a}"),
            Literal::Neg(a) => write!(f, "!{a}"),
            Literal::Cmp { lhs, op, rhs, .. } => write!(f, "{lhs} {} {rhs}", op.symbol()),
        }
    }
}

/// `head :- body.`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub head: Atom,
    pub body: Vec<Literal>,
    /// Position of the head.
    pub span: Span,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} :- ", self.head)?;
        for (i, l) in self.body.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{l}")?;
        }
        write!(f, ".")
    }
}

/// `rel(1, 2).` — every argument a constant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub rel: String,
    pub values: Vec<u32>,
    pub span: Span,
}

/// Which IO directive a relation carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoDirective {
    pub rel: String,
    pub span: Span,
}

/// A parsed (not yet checked) program; several files can be merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Program {
    pub decls: Vec<Decl>,
    pub inputs: Vec<IoDirective>,
    pub outputs: Vec<IoDirective>,
    pub rules: Vec<Rule>,
    pub facts: Vec<Fact>,
}

impl Program {
    /// Appends the items of `other` (used to combine several rule files).
    pub fn extend(&mut self, other: Program) {
        self.decls.extend(other.decls);
        self.inputs.extend(other.inputs);
        self.outputs.extend(other.outputs);
        self.rules.extend(other.rules);
        self.facts.extend(other.facts);
    }

    /// Drops the input relations nothing reads: no rule body names them,
    /// they are no output, no rule head and no fact. A program generated
    /// with every extracted relation as input (the schema's declarations)
    /// then declares, and its caller fills, only the ones its rules use.
    /// Inputs named in `keep` stay (a caller that fills them by field).
    /// Returns the names dropped.
    pub fn drop_unused_inputs(&mut self, keep: &[&str]) -> Vec<String> {
        use std::collections::BTreeSet;
        let mut used: BTreeSet<&str> = BTreeSet::new();
        for r in &self.rules {
            used.insert(&r.head.rel);
            for l in &r.body {
                if let Literal::Pos(a) | Literal::Neg(a) = l {
                    used.insert(&a.rel);
                }
            }
        }
        used.extend(self.outputs.iter().map(|o| o.rel.as_str()));
        used.extend(self.facts.iter().map(|f| f.rel.as_str()));
        let unused: BTreeSet<String> = self
            .inputs
            .iter()
            .map(|i| i.rel.clone())
            .filter(|r| !used.contains(r.as_str()) && !keep.contains(&r.as_str()))
            .collect();
        self.inputs.retain(|i| !unused.contains(&i.rel));
        self.decls.retain(|d| !unused.contains(&d.name));
        unused.into_iter().collect()
    }

    /// Turns every relation these rules derive into an input, except the
    /// inline views: their rules go, their declarations stay, and so do the
    /// views (expanded over the new inputs). Outputs are dropped. Used to
    /// hand a diff program the layers a single-version program already
    /// computed instead of computing them again. Returns the relations
    /// made inputs.
    pub fn carry_derived(&mut self) -> Vec<String> {
        use std::collections::BTreeSet;
        let inline: BTreeSet<&str> = self
            .decls
            .iter()
            .filter(|d| d.inline)
            .map(|d| d.name.as_str())
            .collect();
        let carried: BTreeSet<String> = self
            .rules
            .iter()
            .map(|r| r.head.rel.as_str())
            .chain(self.facts.iter().map(|f| f.rel.as_str()))
            .filter(|r| !inline.contains(r))
            .map(str::to_string)
            .collect();
        self.rules.retain(|r| !carried.contains(&r.head.rel));
        self.facts.retain(|f| !carried.contains(&f.rel));
        self.outputs.clear();
        for rel in &carried {
            // the directive points at the relation's declaration
            let span = self.decls.iter().find(|d| d.name == *rel).map_or_else(
                || Span {
                    file: "carried".into(),
                    line: 0,
                    col: 0,
                },
                |d| d.span.clone(),
            );
            self.inputs.push(IoDirective {
                rel: rel.clone(),
                span,
            });
        }
        carried.into_iter().collect()
    }

    /// Swaps the two arguments of every atom of the binary relations in
    /// `rels`, in rule heads and bodies and in facts. With
    /// [`Program::rename_relations`] this mirrors a program whose rules
    /// relate two sides through a map: the rules of one direction (rows
    /// only in old, through `dmap(old, new)`) become those of the other.
    pub fn swap_arguments(&mut self, rels: &[&str]) {
        let swap = |a: &mut Atom| {
            if a.args.len() == 2 && rels.contains(&a.rel.as_str()) {
                a.args.swap(0, 1);
            }
        };
        for r in &mut self.rules {
            swap(&mut r.head);
            for l in &mut r.body {
                if let Literal::Pos(a) | Literal::Neg(a) = l {
                    swap(a);
                }
            }
        }
        for f in &mut self.facts {
            if f.values.len() == 2 && rels.contains(&f.rel.as_str()) {
                f.values.swap(0, 1);
            }
        }
    }

    /// Keeps only the outputs in `outputs` and what they need: the rules,
    /// declarations, inputs and facts of the relations they read,
    /// transitively (negated atoms and inline views included). Inputs named
    /// in `keep_inputs` stay (a caller that fills them by field). Used to
    /// compile one direction of a two-sided program.
    pub fn retain_needed_by(&mut self, outputs: &[&str], keep_inputs: &[&str]) {
        use std::collections::BTreeSet;
        self.outputs.retain(|o| outputs.contains(&o.rel.as_str()));
        let mut needed: BTreeSet<String> = self.outputs.iter().map(|o| o.rel.clone()).collect();
        needed.extend(
            self.inputs
                .iter()
                .filter(|i| keep_inputs.contains(&i.rel.as_str()))
                .map(|i| i.rel.clone()),
        );
        let mut todo: Vec<String> = needed.iter().cloned().collect();
        while let Some(rel) = todo.pop() {
            for r in self.rules.iter().filter(|r| r.head.rel == rel) {
                for l in &r.body {
                    if let Literal::Pos(a) | Literal::Neg(a) = l {
                        if needed.insert(a.rel.clone()) {
                            todo.push(a.rel.clone());
                        }
                    }
                }
            }
        }
        self.rules.retain(|r| needed.contains(&r.head.rel));
        self.facts.retain(|f| needed.contains(&f.rel));
        self.inputs.retain(|i| needed.contains(&i.rel));
        self.decls.retain(|d| needed.contains(&d.name));
    }

    /// Renames every relation (declarations, IO directives, rule atoms and
    /// facts) through `rename`. Used to load one program twice side by side,
    /// e.g. the rules of an old and a new version with prefixed relations.
    pub fn rename_relations(&mut self, rename: impl Fn(&str) -> String) {
        for d in &mut self.decls {
            d.name = rename(&d.name);
        }
        for io in self.inputs.iter_mut().chain(self.outputs.iter_mut()) {
            io.rel = rename(&io.rel);
        }
        for r in &mut self.rules {
            r.head.rel = rename(&r.head.rel);
            for l in &mut r.body {
                if let Literal::Pos(a) | Literal::Neg(a) = l {
                    a.rel = rename(&a.rel);
                }
            }
        }
        for f in &mut self.facts {
            f.rel = rename(&f.rel);
        }
    }
}
