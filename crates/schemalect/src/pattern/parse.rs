//! ECMA-262 pattern syntax to [`Ast`], with `nom`.
//!
//! The dialect is what JSON Schema 2020-12 and its test suite expect: Unicode semantics (the
//! `u` flag: code points, `\u{...}`, `\p{...}`, surrogate pairs as one character) together with
//! the Annex B leniencies that real-world schemas written for JavaScript engines rely on: a `{`
//! that does not start a quantifier, a lone `]` or `}` is a literal; any non-alphanumeric
//! character may be escaped (`\-`, `\@`, `\_`); a class escape may stand next to `-` in a class
//! (`[\w-.]`). Escapes of letters and digits that ECMA-262 does not define (`\A`, `\z`, `\1`
//! without a group) are rejected rather than read as Annex B literals: they are nearly always
//! PCRE habits whose author meant something else, and silently matching a literal `A` would turn
//! a validation rule into a different one.
//!
//! Look-aheads right after a leading `^` (`^(?!\.)(?=.*@)[^@]+@.+`, zod's `email()` pattern)
//! are parsed into [`Parsed::look_aheads`] and left out of the tree: each is then a separate
//! anchored match (`^(?!A)B` matches exactly when `^B` does and `^A` does not), which a
//! linear-time engine runs. Look-aheads anywhere else, look-behinds and backreferences are
//! parsed far enough to be named in the error, then rejected: no linear-time engine can run
//! them.
//!
//! Nothing recurses: groups are kept on an explicit stack, sequences, alternatives and classes
//! are loops, so a pattern of any length or nesting parses in constant call stack. Nesting is
//! still bounded by [`MAX_DEPTH`] for the passes over the finished tree, which do recurse.

use std::collections::HashSet;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1, take_while_m_n};
use nom::character::complete::{anychar, char, digit1};
use nom::combinator::{map, opt, value};
use nom::error::{ErrorKind, ParseError};
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser as _};

use super::ast::{
    Assertion, Ast, Class, ClassEscape, ClassEscapeKind, ClassItem, Group, GroupKind, Node,
    Property, PropertyKind, Repeat,
};
use super::{unicode, PatternError, UnsupportedReason};

/// Deepest group nesting accepted. Parsing does not recurse, but translating, rendering and
/// dropping the tree recurse once per level, and so does the engine's compiler, which in an
/// unoptimised build spends about 8 KiB of stack per level. 64 keeps a whole compile well
/// inside the 2 MiB default thread stack even then; the real-world corpus nests at most 8
/// levels.
pub const MAX_DEPTH: usize = 64;

/// What the source spelled that the tree does not keep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Spelling {
    /// See [`super::Features::backslash_escapes_other`].
    pub(crate) backslash_escapes_other: bool,
    /// See [`super::Features::class_escape_range`].
    pub(crate) class_escape_range: bool,
}

/// A parsed pattern: the tree without its leading look-aheads, and those.
#[derive(Debug)]
pub(crate) struct Parsed {
    /// The pattern with its leading look-aheads left out (`^(?!A)B` gives `^B`).
    pub(crate) ast: Ast,
    /// What the source spelled that the tree does not keep.
    pub(crate) spelling: Spelling,
    /// The look-aheads right after the leading `^`, in source order.
    pub(crate) look_aheads: Vec<LookAheadPart>,
}

/// One leading look-ahead: `(?=body)` or `(?!body)`.
#[derive(Debug)]
pub(crate) struct LookAheadPart {
    /// `(?!`.
    pub(crate) negative: bool,
    /// What it looks for.
    pub(crate) body: Node,
    /// Byte offset of its `(`.
    pub(crate) at: usize,
    /// Byte offset just past its `)`.
    pub(crate) end: usize,
}

/// Parses `src` into a tree.
pub(crate) fn parse(src: &str) -> Result<Parsed, PatternError> {
    let (captures, names) = prescan(src);
    let mut p = Parser {
        src,
        captures,
        names,
        next_capture: 0,
        seen_names: HashSet::new(),
        spelling: Spelling::default(),
        look_aheads: Vec::new(),
    };
    match p.pattern(src) {
        Ok(root) => Ok(Parsed {
            ast: Ast {
                root,
                captures: p.next_capture,
            },
            spelling: p.spelling,
            look_aheads: p.look_aheads,
        }),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(e.into_error(src)),
        Err(nom::Err::Incomplete(_)) => Err(syntax(
            src.len(),
            "the pattern ends in the middle of a construct".to_owned(),
        )),
    }
}

/// The nom error type: either "this alternative does not apply here" (no error, nom backtracks)
/// or a definite [`PatternError`] that stops parsing.
#[derive(Debug)]
pub(crate) struct PErr {
    /// Length of the input left where the error arose, to recover the offset.
    rest: usize,
    error: Option<PatternError>,
}

impl PErr {
    fn into_error(self, src: &str) -> PatternError {
        self.error.unwrap_or_else(|| {
            let at = src.len().saturating_sub(self.rest);
            syntax(at, format!("cannot parse the pattern at offset {at}"))
        })
    }
}

impl ParseError<&str> for PErr {
    fn from_error_kind(input: &str, _: ErrorKind) -> Self {
        PErr {
            rest: input.len(),
            error: None,
        }
    }

    fn append(_: &str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

type PResult<'s, T> = IResult<&'s str, T, PErr>;

fn failure(error: PatternError) -> nom::Err<PErr> {
    nom::Err::Failure(PErr {
        rest: 0,
        error: Some(error),
    })
}

fn fail<'s, T>(error: PatternError) -> PResult<'s, T> {
    Err(failure(error))
}

fn syntax(offset: usize, message: String) -> PatternError {
    PatternError::Syntax { offset, message }
}

fn unsupported(offset: usize, construct: &'static str, reason: UnsupportedReason) -> PatternError {
    PatternError::Unsupported {
        offset,
        construct,
        reason,
    }
}

/// Counts capturing groups and collects group names before the real parse, because a
/// backreference may refer to a group that opens later (`\2(a)(b)` and `\k<x>(?<x>a)` are
/// valid ECMA-262).
fn prescan(src: &str) -> (u32, HashSet<&str>) {
    let mut count = 0u32;
    let mut names = HashSet::new();
    let mut in_class = false;
    let mut it = src.char_indices();
    while let Some((i, c)) = it.next() {
        match c {
            '\\' => {
                it.next();
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => {
                let rest = src.get(i + 1..).unwrap_or("");
                if !rest.starts_with('?') {
                    count = count.saturating_add(1);
                } else if let Some(named) = rest.strip_prefix("?<") {
                    if !named.starts_with(['=', '!']) {
                        count = count.saturating_add(1);
                        if let Ok((_, name)) = group_name(named) {
                            names.insert(name);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (count, names)
}

/// A parsed quantifier before its bounds are checked (the digits may overflow).
#[derive(Clone, Debug)]
enum Quant<'s> {
    Star,
    Plus,
    Question,
    /// `{min}`, `{min,}` (`Some(None)`) or `{min,max}`.
    Braced(&'s str, Option<Option<&'s str>>),
}

/// `* + ? {n} {n,} {n,m}`, then an optional `?` for the lazy form; the bool is "greedy".
fn quantifier(i: &str) -> PResult<'_, (Quant<'_>, bool)> {
    let (i, q) = alt((
        value(Quant::Star, char('*')),
        value(Quant::Plus, char('+')),
        value(Quant::Question, char('?')),
        map(
            delimited(
                char('{'),
                (digit1, opt(preceded(char(','), opt(digit1)))),
                char('}'),
            ),
            |(min, max)| Quant::Braced(min, max),
        ),
    ))
    .parse(i)?;
    let (i, lazy) = opt(char('?')).parse(i)?;
    Ok((i, (q, lazy.is_none())))
}

/// A repetition bound. ECMA-262 allows any size; the engine compiles a counted repetition by
/// copying its body, so a bound beyond `u32` is certainly over the engine's size limit.
fn bound(digits: &str) -> Result<u32, nom::Err<PErr>> {
    digits.parse::<u32>().map_err(|_| {
        failure(PatternError::TooComplex {
            size_limit: super::ENGINE_SIZE_LIMIT,
        })
    })
}

fn is_hex(c: char) -> bool {
    c.is_ascii_hexdigit()
}

fn hex_value(digits: &str) -> Option<u32> {
    u32::from_str_radix(digits, 16).ok()
}

/// `\uHHHH` after the backslash and `u`: exactly four hex digits.
fn hex4(i: &str) -> PResult<'_, u32> {
    let (rest, digits) = take_while_m_n(4, 4, is_hex).parse(i)?;
    match hex_value(digits) {
        Some(v) => Ok((rest, v)),
        None => Err(nom::Err::Error(PErr::from_error_kind(
            i,
            ErrorKind::HexDigit,
        ))),
    }
}

fn is_syntax_char(c: char) -> bool {
    matches!(
        c,
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '/'
    )
}

fn is_id_start(c: char) -> bool {
    c == '$' || c == '_' || c.is_alphabetic()
}

fn is_id_continue(c: char) -> bool {
    is_id_start(c) || c.is_alphanumeric() || c == '\u{200c}' || c == '\u{200d}'
}

/// A group name up to and including the closing `>`.
fn group_name(i: &str) -> PResult<'_, &str> {
    let (rest, name) = take_while1(is_id_continue)(i)?;
    if !name.starts_with(is_id_start) {
        return Err(nom::Err::Error(PErr::from_error_kind(i, ErrorKind::Alpha)));
    }
    let (rest, _) = char('>')(rest)?;
    Ok((rest, name))
}

/// One code point as an escape produced it: a scalar value, or a UTF-16 surrogate (which valid
/// text never contains).
type CodePoint = u32;

/// A member of a class before ranges are formed.
enum ClassAtom {
    Cp(CodePoint),
    Escape(ClassEscape),
    Property(Property),
}

/// The alternatives of the group being parsed, and the terms of its last alternative.
#[derive(Default)]
struct Sequence {
    alternatives: Vec<Node>,
    terms: Vec<Node>,
}

impl Sequence {
    fn next_alternative(&mut self) {
        let terms = std::mem::take(&mut self.terms);
        self.alternatives.push(concat(terms));
    }

    fn finish(mut self) -> Node {
        if self.alternatives.is_empty() {
            return concat(self.terms);
        }
        self.next_alternative();
        Node::Alternation(self.alternatives)
    }
}

fn concat(mut terms: Vec<Node>) -> Node {
    match terms.len() {
        0 => Node::Empty,
        1 => terms.pop().unwrap_or(Node::Empty),
        _ => Node::Concat(terms),
    }
}

/// A group whose `)` has not been reached yet.
struct OpenGroup {
    kind: GroupKind,
    /// `Some(negative)` for a leading look-ahead ([`Parsed::look_aheads`]).
    look_ahead: Option<bool>,
    /// Offset of its `(`.
    at: usize,
    /// The sequence it interrupted.
    outer: Sequence,
}

struct Parser<'s> {
    src: &'s str,
    /// Capturing groups in the whole pattern (from the prescan).
    captures: u32,
    /// Group names in the whole pattern (from the prescan).
    names: HashSet<&'s str>,
    next_capture: u32,
    /// Group names seen so far, to reject duplicates.
    seen_names: HashSet<&'s str>,
    spelling: Spelling,
    /// The leading look-aheads closed so far.
    look_aheads: Vec<LookAheadPart>,
}

/// A look-ahead at `at` where a separate anchored match cannot stand for it.
fn misplaced_look_ahead(at: usize, negative: bool) -> PatternError {
    let construct = if negative {
        "negative look-ahead `(?!`"
    } else {
        "look-ahead `(?=`"
    };
    unsupported(at, construct, UnsupportedReason::LookAheadPlacement)
}

/// `Some(negative)` when `i` opens a look-ahead.
fn look_ahead_opener(i: &str) -> Option<bool> {
    if i.starts_with("(?=") {
        Some(false)
    } else if i.starts_with("(?!") {
        Some(true)
    } else {
        None
    }
}

impl<'s> Parser<'s> {
    /// Byte offset of `rest` in the source.
    fn at(&self, rest: &str) -> usize {
        self.src.len().saturating_sub(rest.len())
    }

    /// The whole pattern. Groups are kept on an explicit stack rather than parsed by
    /// recursion, so nesting costs heap, not call stack; [`MAX_DEPTH`] still bounds it for the
    /// recursive passes that run over the finished tree.
    fn pattern(&mut self, src: &'s str) -> Result<Node, nom::Err<PErr>> {
        let mut open: Vec<OpenGroup> = Vec::new();
        let mut current = Sequence::default();
        let mut i = src;
        loop {
            let at = self.at(i);
            if let Some(rest) = i.strip_prefix('|') {
                current.next_alternative();
                i = rest;
            } else if let Some(rest) = i.strip_prefix(')') {
                let Some(group) = open.pop() else {
                    return Err(failure(unmatched_paren(at)));
                };
                if let Some(negative) = group.look_ahead {
                    let body = std::mem::replace(&mut current, group.outer).finish();
                    if quantifier(rest).is_ok() {
                        return Err(failure(self.repeated_assertion(group.at, self.at(rest))));
                    }
                    // What it spells is never sent (the rest of the pattern is), so its
                    // spelling says nothing of the text sent; nothing precedes it but `^`.
                    self.spelling = Spelling::default();
                    self.look_aheads.push(LookAheadPart {
                        negative,
                        body,
                        at: group.at,
                        end: self.at(rest),
                    });
                    i = rest;
                    continue;
                }
                let node = Node::Group(Box::new(Group {
                    kind: group.kind,
                    node: current.finish(),
                }));
                current = group.outer;
                let (rest, term) = self.quantify(node, rest, group.at)?;
                current.terms.push(term);
                i = rest;
            } else if i.starts_with('(') {
                // A look-ahead is taken only right after the leading `^`, itself at the top
                // level: there it is a separate anchored match (see the module doc).
                let leading = open.is_empty()
                    && current.alternatives.is_empty()
                    && matches!(
                        current.terms.as_slice(),
                        [Node::Assertion(Assertion::Start)]
                    );
                let (rest, kind, look_ahead) = match look_ahead_opener(i) {
                    Some(negative) if leading => (
                        i.get(3..).unwrap_or(""),
                        GroupKind::NonCapturing,
                        Some(negative),
                    ),
                    _ => {
                        let (rest, kind) = self.group_opener(i, at)?;
                        (rest, kind, None)
                    }
                };
                if open.len() >= MAX_DEPTH {
                    return Err(failure(PatternError::TooDeep {
                        offset: at,
                        max: MAX_DEPTH,
                    }));
                }
                open.push(OpenGroup {
                    kind,
                    look_ahead,
                    at,
                    outer: std::mem::take(&mut current),
                });
                i = rest;
            } else if i.is_empty() {
                if let Some(group) = open.last() {
                    return Err(failure(unclosed_group(group.at)));
                }
                let root = current.finish();
                if let (Node::Alternation(_), Some(first)) = (&root, self.look_aheads.first()) {
                    // `^(?!a)b|c`: the look-ahead binds one alternative only, which a
                    // separate anchored match cannot say.
                    return Err(failure(misplaced_look_ahead(first.at, first.negative)));
                }
                return Ok(root);
            } else {
                let (rest, atom) = self.atom(i)?;
                let (rest, term) = self.quantify(atom, rest, at)?;
                current.terms.push(term);
                i = rest;
            }
        }
    }

    /// A quantifier at `q_at` after the assertion (`^`, `\b`, a look-ahead) written from
    /// `atom_at` up to it.
    fn repeated_assertion(&self, atom_at: usize, q_at: usize) -> PatternError {
        let text = self.src.get(atom_at..q_at).unwrap_or("");
        syntax(
            q_at,
            format!("the quantifier at offset {q_at} follows the assertion `{text}`, which matches a position, not a character, so it cannot be repeated; remove the quantifier"),
        )
    }

    /// Applies the quantifier at `i`, if there is one, to `atom`.
    fn quantify(&mut self, atom: Node, i: &'s str, atom_at: usize) -> PResult<'s, Node> {
        let q_at = self.at(i);
        let Ok((rest, (q, greedy))) = quantifier(i) else {
            return Ok((i, atom));
        };
        if matches!(atom, Node::Assertion(_)) {
            return fail(self.repeated_assertion(atom_at, q_at));
        }
        let (min, max) = match q {
            Quant::Star => (0, None),
            Quant::Plus => (1, None),
            Quant::Question => (0, Some(1)),
            Quant::Braced(min, max) => {
                let min = bound(min)?;
                let max = match max {
                    None => Some(min),
                    Some(None) => None,
                    Some(Some(max)) => Some(bound(max)?),
                };
                if let Some(max) = max.filter(|&m| m < min) {
                    return fail(syntax(
                        q_at,
                        format!("the quantifier at offset {q_at} has its bounds out of order ({{{min},{max}}}); write the smaller bound first"),
                    ));
                }
                (min, max)
            }
        };
        Ok((
            rest,
            Node::Repeat(Box::new(Repeat {
                node: atom,
                min,
                max,
                greedy,
            })),
        ))
    }

    /// Any atom but a group (which [`Parser::pattern`] handles).
    fn atom(&mut self, i: &'s str) -> PResult<'s, Node> {
        let at = self.at(i);
        let (rest, c) = anychar(i)?;
        match c {
            '^' => Ok((rest, Node::Assertion(Assertion::Start))),
            '$' => Ok((rest, Node::Assertion(Assertion::End))),
            '.' => Ok((rest, Node::Dot)),
            '[' => self.class(rest, at),
            '\\' => self.atom_escape(rest, at),
            '*' | '+' | '?' => fail(syntax(
                at,
                format!("`{c}` at offset {at} has nothing to repeat; write `\\{c}` to match the character itself"),
            )),
            '{' => match quantifier(i) {
                Ok((after, _)) => {
                    let text = self.src.get(at..self.at(after)).unwrap_or("{");
                    fail(syntax(
                        at,
                        format!("the quantifier `{text}` at offset {at} has nothing to repeat; write `\\{{` to match a brace"),
                    ))
                }
                Err(_) => Ok((rest, Node::Literal('{'))),
            },
            _ => Ok((rest, Node::Literal(c))),
        }
    }

    /// `(`, `(?:`, `(?<name>`; everything else that starts with `(?` is an error.
    fn group_opener(&mut self, i: &'s str, at: usize) -> PResult<'s, GroupKind> {
        let look = |construct| fail(unsupported(at, construct, UnsupportedReason::LookAround));
        if let Ok((rest, _)) = tag::<_, _, PErr>("(?:")(i) {
            return Ok((rest, GroupKind::NonCapturing));
        }
        if let Some(negative) = look_ahead_opener(i) {
            return fail(misplaced_look_ahead(at, negative));
        }
        if tag::<_, _, PErr>("(?<=")(i).is_ok() {
            return look("look-behind `(?<=`");
        }
        if tag::<_, _, PErr>("(?<!")(i).is_ok() {
            return look("negative look-behind `(?<!`");
        }
        if let Ok((rest, _)) = tag::<_, _, PErr>("(?<")(i) {
            let Ok((rest, name)) = group_name(rest) else {
                return fail(syntax(
                    at,
                    format!("the group name at offset {at} is not an identifier followed by `>`; write it like `(?<year>[0-9]{{4}})`"),
                ));
            };
            if !self.seen_names.insert(name) {
                return fail(syntax(
                    at,
                    format!("the group name `{name}` at offset {at} is used twice; give each group its own name"),
                ));
            }
            self.next_capture = self.next_capture.saturating_add(1);
            return Ok((
                rest,
                GroupKind::Named {
                    index: self.next_capture,
                    name: name.to_owned(),
                },
            ));
        }
        if let Ok((rest, _)) = tag::<_, _, PErr>("(?")(i) {
            if rest.starts_with("P<") {
                return fail(syntax(
                    at,
                    format!("`(?P<` at offset {at} is Python syntax; ECMA-262 names groups with `(?<name>...)`"),
                ));
            }
            let flags: &str =
                take_while1::<_, _, PErr>(|c: char| c.is_ascii_alphabetic() || c == '-')(rest)
                    .map(|(_, f)| f)
                    .unwrap_or("");
            let after = rest.get(flags.len()..).unwrap_or("");
            if !flags.is_empty() && after.starts_with(':') {
                return fail(unsupported(
                    at,
                    "modifier group `(?flags:`",
                    UnsupportedReason::Modifiers,
                ));
            }
            if !flags.is_empty() && after.starts_with(')') {
                return fail(syntax(
                    at,
                    format!("inline flags `(?{flags})` at offset {at} are not ECMA-262, and JSON Schema patterns have no flags; for case-insensitive matching spell both cases out, e.g. `[Aa]`"),
                ));
            }
            return fail(syntax(
                at,
                format!("`(?` at offset {at} starts no ECMA-262 group; use `(...)`, `(?:...)` or `(?<name>...)`, or write `\\(` to match a parenthesis"),
            ));
        }
        let (rest, _) = char('(')(i)?;
        self.next_capture = self.next_capture.saturating_add(1);
        Ok((
            rest,
            GroupKind::Capturing {
                index: self.next_capture,
            },
        ))
    }

    /// A class after its `[`, up to and including the `]`.
    fn class(&mut self, i: &'s str, at: usize) -> PResult<'s, Node> {
        let (mut i, negated) = match i.strip_prefix('^') {
            Some(rest) => (rest, true),
            None => (i, false),
        };
        let mut items = Vec::new();
        loop {
            if let Some(rest) = i.strip_prefix(']') {
                return Ok((rest, Node::Class(Class { negated, items })));
            }
            if i.is_empty() {
                return fail(syntax(
                    at,
                    format!("the character class opened at offset {at} is never closed; add a `]` or write `\\[` to match a bracket"),
                ));
            }
            let a_at = self.at(i);
            let (rest, a) = self.class_atom(i)?;
            i = rest;
            let range_end = i
                .strip_prefix('-')
                .filter(|after| !(after.is_empty() || after.starts_with(']')));
            let Some(after_dash) = range_end else {
                push_atom(&mut items, a);
                continue;
            };
            let (rest, b) = self.class_atom(after_dash)?;
            i = rest;
            match (a, b) {
                (ClassAtom::Cp(lo), ClassAtom::Cp(hi)) => {
                    if lo > hi {
                        let text = self.src.get(a_at..self.at(i)).unwrap_or("");
                        return fail(syntax(
                            a_at,
                            format!("the class range `{text}` at offset {a_at} is out of order (U+{lo:04X} > U+{hi:04X}); write the smaller end first, or escape the `-` as `\\-` to list the characters"),
                        ));
                    }
                    push_range(&mut items, lo, hi);
                }
                // Annex B: a class escape at either end makes `-` a literal (`[\w-.]`).
                (a, b) => {
                    self.spelling.class_escape_range = true;
                    push_atom(&mut items, a);
                    push_range(&mut items, u32::from('-'), u32::from('-'));
                    push_atom(&mut items, b);
                }
            }
        }
    }

    fn class_atom(&mut self, i: &'s str) -> PResult<'s, ClassAtom> {
        let at = self.at(i);
        let (rest, c) = anychar(i)?;
        if c != '\\' {
            return Ok((rest, ClassAtom::Cp(u32::from(c))));
        }
        let Ok((after, e)) = anychar::<_, PErr>(rest) else {
            return fail(trailing_backslash(at));
        };
        match e {
            'b' => Ok((after, ClassAtom::Cp(8))),
            '-' => Ok((after, ClassAtom::Cp(u32::from('-')))),
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => Ok((after, ClassAtom::Escape(class_escape(e)))),
            'p' | 'P' => {
                let (after, p) = self.property(after, at, e == 'P')?;
                Ok((after, ClassAtom::Property(p)))
            }
            // Annex B lets `\c` take a digit or `_` inside a class.
            'c' => match anychar::<_, PErr>(after) {
                Ok((after, l)) if l.is_ascii_alphanumeric() || l == '_' => {
                    self.spelling.backslash_escapes_other = true;
                    Ok((after, ClassAtom::Cp(u32::from(l) % 32)))
                }
                _ => fail(bad_control(at)),
            },
            '0' if !after.starts_with(|c: char| c.is_ascii_digit()) => {
                Ok((after, ClassAtom::Cp(0)))
            }
            '0'..='9' => {
                let digits = after
                    .find(|c: char| !c.is_ascii_digit())
                    .map_or(after, |n| after.get(..n).unwrap_or(after));
                fail(syntax(
                    at,
                    format!("`\\{e}{digits}` at offset {at} inside a character class is a legacy octal escape, which ECMA-262 with the `u` flag does not allow; write the character as `\\xHH` or `\\uHHHH`"),
                ))
            }
            _ => {
                let (after, cp) = self.character_escape(e, after, at, true)?;
                Ok((after, ClassAtom::Cp(cp)))
            }
        }
    }

    /// An escape outside a class, after its backslash.
    fn atom_escape(&mut self, i: &'s str, at: usize) -> PResult<'s, Node> {
        let Ok((after, e)) = anychar::<_, PErr>(i) else {
            return fail(trailing_backslash(at));
        };
        match e {
            'b' => Ok((after, Node::Assertion(Assertion::WordBoundary))),
            'B' => Ok((after, Node::Assertion(Assertion::NotWordBoundary))),
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => Ok((after, Node::ClassEscape(class_escape(e)))),
            'p' | 'P' => {
                let (after, p) = self.property(after, at, e == 'P')?;
                Ok((after, Node::Property(p)))
            }
            'k' => self.named_backreference(after, at),
            'c' => match anychar::<_, PErr>(after) {
                Ok((after, l)) if l.is_ascii_alphabetic() => {
                    self.spelling.backslash_escapes_other = true;
                    Ok((after, Node::Literal(control(l))))
                }
                _ => fail(bad_control(at)),
            },
            '0' if !after.starts_with(|c: char| c.is_ascii_digit()) => {
                Ok((after, Node::Literal('\0')))
            }
            '0'..='9' => self.numbered_backreference(i, at),
            _ => {
                let (after, cp) = self.character_escape(e, after, at, false)?;
                Ok((after, literal(cp)))
            }
        }
    }

    /// `\1`...: a backreference when the group exists, else an error either way (see the
    /// module documentation for why Annex B octal escapes are not accepted).
    fn numbered_backreference(&mut self, i: &'s str, at: usize) -> PResult<'s, Node> {
        let (_, digits) = digit1(i)?;
        let n: u64 = digits.parse().unwrap_or(u64::MAX);
        if digits.starts_with('0') {
            return fail(syntax(
                at,
                format!("`\\{digits}` at offset {at} is a legacy octal escape, which ECMA-262 with the `u` flag does not allow; write the character as `\\xHH` or `\\uHHHH`"),
            ));
        }
        if n <= u64::from(self.captures) {
            return fail(unsupported(
                at,
                "backreference `\\N`",
                UnsupportedReason::Backreference,
            ));
        }
        let groups = self.captures;
        fail(syntax(
            at,
            format!("`\\{digits}` at offset {at} refers to capturing group {n}, but the pattern has {groups}; to match a control character write `\\xHH`, to match the digits write them without the backslash"),
        ))
    }

    fn named_backreference(&mut self, i: &'s str, at: usize) -> PResult<'s, Node> {
        let Ok((_, name)) = preceded(char('<'), group_name).parse(i) else {
            return fail(syntax(
                at,
                format!("`\\k` at offset {at} must be followed by a group name in angle brackets, like `\\k<year>`; to match the letter write `k`"),
            ));
        };
        if self.names.contains(name) {
            return fail(unsupported(
                at,
                "named backreference `\\k<name>`",
                UnsupportedReason::Backreference,
            ));
        }
        fail(syntax(
            at,
            format!("`\\k<{name}>` at offset {at} refers to no group: the pattern has no `(?<{name}>...)`"),
        ))
    }

    /// The escapes a class and the outside share, after the backslash and the letter `e`.
    fn character_escape(
        &mut self,
        e: char,
        after: &'s str,
        at: usize,
        in_class: bool,
    ) -> PResult<'s, CodePoint> {
        let simple = |cp: u32| Ok((after, cp));
        match e {
            't' => simple(0x09),
            'n' => simple(0x0a),
            'r' => simple(0x0d),
            'f' => simple(0x0c),
            'v' => {
                self.spelling.backslash_escapes_other = true;
                simple(0x0b)
            }
            'x' => match take_while_m_n::<_, _, PErr>(2, 2, is_hex)(after) {
                Ok((rest, digits)) => match hex_value(digits) {
                    Some(v) => Ok((rest, v)),
                    None => fail(bad_hex(at)),
                },
                Err(_) => fail(bad_hex(at)),
            },
            'u' => {
                self.spelling.backslash_escapes_other = true;
                self.unicode_escape(after, at)
            }
            c if c.is_ascii_alphanumeric() => fail(unknown_escape(c, at)),
            c => {
                let standard = is_syntax_char(c) || (in_class && c == '-');
                if !standard {
                    self.spelling.backslash_escapes_other = true;
                }
                simple(u32::from(c))
            }
        }
    }

    /// After `\u`: `{H...}`, or `HHHH` possibly followed by `\uHHHH` completing a surrogate pair.
    fn unicode_escape(&mut self, after: &'s str, at: usize) -> PResult<'s, CodePoint> {
        if let Some(braced) = after.strip_prefix('{') {
            let found = take_while1::<_, _, PErr>(is_hex)(braced);
            if let Ok((rest, digits)) = found {
                if let Some(rest) = rest.strip_prefix('}') {
                    return match hex_value(digits).filter(|&v| v <= 0x10_ffff) {
                        Some(v) => Ok((rest, v)),
                        None => fail(syntax(
                            at,
                            format!("`\\u{{{digits}}}` at offset {at} is beyond U+10FFFF, the last Unicode code point"),
                        )),
                    };
                }
            }
            return fail(bad_unicode(at));
        }
        let Ok((rest, unit)) = hex4(after) else {
            return fail(bad_unicode(at));
        };
        if (0xd800..=0xdbff).contains(&unit) {
            if let Ok((rest2, low)) = preceded(tag("\\u"), hex4).parse(rest) {
                if (0xdc00..=0xdfff).contains(&low) {
                    return Ok((rest2, 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)));
                }
            }
        }
        Ok((rest, unit))
    }

    /// After `\p` or `\P`: `{Name}` or `{Name=Value}`, resolved strictly as ECMA-262 does.
    fn property(&mut self, i: &'s str, at: usize, negated: bool) -> PResult<'s, Property> {
        let body: PResult<'s, &str> = delimited(
            char('{'),
            take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '='),
            char('}'),
        )
        .parse(i);
        let Ok((rest, body)) = body else {
            let p = if negated { 'P' } else { 'p' };
            return fail(syntax(
                at,
                format!("`\\{p}` at offset {at} must be followed by a Unicode property in braces, like `\\{p}{{L}}` or `\\{p}{{Script=Greek}}`; to match the letter write `{p}`"),
            ));
        };
        let property = |kind, value| Property {
            negated,
            kind,
            value,
        };
        let resolved = match body.split_once('=') {
            Some((name, v)) => {
                let (kind, value) = match name {
                    "General_Category" | "gc" => {
                        (PropertyKind::GeneralCategory, unicode::general_category(v))
                    }
                    "Script" | "sc" => (PropertyKind::Script, unicode::script(v)),
                    "Script_Extensions" | "scx" => {
                        (PropertyKind::ScriptExtensions, unicode::script(v))
                    }
                    _ => {
                        return fail(syntax(
                            at,
                            format!("`{name}` in `\\p{{{body}}}` at offset {at} is not a property ECMA-262 accepts with a value; use `General_Category`, `Script` or `Script_Extensions` (or `gc`, `sc`, `scx`)"),
                        ))
                    }
                };
                match value {
                    Some(value) => property(kind, value),
                    None => return fail(unknown_property(body, at)),
                }
            }
            None => {
                if let Some(value) = unicode::general_category(body) {
                    property(PropertyKind::GeneralCategory, value)
                } else if let Some(value) = unicode::binary(body) {
                    if value == "Changes_When_NFKC_Casefolded" {
                        return fail(unsupported(
                            at,
                            "Unicode property `\\p{Changes_When_NFKC_Casefolded}`",
                            UnsupportedReason::PropertyUnknownToEngine,
                        ));
                    }
                    property(PropertyKind::Binary, value)
                } else {
                    return fail(unknown_property(body, at));
                }
            }
        };
        Ok((rest, resolved))
    }
}

fn class_escape(e: char) -> ClassEscape {
    let kind = match e.to_ascii_lowercase() {
        'd' => ClassEscapeKind::Digit,
        'w' => ClassEscapeKind::Word,
        _ => ClassEscapeKind::Space,
    };
    ClassEscape {
        kind,
        negated: e.is_ascii_uppercase(),
    }
}

/// `\cX`: the control character whose code is X's modulo 32.
fn control(l: char) -> char {
    char::from_u32(u32::from(l) % 32).unwrap_or('\0')
}

/// A code point outside a class. A lone surrogate can never occur in valid text, so it becomes
/// the class that matches nothing.
fn literal(cp: CodePoint) -> Node {
    match char::from_u32(cp) {
        Some(c) => Node::Literal(c),
        None => Node::Class(Class {
            negated: false,
            items: Vec::new(),
        }),
    }
}

fn push_atom(items: &mut Vec<ClassItem>, atom: ClassAtom) {
    match atom {
        ClassAtom::Cp(cp) => push_range(items, cp, cp),
        ClassAtom::Escape(e) => items.push(ClassItem::Escape(e)),
        ClassAtom::Property(p) => items.push(ClassItem::Property(p)),
    }
}

/// Adds `lo..=hi` minus the surrogates, which valid text never contains.
fn push_range(items: &mut Vec<ClassItem>, lo: u32, hi: u32) {
    let mut add = |lo: u32, hi: u32| {
        if let (Some(lo), Some(hi)) = (char::from_u32(lo), char::from_u32(hi)) {
            if lo <= hi {
                items.push(ClassItem::Range(lo, hi));
            }
        }
    };
    add(lo, hi.min(0xd7ff));
    add(lo.max(0xe000), hi);
}

fn unmatched_paren(at: usize) -> PatternError {
    syntax(
        at,
        format!(
            "`)` at offset {at} closes no group; remove it or write `\\)` to match a parenthesis"
        ),
    )
}

fn unclosed_group(at: usize) -> PatternError {
    syntax(
        at,
        format!("the group opened at offset {at} is never closed; add a `)` or write `\\(` to match a parenthesis"),
    )
}

fn trailing_backslash(at: usize) -> PatternError {
    syntax(
        at,
        format!(
            "the pattern ends with a lone `\\` at offset {at}; write `\\\\` to match a backslash"
        ),
    )
}

fn bad_control(at: usize) -> PatternError {
    syntax(
        at,
        format!("`\\c` at offset {at} must be followed by a letter (`\\cJ` is the control character U+000A); write `\\\\c` to match a backslash and `c`"),
    )
}

fn bad_hex(at: usize) -> PatternError {
    syntax(
        at,
        format!("`\\x` at offset {at} must be followed by exactly two hex digits, like `\\x41`; to match the letter write `x`"),
    )
}

fn bad_unicode(at: usize) -> PatternError {
    syntax(
        at,
        format!("`\\u` at offset {at} must be followed by four hex digits (`\\u00E9`) or a code point in braces (`\\u{{1F600}}`); to match the letter write `u`"),
    )
}

fn unknown_escape(c: char, at: usize) -> PatternError {
    let hint = match c {
        'A' => " (PCRE's start of text: use `^`)",
        'Z' | 'z' => " (PCRE's end of text: use `$`)",
        'h' => " (PCRE's horizontal space: write a class such as `[ \\t]`)",
        'Q' | 'E' => " (PCRE's quoting: escape each special character with `\\` instead)",
        'a' => " (the bell character: write `\\x07`)",
        'e' => " (the escape character: write `\\x1B`)",
        'R' => " (PCRE's line break: write `(?:\\r\\n|[\\n\\r])`)",
        _ => "",
    };
    syntax(
        at,
        format!("`\\{c}` at offset {at} is not an ECMA-262 escape{hint}; to match the character `{c}` write it without the backslash"),
    )
}

fn unknown_property(body: &str, at: usize) -> PatternError {
    let name = body.rsplit_once('=').map_or(body, |(_, v)| v);
    let hint = unicode::suggest(name)
        .map(|s| format!("; did you mean `\\p{{{s}}}`?"))
        .unwrap_or_default();
    syntax(
        at,
        format!("`\\p{{{body}}}` at offset {at} names no Unicode property ECMA-262 knows; spell it exactly as ECMA-262 does (case and underscores matter), e.g. `L`, `Letter`, `Script=Latin`, `Alphabetic`{hint}"),
    )
}
