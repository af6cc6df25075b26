//! Diagnostics.

use crate::ast::Span;
use std::fmt;

/// What went wrong, for callers and tests that want to match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Lexical or syntactic error, or an unsupported construct.
    Syntax,
    /// A relation is declared twice, or declared with a bad shape.
    Declaration,
    /// A relation is used (or given an IO directive) but never declared.
    Undeclared,
    /// An atom has the wrong number of arguments.
    Arity,
    /// A variable is not bound by any positive body atom.
    Unbound,
    /// Negation inside a recursive cycle.
    Stratification,
    /// Misuse of `.input`/`.output` (e.g. a rule deriving an input relation).
    Io,
    /// Two names collide after mapping them to Rust identifiers.
    Naming,
    /// I/O error while reading a rule file.
    File,
}

/// One diagnostic: where, what, and (for rule-level checks) the rule text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub span: Option<Span>,
    pub message: String,
    /// The offending rule, printed back in Soufflé syntax.
    pub rule: Option<String>,
}

impl Error {
    pub fn new(kind: ErrorKind, span: Option<Span>, message: impl Into<String>) -> Self {
        Error {
            kind,
            span,
            message: message.into(),
            rule: None,
        }
    }
    pub fn with_rule(mut self, rule: impl fmt::Display) -> Self {
        self.rule = Some(rule.to_string());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = &self.span {
            write!(f, "{s}: ")?;
        }
        write!(f, "error: {}", self.message)?;
        if let Some(r) = &self.rule {
            write!(f, "\n    in rule: {r}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// All diagnostics of one run (checks report every problem they find).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Errors(pub Vec<Error>);

impl Errors {
    pub fn kinds(&self) -> Vec<ErrorKind> {
        self.0.iter().map(|e| e.kind).collect()
    }
}

impl From<Error> for Errors {
    fn from(e: Error) -> Self {
        Errors(vec![e])
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}
