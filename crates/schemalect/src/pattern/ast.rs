//! The parsed form of an ECMA-262 pattern.
//!
//! The tree keeps meaning, not spelling: `\x41`, `\u0041` and `A` are all `Literal('A')`, and
//! `*` is `Repeat { min: 0, max: None }`. Everything downstream (the translation for the engine,
//! the feature summary, the renderings for providers) works from meaning, so two spellings of
//! one pattern behave identically everywhere.
//!
//! Text is always valid Unicode here (it comes from JSON), so UTF-16 surrogates, which ECMA-262
//! lets a pattern name with `\uD800`, can never occur in the text being matched. The parser
//! drops them from character classes and turns a lone surrogate outside a class into the empty
//! class `[]`; both keep the match result of every valid string unchanged.

/// A parsed pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ast {
    /// The whole pattern.
    pub root: Node,
    /// How many capturing groups (numbered and named) the pattern has.
    pub captures: u32,
}

/// One node of the pattern tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// Matches the empty string (an empty pattern, alternative or group).
    Empty,
    /// One code point, however it was written (`a`, `\x61`, `\u{61}`, `\.`).
    Literal(char),
    /// `.`: any code point except the line terminators `\n`, `\r`, U+2028 and U+2029.
    Dot,
    /// `\d \D \w \W \s \S` outside a class.
    ClassEscape(ClassEscape),
    /// `\p{..}` or `\P{..}` outside a class.
    Property(Property),
    /// `[...]` or `[^...]`.
    Class(Class),
    /// A zero-width assertion.
    Assertion(Assertion),
    /// `(...)`, `(?<name>...)` or `(?:...)`.
    Group(Box<Group>),
    /// A quantified node.
    Repeat(Box<Repeat>),
    /// Nodes matched one after another; never empty and never a single node.
    Concat(Vec<Node>),
    /// `a|b|...`; at least two alternatives.
    Alternation(Vec<Node>),
}

/// Zero-width assertions ECMA-262 defines outside look-around.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assertion {
    /// `^`: start of the input (JSON Schema patterns have no multiline flag).
    Start,
    /// `$`: end of the input; unlike many engines, not before a final `\n`.
    End,
    /// `\b`: between an ASCII word character (`[A-Za-z0-9_]`) and anything else.
    WordBoundary,
    /// `\B`: not at a `\b` position.
    NotWordBoundary,
}

/// Which of the predefined classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClassEscapeKind {
    /// `\d`: `[0-9]` only, not other Unicode digits.
    Digit,
    /// `\w`: `[A-Za-z0-9_]` only, not other Unicode letters.
    Word,
    /// `\s`: the ECMA-262 WhiteSpace and LineTerminator code points (see [`SPACE`]).
    Space,
}

/// `\d \D \w \W \s \S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClassEscape {
    /// Which class.
    pub kind: ClassEscapeKind,
    /// True for the upper-case form (`\D`), which matches every code point not in the class.
    pub negated: bool,
}

/// Which property family a [`Property`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PropertyKind {
    /// `\p{L}`, `\p{General_Category=Letter}`.
    GeneralCategory,
    /// `\p{Script=Latin}`.
    Script,
    /// `\p{Script_Extensions=Latin}`.
    ScriptExtensions,
    /// `\p{Alphabetic}` and the other binary properties ECMA-262 lists.
    Binary,
}

/// A Unicode property escape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Property {
    /// True for `\P{..}`.
    pub negated: bool,
    /// The family.
    pub kind: PropertyKind,
    /// The canonical long name of the value (`Decimal_Number`, `Latin`, `Alphabetic`), whatever
    /// alias the source used.
    pub value: &'static str,
}

/// A bracketed character class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// `[^...]`.
    pub negated: bool,
    /// The union of these is the class (before negation). Empty items with `negated: false`
    /// is ECMA-262's `[]`, which matches nothing; with `negated: true` it is `[^]`, any code
    /// point.
    pub items: Vec<ClassItem>,
}

/// One member of a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClassItem {
    /// The code points `start..=end` (`start == end` for a single character); `start <= end`.
    Range(char, char),
    /// `\d` and friends inside a class.
    Escape(ClassEscape),
    /// `\p{..}` inside a class.
    Property(Property),
}

/// What kind of group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupKind {
    /// `(...)`, numbered from 1 in order of the opening parenthesis.
    Capturing {
        /// The group number.
        index: u32,
    },
    /// `(?<name>...)`; also numbered.
    Named {
        /// The group number.
        index: u32,
        /// The name.
        name: String,
    },
    /// `(?:...)`.
    NonCapturing,
}

/// A group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Capturing, named or not.
    pub kind: GroupKind,
    /// The contents.
    pub node: Node,
}

/// A quantified node: `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally lazy (`*?`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeat {
    /// What is repeated.
    pub node: Node,
    /// Least number of repetitions.
    pub min: u32,
    /// Most, or `None` for no limit; never below `min`.
    pub max: Option<u32>,
    /// False for the lazy forms. Laziness changes which match a backtracking engine reports,
    /// never whether there is one, so it does not affect [`Pattern::is_match`](super::Pattern::is_match).
    pub greedy: bool,
}

impl Repeat {
    /// True when the quantifier can only be written with braces (`{n}`, `{n,}`, `{n,m}`), which
    /// is where engine size and provider limits bite.
    pub fn is_counted(&self) -> bool {
        !matches!((self.min, self.max), (0 | 1, None) | (0, Some(1)))
    }
}

/// `\d` as code point ranges.
pub const DIGIT: &[(char, char)] = &[('0', '9')];
/// `\w` as code point ranges.
pub const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
/// `\s` as code point ranges: ECMA-262 WhiteSpace (TAB, VT, FF, ZWNBSP, the `Zs` category) and
/// LineTerminator (LF, CR, LS, PS). Unicode 16 `Zs` is the space, U+00A0, U+1680,
/// U+2000–U+200A, U+202F, U+205F and U+3000.
pub const SPACE: &[(char, char)] = &[
    ('\t', '\r'),
    (' ', ' '),
    ('\u{a0}', '\u{a0}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{2000}', '\u{200a}'),
    ('\u{2028}', '\u{2029}'),
    ('\u{202f}', '\u{202f}'),
    ('\u{205f}', '\u{205f}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{feff}', '\u{feff}'),
];
/// What `.` does not match.
pub const LINE_TERMINATORS: &[(char, char)] =
    &[('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')];

impl ClassEscapeKind {
    /// The code points of the (non-negated) class.
    pub fn ranges(self) -> &'static [(char, char)] {
        match self {
            ClassEscapeKind::Digit => DIGIT,
            ClassEscapeKind::Word => WORD,
            ClassEscapeKind::Space => SPACE,
        }
    }

    /// The escape letter of the non-negated form.
    pub fn letter(self) -> char {
        match self {
            ClassEscapeKind::Digit => 'd',
            ClassEscapeKind::Word => 'w',
            ClassEscapeKind::Space => 's',
        }
    }
}

impl ClassEscape {
    /// True when `c` is in the class (negation applied).
    pub fn contains(self, c: char) -> bool {
        in_ranges(self.kind.ranges(), c) != self.negated
    }
}

/// True when `c` lies in one of the sorted, disjoint `ranges`.
pub(crate) fn in_ranges(ranges: &[(char, char)], c: char) -> bool {
    ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
}

impl Node {
    /// Calls `f` on this node and every node below it, parents first.
    ///
    /// Recursion depth is bounded by group nesting, which the parser limits.
    pub(crate) fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Node)) {
        f(self);
        match self {
            Node::Group(g) => g.node.walk(f),
            Node::Repeat(r) => r.node.walk(f),
            Node::Concat(v) | Node::Alternation(v) => v.iter().for_each(|n| n.walk(f)),
            Node::Empty
            | Node::Literal(_)
            | Node::Dot
            | Node::ClassEscape(_)
            | Node::Property(_)
            | Node::Class(_)
            | Node::Assertion(_) => {}
        }
    }
}
