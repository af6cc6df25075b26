//! `strtol` and its family on concrete text: C's rules for leading space,
//! sign, base prefixes, digits and overflow (C17 7.22.1.4).

/// The result of parsing a C integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ParsedInt {
    /// The value as a 64-bit two's-complement number, clamped as `strtol`
    /// (signed) or `strtoul` (unsigned) clamp on overflow.
    pub(crate) value: u64,
    /// Bytes of the subject sequence (what `*endptr` skips); 0 when no
    /// digits were found (then `*endptr` is the string itself).
    pub(crate) consumed: usize,
}

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn digit_value(b: u8) -> Option<u32> {
    (b as char).to_digit(36)
}

/// Parse `text` (without its NUL) in `base` (0 or 2..=36) as `strtol`
/// (`unsigned == false`, 64-bit `long`) or `strtoul` (`unsigned == true`)
/// do.  An invalid base parses nothing (`EINVAL`; errno is not modelled).
pub(crate) fn parse_c_integer(text: &[u8], base: u32, unsigned: bool) -> ParsedInt {
    let nothing = ParsedInt {
        value: 0,
        consumed: 0,
    };
    if base == 1 || base > 36 {
        return nothing;
    }
    let mut k = 0;
    while k < text.len() && is_c_space(text[k]) {
        k += 1;
    }
    let mut negative = false;
    if k < text.len() && (text[k] == b'+' || text[k] == b'-') {
        negative = text[k] == b'-';
        k += 1;
    }
    let mut base = base;
    let hex_prefix = k + 2 < text.len() + 1
        && text.get(k) == Some(&b'0')
        && matches!(text.get(k + 1), Some(b'x') | Some(b'X'))
        && text
            .get(k + 2)
            .and_then(|b| digit_value(*b))
            .is_some_and(|d| d < 16);
    if (base == 0 || base == 16) && hex_prefix {
        base = 16;
        k += 2;
    } else if base == 0 {
        base = if text.get(k) == Some(&b'0') { 8 } else { 10 };
    }
    let start = k;
    let mut magnitude: u128 = 0;
    let mut overflow = false;
    while let Some(d) = text.get(k).and_then(|b| digit_value(*b)) {
        if d >= base {
            break;
        }
        magnitude = magnitude * base as u128 + d as u128;
        if magnitude > u64::MAX as u128 {
            overflow = true;
            magnitude = u64::MAX as u128 + 1;
        }
        k += 1;
    }
    if k == start {
        return nothing;
    }
    let value = if unsigned {
        if overflow {
            u64::MAX
        } else if negative {
            (magnitude as u64).wrapping_neg()
        } else {
            magnitude as u64
        }
    } else if negative {
        if overflow || magnitude > 1u128 << 63 {
            i64::MIN as u64
        } else {
            (magnitude as u64).wrapping_neg()
        }
    } else if overflow || magnitude > i64::MAX as u128 {
        i64::MAX as u64
    } else {
        magnitude as u64
    };
    ParsedInt { value, consumed: k }
}

#[cfg(test)]
mod tests {
    use super::parse_c_integer;

    fn signed(s: &str, base: u32) -> (i64, usize) {
        let p = parse_c_integer(s.as_bytes(), base, false);
        (p.value as i64, p.consumed)
    }

    #[test]
    fn decimal_with_space_sign_and_trailing_text() {
        assert_eq!(signed("  -42abc", 10), (-42, 5));
        assert_eq!(signed("+7", 10), (7, 2));
        assert_eq!(signed("\t\n 12 ", 0), (12, 5));
    }

    #[test]
    fn no_digits_consume_nothing() {
        assert_eq!(signed("abc", 10), (0, 0));
        assert_eq!(signed("  -", 10), (0, 0));
        assert_eq!(signed("", 0), (0, 0));
        assert_eq!(signed("12", 1), (0, 0), "invalid base");
    }

    #[test]
    fn base_prefixes() {
        assert_eq!(signed("0x1f", 0), (31, 4));
        assert_eq!(signed("0X1F", 16), (31, 4));
        assert_eq!(signed("1f", 16), (31, 2));
        assert_eq!(signed("017", 0), (15, 3));
        assert_eq!(signed("019", 0), (1, 2), "9 is not octal");
        // "0x" without a hex digit: the 0 alone is the number.
        assert_eq!(signed("0xg", 0), (0, 1));
        assert_eq!(signed("z", 36), (35, 1));
    }

    #[test]
    fn overflow_clamps() {
        assert_eq!(signed("9223372036854775807", 10).0, i64::MAX);
        assert_eq!(signed("9223372036854775808", 10).0, i64::MAX);
        assert_eq!(signed("-9223372036854775808", 10).0, i64::MIN);
        assert_eq!(signed("-9223372036854775809", 10).0, i64::MIN);
        assert_eq!(signed("99999999999999999999999", 10), (i64::MAX, 23));
        let u = parse_c_integer(b"18446744073709551616", 10, true);
        assert_eq!(u.value, u64::MAX);
        let u = parse_c_integer(b"-1", 10, true);
        assert_eq!(u.value, u64::MAX, "strtoul negates in unsigned");
    }
}
