//! [`Ast`] back to ECMA-262 text, for providers.
//!
//! Two styles. *Canonical* keeps every construct and only normalises spelling (one way to
//! escape each character, named property values, no Annex B oddities), so the text is valid
//! ECMA-262 in Unicode mode and means exactly what the source meant. *Portable* additionally
//! spells out the constructs whose meaning differs between engines, for providers that run
//! patterns on PCRE, RE2, Python `re`, Rust `regex` or grammar converters:
//!
//! * `\d \w \s` and their negations become explicit classes (`[0-9]`, ...), inside classes too;
//!   most engines read them as Unicode classes, and grammar converters often reject them.
//! * `.` becomes `[^\n\r\u2028\u2029]` (written with raw characters): most engines let `.`
//!   match `\r` and the Unicode line separators.
//! * `[]` and `[^]` (JavaScript-only) become equivalent ranges.
//! * Named groups become plain groups and lazy quantifiers greedy: neither changes whether a
//!   pattern matches, and not every engine knows the syntax.
//! * Characters are written raw except ASCII controls (`\t \n \r \f \xHH`), avoiding `\u`,
//!   which PCRE and RE2 do not read.
//!
//! Both renderings re-parse to the same match results as the source; the tests check that on
//! generated patterns and on the corpus.

use std::fmt::Write as _;

use super::ast::{
    in_ranges, Assertion, Ast, Class, ClassEscape, ClassItem, GroupKind, Node, Property,
    PropertyKind, Repeat, LINE_TERMINATORS,
};
use super::{translate, unicode};

/// Which rendering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Canonical,
    Portable,
}

/// Renders `ast` in `style`.
pub(crate) fn render(ast: &Ast, style: Style) -> String {
    let mut out = String::new();
    Renderer { style }.node(&mut out, &ast.root);
    out
}

struct Renderer {
    style: Style,
}

/// The last code point, written raw so the portable text needs no `\u{..}`.
const MAX_CHAR: char = char::MAX;

impl Renderer {
    fn portable(&self) -> bool {
        self.style == Style::Portable
    }

    fn node(&self, out: &mut String, n: &Node) {
        match n {
            Node::Empty => {}
            Node::Literal(c) => self.literal(out, *c, false),
            Node::Dot if self.portable() => {
                self.set(out, true, LINE_TERMINATORS, &[]);
            }
            Node::Dot => out.push('.'),
            Node::ClassEscape(e) if self.portable() => {
                self.set(out, e.negated, e.kind.ranges(), &[]);
            }
            Node::ClassEscape(e) => escape_text(out, *e),
            Node::Property(p) => property_text(out, p),
            Node::Class(c) => self.class(out, c),
            Node::Assertion(a) => out.push_str(match a {
                Assertion::Start => "^",
                Assertion::End => "$",
                Assertion::WordBoundary => "\\b",
                Assertion::NotWordBoundary => "\\B",
            }),
            Node::Group(g) => {
                match (&g.kind, self.style) {
                    (GroupKind::Capturing { .. }, _)
                    | (GroupKind::Named { .. }, Style::Portable) => out.push('('),
                    (GroupKind::Named { name, .. }, Style::Canonical) => {
                        let _ = write!(out, "(?<{name}>");
                    }
                    (GroupKind::NonCapturing, _) => out.push_str("(?:"),
                }
                self.node(out, &g.node);
                out.push(')');
            }
            Node::Repeat(r) => self.repeat(out, r),
            Node::Concat(items) => {
                for item in items {
                    if matches!(item, Node::Alternation(_)) {
                        out.push_str("(?:");
                        self.node(out, item);
                        out.push(')');
                    } else {
                        self.node(out, item);
                    }
                }
            }
            Node::Alternation(alternatives) => {
                for (i, alternative) in alternatives.iter().enumerate() {
                    if i > 0 {
                        out.push('|');
                    }
                    self.node(out, alternative);
                }
            }
        }
    }

    fn repeat(&self, out: &mut String, r: &Repeat) {
        match &r.node {
            Node::Literal(_)
            | Node::Dot
            | Node::ClassEscape(_)
            | Node::Property(_)
            | Node::Class(_)
            | Node::Group(_) => self.node(out, &r.node),
            other => {
                out.push_str("(?:");
                self.node(out, other);
                out.push(')');
            }
        }
        let _ = match (r.min, r.max) {
            (0, None) => write!(out, "*"),
            (1, None) => write!(out, "+"),
            (0, Some(1)) => write!(out, "?"),
            (min, None) => write!(out, "{{{min},}}"),
            (min, Some(max)) if min == max => write!(out, "{{{min}}}"),
            (min, Some(max)) => write!(out, "{{{min},{max}}}"),
        };
        if !r.greedy && !self.portable() {
            out.push('?');
        }
    }

    fn literal(&self, out: &mut String, c: char, in_class: bool) {
        let special = if in_class {
            matches!(c, '\\' | ']' | '[' | '^' | '-')
        } else {
            matches!(
                c,
                '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            )
        };
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02X}", u32::from(c));
            }
            c if special => {
                out.push('\\');
                out.push(c);
            }
            c if !self.portable() && invisible(c) && u32::from(c) <= 0xffff => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }

    fn class(&self, out: &mut String, c: &Class) {
        if self.portable() {
            if let Some(set) = portable_class(c) {
                self.set(out, set.negated, &set.ranges, &set.properties);
                return;
            }
        }
        out.push_str(if c.negated { "[^" } else { "[" });
        let mut items = c.items.iter().peekable();
        while let Some(item) = items.next() {
            match item {
                ClassItem::Range(lo, hi) => {
                    // The parser splits a range around the surrogates; join it again so the
                    // rendering parses back to the same tree.
                    let mut hi = *hi;
                    while let Some(ClassItem::Range('\u{e000}', next)) =
                        items.peek().filter(|_| hi == '\u{d7ff}')
                    {
                        hi = *next;
                        items.next();
                    }
                    self.range(out, *lo, hi);
                }
                ClassItem::Escape(e) => escape_text(out, *e),
                ClassItem::Property(p) => property_text(out, p),
            }
        }
        out.push(']');
    }

    fn range(&self, out: &mut String, lo: char, hi: char) {
        self.literal(out, lo, true);
        if hi != lo {
            if succ(lo) != Some(hi) {
                out.push('-');
            }
            self.literal(out, hi, true);
        }
    }

    /// A class from explicit ranges and properties, never `[]` or `[^]`.
    fn set(&self, out: &mut String, negated: bool, ranges: &[(char, char)], props: &[Property]) {
        if ranges.is_empty() && props.is_empty() {
            // Nothing listed: `[]` matches nothing, `[^]` everything.
            out.push_str(if negated { "[" } else { "[^" });
            self.range(out, '\0', MAX_CHAR);
            out.push(']');
            return;
        }
        out.push_str(if negated { "[^" } else { "[" });
        for &(lo, hi) in ranges {
            self.range(out, lo, hi);
        }
        for p in props {
            property_text(out, p);
        }
        out.push(']');
    }
}

/// Characters a reader could not see or that editors mangle, written as `\uHHHH` in the
/// canonical rendering.
fn invisible(c: char) -> bool {
    c.is_control()
        || c.is_whitespace()
        || matches!(
            c,
            '\u{ad}'
                | '\u{61c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

fn escape_text(out: &mut String, e: ClassEscape) {
    out.push('\\');
    let letter = e.kind.letter();
    out.push(if e.negated {
        letter.to_ascii_uppercase()
    } else {
        letter
    });
}

fn property_text(out: &mut String, p: &Property) {
    let letter = if p.negated { 'P' } else { 'p' };
    let _ = match p.kind {
        PropertyKind::GeneralCategory => {
            let short = unicode::general_category_short(p.value).unwrap_or(p.value);
            write!(out, "\\{letter}{{{short}}}")
        }
        PropertyKind::Binary => write!(out, "\\{letter}{{{}}}", p.value),
        PropertyKind::Script => write!(out, "\\{letter}{{Script={}}}", p.value),
        PropertyKind::ScriptExtensions => {
            write!(out, "\\{letter}{{Script_Extensions={}}}", p.value)
        }
    };
}

fn succ(c: char) -> Option<char> {
    match u32::from(c) {
        0xd7ff => Some('\u{e000}'),
        n => char::from_u32(n + 1),
    }
}

/// Sorts and merges ranges that overlap or touch.
pub(crate) fn normalize(mut ranges: Vec<(char, char)>) -> Vec<(char, char)> {
    ranges.sort_unstable();
    let mut out: Vec<(char, char)> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        if let Some(last) = out.last_mut() {
            if succ(last.1).is_none_or(|next| lo <= next) {
                last.1 = last.1.max(hi);
                continue;
            }
        }
        out.push((lo, hi));
    }
    out
}

/// Every code point of `ranges`, for the small sets of `\d \w \s`.
fn chars(ranges: &[(char, char)]) -> impl Iterator<Item = char> + '_ {
    ranges.iter().flat_map(|&(lo, hi)| lo..=hi)
}

/// A class without `\d`-style items.
struct PlainClass {
    negated: bool,
    ranges: Vec<(char, char)>,
    properties: Vec<Property>,
}

/// Rewrites a class without `\d`-style items, or `None` when a property's code points could not
/// be checked (the class is then rendered as it is).
///
/// A negated escape (`\D`) matches all but a small set, so a class containing one matches all
/// but the part of that set (intersected over all negated escapes) the other items leave out;
/// that finite remainder is computed here by testing each of its characters.
fn portable_class(c: &Class) -> Option<PlainClass> {
    let mut explicit = Vec::new();
    let mut properties = Vec::new();
    let mut excluded: Option<Vec<(char, char)>> = None;
    for item in &c.items {
        match item {
            ClassItem::Range(lo, hi) => explicit.push((*lo, *hi)),
            ClassItem::Escape(e) if !e.negated => explicit.extend_from_slice(e.kind.ranges()),
            ClassItem::Escape(e) => {
                let base = e.kind.ranges();
                excluded = Some(match excluded {
                    None => base.to_vec(),
                    Some(prev) => normalize(
                        chars(&prev)
                            .filter(|&ch| in_ranges(base, ch))
                            .map(|ch| (ch, ch))
                            .collect(),
                    ),
                });
            }
            ClassItem::Property(p) => properties.push(*p),
        }
    }
    let explicit = normalize(explicit);
    let Some(excluded) = excluded else {
        return Some(PlainClass {
            negated: c.negated,
            ranges: explicit,
            properties,
        });
    };
    let matchers = properties
        .iter()
        .map(|p| regex::Regex::new(&translate::property_regex(p)).ok())
        .collect::<Option<Vec<_>>>()?;
    let mut buf = [0u8; 4];
    let left: Vec<(char, char)> = chars(&excluded)
        .filter(|&ch| {
            let text: &str = ch.encode_utf8(&mut buf);
            !in_ranges(&explicit, ch) && !matchers.iter().any(|m| m.is_match(text))
        })
        .map(|ch| (ch, ch))
        .collect();
    // The class matches everything but `left`; negating it leaves exactly `left`.
    Some(PlainClass {
        negated: !c.negated,
        ranges: normalize(left),
        properties: Vec::new(),
    })
}
