//! The one JSON string escaper of the crate's text outputs (table exports, Lambda filter
//! patterns): what `serde_json` writes, plus U+2028 and U+2029 escaped, so the text is also safe
//! inside JavaScript and HCL heredocs.

use std::fmt::Write as _;

/// `v` as a JSON string literal, quotes included.
pub(crate) fn json_str(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::json_str;

    #[test]
    fn escapes_what_json_and_javascript_need() {
        assert_eq!(json_str("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(json_str("a\nb\r\t\u{1}\u{1f}"), r#""a\nb\r\t\u0001\u001f""#);
        assert_eq!(json_str("\u{2028}\u{2029}"), r#""\u2028\u2029""#);
        assert_eq!(json_str("é#%"), "\"é#%\"");
        // What serde_json reads back is the text itself.
        for text in ["x\u{2028}y", "tab\there", "quote\"", "\u{0}"] {
            let back: String = serde_json_like(&json_str(text));
            assert_eq!(back, text);
        }
    }

    /// A minimal reader of the escapes above (the crate has no JSON parser dependency).
    fn serde_json_like(s: &str) -> String {
        let inner = &s[1..s.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
                }
                Some(other) => out.push(other),
                None => {}
            }
        }
        out
    }
}
