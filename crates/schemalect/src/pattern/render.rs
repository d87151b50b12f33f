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
//! *Grammar* is the portable rendering made for llama.cpp's `json-schema-to-grammar` converter
//! (Ollama), which strips the outer `^`/`$`, copies class contents verbatim into a GBNF class and
//! literals into GBNF strings. llama.cpp's GBNF parser accepts after a backslash only
//! `x u U t r n \ " [ ]`, reads `^` first in a class as negation and `-` between two characters
//! as a range (providers.md L4, L5, I-L1; issue 18). So the grammar rendering:
//!
//! * writes every escape inside a class from that set: `\ \] \[`, `\t \n \r`, and `\xHH` for
//!   `^`, `-` and the other controls (also valid ECMA-262, so the wire stays a valid pattern);
//! * writes the characters outside a class that would need another escape (`. ^ $ \ "` and
//!   controls other than `\t \n \r`) as one-character classes, and the other syntax characters
//!   as `\X`, which the converter turns into a plain literal;
//! * writes every group as a plain `(...)` (the converter warns on `(?`);
//! * moves the anchors of a pattern whose every alternative is anchored (`^a$|^b$`) into one
//!   anchored group `^(a|b)$`, since the converter strips only the outer pair; a pattern with any
//!   other anchor, a word boundary or a Unicode property has no grammar rendering.
//!
//! Every rendering re-parses to the same match results as the source; the tests check that on
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
    /// Portable, and valid GBNF once llama.cpp's converter has copied it (module docs). Only
    /// through [`grammar`], which handles the anchors.
    Grammar,
}

/// Renders `ast` in `style`.
pub(crate) fn render(ast: &Ast, style: Style) -> String {
    let mut out = String::new();
    Renderer { style, skip: &[] }.node(&mut out, &ast.root);
    out
}

/// The pattern for llama.cpp's grammar converter (module docs): `^…$` around the pattern with
/// its edge anchors taken off, or `None` when the pattern has an anchor elsewhere, a path
/// without its edge anchor, a word boundary or a Unicode property.
pub(crate) fn grammar(ast: &Ast) -> Option<String> {
    // The edge anchors are found in place and skipped when rendering, rather than taken off a
    // copy of the tree: a copy cost more than the rendering itself on every lowering.
    let mut edges = Vec::new();
    if !edge_anchors(&ast.root, Assertion::Start, &mut edges)
        || !edge_anchors(&ast.root, Assertion::End, &mut edges)
    {
        return None;
    }
    let mut blocked = false;
    ast.root.walk(&mut |n| match n {
        Node::Assertion(_) if is_one_of(&edges, n) => {}
        Node::Assertion(_) | Node::Property(_) => blocked = true,
        Node::Class(c) => {
            blocked |= c.items.iter().any(|i| matches!(i, ClassItem::Property(_)));
        }
        _ => {}
    });
    if blocked {
        return None;
    }
    let mut out = String::from("^");
    let r = Renderer {
        style: Style::Grammar,
        skip: &edges,
    };
    if matches!(ast.root, Node::Alternation(_)) {
        out.push('(');
        r.node(&mut out, &ast.root);
        out.push(')');
    } else {
        r.node(&mut out, &ast.root);
    }
    out.push('$');
    Some(out)
}

/// Collects into `edges` the `anchor` nodes that begin (`^`) or end (`$`) every way through `n`,
/// and says whether every way has one. Looks through groups, alternatives and the outer item of
/// a sequence, not through repetitions (an anchor under `+` is not the same as one before it).
fn edge_anchors<'a>(n: &'a Node, anchor: Assertion, edges: &mut Vec<&'a Node>) -> bool {
    match n {
        Node::Assertion(a) if *a == anchor => {
            edges.push(n);
            true
        }
        Node::Concat(items) => {
            let outer = match anchor {
                Assertion::End => items.last(),
                _ => items.first(),
            };
            outer.is_some_and(|outer| edge_anchors(outer, anchor, edges))
        }
        Node::Group(g) => edge_anchors(&g.node, anchor, edges),
        Node::Alternation(alternatives) => {
            alternatives.iter().all(|a| edge_anchors(a, anchor, edges))
        }
        _ => false,
    }
}

/// True when `n` is one of `nodes` (the same node in the tree, not an equal one).
fn is_one_of(nodes: &[&Node], n: &Node) -> bool {
    nodes.iter().any(|e| std::ptr::eq(*e, n))
}

struct Renderer<'a> {
    style: Style,
    /// Nodes written as nothing: the edge anchors [`grammar`] moves outside.
    skip: &'a [&'a Node],
}

/// The last code point, written raw so the portable text needs no `\u{..}`.
const MAX_CHAR: char = char::MAX;

impl Renderer<'_> {
    fn portable(&self) -> bool {
        self.style != Style::Canonical
    }

    fn grammar(&self) -> bool {
        self.style == Style::Grammar
    }

    /// The opening of a group that only groups.
    fn open(&self) -> &'static str {
        if self.grammar() {
            "("
        } else {
            "(?:"
        }
    }

    fn node(&self, out: &mut String, n: &Node) {
        match n {
            Node::Empty => {}
            Node::Assertion(_) if is_one_of(self.skip, n) => {}
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
                    | (_, Style::Grammar)
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
                        out.push_str(self.open());
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
                out.push_str(self.open());
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
        if self.grammar() {
            return grammar_literal(out, c, in_class);
        }
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

/// One character in the grammar rendering (module docs). Inside a class: raw, or one of the
/// escapes GBNF reads (`\\ \] \[ \t \n \r \xHH`). Outside: raw, `\t \n \r`, or a one-character
/// class for everything with a meaning in a pattern or a GBNF string, whichever way the
/// converter's version treats an escaped literal.
fn grammar_literal(out: &mut String, c: char, in_class: bool) {
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\\' | ']' | '[' if in_class => {
            out.push('\\');
            out.push(c);
        }
        c if in_class && (c == '^' || c == '-' || c.is_ascii_control()) => {
            let _ = write!(out, "\\x{:02X}", u32::from(c));
        }
        c if !in_class
            && (c.is_ascii_control()
                || matches!(
                    c,
                    '^' | '$'
                        | '\\'
                        | '.'
                        | '*'
                        | '+'
                        | '?'
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '|'
                        | '"'
                )) =>
        {
            out.push('[');
            grammar_literal(out, c, true);
            out.push(']');
        }
        c => out.push(c),
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

#[cfg(test)]
mod grammar_tests {
    use crate::pattern::Pattern;

    fn grammar(source: &str) -> Option<String> {
        Pattern::compile(source, 4096)
            .unwrap_or_else(|e| panic!("{source}: {e}"))
            .grammar()
    }

    /// The escapes llama.cpp's GBNF parser reads after a backslash (issue 18).
    fn gbnf_escapes_only(text: &str) -> bool {
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\\'
                && !matches!(
                    chars.next(),
                    Some('x' | 'u' | 'U' | 't' | 'r' | 'n' | '\\' | '"' | '[' | ']')
                )
            {
                return false;
            }
        }
        true
    }

    #[test]
    fn classes_use_only_gbnf_escapes_and_keep_dash_and_caret_literal() {
        for (source, expected) in [
            ("^[a-zA-Z0-9_-]+$", "^[\\x2D0-9A-Z_a-z]+$"),
            ("^[-^a]$", "^[\\x2D\\x5Ea]$"),
            ("^[^\\]\\\\]$", "^[^\\\\\\]]$"),
            ("^\\d{3}\\.\\w+$", "^[0-9]{3}[.][0-9A-Z_a-z]+$"),
            ("^a\\$b\\^\\(c\\)\"$", "^a[$]b[\\x5E][(]c[)][\"]$"),
            ("^\\f\\t$", "^[\\x0C]\\t$"),
            ("^(?:ab)+(?<n>c)$", "^(ab)+(c)$"),
        ] {
            let text = grammar(source).unwrap_or_default();
            assert_eq!(text, expected, "{source}");
            assert!(gbnf_escapes_only(&text), "{text}");
        }
        let space = grammar("^\\s+\\S$").unwrap_or_default();
        assert!(gbnf_escapes_only(&space), "{space}");
        assert!(!space.contains("\\^") && !space.contains("\\-"), "{space}");
    }

    #[test]
    fn anchors_on_every_alternative_become_one_anchored_group() {
        assert_eq!(grammar("^a$|^b$").as_deref(), Some("^(a|b)$"));
        assert_eq!(grammar("(^a|^b)c$").as_deref(), Some("^(a|b)c$"));
        assert_eq!(grammar("^(a|b)$").as_deref(), Some("^(a|b)$"));
        for refused in [
            "a(^|,)b$", "^a|b$", "(^a)+$", "^\\bab$", "^\\p{L}$", "^a$|b",
        ] {
            assert_eq!(grammar(refused), None, "{refused}");
        }
    }

    #[test]
    fn the_grammar_rendering_matches_what_the_source_matches() {
        for source in [
            "^[a-zA-Z0-9_-]+$",
            "^a$|^b+$",
            "^[\\s\\S]{0,3}$",
            "^\\W\\D.$",
            "^[^-]\"\\\\$",
            "^(x|[\\^])$",
        ] {
            let p = Pattern::compile(source, 4096).unwrap_or_else(|e| panic!("{e}"));
            let text = grammar(source).unwrap_or_default();
            let g = Pattern::compile(&text, 4096).unwrap_or_else(|e| panic!("{text}: {e}"));
            for s in [
                "", "a", "b", "bb", "ab", "-", "_", "^", "x", "\"\\", "a\"\\", " \n", "é-", "a.b",
            ] {
                assert_eq!(g.is_match(s), p.is_match(s), "{source} -> {text} on {s:?}");
            }
        }
    }
}
