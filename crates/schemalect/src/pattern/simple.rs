//! A matcher without the engine for the commonest shape of schema pattern: anchored at the
//! start, then a row of character sets each taken a number of times (`^INV-[0-9]{4,}$`,
//! `^[a-z_]+$`, `^\d{3}-\d{4}$`).
//!
//! The engine pays for a search set-up on every call (a cache from its pool, a lazy DFA), which
//! costs more than reading the few characters these patterns need; such a pattern also usually
//! fails on its first character. The shape is recognised on the parsed pattern, so it has the
//! ECMA-262 meaning of every construct (`\d` is `[0-9]`, `.` stops at line terminators, `$` is
//! the end of the input only), and it is matched over code points, as the engine's translation
//! is. Only rows that need no backtracking qualify: after a step of variable count, the next
//! step must take at least one character and share none with it, so taking as many as possible
//! is the only count that can lead to a match. Anything else runs on the engine.

use super::ast::{in_ranges, Assertion, Ast, Class, ClassItem, Node, LINE_TERMINATORS};

/// A set of code points: a bitmap for ASCII (two words, which index faster than one `u128`
/// shifts), sorted disjoint ranges for the rest.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Set {
    ascii: [u64; 2],
    ranges: Box<[(char, char)]>,
}

/// Largest code point.
const MAX_CHAR: u32 = 0x10_FFFF;

impl Set {
    /// The set of the code point ranges `ranges` (any order, may overlap), complemented when
    /// `negated`.
    fn of(mut ranges: Vec<(u32, u32)>, negated: bool) -> Set {
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (lo, hi) in ranges {
            match merged.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        if negated {
            let mut next = 0;
            let mut complement = Vec::with_capacity(merged.len() + 1);
            for (lo, hi) in merged {
                if lo > next {
                    complement.push((next, lo - 1));
                }
                next = hi.saturating_add(1);
            }
            if next <= MAX_CHAR {
                complement.push((next, MAX_CHAR));
            }
            merged = complement;
        }
        let mut ascii = [0u64; 2];
        for &(lo, hi) in &merged {
            for c in lo..=hi.min(127) {
                if let Some(word) = ascii.get_mut(c as usize / 64) {
                    *word |= 1 << (c % 64);
                }
            }
        }
        // Surrogates are no `char` and never occur in text: a range is cut around them.
        let ranges = merged
            .iter()
            .flat_map(|&(lo, hi)| [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)])
            .filter(|(lo, hi)| lo <= hi && *hi >= 128)
            .filter_map(|(lo, hi)| Some((char::from_u32(lo.max(128))?, char::from_u32(hi)?)))
            .collect();
        Set { ascii, ranges }
    }

    fn contains(&self, c: char) -> bool {
        match u32::from(c) {
            a @ 0..=127 => self.has_ascii(a as u8),
            _ => in_ranges(&self.ranges, c),
        }
    }

    /// The byte length of the character at byte `at` of `text` when the set has it; `None`
    /// at the end of the text or for a character outside. ASCII is decided on its byte.
    #[inline(always)]
    fn width_at(&self, text: &str, at: usize) -> Option<usize> {
        let byte = *text.as_bytes().get(at)?;
        if byte.is_ascii() {
            return self.has_ascii(byte).then_some(1);
        }
        let c = text.get(at..)?.chars().next()?;
        self.contains(c).then(|| c.len_utf8())
    }

    /// True when the set has the ASCII character `byte` (false for any other byte).
    #[inline(always)]
    fn has_ascii(&self, byte: u8) -> bool {
        self.ascii
            .get(usize::from(byte) / 64)
            .is_some_and(|w| (w >> (byte % 64)) & 1 != 0)
    }

    /// The set as code point ranges, for a union.
    fn spans(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..128u32)
            .filter(|c| self.has_ascii(*c as u8))
            .map(|c| (c, c))
            .chain(
                self.ranges
                    .iter()
                    .map(|&(lo, hi)| (u32::from(lo), u32::from(hi))),
            )
    }

    fn disjoint(&self, other: &Set) -> bool {
        self.ascii.iter().zip(&other.ascii).all(|(a, b)| a & b == 0)
            && self
                .ranges
                .iter()
                .all(|&(lo, hi)| !other.ranges.iter().any(|&(l, h)| l <= hi && lo <= h))
    }
}

/// One step of the row: a character of `set`, `min` to `max` times.
#[derive(Clone, Debug)]
struct Step {
    set: Set,
    min: u64,
    /// `u64::MAX` for no limit: more than any text has characters.
    max: u64,
}

/// A pattern of the shape described in the module documentation.
#[derive(Clone, Debug)]
pub(crate) struct Simple {
    /// The leading literal characters, compared as bytes at once.
    prefix: Box<str>,
    steps: Box<[Step]>,
    /// True when the pattern ends with `$`: the steps must take the whole input.
    to_end: bool,
}

impl Simple {
    /// The matcher for `ast`, when it has the shape.
    pub(crate) fn of(ast: &Ast) -> Option<Simple> {
        let items = match &ast.root {
            Node::Concat(items) => items.as_slice(),
            other => std::slice::from_ref(other),
        };
        let (Node::Assertion(Assertion::Start), rest) = items.split_first()? else {
            return None;
        };
        let (rest, to_end) = match rest.split_last() {
            Some((Node::Assertion(Assertion::End), before)) => (before, true),
            _ => (rest, false),
        };
        let literals = rest.iter().take_while(|n| matches!(n, Node::Literal(_)));
        let prefix: String = literals
            .clone()
            .filter_map(|n| match n {
                Node::Literal(c) => Some(*c),
                _ => None,
            })
            .collect();
        let rest = rest.get(literals.count()..)?;
        let steps: Vec<Step> = rest.iter().map(step).collect::<Option<_>>()?;
        let never_backtracks = steps.windows(2).all(|w| match w {
            [a, b] => a.min == a.max || (b.min > 0 && a.set.disjoint(&b.set)),
            _ => true,
        });
        never_backtracks.then(|| Simple {
            prefix: prefix.into(),
            steps: steps.into_boxed_slice(),
            to_end,
        })
    }

    /// What compiling the row for the engine would grow with: each character it spells out
    /// (its prefix, each bounded step's most, each unbounded step's least plus one) counted
    /// once, plus once per range of code points past ASCII in that step's set. The engine
    /// compiles about one copy of a step's set per character, and a copy of a set grows with
    /// its ranges (their UTF-8 sequences); ASCII costs one state however it is split.
    pub(crate) fn engine_weight(&self) -> u64 {
        let prefix = self.prefix.chars().count() as u64;
        self.steps.iter().fold(prefix, |sum, step| {
            let copies = match step.max {
                u64::MAX => step.min.saturating_add(1),
                max => max,
            };
            let per_copy = (step.set.ranges.len() as u64).saturating_add(1);
            sum.saturating_add(copies.saturating_mul(per_copy))
        })
    }

    /// True when the pattern matches `haystack` (at its start, as it is anchored there).
    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        if !haystack.starts_with(&*self.prefix) {
            return false;
        }
        let mut at = self.prefix.len();
        for step in self.steps.iter() {
            let mut taken = 0;
            while taken < step.max {
                match step.set.width_at(haystack, at) {
                    Some(width) => at += width,
                    None => break,
                }
                taken += 1;
            }
            if taken < step.min {
                return false;
            }
        }
        !self.to_end || at == haystack.len()
    }
}

/// A step for one item of the row: a set, or a set repeated.
fn step(node: &Node) -> Option<Step> {
    match node {
        Node::Repeat(r) => Some(Step {
            set: set(&r.node)?,
            min: u64::from(r.min),
            max: r.max.map_or(u64::MAX, u64::from),
        }),
        other => Some(Step {
            set: set(other)?,
            min: 1,
            max: 1,
        }),
    }
}

/// The code points one character of `node` may be, when it is a single-character node whose
/// set is known here (properties are left to the engine's tables).
fn set(node: &Node) -> Option<Set> {
    match node {
        Node::Literal(c) => Some(Set::of(vec![(u32::from(*c), u32::from(*c))], false)),
        Node::Dot => Some(Set::of(code_points(LINE_TERMINATORS), true)),
        Node::ClassEscape(e) => Some(Set::of(code_points(e.kind.ranges()), e.negated)),
        Node::Class(Class { negated, items }) => {
            let mut all = Vec::new();
            for item in items {
                match item {
                    ClassItem::Range(lo, hi) => all.push((u32::from(*lo), u32::from(*hi))),
                    ClassItem::Escape(e) => {
                        let members = Set::of(code_points(e.kind.ranges()), e.negated);
                        all.extend(members.spans());
                    }
                    ClassItem::Property(_) => return None,
                }
            }
            Some(Set::of(all, *negated))
        }
        _ => None,
    }
}

fn code_points(ranges: &[(char, char)]) -> Vec<(u32, u32)> {
    ranges
        .iter()
        .map(|&(lo, hi)| (u32::from(lo), u32::from(hi)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;
    use proptest::prelude::*;

    fn both(source: &str) -> (Simple, regex::Regex) {
        let pattern = Pattern::compile(source, 4096).unwrap_or_else(|e| panic!("{source}: {e}"));
        let simple = Simple::of(pattern.ast()).unwrap_or_else(|| panic!("{source}: not simple"));
        let engine = regex::Regex::new(pattern.engine_pattern()).unwrap_or_else(|e| panic!("{e}"));
        (simple, engine)
    }

    /// Texts around the patterns below: digits, ASCII and Unicode letters and digits, line
    /// terminators, a character outside the BMP.
    const TEXTS: &[&str] = &[
        "",
        "I",
        "INV-",
        "INV-123",
        "INV-1234",
        "INV-12345",
        "INV-1234\n",
        "INV-1234x",
        "xINV-1234",
        "inv-1234",
        "INV-١٢٣٤",
        "20417",
        "a",
        "abc",
        "abc_",
        "ab-c",
        "é",
        "a\u{2028}",
        "\n",
        "\r\n",
        "0",
        "007",
        "123-4567",
        "123-456",
        "1234-567",
        " ",
        "\u{a0}",
        "\u{feff}",
        "𝒳",
        "a𝒳b",
        "Zz9_",
        "é𝒳-",
        "é𝒳-12",
        "é𝒳",
        "a.b",
        "axb",
        "--",
        "a-",
        "-a",
        "aaa",
        "aaaa",
        "AB12",
        "ab12cd",
    ];

    #[test]
    fn agrees_with_the_engine_on_the_usual_shapes() {
        for source in [
            r"^INV-[0-9]{4,}$",
            r"^[a-z_]+$",
            r"^\d{3}-\d{4}$",
            r"^\d+",
            r"^[^\s]*$",
            r"^\w{2,3}$",
            r"^.{0,3}$",
            r"^.*",
            r"^[\d\-]{2}",
            r"^[^\D]+$",
            r"^[A-Z]{2}\d+[a-z]+$",
            r"^$",
            r"^",
            r"^a?-$",
            r"^[\s\S]+$",
            r"^[^]?$",
            r"^[]$",
            r"^[é-ü𝒳]+$",
            r"^é𝒳-\d*$",
            r"^INV-",
            r"^abc$",
            r"^a\.b",
        ] {
            let (simple, engine) = both(source);
            for text in TEXTS {
                assert_eq!(
                    simple.is_match(text),
                    engine.is_match(text),
                    "{source} on {text:?}"
                );
            }
        }
    }

    #[test]
    fn shapes_that_need_backtracking_or_a_search_are_left_to_the_engine() {
        for source in [
            r"^a*a$",
            r"^[0-9]{2,3}[0-9]$",
            r"^a*b?a$",
            r"^\d+[a-z]*$",
            r"^.*x$",
            r"INV-[0-9]+$",
            r"^(?:ab)+$",
            r"^a|b$",
            r"^\p{L}+$",
            r"^a\b",
            r"^a$b",
        ] {
            let pattern = Pattern::compile(source, 4096).unwrap_or_else(|e| panic!("{e}"));
            assert!(Simple::of(pattern.ast()).is_none(), "{source}");
        }
    }

    #[test]
    fn sets_complement_across_the_surrogates() {
        let not_a = Set::of(vec![(u32::from('a'), u32::from('a'))], true);
        assert!(!not_a.contains('a') && not_a.contains('b') && not_a.contains('\u{10FFFF}'));
        assert!(not_a.contains('\u{D7FF}') && not_a.contains('\u{E000}'));
        assert!(Set::of(Vec::new(), true).contains('\u{0}'));
        assert!(!Set::of(Vec::new(), false).contains('\u{0}'));
    }

    /// An atom of the generated patterns, in ECMA-262 syntax.
    fn atom() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "a", "b", "-", "é", "\\d", "\\D", "\\w", "\\s", ".", "[ab]", "[^a]", "[a-c\\d]",
            "[^\\s]", "[\\w-]", "[]", "[^]", "\\.", "\\u2028",
        ])
    }

    fn quantifier() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "{2,3}"])
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                'a', 'b', 'c', '-', '0', '7', 'é', ' ', '\n', '\u{2028}', '.', '𝒳', '_',
            ]),
            0..8,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn agrees_with_the_engine_on_generated_rows(
            row in prop::collection::vec((atom(), quantifier()), 0..4),
            to_end in any::<bool>(),
            texts in prop::collection::vec(text(), 16),
        ) {
            let body: String = row.iter().map(|(a, q)| format!("{a}{q}")).collect();
            let source = format!("^{body}{}", if to_end { "$" } else { "" });
            let pattern = Pattern::compile(&source, 4096);
            prop_assert!(pattern.is_ok(), "{source}: {pattern:?}");
            let pattern = pattern.unwrap();
            let engine = regex::Regex::new(pattern.engine_pattern());
            prop_assert!(engine.is_ok());
            let engine = engine.unwrap();
            if let Some(simple) = Simple::of(pattern.ast()) {
                for text in &texts {
                    prop_assert_eq!(simple.is_match(text), engine.is_match(text), "{} on {:?}", source, text);
                }
            }
        }
    }
}
