//! Normalising instruction text, for comparing code across versions.

/// The text with the numbers and lengths of string constants left out
/// (`[6 x i8]* @.str.3` -> `[_ x i8]* @.str`): adding a string literal
/// anywhere renumbers all later ones, and the same `__FILE__` spelt
/// `./a.c` or `a.c` differs only in length. (The contents of string
/// literals are not part of an instruction's text either way.)
pub fn without_string_numbers(text: &str) -> String {
    without_string_lengths(&without_string_suffixes(text))
}

fn without_string_suffixes(text: &str) -> String {
    const NAME: &str = "@.str.";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find(NAME) {
        out.push_str(&rest[..pos]);
        out.push_str("@.str");
        let after = &rest[pos + NAME.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        rest = if digits > 0 {
            &after[digits..]
        } else {
            // `@.str.` followed by something else: keep the dot.
            out.push('.');
            after
        };
    }
    out.push_str(rest);
    out
}

/// `[N x i8]* @.str` -> `[_ x i8]* @.str`.
fn without_string_lengths(text: &str) -> String {
    const TAIL: &str = " x i8]* @.str";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find(TAIL) {
        let head = &rest[..pos];
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let open = pos - digits;
        if digits > 0 && open > 0 && head.as_bytes()[open - 1] == b'[' {
            out.push_str(&head[..open]);
            out.push('_');
        } else {
            out.push_str(head);
        }
        out.push_str(TAIL);
        rest = &rest[pos + TAIL.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::without_string_numbers as norm;

    #[test]
    fn string_constants_compare_without_their_number_and_length() {
        let a = "call @f(getelementptr inbounds ([6 x i8]* @.str.1, i64 0, i64 0))";
        let b = "call @f(getelementptr inbounds ([4 x i8]* @.str.7, i64 0, i64 0))";
        assert_eq!(norm(a), norm(b));
        assert_eq!(
            norm(a),
            "call @f(getelementptr inbounds ([_ x i8]* @.str, i64 0, i64 0))"
        );
        // other arrays and other globals keep their lengths and names
        let c = "load i8, [6 x i8]* @buf";
        assert_eq!(norm(c), c);
        assert_ne!(norm("[6 x i8]* @.str"), norm("[6 x i16]* @.str"));
    }
}
