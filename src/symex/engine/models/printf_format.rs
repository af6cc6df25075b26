//! `printf`-style formatting on concrete values, for `sprintf` and
//! `snprintf` (C17 7.21.6.1): flags, width, precision (`*` too), length
//! modifiers and the integer, character, string and pointer conversions.
//! Floating point and `%n` are not modelled: the caller reports them as
//! unsupported.

/// What a conversion takes from the argument list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgNeed {
    /// An integer of this many bits (what the length modifier says;
    /// `%c`, `*` widths and precisions are `int`).
    Int(u32),
    /// A string, at most this many bytes of it (the precision).
    Str(Option<usize>),
    /// A pointer (`%p`), printed as its address.
    Ptr,
}

/// One argument, as the engine read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FmtArg {
    Int(u64),
    Str(Vec<u8>),
    Ptr(u64),
}

#[derive(Debug, Default, Clone, Copy)]
struct Flags {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alt: bool,
}

/// Format `fmt` (without its NUL), asking `next` for each argument in
/// order.  Errors name what is not modelled (or are what `next` refused).
pub(crate) fn format_c<E: From<String>>(
    fmt: &[u8],
    next: &mut dyn FnMut(ArgNeed) -> Result<FmtArg, E>,
) -> Result<Vec<u8>, E> {
    let mut out = Vec::new();
    let mut k = 0;
    let int_of = |a: FmtArg| match a {
        FmtArg::Int(v) => Ok(v),
        other => Err(E::from(format!(
            "expected an integer argument, got {other:?}"
        ))),
    };
    while k < fmt.len() {
        if fmt[k] != b'%' {
            out.push(fmt[k]);
            k += 1;
            continue;
        }
        k += 1;
        let mut flags = Flags::default();
        while let Some(&b) = fmt.get(k) {
            match b {
                b'-' => flags.left = true,
                b'0' => flags.zero = true,
                b'+' => flags.plus = true,
                b' ' => flags.space = true,
                b'#' => flags.alt = true,
                _ => break,
            }
            k += 1;
        }
        let mut width = 0usize;
        if fmt.get(k) == Some(&b'*') {
            let w = int_of(next(ArgNeed::Int(32))?)? as u32 as i32;
            if w < 0 {
                flags.left = true;
            }
            width = w.unsigned_abs() as usize;
            k += 1;
        } else {
            while let Some(d) = fmt.get(k).filter(|b| b.is_ascii_digit()) {
                width = width * 10 + (d - b'0') as usize;
                k += 1;
            }
        }
        let mut precision: Option<usize> = None;
        if fmt.get(k) == Some(&b'.') {
            k += 1;
            if fmt.get(k) == Some(&b'*') {
                let p = int_of(next(ArgNeed::Int(32))?)? as u32 as i32;
                precision = (p >= 0).then_some(p as usize);
                k += 1;
            } else {
                let mut p = 0usize;
                while let Some(d) = fmt.get(k).filter(|b| b.is_ascii_digit()) {
                    p = p * 10 + (d - b'0') as usize;
                    k += 1;
                }
                precision = Some(p);
            }
        }
        let mut bits = 32;
        loop {
            match fmt.get(k) {
                Some(b'h') if fmt.get(k + 1) == Some(&b'h') => {
                    bits = 8;
                    k += 2;
                }
                Some(b'h') => {
                    bits = 16;
                    k += 1;
                }
                Some(b'l' | b'j' | b'z' | b't' | b'q') => {
                    bits = 64;
                    k += 1;
                }
                Some(b'L') => return Err(E::from("long double format".to_string())),
                _ => break,
            }
        }
        let Some(&conv) = fmt.get(k) else {
            return Err(E::from("format ends inside a conversion".to_string()));
        };
        k += 1;
        // (sign and prefix, digits or text): zero padding goes between.
        let (head, body): (Vec<u8>, Vec<u8>) = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                let v = int_of(next(ArgNeed::Int(bits))?)?;
                integer(v, bits, conv, precision, &flags)
            }
            b'c' => {
                let v = int_of(next(ArgNeed::Int(32))?)?;
                (Vec::new(), vec![v as u8])
            }
            b's' => match next(ArgNeed::Str(precision))? {
                FmtArg::Str(mut s) => {
                    if let Some(p) = precision {
                        s.truncate(p);
                    }
                    (Vec::new(), s)
                }
                other => {
                    return Err(E::from(format!(
                        "expected a string argument, got {other:?}"
                    )))
                }
            },
            b'p' => match next(ArgNeed::Ptr)? {
                FmtArg::Ptr(0) => (Vec::new(), b"(nil)".to_vec()),
                FmtArg::Ptr(a) => (Vec::new(), format!("0x{a:x}").into_bytes()),
                other => {
                    return Err(E::from(format!(
                        "expected a pointer argument, got {other:?}"
                    )))
                }
            },
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                return Err(E::from("floating-point format".to_string()))
            }
            b'n' => return Err(E::from("%n format".to_string())),
            other => return Err(E::from(format!("unknown conversion `%{}`", other as char))),
        };
        let numeric = matches!(conv, b'd' | b'i' | b'u' | b'x' | b'X' | b'o');
        pad(
            &mut out,
            head,
            body,
            width,
            &flags,
            numeric && precision.is_none(),
        );
    }
    Ok(out)
}

/// The digits of an integer conversion with its sign, prefix and
/// precision (minimum digits), before padding to the width.
fn integer(
    v: u64,
    bits: u32,
    conv: u8,
    precision: Option<usize>,
    flags: &Flags,
) -> (Vec<u8>, Vec<u8>) {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let v = v & mask;
    let (negative, magnitude) = if matches!(conv, b'd' | b'i') {
        let shift = 64 - bits;
        let s = ((v << shift) as i64) >> shift;
        (s < 0, s.unsigned_abs())
    } else {
        (false, v)
    };
    let mut digits = match conv {
        b'x' => format!("{magnitude:x}"),
        b'X' => format!("{magnitude:X}"),
        b'o' => format!("{magnitude:o}"),
        _ => magnitude.to_string(),
    }
    .into_bytes();
    if precision == Some(0) && magnitude == 0 {
        digits.clear();
    }
    if let Some(p) = precision {
        while digits.len() < p {
            digits.insert(0, b'0');
        }
    }
    if flags.alt && conv == b'o' && digits.first() != Some(&b'0') {
        digits.insert(0, b'0');
    }
    let mut prefix: Vec<u8> = Vec::new();
    if negative {
        prefix.push(b'-');
    } else if matches!(conv, b'd' | b'i') && flags.plus {
        prefix.push(b'+');
    } else if matches!(conv, b'd' | b'i') && flags.space {
        prefix.push(b' ');
    }
    if flags.alt && magnitude != 0 && matches!(conv, b'x' | b'X') {
        prefix.extend_from_slice(if conv == b'x' { b"0x" } else { b"0X" });
    }
    (prefix, digits)
}

/// Append `head` and `body` padded to `width`: spaces on the left (or the
/// right with `-`), or zeros between them (`0`, numeric, no precision).
fn pad(
    out: &mut Vec<u8>,
    head: Vec<u8>,
    body: Vec<u8>,
    width: usize,
    flags: &Flags,
    zero_ok: bool,
) {
    let fill = width.saturating_sub(head.len() + body.len());
    let spaces = std::iter::repeat(b' ').take(fill);
    if flags.left {
        out.extend(head);
        out.extend(body);
        out.extend(spaces);
    } else if flags.zero && zero_ok {
        out.extend(head);
        out.extend(std::iter::repeat(b'0').take(fill));
        out.extend(body);
    } else {
        out.extend(spaces);
        out.extend(head);
        out.extend(body);
    }
}

#[cfg(test)]
mod tests {
    use super::{format_c, ArgNeed, FmtArg};

    fn fmt(f: &str, args: Vec<FmtArg>) -> Result<String, String> {
        let mut it = args.into_iter();
        let mut next = |_: ArgNeed| it.next().ok_or_else(|| "too few arguments".to_string());
        format_c(f.as_bytes(), &mut next).map(|b| String::from_utf8(b).unwrap())
    }

    fn int(v: i64) -> FmtArg {
        FmtArg::Int(v as u64)
    }

    #[test]
    fn integers_as_glibc_prints_them() {
        assert_eq!(fmt("n=%d.", vec![int(-42)]).unwrap(), "n=-42.");
        assert_eq!(
            fmt("%5d|%-5d|%05d", vec![int(42), int(42), int(-42)]).unwrap(),
            "   42|42   |-0042"
        );
        assert_eq!(fmt("%+d % d", vec![int(3), int(3)]).unwrap(), "+3  3");
        assert_eq!(fmt("%u", vec![int(-1)]).unwrap(), "4294967295");
        assert_eq!(fmt("%lu", vec![int(-1)]).unwrap(), "18446744073709551615");
        assert_eq!(
            fmt(
                "%x %X %#x %o %#o",
                vec![int(255), int(255), int(255), int(8), int(8)]
            )
            .unwrap(),
            "ff FF 0xff 10 010"
        );
        assert_eq!(
            fmt("%.3d|%.0d|%8.3d", vec![int(7), int(0), int(-7)]).unwrap(),
            "007||    -007"
        );
        assert_eq!(
            fmt("%hhd %hd", vec![int(300), int(70000)]).unwrap(),
            "44 4464"
        );
        assert_eq!(
            fmt("%*d|%-*d", vec![int(4), int(1), int(3), int(2)]).unwrap(),
            "   1|2  "
        );
        assert_eq!(
            fmt("%lld", vec![int(i64::MIN)]).unwrap(),
            "-9223372036854775808"
        );
    }

    #[test]
    fn strings_characters_pointers_and_percent() {
        let s = |t: &str| FmtArg::Str(t.as_bytes().to_vec());
        assert_eq!(fmt("[%s]", vec![s("abc")]).unwrap(), "[abc]");
        assert_eq!(
            fmt("[%.2s][%5s][%-5s]", vec![s("abc"), s("ab"), s("ab")]).unwrap(),
            "[ab][   ab][ab   ]"
        );
        assert_eq!(
            fmt("%c%c 100%%", vec![int(104), int(105)]).unwrap(),
            "hi 100%"
        );
        assert_eq!(
            fmt("%p %p", vec![FmtArg::Ptr(0x1234), FmtArg::Ptr(0)]).unwrap(),
            "0x1234 (nil)"
        );
    }

    #[test]
    fn unmodelled_conversions_are_errors() {
        assert!(fmt("%f", vec![int(1)]).is_err());
        assert!(fmt("%n", vec![int(1)]).is_err());
        assert!(fmt("%", vec![]).is_err());
        assert!(fmt("%d", vec![]).is_err());
    }
}
