//! Lexer and recursive-descent parser for the Soufflé subset.

use crate::ast::*;
use crate::error::{Error, ErrorKind};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// `.decl`, `.input`, `.output`, ... (the word after the dot)
    Directive(String),
    Num(String),
    LParen,
    RParen,
    Comma,
    Dot,
    Colon,
    ColonDash,
    Bang,
    Ne,
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
    Semi,
    Eof,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("identifier `{s}`"),
        Tok::Directive(s) => format!("directive `.{s}`"),
        Tok::Num(s) => format!("number `{s}`"),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::Comma => "`,`".into(),
        Tok::Dot => "`.`".into(),
        Tok::Colon => "`:`".into(),
        Tok::ColonDash => "`:-`".into(),
        Tok::Bang => "`!`".into(),
        Tok::Ne => "`!=`".into(),
        Tok::Eq => "`=`".into(),
        Tok::Lt => "`<`".into(),
        Tok::Le => "`<=`".into(),
        Tok::Gt => "`>`".into(),
        Tok::Ge => "`>=`".into(),
        Tok::Semi => "`;`".into(),
        Tok::Eof => "end of file".into(),
    }
}

const DIRECTIVES: &[&str] = &[
    "decl",
    "input",
    "output",
    "type",
    "printsize",
    "functor",
    "comp",
    "init",
    "pragma",
    "plan",
    "limitsize",
    "include",
];

struct Lexer<'a> {
    file: &'a str,
    chars: Vec<char>,
    pos: usize,
    line: u32,
    col: u32,
}

impl<'a> Lexer<'a> {
    fn span(&self) -> Span {
        Span {
            file: self.file.to_string(),
            line: self.line,
            col: self.col,
        }
    }
    fn peek(&self, off: usize) -> Option<char> {
        self.chars.get(self.pos + off).copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }
    fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::Syntax, Some(span), msg)
    }

    fn tokens(mut self) -> Result<Vec<(Tok, Span)>, Error> {
        let mut out = Vec::new();
        loop {
            // whitespace and comments
            loop {
                match (self.peek(0), self.peek(1)) {
                    (Some(c), _) if c.is_whitespace() => {
                        self.bump();
                    }
                    (Some('/'), Some('/')) => {
                        while let Some(c) = self.peek(0) {
                            if c == '\n' {
                                break;
                            }
                            self.bump();
                        }
                    }
                    (Some('/'), Some('*')) => {
                        let start = self.span();
                        self.bump();
                        self.bump();
                        loop {
                            match (self.peek(0), self.peek(1)) {
                                (Some('*'), Some('/')) => {
                                    self.bump();
                                    self.bump();
                                    break;
                                }
                                (Some(_), _) => {
                                    self.bump();
                                }
                                (None, _) => {
                                    return Err(self.err(start, "unterminated block comment `/*`"))
                                }
                            }
                        }
                    }
                    _ => break,
                }
            }
            let span = self.span();
            let Some(c) = self.peek(0) else {
                out.push((Tok::Eof, span));
                return Ok(out);
            };
            let tok =
                if c.is_ascii_alphabetic() || c == '_' {
                    let mut s = String::new();
                    while let Some(c) = self.peek(0) {
                        if c.is_ascii_alphanumeric() || c == '_' {
                            s.push(c);
                            self.bump();
                        } else {
                            break;
                        }
                    }
                    Tok::Ident(s)
                } else if c.is_ascii_digit() {
                    let mut s = String::new();
                    while let Some(c) = self.peek(0) {
                        if c.is_ascii_alphanumeric() || c == '_' {
                            s.push(c);
                            self.bump();
                        } else {
                            break;
                        }
                    }
                    Tok::Num(s)
                } else {
                    self.bump();
                    match (c, self.peek(0)) {
                        ('.', Some(n)) if n.is_ascii_alphabetic() => {
                            // `.word` is a directive when `word` is a Soufflé
                            // directive name; otherwise the dot ends an item
                            // (`a(1).b(2).` written without spaces).
                            let mut s = String::new();
                            let mut k = 0;
                            while let Some(c) = self.peek(k) {
                                if c.is_ascii_alphanumeric() || c == '_' {
                                    s.push(c);
                                    k += 1;
                                } else {
                                    break;
                                }
                            }
                            if DIRECTIVES.contains(&s.as_str()) {
                                for _ in 0..k {
                                    self.bump();
                                }
                                Tok::Directive(s)
                            } else {
                                Tok::Dot
                            }
                        }
                        ('.', _) => Tok::Dot,
                        ('(', _) => Tok::LParen,
                        (')', _) => Tok::RParen,
                        (',', _) => Tok::Comma,
                        (';', _) => Tok::Semi,
                        (':', Some('-')) => {
                            self.bump();
                            Tok::ColonDash
                        }
                        (':', _) => Tok::Colon,
                        ('!', Some('=')) => {
                            self.bump();
                            Tok::Ne
                        }
                        ('!', _) => Tok::Bang,
                        ('=', _) => Tok::Eq,
                        ('<', Some('=')) => {
                            self.bump();
                            Tok::Le
                        }
                        ('<', _) => Tok::Lt,
                        ('>', Some('=')) => {
                            self.bump();
                            Tok::Ge
                        }
                        ('>', _) => Tok::Gt,
                        ('"', _) => return Err(self.err(
                            span,
                            "string literals are not supported (every column is an unsigned id)",
                        )),
                        _ => return Err(self.err(span, format!("unexpected character `{c}`"))),
                    }
                };
            out.push((tok, span));
        }
    }
}

struct Parser {
    toks: Vec<(Tok, Span)>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }
    fn span(&self) -> Span {
        self.toks[self.pos].1.clone()
    }
    fn next(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn err_here(&self, msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::Syntax, Some(self.span()), msg)
    }
    fn expect(&mut self, t: Tok, what: &str) -> Result<Span, Error> {
        if *self.peek() == t {
            Ok(self.next().1)
        } else {
            Err(self.err_here(format!(
                "expected {} {what}, found {}",
                describe(&t),
                describe(self.peek())
            )))
        }
    }
    fn ident(&mut self, what: &str) -> Result<(String, Span), Error> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                let sp = self.next().1;
                Ok((s, sp))
            }
            other => Err(self.err_here(format!("expected {what}, found {}", describe(&other)))),
        }
    }

    fn program(&mut self) -> Result<Program, Error> {
        let mut p = Program::default();
        loop {
            match self.peek().clone() {
                Tok::Eof => return Ok(p),
                Tok::Directive(d) => {
                    let sp = self.next().1;
                    match d.as_str() {
                        "decl" => p.decls.push(self.decl(sp)?),
                        "input" | "output" => {
                            loop {
                                let (name, nsp) = self.ident("a relation name after the IO directive")?;
                                if *self.peek() == Tok::LParen {
                                    return Err(self.err_here(format!(
                                        "IO parameters after `.{d} {name}` are not supported; \
                                         the default tab-separated `{name}.facts`/`{name}.csv` files are used"
                                    )));
                                }
                                let io = IoDirective { rel: name, span: nsp };
                                if d == "input" {
                                    p.inputs.push(io)
                                } else {
                                    p.outputs.push(io)
                                }
                                if *self.peek() == Tok::Comma {
                                    self.next();
                                } else {
                                    break;
                                }
                            }
                        }
                        other => {
                            return Err(Error::new(
                                ErrorKind::Syntax,
                                Some(sp),
                                format!("unsupported directive `.{other}` (supported: .decl, .input, .output)"),
                            ))
                        }
                    }
                }
                Tok::Ident(_) => self.clause(&mut p)?,
                other => {
                    return Err(self.err_here(format!(
                        "expected `.decl`, `.input`, `.output`, a rule or a fact, found {}",
                        describe(&other)
                    )))
                }
            }
        }
    }

    fn decl(&mut self, sp: Span) -> Result<Decl, Error> {
        let (name, _) = self.ident("a relation name after `.decl`")?;
        self.expect(Tok::LParen, &format!("after `.decl {name}`"))?;
        let mut columns = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                let (col, _) = self.ident("a column name")?;
                self.expect(
                    Tok::Colon,
                    &format!("after column `{col}` (write `{col}: unsigned`)"),
                )?;
                let (ty, tsp) = self.ident("a column type")?;
                let ty = match ty.as_str() {
                    "unsigned" => ColType::Unsigned,
                    "number" => ColType::Number,
                    "symbol" => {
                        return Err(Error::new(
                            ErrorKind::Syntax,
                            Some(tsp),
                            format!(
                                "column `{col}` of `{name}` has type `symbol`, which is not supported: \
                                 concord uses unsigned ids for every column (use `unsigned`)"
                            ),
                        ))
                    }
                    other => {
                        return Err(Error::new(
                            ErrorKind::Syntax,
                            Some(tsp),
                            format!("unknown column type `{other}` (supported: unsigned, number)"),
                        ))
                    }
                };
                columns.push((col, ty));
                if *self.peek() == Tok::Comma {
                    self.next();
                } else {
                    break;
                }
            }
        }
        self.expect(
            Tok::RParen,
            &format!("to close the column list of `{name}`"),
        )?;
        let mut inline = false;
        if let Tok::Ident(q) = self.peek().clone() {
            if q == "inline" {
                self.next();
                inline = true;
            }
        }
        if let Tok::Ident(q) = self.peek().clone() {
            // Soufflé allows qualifiers like `btree`/`brie`; we do not.
            if matches!(
                q.as_str(),
                "btree"
                    | "brie"
                    | "eqrel"
                    | "inline"
                    | "magic"
                    | "no_inline"
                    | "override"
                    | "choice"
            ) {
                return Err(self.err_here(format!("relation qualifier `{q}` is not supported")));
            }
        }
        Ok(Decl {
            name,
            columns,
            span: sp,
            inline,
        })
    }

    fn term(&mut self) -> Result<Term, Error> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.next();
                Ok(if s == "_" {
                    Term::Wildcard
                } else {
                    Term::Var(s)
                })
            }
            Tok::Num(n) => {
                let sp = self.next().1;
                let v: u32 = n.parse().map_err(|_| {
                    Error::new(
                        ErrorKind::Syntax,
                        Some(sp),
                        format!("`{n}` is not an unsigned 32-bit integer constant"),
                    )
                })?;
                Ok(Term::Const(v))
            }
            other => Err(self.err_here(format!(
                "expected a variable, `_` or an unsigned constant, found {}",
                describe(&other)
            ))),
        }
    }

    fn atom_after_name(&mut self, rel: String, span: Span) -> Result<Atom, Error> {
        self.expect(Tok::LParen, &format!("after relation name `{rel}`"))?;
        let mut args = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                args.push(self.term()?);
                if *self.peek() == Tok::Comma {
                    self.next();
                } else {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, &format!("to close the arguments of `{rel}`"))?;
        Ok(Atom { rel, args, span })
    }

    fn clause(&mut self, p: &mut Program) -> Result<(), Error> {
        let (rel, span) = self.ident("a relation name")?;
        let head = self.atom_after_name(rel, span.clone())?;
        match self.peek() {
            Tok::Dot => {
                self.next();
                let mut values = Vec::new();
                for a in &head.args {
                    match a {
                        Term::Const(c) => values.push(*c),
                        other => {
                            return Err(Error::new(
                                ErrorKind::Syntax,
                                Some(span),
                                format!(
                                "a fact may only contain constants, found `{other}` in `{head}`"
                            ),
                            ))
                        }
                    }
                }
                p.facts.push(Fact {
                    rel: head.rel,
                    values,
                    span,
                });
                Ok(())
            }
            Tok::ColonDash => {
                self.next();
                let mut body = Vec::new();
                loop {
                    body.push(self.literal()?);
                    match self.peek() {
                        Tok::Comma => {
                            self.next();
                        }
                        Tok::Dot => {
                            self.next();
                            break;
                        }
                        Tok::Semi => {
                            return Err(self.err_here("disjunction `;` is not supported; write one rule per alternative"))
                        }
                        Tok::ColonDash => return Err(self.err_here("expected `,` or `.` in rule body, found `:-` (missing `.` at the end of the previous rule?)")),
                        other => {
                            return Err(self.err_here(format!(
                                "expected `,` or `.` in rule body, found {}",
                                describe(other)
                            )))
                        }
                    }
                }
                p.rules.push(Rule { head, body, span });
                Ok(())
            }
            Tok::Comma => Err(self.err_here("rules with several heads are not supported")),
            other => Err(self.err_here(format!(
                "expected `:-` or `.` after `{head}`, found {}",
                describe(other)
            ))),
        }
    }

    fn literal(&mut self) -> Result<Literal, Error> {
        let span = self.span();
        match self.peek().clone() {
            Tok::Bang => {
                self.next();
                let (rel, sp) = self.ident("a relation name after `!`")?;
                Ok(Literal::Neg(self.atom_after_name(rel, sp)?))
            }
            Tok::Ident(name) if self.toks.get(self.pos + 1).map(|t| &t.0) == Some(&Tok::LParen) => {
                self.next();
                Ok(Literal::Pos(self.atom_after_name(name, span)?))
            }
            Tok::Ident(_) | Tok::Num(_) => {
                let lhs = self.term()?;
                let op = match self.peek() {
                    Tok::Eq => CmpOp::Eq,
                    Tok::Ne => CmpOp::Ne,
                    Tok::Lt => CmpOp::Lt,
                    Tok::Le => CmpOp::Le,
                    Tok::Gt => CmpOp::Gt,
                    Tok::Ge => CmpOp::Ge,
                    other => {
                        return Err(self.err_here(format!(
                            "expected a comparison operator (=, !=, <, <=, >, >=) after `{lhs}`, found {}",
                            describe(other)
                        )))
                    }
                };
                self.next();
                let rhs = self.term()?;
                Ok(Literal::Cmp { lhs, op, rhs, span })
            }
            other => Err(self.err_here(format!(
                "expected an atom, a negated atom or a comparison, found {}",
                describe(&other)
            ))),
        }
    }
}

/// Parses one rule file. `file` is only used in diagnostics.
pub fn parse(file: &str, src: &str) -> Result<Program, Error> {
    let lexer = Lexer {
        file,
        chars: src.chars().collect(),
        pos: 0,
        line: 1,
        col: 1,
    };
    let toks = lexer.tokens()?;
    Parser { toks, pos: 0 }.program()
}
