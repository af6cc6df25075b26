//! Normalising instruction text, for comparing code across versions.

/// The text with the numbers of string constants left out (`@.str.3` ->
/// `@.str`): adding a string literal anywhere renumbers all later ones.
pub fn without_string_numbers(text: &str) -> String {
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
