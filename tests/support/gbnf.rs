//! A check of Ollama `format` schemas against what llama.cpp's `json-schema-to-grammar`
//! converter and GBNF parser are documented (and observed, issue 18) to do, written from those
//! facts, not from their code:
//!
//! - a `pattern` must start with `^` and end with `$`; the converter strips that outer pair
//!   only, so any other unescaped `^`/`$` outside a class is read as something else (a
//!   narrowing), and `(?` is unsupported syntax (providers.md L4, I-L1);
//! - the converter copies a class's contents verbatim into a GBNF class, and a literal's
//!   backslash escapes other than `\[ \] \( \) \| \{ \} \* \+ \?` (which it unescapes) verbatim
//!   into a GBNF string; the GBNF parser accepts after a backslash only
//!   `x` (2 hex digits), `u` (4), `U` (8), `t r n \ " [ ]`, anything else is "unknown escape";
//!   in a class, `^` first negates and `-` between two characters is a range;
//! - a repetition bound from 2,000 up (`{m,n}` in a pattern, `minLength`/`maxLength`,
//!   `minItems`/`maxItems`) passes llama.cpp's `MAX_REPETITION_THRESHOLD` (providers-2026-12.md
//!   §3.4: llama.cpp issues #27087, #27859, PR #28469);
//! - an open object with many declared names makes the converter's "any other key" rule pass
//!   llama.cpp's nesting limits (78 names did, issue 18): more than [`MAX_OPEN_NAMES`] is
//!   flagged;
//! - any object key `$ref` is read as a reference, also in data (a property named `$ref`, an
//!   `enum`/`const`/`default`/`examples` value with such a key), and the converter fails.

use crate::oracle::nodes_of;
use serde_json::Value;

/// llama.cpp's `MAX_REPETITION_THRESHOLD` (bounds from here up fail).
pub const REPETITION_THRESHOLD: u64 = 2_000;

/// Most declared names an open object may have before its "any other key" rule is flagged (a
/// margin below the 78 of issue 18).
pub const MAX_OPEN_NAMES: usize = 48;

/// Why GBNF would refuse `body`'s escapes, read as the contents of a GBNF class (`class`) or
/// of a GBNF string.
fn gbnf_escape_problem(body: &str) -> Option<String> {
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            continue;
        }
        let digits = match chars.next() {
            Some('x') => 2,
            Some('u') => 4,
            Some('U') => 8,
            Some('t' | 'r' | 'n' | '\\' | '"' | '[' | ']') => 0,
            Some(e) => return Some(format!("unknown escape at \\{e}")),
            None => return Some("a backslash ends the text".into()),
        };
        for _ in 0..digits {
            if !chars.next().is_some_and(|h| h.is_ascii_hexdigit()) {
                return Some("a hex escape needs its digits".into());
            }
        }
    }
    None
}

/// What llama.cpp would refuse (or read differently) in one anchored pattern.
pub fn pattern_problem(p: &str) -> Option<String> {
    let Some(inner) = p.strip_prefix('^').and_then(|s| s.strip_suffix('$')) else {
        return Some(format!("pattern {p:?} must start with ^ and end with $"));
    };
    // A `$` that ends the pattern but is escaped (`\$`) is not an anchor.
    if inner.ends_with('\\') && !inner.ends_with("\\\\") {
        return Some(format!("pattern {p:?} does not end with an anchor"));
    }
    let chars: Vec<char> = inner.chars().collect();
    let mut i = 0;
    let mut literal = String::new();
    while let Some(&c) = chars.get(i) {
        match c {
            '[' => {
                let mut class = String::new();
                i += 1;
                while let Some(&d) = chars.get(i) {
                    if d == ']' {
                        break;
                    }
                    class.push(d);
                    if d == '\\' {
                        if let Some(&e) = chars.get(i + 1) {
                            class.push(e);
                            i += 1;
                        }
                    }
                    i += 1;
                }
                if chars.get(i) != Some(&']') {
                    return Some(format!("pattern {p:?}: unterminated class"));
                }
                if let Some(e) = gbnf_escape_problem(&class) {
                    return Some(format!("pattern {p:?}: class [{class}]: {e}"));
                }
            }
            '\\' => {
                let e = chars.get(i + 1).copied().unwrap_or('\\');
                if !"[]()|{}*+?".contains(e) {
                    literal.push('\\');
                    literal.push(e);
                }
                i += 1;
            }
            '(' if chars.get(i + 1) == Some(&'?') => {
                return Some(format!("pattern {p:?}: unsupported syntax `(?`"));
            }
            '^' | '$' => {
                return Some(format!(
                    "pattern {p:?}: an anchor inside the pattern (the converter strips only the outer pair)"
                ));
            }
            '{' => {
                let close = chars[i..].iter().position(|&d| d == '}');
                let Some(close) = close else {
                    return Some(format!("pattern {p:?}: unterminated repetition"));
                };
                let body: String = chars[i + 1..i + close].iter().collect();
                for n in body.split(',') {
                    if n.trim()
                        .parse::<u64>()
                        .is_ok_and(|n| n >= REPETITION_THRESHOLD)
                    {
                        return Some(format!(
                            "pattern {p:?}: repetition {{{body}}} passes llama.cpp's threshold of 2,000"
                        ));
                    }
                }
                i += close;
            }
            _ => {}
        }
        i += 1;
    }
    gbnf_escape_problem(&literal).map(|e| format!("pattern {p:?}: literal: {e}"))
}

fn has_ref_key(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref_key),
        Value::Array(a) => a.iter().any(has_ref_key),
        _ => false,
    }
}

/// Every problem llama.cpp's converter and GBNF parser would have with an Ollama `format`
/// (a schema object), with the JSON Pointer of the node.
pub fn problems(format: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (path, n) in nodes_of(format) {
        let n = n.node;
        if let Some(Value::String(p)) = n.get("pattern") {
            if let Some(e) = pattern_problem(p) {
                out.push(format!("{path}: {e}"));
            }
        }
        for k in ["minLength", "maxLength", "minItems", "maxItems"] {
            if n.get(k)
                .and_then(Value::as_u64)
                .is_some_and(|b| b >= REPETITION_THRESHOLD)
            {
                out.push(format!(
                    "{path}: {k} {} passes llama.cpp's repetition threshold of 2,000",
                    n[k]
                ));
            }
        }
        if let Some(Value::Object(props)) = n.get("properties") {
            if props.contains_key("$ref") {
                out.push(format!(
                    "{path}: a property named $ref is read as a reference"
                ));
            }
            let open = n
                .get("additionalProperties")
                .is_some_and(|a| a != &Value::Bool(false));
            if open && props.len() > MAX_OPEN_NAMES {
                out.push(format!(
                    "{path}: an open object with {} declared names: the converter's rule for other keys passes llama.cpp's limits",
                    props.len()
                ));
            }
        }
        for k in ["enum", "const", "default", "examples"] {
            if n.get(k).is_some_and(has_ref_key) {
                out.push(format!(
                    "{path}: {k} holds an object key $ref, read as a reference"
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_documented_failures_are_found() {
        for bad in [
            "^[\\-0-9A-Z_a-z]+$",
            "^[\\^a]$",
            "^a\\.b$",
            "^a$|^b$",
            "^(?:a)$",
            "^a{1,5000}$",
            "a$",
            "^[\\s]$",
            "^\\$$",
        ] {
            assert!(pattern_problem(bad).is_some(), "{bad}");
        }
        for good in [
            "^[0-9A-Z_a-z\\x2D]+$",
            "^(a|b)$",
            "^[.][\\x5E]\\(\\t$",
            "^[^\\\\\\]]{0,1999}$",
            "^\\\\[$]$",
        ] {
            assert_eq!(pattern_problem(good), None, "{good}");
        }
        let f = json!({"type": "object", "properties": {"$ref": {"type": "string", "maxLength": 2000}}, "additionalProperties": true, "default": {"x": {"$ref": 1}}});
        assert_eq!(problems(&f).len(), 3, "{:?}", problems(&f));
    }
}
