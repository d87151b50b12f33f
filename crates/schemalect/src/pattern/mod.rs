//! ECMA-262 `pattern`s on a linear-time engine.
//!
//! JSON Schema says `pattern` is an ECMA-262 regular expression, matched anywhere in the string.
//! Schemas come from untrusted sources, so patterns run on the `regex` crate, whose matching
//! time is linear in the input; a backtracking engine would let one schema hang a gateway
//! (`^(a+)+$`). The price is that look-around and backreferences, which no linear-time engine
//! can run, are rejected with [`PatternError::Unsupported`]; the one exception is look-aheads
//! right after a leading `^` (`^(?!\.)[^@]+@.+`, as zod's `email()` writes), each of which is
//! a separate anchored match ([`Pattern::look_aheads`]).
//!
//! The pattern is parsed by an ECMA-262 front end ([`Ast`]) and translated construct by
//! construct, because the `regex` crate's own syntax gives `\d`, `\w`, `\s`, `\b`, `.` and `$`
//! different meanings. See `parse.rs` for the accepted dialect (Unicode mode plus the Annex B
//! leniencies real schemas use).
//!
//! ```
//! use schemalect::pattern::Pattern;
//!
//! let p = Pattern::compile(r"^\d{3}-\w+$", 4096)?;
//! assert!(p.is_match("123-abc"));
//! assert!(!p.is_match("١٢٣-abc")); // Arabic-Indic digits are not ECMA-262 `\d`
//! assert!(p.features().anchored_start && p.features().class_escapes);
//! assert_eq!(p.portable(), "^[0-9]{3}-[0-9A-Z_a-z]+$");
//! # Ok::<(), schemalect::pattern::PatternError>(())
//! ```

use std::borrow::Cow;
use std::fmt;

mod ast;
mod engine;
mod features;
mod parse;
pub mod programs;
mod render;
mod simple;
mod translate;
mod unicode;

#[cfg(test)]
mod tests;

pub use ast::{
    Assertion, Ast, Class, ClassEscape, ClassEscapeKind, ClassItem, Group, GroupKind, Node,
    Property, PropertyKind, Repeat, DIGIT, LINE_TERMINATORS, SPACE, WORD,
};
pub use features::{Features, CLAUDE_MAX_REPETITION};
pub use parse::MAX_DEPTH;

/// Most bytes the engine may spend compiling one pattern (the `regex` crate's default, made
/// explicit so errors can name it). Counted repetitions are compiled by copying, so this is
/// what bounds `(?:a{1000}){1000}`. Patterns in schemas have a lower bound of their own,
/// derived from the work budget ([`Pattern::compile_with`]).
pub const ENGINE_SIZE_LIMIT: usize = 10 * (1 << 20);

/// The string length, in bytes, that every pattern of a schema must be able to match within
/// the work floor ([`Limits::work_floor`](crate::Limits::work_floor)) on the engine's slowest
/// path. This bounds a pattern's compiled size: at the default floor, about 1.9 MB of
/// program, against 109 KB for the largest of the shared corpus's 2,822 patterns.
pub const SHORT_STRING: u64 = 64;

/// Most bytes of lazy DFA states one pattern may cache while matching (the `regex` crate's
/// default is 2 MiB). Matching runs on the lazy DFA, one table step per input byte, while the
/// states a string visits fit this cache; when they do not, the engine falls back to
/// simulating the NFA at one step per NFA state per byte, which made a 4,001-character
/// pattern cost 121 s on 2 MiB of strings (docs/security.md, finding 9). 8 MiB holds the
/// states of every pattern within [`Limits`](crate::Limits) that the adversarial suite tries,
/// and is allocated only as a pattern's matches need it.
pub const ENGINE_DFA_CACHE: usize = 8 * (1 << 20);

/// What one work step of matching covers: one byte of string times this many bytes of
/// compiled program. When the engine's lazy DFA cannot keep a pattern's states (a few bytes of
/// pattern are enough: `(?:a|b)*a(?:a|b){20}c`), matching costs up to about a nanosecond per
/// byte of string per byte of compiled program (measured: docs/security.md, finding 9), so
/// the budget charges that, whatever the pattern does on a given string.
pub const ENGINE_BYTES_PER_STEP: u64 = 32;

/// The most a pattern of the simple anchored shape may weigh (`simple::Simple::engine_weight`:
/// its characters, and the ranges past ASCII of each character's set) and still be matched
/// without ever being compiled for the engine, which it never runs on. Compiling costs a parse
/// about 120,000 instructions per pattern however short (more than half of the 220,000 that
/// `lower` to two targets spends on the corpus's average in-subset file). Within this weight every such row compiles to
/// at most about 400 KB of program, below the engine's size limit and the default work
/// floor's bound on a program (a unit test compiles the widest sets at the bound), so
/// skipping the compilation changes no verdict at the default limits; past it the pattern is
/// compiled as before, so a huge count is still refused.
const SIMPLE_WEIGHT_WITHOUT_ENGINE: u64 = 4_000;

/// A compiled `pattern`.
#[derive(Clone)]
pub struct Pattern {
    source: Box<str>,
    /// The pattern without its leading look-aheads.
    ast: Ast,
    matcher: Matcher,
    /// The translation the engine runs.
    translated: Box<str>,
    features: Features,
    /// The look-aheads right after the leading `^`, each matched on its own.
    look_aheads: Box<[LookAhead]>,
    /// Byte offset in `source` just past the last look-ahead (0 without one).
    rest_at: usize,
}

/// One look-ahead right after a pattern's leading `^`: `(?=body)` holds of a string exactly
/// when `^(?:body)` matches it, `(?!body)` when that does not. The rest of the pattern then
/// matches from the same position, the start, so the pattern matches exactly when the rest
/// (with its `^`) does and every look-ahead holds.
#[derive(Clone)]
pub struct LookAhead {
    negative: bool,
    body: Ast,
    matcher: Matcher,
}

impl fmt::Debug for LookAhead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LookAhead")
            .field("negative", &self.negative)
            .field("body", &self.body)
            .finish()
    }
}

impl LookAhead {
    /// True for `(?!`.
    pub fn negative(&self) -> bool {
        self.negative
    }

    /// What it looks for.
    pub fn body(&self) -> &Ast {
        &self.body
    }
}

/// What runs a pattern's matches.
#[derive(Clone)]
enum Matcher {
    /// The common anchored shape, which needs no engine.
    Simple(simple::Simple),
    /// Anything else.
    Engine(engine::Engine),
}

impl Matcher {
    /// The matcher for `ast` (`translated` is its translation), whose program may take at
    /// most `left` bytes, then less by what it took.
    fn of(ast: &Ast, translated: &str, left: &mut usize) -> Result<Matcher, PatternError> {
        let mut engine = || {
            // Each group level costs at most two engine nesting levels (group and
            // repetition) plus one for a nested class; the parser bounds the levels.
            let engine = engine::Engine::build(
                translated,
                u32::try_from(4 * MAX_DEPTH + 16).unwrap_or(u32::MAX),
                *left,
            )?;
            *left = left.saturating_sub(engine.compiled_size());
            Ok::<_, PatternError>(engine)
        };
        Ok(match simple::Simple::of(ast) {
            Some(simple) => {
                if simple.engine_weight() > SIMPLE_WEIGHT_WITHOUT_ENGINE {
                    // Compiled for the verdict on its size only: it never runs.
                    engine()?;
                }
                Matcher::Simple(simple)
            }
            None => Matcher::Engine(engine()?),
        })
    }

    #[inline]
    fn is_match(&self, haystack: &str, charge: impl FnMut(u64) -> bool) -> bool {
        match self {
            Matcher::Simple(simple) => simple.is_match(haystack),
            Matcher::Engine(engine) => engine.is_match(haystack, charge),
        }
    }

    fn compiled_size(&self) -> usize {
        match self {
            Matcher::Simple(_) => 0,
            Matcher::Engine(engine) => engine.compiled_size(),
        }
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

/// Why a pattern cannot be used. Every message is a sentence that says what to change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// Longer than the limit.
    #[error("pattern is {len} characters long, over the limit of {max}; raise `Limits::max_pattern_len` (CLI: `--max-pattern-len`) if the schema is trusted")]
    TooLong {
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Not a valid ECMA-262 regular expression (in the dialect described in the module docs).
    #[error("invalid ECMA-262 regular expression: {message}")]
    Syntax {
        /// Byte offset in the pattern.
        offset: usize,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// Valid ECMA-262 that cannot run on the linear-time engine.
    #[error("{construct} at offset {offset} {reason}")]
    Unsupported {
        /// Byte offset in the pattern.
        offset: usize,
        /// The construct, as written in patterns (for example "look-ahead `(?=`").
        construct: &'static str,
        /// Why it cannot be accepted.
        reason: UnsupportedReason,
    },
    /// Groups nested deeper than [`MAX_DEPTH`].
    #[error("groups are nested more than {max} deep at offset {offset}; flatten the pattern (nesting that deep is almost always generated by mistake)")]
    TooDeep {
        /// Byte offset of the group that is one too deep.
        offset: usize,
        /// The limit.
        max: usize,
    },
    /// Compiles to more than a schema's work budget can match on a short string (see
    /// [`Pattern::compile_with`]).
    #[error("pattern is too costly to match: it compiles to more than {max} bytes of program, the most with which a string of {SHORT_STRING} bytes can still be matched within the work floor of {floor} steps when the engine's lazy DFA gives up (about a nanosecond per byte of string per byte of program); this is usually a large `{{n,m}}` bound over a Unicode class or a group: lower the bounds or narrow the class, or raise `Limits::work_floor` (`Limits::with_work_floor`) if the schema is trusted")]
    TooCostly {
        /// The largest compiled size the budget allows, in bytes.
        max: usize,
        /// [`Limits::work_floor`](crate::Limits::work_floor) in force.
        floor: u64,
    },
    /// Would compile to more than [`ENGINE_SIZE_LIMIT`] bytes.
    #[error("pattern is too large for the linear-time engine: it compiles to more than {size_limit} bytes, usually because of a large `{{n,m}}` bound or nested repetitions that multiply; lower the bounds or use `*` or `+`")]
    TooComplex {
        /// The engine's size budget in bytes.
        size_limit: usize,
    },
    /// The engine rejected the translation; a bug in this module.
    #[error("the linear-time engine rejected the translated pattern ({message}); this is a schemalect bug, please report it together with the pattern")]
    Engine {
        /// What the engine said.
        message: String,
    },
}

impl PatternError {
    /// Byte offset of the problem in the pattern, when it has one place.
    pub fn offset(&self) -> Option<usize> {
        match self {
            PatternError::Syntax { offset, .. }
            | PatternError::Unsupported { offset, .. }
            | PatternError::TooDeep { offset, .. } => Some(*offset),
            PatternError::TooLong { .. }
            | PatternError::TooComplex { .. }
            | PatternError::TooCostly { .. }
            | PatternError::Engine { .. } => None,
        }
    }
}

/// Why valid ECMA-262 is refused; its `Display` completes the sentence of
/// [`PatternError::Unsupported`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UnsupportedReason {
    /// `(?<=`, `(?<!`.
    LookAround,
    /// `(?=`, `(?!` anywhere but right after a leading `^` (see [`Pattern::look_aheads`]).
    LookAheadPlacement,
    /// `\1`, `\k<name>`.
    Backreference,
    /// `(?i:...)` and other ES2025 modifier groups.
    Modifiers,
    /// A property ECMA-262 knows but the engine's Unicode tables lack.
    PropertyUnknownToEngine,
}

impl fmt::Display for UnsupportedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UnsupportedReason::LookAround => "cannot run on a linear-time engine; the subset does not accept look-behind — rewrite the pattern without it",
            UnsupportedReason::LookAheadPlacement => "cannot run on a linear-time engine here: a look-ahead is accepted only right after a leading `^`, with no `|` outside groups (`^(?!…)…`, checked as a separate anchored match) — move it there or rewrite the pattern without it",
            UnsupportedReason::Backreference => "cannot run on a linear-time engine; the subset does not accept backreferences — repeat the referenced group's pattern instead (it then need not match the same text)",
            UnsupportedReason::Modifiers => "changes flags inside the pattern, which the subset does not accept (JSON Schema patterns have no flags) — spell the alternatives out, e.g. `[Aa]` for a case-insensitive `a`",
            UnsupportedReason::PropertyUnknownToEngine => "is valid ECMA-262 but missing from the linear-time engine's Unicode tables — use a General_Category, Script or other binary property instead",
        })
    }
}

impl Pattern {
    /// Compiles a schema's pattern within `limits`: at most [`Limits::max_pattern_len`]
    /// characters, and a compiled program small enough that a string of [`SHORT_STRING`]
    /// bytes can be matched within [`Limits::work_floor`] steps even when the engine's lazy
    /// DFA gives up (each step of that path covers one byte of string per
    /// [`ENGINE_BYTES_PER_STEP`] bytes of program); past it, [`PatternError::TooCostly`].
    ///
    /// [`Limits::max_pattern_len`]: crate::Limits::max_pattern_len
    /// [`Limits::work_floor`]: crate::Limits::work_floor
    pub fn compile_with(source: &str, limits: &crate::Limits) -> Result<Pattern, PatternError> {
        let affordable =
            limits.work_floor.saturating_mul(ENGINE_BYTES_PER_STEP) / (SHORT_STRING + 1);
        let max = usize::try_from(affordable).unwrap_or(usize::MAX);
        if max >= ENGINE_SIZE_LIMIT {
            return Pattern::compile(source, limits.max_pattern_len);
        }
        Pattern::build(source, limits.max_pattern_len, max).map_err(|e| match e {
            PatternError::TooComplex { .. } => PatternError::TooCostly {
                max,
                floor: limits.work_floor,
            },
            other => other,
        })
    }

    /// Compiles an ECMA-262 pattern of at most `max_len` characters, within the engine's
    /// size limit ([`ENGINE_SIZE_LIMIT`]).
    pub fn compile(source: &str, max_len: usize) -> Result<Pattern, PatternError> {
        Pattern::build(source, max_len, ENGINE_SIZE_LIMIT)
    }

    fn build(source: &str, max_len: usize, size_limit: usize) -> Result<Pattern, PatternError> {
        let len = source.chars().count();
        if len > max_len {
            return Err(PatternError::TooLong { len, max: max_len });
        }
        let parse::Parsed {
            ast,
            spelling,
            look_aheads,
        } = parse::parse(source)?;
        // The programs of a pattern share its size limit: matching runs each of them.
        let mut left = size_limit;
        let translated = translate::to_regex(&ast);
        let matcher = Matcher::of(&ast, &translated, &mut left)?;
        let rest_at = look_aheads.last().map_or(0, |l| l.end);
        let look_aheads = look_aheads
            .into_iter()
            .map(|part| {
                let anchored = Ast {
                    root: Node::Concat(vec![
                        Node::Assertion(Assertion::Start),
                        Node::Group(Box::new(Group {
                            kind: GroupKind::NonCapturing,
                            node: part.body.clone(),
                        })),
                    ]),
                    captures: ast.captures,
                };
                let matcher = Matcher::of(&anchored, &translate::to_regex(&anchored), &mut left)?;
                Ok(LookAhead {
                    negative: part.negative,
                    body: Ast {
                        root: part.body,
                        captures: ast.captures,
                    },
                    matcher,
                })
            })
            .collect::<Result<Box<[_]>, PatternError>>()?;
        let mut features = Features::of(&ast, spelling);
        features.look_ahead = !look_aheads.is_empty();
        Ok(Pattern {
            source: source.into(),
            ast,
            matcher,
            translated: translated.into_boxed_str(),
            features,
            look_aheads,
            rest_at,
        })
    }

    /// The source text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True when the pattern matches somewhere in `haystack` (JSON Schema patterns are not
    /// implicitly anchored).
    ///
    /// What matching costs beyond a pass over the string (the lazy DFA's states built, an NFA
    /// simulation) is charged to the work budget of the operation in progress, if any.
    pub fn is_match(&self, haystack: &str) -> bool {
        self.is_match_charging(haystack, crate::budget::charge)
    }

    /// [`Pattern::is_match`], charging what matching costs beyond a pass over the string to
    /// `charge` instead: a validation walk hands its meter, so that the meter counts all of
    /// the walk's work and the walk can run without the thread's budget installed
    /// (`Plan::detached_budget`). `charge` answers false once the steps cannot be paid; the
    /// answer is then "no match". The simple matcher charges nothing: its cost is the pass
    /// over the string, which the caller pays.
    #[inline]
    pub(crate) fn is_match_charging(
        &self,
        haystack: &str,
        charge: impl FnMut(u64) -> bool,
    ) -> bool {
        if self.look_aheads.is_empty() {
            return self.matcher.is_match(haystack, charge);
        }
        // One meter for every program, lent to each in turn. The caller pays one pass over
        // the string; each look-ahead is another, paid here before it runs.
        let mut charge = charge;
        let pass = crate::budget::string_cost(haystack).saturating_add(1);
        self.matcher.is_match(haystack, &mut charge)
            && self
                .look_aheads
                .iter()
                .all(|l| charge(pass) && l.matcher.is_match(haystack, &mut charge) != l.negative)
    }

    /// The look-aheads right after the leading `^` (`^(?=.*@)(?!\.)…`), which every
    /// rendering leaves out: [`Pattern::ast`] and [`Features`] describe the rest, and a
    /// provider that is sent [`Pattern::sendable`] enforces only that (a loss).
    pub fn look_aheads(&self) -> &[LookAhead] {
        &self.look_aheads
    }

    /// True when the pattern is nothing but look-aheads after its `^` (`^(?!\\s*$)`): what
    /// is left without them matches every string, so sending it would say nothing.
    pub fn look_aheads_only(&self) -> bool {
        !self.look_aheads.is_empty() && self.ast.root == Node::Assertion(Assertion::Start)
    }

    /// The syntax features the pattern uses.
    pub fn features(&self) -> &Features {
        &self.features
    }

    /// The parsed pattern.
    pub fn ast(&self) -> &Ast {
        &self.ast
    }

    /// The pattern as the `regex` crate runs it, for debugging translations (without its
    /// leading look-aheads, which run as programs of their own).
    pub fn engine_pattern(&self) -> &str {
        &self.translated
    }

    /// Heap bytes of the compiled program the engine runs (0 for a pattern matched without
    /// the engine).
    pub fn compiled_size(&self) -> usize {
        std::iter::once(&self.matcher)
            .chain(self.look_aheads.iter().map(|l| &l.matcher))
            .map(Matcher::compiled_size)
            .sum()
    }

    /// The pattern re-emitted as canonical ECMA-262 (Unicode mode): same constructs and
    /// meaning, one spelling per character, no Annex B leniencies, so stricter ECMA-262
    /// engines (JavaScript with the `u` flag) accept it too.
    pub fn to_ecma_string(&self) -> String {
        let rest = render::render(&self.ast, render::Style::Canonical);
        if self.look_aheads.is_empty() {
            return rest;
        }
        // The rest starts with the leading `^` the look-aheads follow.
        let mut out = String::from("^");
        for l in self.look_aheads.iter() {
            out.push_str(if l.negative { "(?!" } else { "(?=" });
            out.push_str(&render::render(&l.body, render::Style::Canonical));
            out.push(')');
        }
        out.push_str(rest.strip_prefix('^').unwrap_or(&rest));
        out
    }

    /// The text to send a provider that takes ECMA-262-like patterns as written: the source
    /// without its leading look-aheads ([`Pattern::look_aheads`]; no provider's engine runs
    /// them), unless it has a class range with a class escape at an end (`[\w-.]`,
    /// [`Features::class_escape_range`]), which only ECMA-262's Annex B reads; then the
    /// canonical rendering of the same, which means the same and spells the `-` as `\-`.
    pub fn sendable(&self) -> Cow<'_, str> {
        if self.features.class_escape_range {
            Cow::Owned(render::render(&self.ast, render::Style::Canonical))
        } else if self.look_aheads.is_empty() {
            Cow::Borrowed(&self.source)
        } else {
            let rest = self.source.get(self.rest_at..).unwrap_or("");
            Cow::Owned(format!("^{rest}"))
        }
    }

    /// The pattern re-emitted for engines that read `\d \w \s` (and `.`, `[^]`, named groups,
    /// lazy quantifiers) differently or not at all: those are spelled out as explicit classes
    /// or plain syntax with identical meaning. Anchors, `\b` and `\p{..}` stay; check
    /// [`Features`] for them.
    pub fn portable(&self) -> String {
        render::render(&self.ast, render::Style::Portable)
    }

    /// The pattern re-emitted for llama.cpp's JSON-schema-to-grammar converter (Ollama): the
    /// portable rendering, written so that the GBNF the converter copies it into parses (only
    /// the escapes GBNF reads, `^` and `-` never special by position in a class, plain groups),
    /// and anchored as one `^(...)$` even when every alternative carries its own anchors. `None`
    /// when no such rendering means the same: an anchor elsewhere, a way through the pattern
    /// without its edge anchors, a word boundary or a Unicode property.
    pub fn grammar(&self) -> Option<String> {
        render::grammar(&self.ast)
    }
}
