//! [`Ast`] to the syntax of the `regex` crate, keeping the ECMA-262 meaning.
//!
//! The `regex` crate runs in Unicode mode, where its `\d`, `\w`, `\s`, `\b`, `.` and `$` all
//! mean something else than in ECMA-262 (Unicode digits, Unicode letters, `$` before a final
//! newline in some modes...). So nothing is passed through: every construct is spelled out as
//! an explicit class or an unambiguous assertion, and every literal is written as `\x{..}`
//! unless it is an ASCII letter, digit or `_`. Groups become non-capturing because only
//! [`Pattern::is_match`](super::Pattern::is_match) is needed, which also sidesteps the crate's
//! own rules for group names.

use std::fmt::{self, Display, Formatter, Write as _};

use super::ast::{
    Assertion, Ast, Class, ClassEscape, ClassItem, Node, Property, PropertyKind, Repeat,
    LINE_TERMINATORS,
};

/// The regex that matches every code point.
const ANY: &str = r"[\x{0}-\x{10FFFF}]";
/// The regex that matches nothing (ECMA-262's `[]`).
const NEVER: &str = r"[^\x{0}-\x{10FFFF}]";

/// The `regex` crate pattern for `ast`.
pub(crate) fn to_regex(ast: &Ast) -> String {
    Regex(&ast.root).to_string()
}

/// The `regex` crate pattern matching exactly the code points of `property`, for callers that
/// need to test membership.
pub(crate) fn property_regex(property: &Property) -> String {
    Regex(&Node::Property(*property)).to_string()
}

/// Displays a node in `regex` crate syntax.
struct Regex<'a>(&'a Node);

impl Display for Regex<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        node(f, self.0)
    }
}

fn node(f: &mut Formatter<'_>, n: &Node) -> fmt::Result {
    match n {
        Node::Empty => f.write_str("(?:)"),
        Node::Literal(c) => literal(f, *c),
        Node::Dot => {
            f.write_str("[^")?;
            ranges(f, LINE_TERMINATORS)?;
            f.write_str("]")
        }
        Node::ClassEscape(e) => class_escape(f, *e),
        Node::Property(p) => class(
            f,
            &Class {
                negated: false,
                items: vec![ClassItem::Property(*p)],
            },
        ),
        Node::Class(c) => class(f, c),
        Node::Assertion(a) => f.write_str(match a {
            Assertion::Start => r"\A",
            Assertion::End => r"\z",
            // `(?-u:..)` selects the ASCII word definition, which is ECMA-262's; it never
            // splits a UTF-8 sequence because non-ASCII bytes are all non-word.
            Assertion::WordBoundary => r"(?-u:\b)",
            Assertion::NotWordBoundary => r"(?-u:\B)",
        }),
        Node::Group(g) => {
            f.write_str("(?:")?;
            node(f, &g.node)?;
            f.write_str(")")
        }
        Node::Repeat(r) => repeat(f, r),
        Node::Concat(items) => {
            for item in items {
                if matches!(item, Node::Alternation(_)) {
                    f.write_str("(?:")?;
                    node(f, item)?;
                    f.write_str(")")?;
                } else {
                    node(f, item)?;
                }
            }
            Ok(())
        }
        Node::Alternation(alternatives) => {
            for (i, alternative) in alternatives.iter().enumerate() {
                if i > 0 {
                    f.write_str("|")?;
                }
                node(f, alternative)?;
            }
            Ok(())
        }
    }
}

/// Laziness is dropped: it never changes whether a match exists.
fn repeat(f: &mut Formatter<'_>, r: &Repeat) -> fmt::Result {
    match &r.node {
        Node::Literal(_)
        | Node::Dot
        | Node::ClassEscape(_)
        | Node::Property(_)
        | Node::Class(_)
        | Node::Group(_) => node(f, &r.node)?,
        other => {
            f.write_str("(?:")?;
            node(f, other)?;
            f.write_str(")")?;
        }
    }
    match r.max {
        Some(max) if max == r.min => write!(f, "{{{max}}}"),
        Some(max) => write!(f, "{{{},{max}}}", r.min),
        None => write!(f, "{{{},}}", r.min),
    }
}

fn literal(f: &mut Formatter<'_>, c: char) -> fmt::Result {
    if c.is_ascii_alphanumeric() || c == '_' {
        f.write_char(c)
    } else {
        write!(f, "\\x{{{:X}}}", u32::from(c))
    }
}

fn ranges(f: &mut Formatter<'_>, ranges: &[(char, char)]) -> fmt::Result {
    for &(lo, hi) in ranges {
        literal(f, lo)?;
        if hi != lo {
            f.write_char('-')?;
            literal(f, hi)?;
        }
    }
    Ok(())
}

fn class_escape(f: &mut Formatter<'_>, e: ClassEscape) -> fmt::Result {
    f.write_str(if e.negated { "[^" } else { "[" })?;
    ranges(f, e.kind.ranges())?;
    f.write_str("]")
}

fn property(f: &mut Formatter<'_>, p: &Property) -> fmt::Result {
    let letter = if p.negated { 'P' } else { 'p' };
    match p.kind {
        PropertyKind::GeneralCategory | PropertyKind::Binary => {
            write!(f, "\\{letter}{{{}}}", p.value)
        }
        PropertyKind::Script => write!(f, "\\{letter}{{Script={}}}", p.value),
        PropertyKind::ScriptExtensions => {
            write!(f, "\\{letter}{{Script_Extensions={}}}", p.value)
        }
    }
}

/// A class, written so that it is never the (invalid) `[]` and never depends on the crate's own
/// escapes; nested classes carry `\d`-style items and their negations.
fn class(f: &mut Formatter<'_>, c: &Class) -> fmt::Result {
    let mut body = String::new();
    for item in &c.items {
        match item {
            ClassItem::Range(lo, hi) => {
                write!(body, "{}", Regex(&Node::Literal(*lo)))?;
                if hi != lo {
                    write!(body, "-{}", Regex(&Node::Literal(*hi)))?;
                }
            }
            ClassItem::Escape(e) => write!(body, "{}", Regex(&Node::ClassEscape(*e)))?,
            ClassItem::Property(p) => property_members(&mut body, p)?,
        }
    }
    match (body.is_empty(), c.negated) {
        (true, false) => f.write_str(NEVER),
        (true, true) => f.write_str(ANY),
        (false, negated) => {
            f.write_str(if negated { "[^" } else { "[" })?;
            f.write_str(&body)?;
            f.write_str("]")
        }
    }
}

/// Adds a property to a class body. Three values ECMA-262 accepts have no table in the crate,
/// so they are spelled out:
/// * `Surrogate`: valid text has no surrogates, so it adds nothing (`\P{Cs}` everything).
/// * Script `Katakana_Or_Hiragana` (`Hrkt`): Unicode assigns it to no code point in either
///   Script or Script_Extensions, so it adds nothing.
/// * Script `Unknown` (`Zzzz`): the code points no script claims, which in the crate's Unicode
///   tables are exactly the unassigned and private-use ones (checked over all code points when
///   this was written, and by a test).
fn property_members(body: &mut String, p: &Property) -> fmt::Result {
    let script = matches!(
        p.kind,
        PropertyKind::Script | PropertyKind::ScriptExtensions
    );
    let empty = p.value == "Surrogate" && p.kind == PropertyKind::GeneralCategory
        || script && p.value == "Katakana_Or_Hiragana";
    if empty {
        if p.negated {
            body.push_str(ANY);
        }
        return Ok(());
    }
    if script && p.value == "Unknown" {
        body.push_str(if p.negated {
            r"[^\p{Unassigned}\p{Private_Use}]"
        } else {
            r"\p{Unassigned}\p{Private_Use}"
        });
        return Ok(());
    }
    write!(body, "{}", PropertyText(p))
}

struct PropertyText<'a>(&'a Property);

impl Display for PropertyText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        property(f, self.0)
    }
}
