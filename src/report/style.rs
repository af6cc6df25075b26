//! Colour in text output and progress (`--color auto|always|never`).
//! Decided once per process and per stream; JSON, SARIF and DOT never
//! carry colour. Under `auto`, a stream gets colour when it is a terminal,
//! `NO_COLOR` is unset or empty (no-color.org) and `TERM` is not `dumb`.

use std::ffi::OsStr;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

static STDOUT: AtomicBool = AtomicBool::new(false);
static STDERR: AtomicBool = AtomicBool::new(false);

/// Whether a stream gets colour.
pub fn resolve(
    choice: ColorChoice,
    is_terminal: bool,
    no_color: Option<&OsStr>,
    term: Option<&OsStr>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            is_terminal
                && no_color.map_or(true, OsStr::is_empty)
                && term.map_or(true, |t| t != "dumb")
        }
    }
}

/// Decide for stdout and stderr from the command line and environment.
pub fn init(choice: ColorChoice) {
    let no_color = std::env::var_os("NO_COLOR");
    let term = std::env::var_os("TERM");
    let on = |tty: bool| resolve(choice, tty, no_color.as_deref(), term.as_deref());
    STDOUT.store(on(std::io::stdout().is_terminal()), Ordering::Relaxed);
    STDERR.store(on(std::io::stderr().is_terminal()), Ordering::Relaxed);
}

/// Colour on standard error (progress, error prefixes)?
pub fn stderr_enabled() -> bool {
    STDERR.load(Ordering::Relaxed)
}

#[derive(Debug, Clone, Copy)]
pub enum Color {
    Red,
    Green,
    Yellow,
    Cyan,
    Bold,
}

fn wrap(text: &str, c: Color) -> String {
    let code = match c {
        Color::Red => "31",
        Color::Green => "32",
        Color::Yellow => "33",
        Color::Cyan => "36",
        Color::Bold => "1",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// `text` for stdout, coloured when stdout gets colour (pad before).
pub fn paint(text: &str, c: Color) -> String {
    if STDOUT.load(Ordering::Relaxed) {
        wrap(text, c)
    } else {
        text.to_string()
    }
}

/// `text` for stderr, coloured when stderr gets colour.
pub fn paint_err(text: &str, c: Color) -> String {
    if stderr_enabled() {
        wrap(text, c)
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_follows_the_terminal_no_color_and_term() {
        let on = |tty, nc: Option<&str>, term: Option<&str>| {
            resolve(
                ColorChoice::Auto,
                tty,
                nc.map(OsStr::new),
                term.map(OsStr::new),
            )
        };
        assert!(on(true, None, Some("xterm")));
        assert!(!on(false, None, Some("xterm")));
        assert!(!on(true, Some("1"), Some("xterm")));
        assert!(on(true, Some(""), None), "an empty NO_COLOR is unset");
        assert!(!on(true, None, Some("dumb")));
        assert!(resolve(
            ColorChoice::Always,
            false,
            Some(OsStr::new("1")),
            None
        ));
        assert!(!resolve(ColorChoice::Never, true, None, None));
    }
}
