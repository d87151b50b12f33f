//! The syntax summary the provider dialects decide on.

use super::ast::{Assertion, Ast, ClassItem, Node};
use super::parse::Spelling;

/// Largest counted repetition bound [`Features::claude_simple`] allows. Anthropic documents
/// "simple `{n,m}` cases" as supported and "complex `{n,m}` quantifiers with large ranges" as
/// not, without a number; 64 covers every fixed-width format in the real-world corpus
/// (UUIDs, hashes, dates, phone numbers) while staying clearly "small".
pub const CLAUDE_MAX_REPETITION: u32 = 64;

/// Which syntax a pattern uses; providers differ in what they accept, so the dialect code
/// decides per feature whether to pass the pattern on, rewrite it (see
/// [`Pattern::portable`](super::Pattern::portable)) or move it into the description.
///
/// Look-behind and backreferences never appear: [`Pattern::compile`](super::Pattern::compile)
/// rejects them, and look-aheads elsewhere than right after a leading `^`. Those it accepts
/// ([`Pattern::look_aheads`](super::Pattern::look_aheads)) are only flagged here
/// (`look_ahead`): every other field describes the rest of the pattern, which is what a
/// provider can be sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Features {
    /// Every top-level alternative starts with `^` (also through groups: `(^a|^b)c`). Ollama
    /// and llama.cpp convert patterns to grammars that only exist as whole-string matches and
    /// require the `^...$` form; an unanchored JSON Schema pattern must be padded instead.
    pub anchored_start: bool,
    /// Every top-level alternative ends with `$`; see `anchored_start`.
    pub anchored_end: bool,
    /// A `^` or `$` sits somewhere other than the start or end of a top-level alternative
    /// (`a(^|,)b`). Grammar converters cannot express such mid-pattern anchors.
    pub anchors_inside: bool,
    /// `\d \D \w \W \s \S` appear, in or out of classes. Their ECMA-262 meaning (ASCII digits
    /// and word characters, the ECMA whitespace set) differs from most engines' Unicode
    /// reading, and llama.cpp's grammar converter rejects them; `portable()` spells them out.
    pub class_escapes: bool,
    /// `.` appears. ECMA-262's `.` excludes `\r`, U+2028 and U+2029, most other engines'
    /// only `\n`; `portable()` spells it out.
    pub dot: bool,
    /// `\b` or `\B` appear: Claude does not support them and grammars cannot express them.
    pub word_boundary: bool,
    /// `\p{..}` or `\P{..}` appear: many engines lack them or know other names.
    pub unicode_property: bool,
    /// A lazy quantifier (`*?`, `{2,5}?`) appears. It never changes whether a pattern
    /// matches, but not every engine parses it; `portable()` drops the laziness.
    pub non_greedy: bool,
    /// Largest finite bound of a counted repetition (`{n}`, `{n,}`, `{n,m}`), `None` when
    /// there is none. Claude rejects large bounds, and grammar converters expand `{n,m}` into
    /// `m` copies, which blows up llama.cpp.
    pub max_repetition: Option<u32>,
    /// The source spells a character with an escape other engines may misread or reject:
    /// `\v` (vertical space class in PCRE), `\cX`, `\uHHHH`, `\u{...}`, or an escaped
    /// character that is not a regex syntax character (Annex B identity escapes such as `\@`
    /// or `\-` outside a class). Escaped syntax characters (`\.`, `\/`), `\t \n \r \f \0`,
    /// `\xHH` and `\-` inside a class are portable and do not count. `portable()` never
    /// produces these escapes.
    pub backslash_escapes_other: bool,
    /// A class range has a class escape at an end (`[\w-.]`, `[a-\d]`), which ECMA-262 Annex B
    /// reads as the escape, a literal `-` and the other end. Other engines reject it (Python's
    /// `re` and RE2: "bad character range"; Rust's `regex`: "invalid range boundary, must be a
    /// literal"; llguidance, which spells `\d` out as a class first, refuses `[a-\d]`), so a
    /// dialect sends the canonical rendering
    /// ([`Pattern::to_ecma_string`](super::Pattern::to_ecma_string): `[\w\-.]`) instead.
    pub class_escape_range: bool,
    /// `(?<name>...)` appears; `portable()` turns it into a plain group.
    pub named_groups: bool,
    /// Look-aheads right after the leading `^` (`^(?!\.)…`). No provider's engine runs
    /// look-around (OpenAI refuses it: "regex lookaround is not supported"), so they are
    /// never sent: [`Pattern::sendable`](super::Pattern::sendable) and every rendering leave
    /// them out, and the dialect that sends the rest records the loss.
    pub look_ahead: bool,
    /// Only what Anthropic documents for Claude's structured outputs: anchors at the ends,
    /// `* + ?` and `{n,m}`, classes, `.`, `\d \w \s`, groups and alternation; no word
    /// boundaries, properties, lazy quantifiers, named groups or unusual escapes. Repetition
    /// bounds are not considered here; see `claude_simple`.
    pub simple_syntax: bool,
    /// `simple_syntax`, and no repetition bound above [`CLAUDE_MAX_REPETITION`]: the pattern
    /// can be sent to Claude as written.
    pub claude_simple: bool,
}

impl Features {
    /// Summarises a parsed pattern.
    pub(crate) fn of(ast: &Ast, spelling: Spelling) -> Features {
        let mut f = Features {
            backslash_escapes_other: spelling.backslash_escapes_other,
            class_escape_range: spelling.class_escape_range,
            ..Features::default()
        };
        let mut starts = 0usize;
        let mut ends = 0usize;
        ast.root.walk(&mut |n| match n {
            Node::Dot => f.dot = true,
            Node::ClassEscape(_) => f.class_escapes = true,
            Node::Property(_) => f.unicode_property = true,
            Node::Class(c) => {
                for item in &c.items {
                    match item {
                        ClassItem::Escape(_) => f.class_escapes = true,
                        ClassItem::Property(_) => f.unicode_property = true,
                        ClassItem::Range(..) => {}
                    }
                }
            }
            Node::Assertion(Assertion::Start) => starts += 1,
            Node::Assertion(Assertion::End) => ends += 1,
            Node::Assertion(Assertion::WordBoundary | Assertion::NotWordBoundary) => {
                f.word_boundary = true;
            }
            Node::Group(g) => {
                if matches!(g.kind, super::ast::GroupKind::Named { .. }) {
                    f.named_groups = true;
                }
            }
            Node::Repeat(r) => {
                if !r.greedy {
                    f.non_greedy = true;
                }
                if r.is_counted() {
                    let bound = r.max.unwrap_or(r.min);
                    f.max_repetition = Some(f.max_repetition.map_or(bound, |m| m.max(bound)));
                }
            }
            Node::Empty | Node::Literal(_) | Node::Concat(_) | Node::Alternation(_) => {}
        });
        f.anchored_start = edge(&ast.root, Edge::Start);
        f.anchored_end = edge(&ast.root, Edge::End);
        f.anchors_inside =
            starts > edge_count(&ast.root, Edge::Start) || ends > edge_count(&ast.root, Edge::End);
        f.simple_syntax = !(f.anchors_inside
            || f.word_boundary
            || f.unicode_property
            || f.non_greedy
            || f.named_groups
            || f.backslash_escapes_other
            || f.class_escape_range);
        f.claude_simple =
            f.simple_syntax && f.max_repetition.is_none_or(|m| m <= CLAUDE_MAX_REPETITION);
        f
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    Start,
    End,
}

/// True when every way through `n` begins (or ends) with the anchor.
fn edge(n: &Node, which: Edge) -> bool {
    match n {
        Node::Assertion(Assertion::Start) => which == Edge::Start,
        Node::Assertion(Assertion::End) => which == Edge::End,
        Node::Concat(items) => {
            let outer = match which {
                Edge::Start => items.first(),
                Edge::End => items.last(),
            };
            outer.is_some_and(|item| edge(item, which))
        }
        Node::Group(g) => edge(&g.node, which),
        Node::Repeat(r) => r.min >= 1 && edge(&r.node, which),
        Node::Alternation(alternatives) => alternatives.iter().all(|a| edge(a, which)),
        _ => false,
    }
}

/// How many anchors of the kind sit at the start (or end) of a top-level alternative, looking
/// through groups, so that the rest can be counted as mid-pattern anchors.
fn edge_count(n: &Node, which: Edge) -> usize {
    match n {
        Node::Assertion(Assertion::Start) => usize::from(which == Edge::Start),
        Node::Assertion(Assertion::End) => usize::from(which == Edge::End),
        Node::Concat(items) => {
            let outer = match which {
                Edge::Start => items.first(),
                Edge::End => items.last(),
            };
            outer.map_or(0, |item| edge_count(item, which))
        }
        Node::Group(g) => edge_count(&g.node, which),
        Node::Alternation(alternatives) => alternatives.iter().map(|a| edge_count(a, which)).sum(),
        _ => 0,
    }
}
