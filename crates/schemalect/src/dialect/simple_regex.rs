//! A conservative reading of which `pattern`s a provider's regex engine runs the way ECMA-262
//! does, for providers that document their dialect only loosely (Claude) or not at all (OpenAI).
//!
//! A pattern is sent only when it uses a small syntax on which common engines agree, or on which
//! a disagreement can only widen: `\d` and `\w` are ASCII in ECMA-262 and ASCII-or-more
//! elsewhere, so they are kept, but `\s` (Unicode spaces in ECMA-262, ASCII in some engines) and
//! the negated shorthands (`\D` is *wider* in ECMA-262 than in a Unicode engine) would narrow
//! under some reading and are refused. Everything outside the syntax (lookaround, backreferences,
//! `\b`, `\p{…}`, lazy quantifiers, flags, large repetition counts) is refused too: dropping a
//! pattern widens, sending one the engine misreads may narrow or be rejected.

/// Largest repetition count accepted in `{n,m}` (Claude refuses "large" counts, undocumented).
const MAX_REPEAT: u64 = 100;

/// What the scan learnt about an accepted pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Starts with the `^` anchor.
    pub anchored_start: bool,
    /// Ends with an unescaped `$` anchor.
    pub anchored_end: bool,
    /// Has a `|` outside every group, so `^a|b$` anchors only one side of each alternative.
    pub top_level_alternation: bool,
}

impl Shape {
    /// True when searching the string and matching it whole accept the same strings.
    pub fn means_whole_match(self) -> bool {
        self.anchored_start && self.anchored_end && !self.top_level_alternation
    }
}

/// Escapes of syntax characters, which every engine reads as the literal character.
const ESCAPABLE: &str = "\\.*+?()[]{}|^$/-";

/// Scans a pattern; `Err` says why it is not sent.
pub(crate) fn scan(pattern: &str) -> Result<Shape, &'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut shape = Shape::default();
    let mut depth = 0usize;
    // True right after an atom, where a quantifier may follow.
    let mut quantifiable = false;
    let mut i = 0;
    while let Some(c) = at(i) {
        match c {
            '^' if i == 0 => {
                shape.anchored_start = true;
                quantifiable = false;
                i += 1;
            }
            '^' => return Err("not sent: `^` other than at the start of the pattern"),
            '$' if i + 1 == chars.len() => {
                shape.anchored_end = true;
                quantifiable = false;
                i += 1;
            }
            '$' => return Err("not sent: `$` other than at the end of the pattern"),
            '\\' => {
                match at(i + 1) {
                    Some('d' | 'w' | 'n' | 't' | 'r') => {}
                    Some(e) if ESCAPABLE.contains(e) => {}
                    _ => return Err("not sent: uses an escape other than `\\d`, `\\w`, `\\n`, `\\t`, `\\r` or an escaped syntax character (engines disagree on `\\s`, `\\b`, negated shorthands and Unicode escapes)"),
                }
                quantifiable = true;
                i += 2;
            }
            '(' => {
                if at(i + 1) == Some('?') {
                    if at(i + 2) != Some(':') {
                        return Err("not sent: uses lookaround, a named group or inline flags");
                    }
                    i += 3;
                } else {
                    i += 1;
                }
                depth += 1;
                quantifiable = false;
            }
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or("not sent: unbalanced parenthesis")?;
                quantifiable = true;
                i += 1;
            }
            '[' => {
                i = class_end(&chars, i)?;
                quantifiable = true;
            }
            '|' => {
                if depth == 0 {
                    shape.top_level_alternation = true;
                }
                quantifiable = false;
                i += 1;
            }
            '*' | '+' | '?' => {
                if !quantifiable {
                    return Err("not sent: uses lazy, possessive or stacked quantifiers");
                }
                quantifiable = false;
                i += 1;
            }
            '{' => {
                if !quantifiable {
                    return Err("not sent: `{` that does not follow an atom");
                }
                i = repetition_end(&chars, i)?;
                quantifiable = false;
            }
            ']' | '}' => {
                return Err("not sent: a bare `]` or `}` (a literal only under ECMA-262 Annex B)")
            }
            _ => {
                quantifiable = true;
                i += 1;
            }
        }
    }
    if depth != 0 {
        return Err("not sent: unbalanced parenthesis");
    }
    Ok(shape)
}

/// The index after the character class that starts at `start` (a `[`).
fn class_end(chars: &[char], start: usize) -> Result<usize, &'static str> {
    let at = |i: usize| chars.get(i).copied();
    let mut i = start + 1;
    let negated = at(i) == Some('^');
    if negated {
        i += 1;
    }
    if at(i) == Some(']') {
        return Err("not sent: `[]` or `[^]`, which ECMA-262 reads as an empty or full class and other engines as a literal `]`");
    }
    // The member just read, when a `-` after it would open a range: `Some(true)` when it is
    // `\d` or `\w`. And, after such a `-`, the same for the range's start.
    let mut member: Option<bool> = None;
    let mut range_from: Option<bool> = None;
    while let Some(c) = at(i) {
        let (next, class) = match c {
            ']' => return Ok(i + 1),
            '\\' => {
                match at(i + 1) {
                    Some('d' | 'w') if !negated => {}
                    Some('n' | 't' | 'r') => {}
                    Some(e) if ESCAPABLE.contains(e) => {}
                    _ => return Err("not sent: a character class uses an escape other than `\\d`, `\\w` (outside negated classes), `\\n`, `\\t`, `\\r` or an escaped syntax character"),
                }
                (i + 2, matches!(at(i + 1), Some('d' | 'w')))
            }
            '[' => return Err("not sent: `[` inside a character class (nested classes or POSIX classes in some engines)"),
            '&' | '-' | '~' if at(i + 1) == Some(c) => {
                return Err("not sent: `&&`, `--` or `~~` inside a character class (set operations in some engines)")
            }
            '-' if at(i + 1) != Some(']') && range_from.is_none() => match member.take() {
                Some(from) => {
                    range_from = Some(from);
                    i += 1;
                    continue;
                }
                None => (i + 1, false),
            },
            _ => (i + 1, false),
        };
        match range_from.take() {
            // A class at an end of a range is read only by ECMA-262's Annex B (as a literal
            // `-`); RE2, Python and Rust's `regex` reject it.
            Some(from) if from || class => {
                return Err("not sent: a class range with `\\d` or `\\w` at an end (`[\\w-.]`), which only ECMA-262's Annex B reads, as a literal `-`")
            }
            // After a range, a `-` is a member of its own.
            Some(_) => member = None,
            None => member = Some(class),
        }
        i = next;
    }
    Err("not sent: unterminated character class")
}

/// The index after the `{n}`, `{n,}` or `{n,m}` that starts at `start` (a `{`).
fn repetition_end(chars: &[char], start: usize) -> Result<usize, &'static str> {
    const NOT_BOUNDED: &str =
        "not sent: `{` that is not a repetition `{n}`, `{n,}` or `{n,m}` with counts up to 100";
    let mut i = start + 1;
    let mut counts = [None::<u64>, None];
    let mut slot = 0usize;
    let mut comma = false;
    loop {
        match chars.get(i).copied() {
            Some(d @ '0'..='9') => {
                let digit = u64::from(d.to_digit(10).ok_or(NOT_BOUNDED)?);
                let count = counts.get_mut(slot).ok_or(NOT_BOUNDED)?;
                let value = count
                    .unwrap_or(0)
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(digit))
                    .filter(|v| *v <= MAX_REPEAT)
                    .ok_or(NOT_BOUNDED)?;
                *count = Some(value);
            }
            Some(',') if !comma => {
                comma = true;
                slot = 1;
            }
            Some('}') => break,
            _ => return Err(NOT_BOUNDED),
        }
        i += 1;
    }
    match counts {
        [Some(n), Some(m)] if n > m => Err(NOT_BOUNDED),
        [Some(_), _] => Ok(i + 1),
        [None, _] => Err(NOT_BOUNDED),
    }
}

/// Checks that every string a pattern (already accepted by [`scan`]) can match is written in
/// JSON without an escape: xgrammar turns the pattern into a grammar for the raw characters
/// between the string's quotes (`"\"" regex "\""`, `cpp/json_schema_converter.cc`
/// `GenerateString`), so a value that needs `\"`, `\\` or `\n` in JSON cannot be written
/// under a pattern that admits it. Conservatively: printable ASCII only, no `"` or `\\`, no
/// `.` or negated class (both admit `"` and `\`), escapes only `\d`, `\w` and escaped
/// syntax characters, and a class range only within digits, upper- or lower-case letters.
pub(crate) fn raw_characters_only(pattern: &str) -> Result<(), &'static str> {
    const WHY: &str = "not sent: xgrammar matches the pattern against the raw characters between the string's quotes, and this pattern can match a character JSON writes escaped (`\"`, `\\`, a control character), or uses `.` or a negated class, which do";
    let chars: Vec<char> = pattern.chars().collect();
    let same_kind = |a: char, b: char| {
        (a.is_ascii_digit() && b.is_ascii_digit())
            || (a.is_ascii_lowercase() && b.is_ascii_lowercase())
            || (a.is_ascii_uppercase() && b.is_ascii_uppercase())
    };
    let mut in_class = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if !(' '..='~').contains(&c) || c == '"' {
            return Err(WHY);
        }
        match c {
            '\\' => match chars.get(i + 1) {
                Some('d' | 'w') => i += 2,
                Some(&e) if e != '\\' && ESCAPABLE.contains(e) => i += 2,
                _ => return Err(WHY),
            },
            '.' if !in_class => return Err(WHY),
            '[' if !in_class => {
                if chars.get(i + 1) == Some(&'^') {
                    return Err(WHY);
                }
                in_class = true;
                i += 1;
            }
            ']' if in_class => {
                in_class = false;
                i += 1;
            }
            '-' if in_class => {
                let before = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
                let after = chars.get(i + 1).copied();
                match (before, after) {
                    // A literal `-` first or last in the class.
                    (Some('['), _) | (_, Some(']')) => {}
                    (Some(a), Some(b)) if same_kind(a, b) && a <= b => {
                        let escaped = i >= 2 && chars.get(i - 2) == Some(&'\\');
                        if escaped {
                            return Err(WHY);
                        }
                    }
                    _ => return Err(WHY),
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_patterns_are_accepted_with_their_anchoring() {
        let whole = Shape {
            anchored_start: true,
            anchored_end: true,
            top_level_alternation: false,
        };
        assert_eq!(scan("^[A-Z]{2}-\\d{3,5}$"), Ok(whole));
        assert_eq!(scan("^(?:ab|cd)+\\.x?$"), Ok(whole));
        assert_eq!(scan("^[^a-z\\-]*$"), Ok(whole));
        assert_eq!(scan("^\\w+@\\w+\\.[a-z]{2,}$"), Ok(whole));
        assert_eq!(scan("^\\$\\d+$"), Ok(whole));
        assert!(scan("^a|b$").is_ok_and(|s| s.top_level_alternation && !s.means_whole_match()));
        assert!(scan("abc").is_ok_and(|s| !s.anchored_start && !s.anchored_end));
        // An escaped `$` at the end is a literal, not an anchor.
        assert!(scan("^a\\$").is_ok_and(|s| !s.anchored_end));
        assert!(scan("^a\\\\$").is_ok_and(|s| s.anchored_end));
        assert!(scan("").is_ok_and(|s| !s.means_whole_match()));
    }

    #[test]
    fn features_engines_read_differently_are_refused() {
        for p in [
            "^\\s+$",
            "^\\S$",
            "^\\D$",
            "^[^\\d]$",
            "\\bword\\b",
            "(a)\\1",
            "^(?=a)a$",
            "^(?<n>a)$",
            "^(?i)a$",
            "^a*?$",
            "^a{1,1000}$",
            "^a{,3}$",
            "^a{3,2}$",
            "^\\p{L}+$",
            "^\\u00e9$",
            "^[]a]$",
            "^[a[:alpha:]]$",
            "^[a&&b]$",
            "a^b",
            "a$b",
            "^a]$",
            "^{2}$",
            "^[abc$",
            "^[\\w-_.]+$",
            "^[a-\\d]$",
            "^[\\d-\\w]$",
            "^[\\d-x]$",
            "^[\\--\\w]$",
        ] {
            assert!(scan(p).is_err(), "{p}");
        }
    }

    #[test]
    fn a_dash_beside_a_class_escape_only_at_the_edges_is_accepted() {
        for p in [
            "^[\\w-]+$",
            "^[-\\w]+$",
            "^[\\w\\-.]+$",
            "^[a\\-\\d]+$",
            "^[.\\d-]$",
            "^[^-a]$",
            "^[a-c-\\d]$",
            "^[a-z-]+$",
        ] {
            assert!(scan(p).is_ok(), "{p}");
        }
    }
}
