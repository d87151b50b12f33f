//! Tests of the ECMA-262 front end, the translation, the features and the renderings.
//!
//! Besides hand-written cases, an independent backtracking matcher written straight from the
//! ECMA-262 matching semantics ([`oracle`]) checks the engine translation and both renderings on
//! generated patterns.

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;

use super::simple::Simple;
use super::*;

const MAX: usize = 4096;

fn compile(p: &str) -> Pattern {
    match Pattern::compile(p, MAX) {
        Ok(c) => c,
        Err(e) => panic!("{p:?} does not compile: {e}"),
    }
}

fn m(p: &str, s: &str) -> bool {
    compile(p).is_match(s)
}

fn err(p: &str) -> PatternError {
    match Pattern::compile(p, MAX) {
        Ok(c) => panic!("{p:?} compiled to {:?}", c.engine_pattern()),
        Err(e) => e,
    }
}

/// The message of a syntax error, after checking its offset.
fn syntax_at(p: &str, offset: usize) -> String {
    match err(p) {
        PatternError::Syntax { offset: o, message } => {
            assert_eq!(o, offset, "offset of the error in {p:?}: {message}");
            message
        }
        other => panic!("{p:?}: expected a syntax error, got {other:?}"),
    }
}

fn root(p: &str) -> Node {
    compile(p).ast().root.clone()
}

// ---------------------------------------------------------------------------------------------
// Parsing: every construct.

#[test]
fn parses_literals_concatenation_and_alternation() {
    assert_eq!(root(""), Node::Empty);
    assert_eq!(root("a"), Node::Literal('a'));
    assert_eq!(
        root("ab|c|"),
        Node::Alternation(vec![
            Node::Concat(vec![Node::Literal('a'), Node::Literal('b')]),
            Node::Literal('c'),
            Node::Empty,
        ])
    );
    assert!(m("ab|c", "xcx"));
    assert!(m("a|", "zzz"), "an empty alternative matches everywhere");
    assert!(!m("ab|cd", "ac"));
}

#[test]
fn parses_groups() {
    let ast = compile("(a)(?:b)(?<year>c)(d)").ast().clone();
    assert_eq!(ast.captures, 3);
    let Node::Concat(items) = ast.root else {
        panic!("not a concatenation")
    };
    let kinds: Vec<GroupKind> = items
        .iter()
        .map(|n| match n {
            Node::Group(g) => g.kind.clone(),
            other => panic!("not a group: {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            GroupKind::Capturing { index: 1 },
            GroupKind::NonCapturing,
            GroupKind::Named {
                index: 2,
                name: "year".into()
            },
            GroupKind::Capturing { index: 3 },
        ]
    );
    assert!(m("^(a|b)(?:c|d)(?<x>e)$", "bde"));
    assert!(m("()", ""));
    assert!(m("(?<$ok_1>a)(?<é>b)", "ab"));
}

#[test]
fn parses_quantifiers() {
    let rep = |p: &str| match root(p) {
        Node::Repeat(r) => (r.min, r.max, r.greedy),
        other => panic!("{p}: {other:?}"),
    };
    assert_eq!(rep("a*"), (0, None, true));
    assert_eq!(rep("a+"), (1, None, true));
    assert_eq!(rep("a?"), (0, Some(1), true));
    assert_eq!(rep("a{3}"), (3, Some(3), true));
    assert_eq!(rep("a{3,}"), (3, None, true));
    assert_eq!(rep("a{3,5}"), (3, Some(5), true));
    assert_eq!(rep("a*?"), (0, None, false));
    assert_eq!(rep("a+?"), (1, None, false));
    assert_eq!(rep("a??"), (0, Some(1), false));
    assert_eq!(rep("a{2,3}?"), (2, Some(3), false));
    assert!(m("^a{2,3}$", "aaa"));
    assert!(!m("^a{2,3}$", "aaaa"));
    assert!(!m("^a{2,3}$", "a"));
    assert!(m("^a{2,}$", "aaaaaaa"));
    assert!(m("^(?:ab){2}$", "abab"));
    assert!(m("^a{0}$", ""));
    assert!(m("^x(?:)*y$", "xy"), "a repeated empty group");
    assert!(m("^(a*)*b$", "aaab"));
    assert!(
        m("^(a?){3}a{3}$", "aaa"),
        "empty iterations count towards the minimum"
    );
}

#[test]
fn parses_anchors_dot_and_word_boundaries() {
    assert_eq!(root("^"), Node::Assertion(Assertion::Start));
    assert_eq!(root("$"), Node::Assertion(Assertion::End));
    assert_eq!(root("\\b"), Node::Assertion(Assertion::WordBoundary));
    assert_eq!(root("\\B"), Node::Assertion(Assertion::NotWordBoundary));
    assert_eq!(root("."), Node::Dot);
    assert!(m("\\bcat\\b", "a cat!"));
    assert!(!m("\\bcat\\b", "concatenate"));
    assert!(m("\\Bcat\\B", "concatenate"));
    assert!(m("^$", ""));
    assert!(!m("^$", "x"));
    assert!(
        m("a^|b", "b"),
        "an anchor that cannot match fails only its alternative"
    );
    assert!(!m("a^", "aa"));
}

#[test]
fn parses_classes() {
    let class = |p: &str| match root(p) {
        Node::Class(c) => c,
        other => panic!("{p}: {other:?}"),
    };
    assert_eq!(
        class("[a-cx]"),
        Class {
            negated: false,
            items: vec![ClassItem::Range('a', 'c'), ClassItem::Range('x', 'x')]
        }
    );
    assert!(class("[^a]").negated);
    assert_eq!(
        class("[\\d\\W\\p{Lu}]").items,
        vec![
            ClassItem::Escape(ClassEscape {
                kind: ClassEscapeKind::Digit,
                negated: false
            }),
            ClassItem::Escape(ClassEscape {
                kind: ClassEscapeKind::Word,
                negated: true
            }),
            ClassItem::Property(Property {
                negated: false,
                kind: PropertyKind::GeneralCategory,
                value: "Uppercase_Letter"
            }),
        ]
    );
    assert!(m("^[a-c]+$", "abcabc"));
    assert!(!m("^[a-c]+$", "abd"));
    assert!(m("^[^a-c]$", "d"));
    assert!(
        m("^[^a-c]$", "\n"),
        "a negated class matches line terminators"
    );
    assert!(!m("^[^a-c]$", "b"));
    assert!(m("^[-a]$", "-"));
    assert!(m("^[a-]$", "-"));
    assert!(m("^[a\\-z]$", "-"));
    assert!(!m("^[a\\-z]$", "b"));
    assert!(m("^[\\]]$", "]"));
    assert!(m("^[[]$", "["), "`[` is a literal inside a class");
    assert!(m("^[\\b]$", "\u{8}"), "`\\b` in a class is a backspace");
    assert!(m("^[.*+?(){}|$^]+$", ".*+?(){}|$^"));
    assert!(!m("[]", "anything"), "`[]` matches nothing");
    assert!(!m("[]", ""));
    assert!(m("^[^]$", "\n"), "`[^]` matches any character");
    assert!(m("^[^]$", "😀"));
    assert!(m("^[%--]$", ","), "a range ending in `-`");
    assert!(m("^[😀-😂]$", "😁"), "a range of non-BMP characters");
}

#[test]
fn parses_class_escapes() {
    assert!(m("^\\d\\D\\w\\W\\s\\S$", "1a_-\tx"));
    assert!(m("^[\\d\\s]+$", "1 2\t3"));
    assert!(m("^[^\\d]$", "a"));
    assert!(!m("^[^\\d]$", "5"));
    assert!(m("^[\\D]$", "a"));
    assert!(m("^[^\\D]$", "7"), "the negation of a negation");
    assert!(!m("^[^\\D]$", "x"));
    assert!(m("^[\\W\\d]$", "5"));
    assert!(m("^[\\W\\d]$", "-"));
    assert!(!m("^[\\W\\d]$", "a"));
    assert!(m("^[^\\W\\d]$", "a"));
    assert!(!m("^[^\\W\\d]$", "5"));
    assert!(!m("^[^\\S]$", "x"));
    assert!(m("^[^\\S]$", "\u{3000}"));
}

#[test]
fn parses_character_escapes() {
    assert_eq!(root("\\n"), Node::Literal('\n'));
    assert_eq!(root("\\r"), Node::Literal('\r'));
    assert_eq!(root("\\t"), Node::Literal('\t'));
    assert_eq!(root("\\v"), Node::Literal('\u{b}'));
    assert_eq!(root("\\f"), Node::Literal('\u{c}'));
    assert_eq!(root("\\0"), Node::Literal('\0'));
    assert_eq!(root("\\cJ"), Node::Literal('\n'));
    assert_eq!(root("\\cj"), Node::Literal('\n'));
    assert_eq!(root("\\x41"), Node::Literal('A'));
    assert_eq!(root("\\u00e9"), Node::Literal('é'));
    assert_eq!(root("\\u{1F600}"), Node::Literal('😀'));
    assert_eq!(root("\\u{00000041}"), Node::Literal('A'));
    assert_eq!(
        root("\\uD83D\\uDE00"),
        Node::Literal('😀'),
        "a surrogate pair is one code point"
    );
    assert_eq!(root("\\."), Node::Literal('.'));
    assert_eq!(root("\\/"), Node::Literal('/'));
    assert_eq!(root("\\-"), Node::Literal('-'));
    assert_eq!(root("\\@"), Node::Literal('@'));
    assert_eq!(root("\\é"), Node::Literal('é'));
    assert!(
        m("^\\uD83D\\uDE00+$", "😀😀"),
        "the quantifier applies to the whole pair"
    );
    assert!(m("^[\\uD83D\\uDE00-\\uD83D\\uDE02]$", "😁"));
    assert!(m("^[\\cJ]$", "\n"));
    assert!(
        m("^[\\c1]$", "\u{11}"),
        "Annex B: `\\c` with a digit inside a class"
    );
    assert!(m("^[\\c_]$", "\u{1f}"));
    assert!(m("^[\\0]$", "\0"));
}

#[test]
fn lone_surrogates_match_nothing() {
    // Valid text (all JSON strings) never contains a lone surrogate.
    assert_eq!(
        root("\\uD800"),
        Node::Class(Class {
            negated: false,
            items: vec![]
        })
    );
    assert!(!m("\\uD800", "\u{fffd}"));
    assert!(m("^a\\uDC00?$", "a"));
    assert!(!m("[\\uD800-\\uDFFF]", "a\u{d7ff}\u{e000}"));
    assert!(m("^[^\\uD800-\\uDFFF]$", "😀"));
    assert!(m("^[\\u0000-\\uFFFF]$", "\u{ffff}"));
    assert!(
        !m("^[\\u0000-\\uFFFF]$", "😀"),
        "a non-BMP character is outside the BMP range"
    );
    assert!(!m("\\u{D800}", "x"));
}

#[test]
fn parses_unicode_properties() {
    let prop = |p: &str| match root(p) {
        Node::Property(p) => p,
        other => panic!("{p}: {other:?}"),
    };
    let gc = |value| Property {
        negated: false,
        kind: PropertyKind::GeneralCategory,
        value,
    };
    assert_eq!(prop("\\p{L}"), gc("Letter"));
    assert_eq!(prop("\\p{Letter}"), gc("Letter"));
    assert_eq!(prop("\\p{gc=Lu}"), gc("Uppercase_Letter"));
    assert_eq!(prop("\\p{General_Category=digit}"), gc("Decimal_Number"));
    assert_eq!(prop("\\p{punct}"), gc("Punctuation"));
    assert_eq!(
        prop("\\P{Script=Grek}"),
        Property {
            negated: true,
            kind: PropertyKind::Script,
            value: "Greek"
        }
    );
    assert_eq!(prop("\\p{scx=Hira}").kind, PropertyKind::ScriptExtensions);
    assert_eq!(prop("\\p{sc=Qaai}").value, "Inherited");
    assert_eq!(prop("\\p{Alpha}").value, "Alphabetic");
    assert_eq!(prop("\\p{ExtPict}").value, "Extended_Pictographic");
    assert!(m("^\\p{L}+$", "école"));
    assert!(m("^\\p{Script=Greek}+$", "αβγ"));
    assert!(!m("^\\p{Script=Greek}+$", "abc"));
    assert!(m("^\\P{L}$", "1"));
    assert!(m("^[\\p{Lu}\\d]+$", "AB12"));
    assert!(m("^[^\\p{Lu}]$", "a"));
    assert!(m("^\\p{Any}$", "😀"));
    assert!(m("^\\p{ASCII}+$", "abc"));
    assert!(!m("\\p{ASCII}", "é"));
    assert!(m("^\\p{Assigned}$", "a"));
    assert!(m("^\\p{Emoji_Presentation}$", "😀"));
    assert!(
        m("^\\p{Nd}+$", "٣4"),
        "`\\p{{Nd}}` is the Unicode one, unlike `\\d`"
    );
    // Surrogates: nothing in valid text.
    assert!(!m("\\p{Cs}", "a\u{fffd}"));
    assert!(m("^\\P{Cs}$", "a"));
    assert!(m("^[\\P{Surrogate}]$", "😀"));
    assert!(!m("[\\p{Cs}]", "a"));
}

#[test]
fn every_property_name_in_the_tables_compiles() {
    for (name, _, _) in unicode::GENERAL_CATEGORY {
        compile(&format!("\\p{{{name}}}[\\P{{gc={name}}}]"));
    }
    for (name, canonical) in unicode::BINARY {
        let p = format!("\\p{{{name}}}");
        if *canonical == "Changes_When_NFKC_Casefolded" {
            assert!(matches!(
                err(&p),
                PatternError::Unsupported {
                    reason: UnsupportedReason::PropertyUnknownToEngine,
                    ..
                }
            ));
        } else {
            compile(&format!("{p}[\\P{{{name}}}]"));
        }
    }
    for (name, _) in unicode::SCRIPTS {
        compile(&format!(
            "\\p{{Script={name}}}\\p{{scx={name}}}[\\P{{sc={name}}}]"
        ));
    }
}

#[test]
fn properties_without_engine_tables_are_spelled_out() {
    assert!(!m("\\p{sc=Hrkt}|\\p{scx=Katakana_Or_Hiragana}", "アあ"));
    assert!(m("^\\P{sc=Hrkt}$", "あ"));
    assert!(m("^[\\p{Script=Hira}\\p{Script=Hrkt}]$", "あ"));
    // Unknown: unassigned and private-use code points.
    assert!(m("^\\p{Script=Unknown}+$", "\u{378}\u{e000}\u{10ffff}"));
    assert!(!m("\\p{Script=Zzzz}", "a1 😀\u{300}"));
    assert!(m("^\\P{scx=Unknown}+$", "a1 😀\u{300}"));
    assert!(!m("\\P{sc=Unknown}", "\u{378}"));
}

#[test]
fn property_tables_are_sorted_for_binary_search() {
    assert!(unicode::GENERAL_CATEGORY.windows(2).all(|w| match w {
        [a, b] => a.0 < b.0,
        _ => true,
    }));
    assert!(unicode::BINARY.windows(2).all(|w| match w {
        [a, b] => a.0 < b.0,
        _ => true,
    }));
    assert!(unicode::SCRIPTS.windows(2).all(|w| match w {
        [a, b] => a.0 < b.0,
        _ => true,
    }));
}

#[test]
fn property_names_are_strict_with_hints() {
    let msg = syntax_at("x\\p{letter}", 1);
    assert!(msg.contains("did you mean `\\p{Letter}`"), "{msg}");
    let msg = syntax_at("\\p{Latin}", 0);
    assert!(msg.contains("did you mean `\\p{Script=Latin}`"), "{msg}");
    let msg = syntax_at("\\p{Script=latin}", 0);
    assert!(msg.contains("`\\p{Script=Latin}`"), "{msg}");
    let msg = syntax_at("\\p{Block=Basic_Latin}", 0);
    assert!(
        msg.contains("`General_Category`, `Script` or `Script_Extensions`"),
        "{msg}"
    );
    syntax_at("\\p{Nope}", 0);
    let msg = syntax_at("ab\\pL", 2);
    assert!(msg.contains("in braces"), "{msg}");
    syntax_at("\\p{}", 0);
    syntax_at("\\p{L", 0);
}

// ---------------------------------------------------------------------------------------------
// ECMA-262 meaning where the `regex` crate's defaults differ.

#[test]
fn digit_is_ascii_only() {
    assert!(m("^\\d$", "7"));
    assert!(!m("\\d", "٣"), "ARABIC-INDIC DIGIT THREE");
    assert!(!m("\\d", "৪"), "BENGALI DIGIT FOUR");
    assert!(m("^\\D$", "٣"));
}

#[test]
fn word_is_ascii_only() {
    assert!(m("^\\w+$", "Az09_"));
    assert!(!m("\\w", "é"));
    assert!(!m("\\w", "ß"));
    assert!(m("^\\W$", "é"));
    assert!(
        m("\\wcole", "école ecole"),
        "`\\w` matches the `e` of `ecole`"
    );
    assert!(!m("^\\wcole$", "école"));
}

#[test]
fn space_is_the_ecma_set() {
    for c in [
        '\t', '\n', '\u{b}', '\u{c}', '\r', ' ', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2005}',
        '\u{200a}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}',
    ] {
        assert!(m("^\\s$", &c.to_string()), "U+{:04X} is \\s", u32::from(c));
        assert!(
            !m("\\S", &c.to_string()),
            "U+{:04X} is not \\S",
            u32::from(c)
        );
    }
    // Unicode White_Space but not ECMA-262 whitespace, and lookalikes.
    for c in ['\u{85}', '\u{180e}', '\u{200b}', 'a'] {
        assert!(
            !m("\\s", &c.to_string()),
            "U+{:04X} is not \\s",
            u32::from(c)
        );
    }
}

#[test]
fn dot_excludes_line_terminators_and_matches_code_points() {
    assert!(!m(".", "\n"));
    assert!(!m(".", "\r"));
    assert!(!m(".", "\u{2028}"));
    assert!(!m(".", "\u{2029}"));
    assert!(m("^.$", "\u{85}"), "NEL is not an ECMA-262 line terminator");
    assert!(m("^.$", "😀"), "a non-BMP character is one `.`");
    assert!(!m("^..$", "😀"));
    assert!(m("^.$", "\u{feff}"));
}

#[test]
fn dollar_is_end_of_input_only() {
    assert!(m("^abc$", "abc"));
    assert!(
        !m("^abc$", "abc\n"),
        "`$` does not match before a final newline"
    );
    assert!(!m("^abc$", "x\nabc"), "no multiline mode");
    assert!(!m("abc$", "abc\nx"));
}

#[test]
fn word_boundary_uses_ascii_words() {
    assert!(
        !m("\\bé", "é"),
        "é is not a word character: no boundary on either side"
    );
    assert!(!m("é\\b", "é"));
    assert!(m("\\Bé\\B", "é"));
    assert!(m("a\\b", "aé"), "a boundary between `a` and `é`");
    assert!(
        !m("é\\b", "é"),
        "no boundary after a non-word character at the end"
    );
    assert!(m("é\\B", "éé"));
    assert!(m("^\\b\\d+\\b$", "2024"));
}

#[test]
fn matching_is_case_sensitive_and_unanchored() {
    assert!(!m("abc", "ABC"));
    assert!(m("b", "abc"));
    assert!(!m("[a-z]", "Q"));
}

// ---------------------------------------------------------------------------------------------
// Annex B leniencies.

#[test]
fn braces_and_brackets_that_start_nothing_are_literals() {
    assert_eq!(root("{"), Node::Literal('{'));
    assert!(m("^a{$", "a{"));
    assert!(m("^a{,5}$", "a{,5}"), "`{{,5}}` is not a quantifier");
    assert!(m("^a{x}$", "a{x}"));
    assert!(m("^a{1$", "a{1"));
    assert!(m("^}$", "}"));
    assert!(m("^]$", "]"));
    assert!(m("^x{1,2}{$", "xx{"));
    assert!(m("^{foo}$", "{foo}"));
}

#[test]
fn dashes_and_odd_class_members() {
    // Checked against V8's reading of the same patterns with the `u` flag.
    assert!(m("^[--a]$", "."), "a range from `-` to `a`");
    assert!(!m("^[--a]$", "b"));
    assert!(syntax_at("[a--]", 1).contains("out of order"));
    assert!(m("^[\\b-c]$", "\u{8}"), "a range from backspace to `c`");
    assert!(m("^[\\b-c]$", "X"));
    assert!(m("^[a-c-e]$", "-"), "after a range, `-` is a literal");
    assert!(!m("^[a-c-e]$", "d"));
    assert!(m("^[\\s\\S]$", "\n"));
    assert!(!m("[^\\s\\S]", "a\n"));
}

#[test]
fn class_escapes_next_to_a_dash_are_a_union() {
    assert!(m("^[\\w-.]+$", "a-b.c"));
    assert!(m("^[\\w-]+$", "a-b"));
    assert!(m("^[a-\\d]$", "-"));
    assert!(m("^[a-\\d]$", "5"));
    assert!(!m("^[a-\\d]$", "b"));
    assert!(m("^[\\s-\\d]$", " "));
}

#[test]
fn class_escape_ranges_are_sent_in_their_canonical_spelling() {
    for (p, sent) in [
        ("^[\\w-_.]+$", "^[\\w\\-_.]+$"),
        ("^[a-\\d]$", "^[a\\-\\d]$"),
        ("[\\s-\\d]", "[\\s\\-\\d]"),
    ] {
        let c = compile(p);
        assert!(c.features().class_escape_range, "{p}");
        assert!(!c.features().simple_syntax, "{p}");
        assert_eq!(c.sendable(), sent, "{p}");
        // The same strings, read either way.
        let again = compile(sent);
        assert!(!again.features().class_escape_range, "{sent}");
        for s in ["a", "-", "_", ".", "5", " ", "a-b", "+", "é"] {
            assert_eq!(m(p, s), m(sent, s), "{p} / {sent} on {s:?}");
        }
    }
    for p in ["^[\\w\\-.]+$", "^[\\w-]+$", "^[-\\d]$", "^[a-c-e]$"] {
        let c = compile(p);
        assert!(!c.features().class_escape_range, "{p}");
        assert_eq!(c.sendable(), p, "{p}: the source is sent as written");
    }
}

#[test]
fn identity_escapes_of_punctuation_are_accepted() {
    assert!(m(
        "^\\@\\_\\:\\'\\\"\\ \\#\\%\\&\\~\\!\\=\\,\\;\\<\\>\\`$",
        "@_:'\" #%&~!=,;<>`"
    ));
    assert!(compile("\\@").features().backslash_escapes_other);
    assert!(!compile("\\.\\/\\(\\)").features().backslash_escapes_other);
    assert!(!compile("[\\-]").features().backslash_escapes_other);
    assert!(compile("\\-").features().backslash_escapes_other);
}

// ---------------------------------------------------------------------------------------------
// Rejections.

#[test]
fn look_around_is_unsupported_with_a_clear_reason() {
    for (p, construct, offset, reason) in [
        (
            "abc(?=d)",
            "look-ahead `(?=`",
            3,
            UnsupportedReason::LookAheadPlacement,
        ),
        (
            "(?!x)",
            "negative look-ahead `(?!`",
            0,
            UnsupportedReason::LookAheadPlacement,
        ),
        (
            "^a(?!x)",
            "negative look-ahead `(?!`",
            2,
            UnsupportedReason::LookAheadPlacement,
        ),
        (
            "(^(?=x))",
            "look-ahead `(?=`",
            2,
            UnsupportedReason::LookAheadPlacement,
        ),
        (
            "^(?=(?!x))",
            "negative look-ahead `(?!`",
            4,
            UnsupportedReason::LookAheadPlacement,
        ),
        (
            "^(?!x)a|b",
            "negative look-ahead `(?!`",
            1,
            UnsupportedReason::LookAheadPlacement,
        ),
        (
            "^(?=x)(?!y)a|b",
            "look-ahead `(?=`",
            1,
            UnsupportedReason::LookAheadPlacement,
        ),
        (
            "a(?<=b)",
            "look-behind `(?<=`",
            1,
            UnsupportedReason::LookAround,
        ),
        (
            "a(b(?<!c))",
            "negative look-behind `(?<!`",
            3,
            UnsupportedReason::LookAround,
        ),
        (
            "^(?<!c)",
            "negative look-behind `(?<!`",
            1,
            UnsupportedReason::LookAround,
        ),
    ] {
        let e = err(p);
        assert_eq!(
            e,
            PatternError::Unsupported {
                offset,
                construct,
                reason
            },
            "{p}"
        );
        assert_eq!(e.offset(), Some(offset));
    }
    assert_eq!(
        err("abc(?=d)").to_string(),
        "look-ahead `(?=` at offset 3 cannot run on a linear-time engine here: a look-ahead is accepted only right after a leading `^`, with no `|` outside groups (`^(?!…)…`, checked as a separate anchored match) — move it there or rewrite the pattern without it"
    );
    assert_eq!(
        err("a(?<=b)").to_string(),
        "look-behind `(?<=` at offset 1 cannot run on a linear-time engine; the subset does not accept look-behind — rewrite the pattern without it"
    );
    // A look-ahead matches a position: ECMA-262's Unicode mode cannot repeat it either.
    assert!(matches!(
        err("^(?=a)*b"),
        PatternError::Syntax { offset: 6, .. }
    ));
    assert_eq!(
        err("^(?=a)*b").to_string(),
        "invalid ECMA-262 regular expression: the quantifier at offset 6 follows the assertion `(?=a)`, which matches a position, not a character, so it cannot be repeated; remove the quantifier"
    );
    assert!(matches!(err("^(?=a"), PatternError::Syntax { .. }));
}

/// zod 4's `z.email()` pattern, as its JSON Schema carries it.
const ZOD_EMAIL: &str = r"^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$";

#[test]
fn leading_look_aheads_are_separate_anchored_matches() {
    let p = compile(ZOD_EMAIL);
    assert_eq!(p.look_aheads().len(), 2);
    assert!(p.look_aheads().iter().all(|l| l.negative()));
    assert!(p.features().look_ahead);
    for (s, expected) in [
        ("ada@example.com", true),
        ("a.b@example.com", true),
        (".ada@example.com", false),  // (?!\.)
        ("a..b@example.com", false),  // (?!.*\.\.)
        ("ada@example..com", false),  // (?!.*\.\.) looks at the whole string
        ("ada@example", false),       // the rest
        ("x ada@example.com", false), // anchored
    ] {
        assert_eq!(p.is_match(s), expected, "{s}");
    }
    // Positive and negative together; the look-ahead reads past what the rest matches.
    let password = compile("^(?=.*[A-Z])(?=.*[0-9])(?!.*\\s).{8,}");
    for (s, expected) in [
        ("Abcdefg1", true),
        ("abcdefg1", false),
        ("Abcdefgh", false),
        ("Abcdef 1", false),
        ("Abc1", false),
        ("Abcdefg1 and more", false),
        ("xxxxxxxxxxxxA1", true),
    ] {
        assert_eq!(password.is_match(s), expected, "{s}");
    }
    // Nothing after the look-aheads: the pattern is their conjunction.
    let only = compile("^(?!\\s*$)");
    assert!(only.is_match("a"));
    assert!(!only.is_match("  "));
    assert!(!only.is_match(""));
    // Captures inside a look-ahead keep the group numbering of the rest.
    assert!(m("^(?=(a))(b|a)", "ab"));
    assert!(!m("^(?=(a))(b|a)", "ba"));
}

#[test]
fn leading_look_aheads_are_left_out_of_what_is_sent_and_kept_in_the_canonical_text() {
    let p = compile(ZOD_EMAIL);
    let rest = r"^([A-Za-z0-9_'+\-\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$";
    assert_eq!(p.sendable(), rest);
    assert_eq!(p.as_str(), ZOD_EMAIL);
    // The renderings and features describe the rest.
    assert!(p.features().anchored_start && p.features().anchored_end);
    assert!(!p.portable().contains("(?"));
    assert!(p.grammar().is_some_and(|g| !g.contains("(?")));
    // The canonical text means the same as the source, look-aheads included.
    let canonical = p.to_ecma_string();
    assert!(canonical.starts_with("^(?!\\.)(?!"), "{canonical}");
    let again = compile(&canonical);
    assert_eq!(again.look_aheads().len(), 2);
    for s in [
        "ada@example.com",
        ".ada@example.com",
        "a..b@example.com",
        "ada@x",
    ] {
        assert_eq!(again.is_match(s), p.is_match(s), "{s}");
    }
    // The canonical rendering of an Annex B class range in the rest is sent without the
    // look-aheads; one inside a look-ahead does not make the rest's text canonical.
    assert_eq!(compile("^(?!a)[\\w-.]+").sendable(), "^[\\w\\-.]+");
    let inside = compile("^(?![\\w-.])b\\@");
    assert!(!inside.features().class_escape_range);
    assert!(inside.features().backslash_escapes_other);
    assert_eq!(inside.sendable(), "^b\\@");
    // A sent rest is wider than the pattern: it accepts everything the pattern does.
    let sent = compile(&p.sendable());
    for s in ["ada@example.com", ".ada@example.com", "a..b@example.com"] {
        assert!(!p.is_match(s) || sent.is_match(s), "{s}");
    }
    assert!(sent.is_match(".ada@example.com"));
}

#[test]
fn each_look_ahead_pays_its_pass_over_the_string() {
    let s = "a".repeat(3200);
    let pass = crate::budget::string_cost(&s) + 1;
    let p = compile("^(?=a)(?!b)(?=.*a$)a+");
    let mut paid = 0;
    assert!(p.is_match_charging(&s, |n| {
        paid += n;
        true
    }));
    assert!(paid >= 3 * pass, "{paid}");
    // A pass that cannot be paid is not run, and the answer is "no match".
    let mut calls = 0;
    assert!(!p.is_match_charging(&s, |_| {
        calls += 1;
        false
    }));
    assert!(calls >= 1);
}

#[test]
fn look_ahead_programs_share_the_size_limit() {
    // The engine's size check runs on its builder, which peaks above the program it keeps:
    // find the least limit under which one program compiles.
    let body = "(?:ab|ba){40}";
    let one = compile(&format!("^{body}")).compiled_size();
    assert!(one > 0);
    let (mut lo, mut hi) = (0usize, ENGINE_SIZE_LIMIT);
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if Pattern::build(&format!("^{body}"), MAX, mid).is_ok() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // Each program built takes its size off what the next may take: with room for the
    // least limit after one program, two fit, and three do not.
    let limit = hi + one + one / 2;
    let fits = Pattern::build(&format!("^(?={body}){body}"), MAX, limit);
    assert!(fits.is_ok(), "{one} {limit} {fits:?}");
    let over = Pattern::build(&format!("^(?={body})(?={body}){body}"), MAX, limit);
    assert!(
        matches!(over, Err(PatternError::TooComplex { .. })),
        "{over:?}"
    );
}

#[test]
fn backreferences_are_unsupported() {
    let reason = |p: &str| match err(p) {
        PatternError::Unsupported { reason, offset, .. } => (reason, offset),
        other => panic!("{p}: {other:?}"),
    };
    assert_eq!(reason("(a)\\1"), (UnsupportedReason::Backreference, 3));
    assert_eq!(
        reason("\\2(a)(b)"),
        (UnsupportedReason::Backreference, 0),
        "forward reference"
    );
    assert_eq!(
        reason("(?<q>['\"]).*\\k<q>"),
        (UnsupportedReason::Backreference, 12)
    );
    assert!(err("(a)\\1").to_string().contains("backreference"));
}

#[test]
fn decimal_escapes_without_a_group_are_errors() {
    let msg = syntax_at("a\\1", 1);
    assert!(msg.contains("the pattern has 0"), "{msg}");
    syntax_at("(a)\\2", 3);
    syntax_at("\\8", 0);
    let msg = syntax_at("\\01", 0);
    assert!(msg.contains("octal"), "{msg}");
    syntax_at("[\\1]", 1);
    let msg = syntax_at("\\k<nope>", 0);
    assert!(msg.contains("no group"), "{msg}");
    syntax_at("(?<a>x)\\k", 7);
    syntax_at("\\k", 0);
}

#[test]
fn syntax_errors_point_at_the_problem() {
    assert!(syntax_at("*a", 0).contains("nothing to repeat"));
    assert!(syntax_at("a|+", 2).contains("nothing to repeat"));
    assert!(syntax_at("(?:?)", 3).contains("nothing to repeat"));
    assert!(syntax_at("a**", 2).contains("nothing to repeat"));
    assert!(syntax_at("a{2}{3}", 4).contains("nothing to repeat"));
    assert!(syntax_at("{2}", 0).contains("nothing to repeat"));
    assert!(syntax_at("^*", 1).contains("cannot be repeated"));
    assert!(syntax_at("a$+", 2).contains("cannot be repeated"));
    assert!(syntax_at("\\b{2}", 2).contains("cannot be repeated"));
    assert!(syntax_at("a{3,2}", 1).contains("out of order"));
    assert!(syntax_at("ab(c", 2).contains("never closed"));
    assert!(syntax_at("((a)", 0).contains("never closed"));
    assert!(syntax_at("a)", 1).contains("closes no group"));
    assert!(syntax_at("x[abc", 1).contains("never closed"));
    assert!(syntax_at("[^", 0).contains("never closed"));
    assert!(syntax_at("[z-a]", 1).contains("out of order"));
    assert!(syntax_at("abc\\", 3).contains("lone `\\`"));
    assert!(syntax_at("[a\\", 2).contains("lone `\\`"));
    assert!(syntax_at("\\x4", 0).contains("two hex digits"));
    assert!(syntax_at("\\xZZ", 0).contains("two hex digits"));
    assert!(syntax_at("\\u12", 0).contains("four hex digits"));
    assert!(syntax_at("\\u{}", 0).contains("four hex digits"));
    assert!(syntax_at("\\u{110000}", 0).contains("beyond U+10FFFF"));
    assert!(syntax_at("\\c1", 0).contains("followed by a letter"));
    assert!(syntax_at("[\\c!]", 1).contains("followed by a letter"));
    assert!(syntax_at("\\A", 0).contains("use `^`"));
    assert!(syntax_at("a\\z", 1).contains("use `$`"));
    assert!(syntax_at("\\Qa\\E", 0).contains("PCRE"));
    assert!(syntax_at("\\y", 0).contains("not an ECMA-262 escape"));
    assert!(syntax_at("[\\B]", 1).contains("not an ECMA-262 escape"));
    assert!(syntax_at("(?i)abc", 0).contains("no flags"));
    assert!(syntax_at("(?P<x>a)", 0).contains("Python"));
    assert!(syntax_at("(?#comment)", 0).contains("starts no ECMA-262 group"));
    assert!(syntax_at("(?<1x>a)", 0).contains("group name"));
    assert!(syntax_at("(?<a>x)(?<a>y)", 7).contains("used twice"));
    assert_eq!(
        err("(?i:abc)"),
        PatternError::Unsupported {
            offset: 0,
            construct: "modifier group `(?flags:`",
            reason: UnsupportedReason::Modifiers
        }
    );
}

#[test]
fn error_messages_are_sentences_with_advice() {
    for p in [
        "*",
        "(?=a)",
        "(a)\\1",
        "[",
        "\\p{Foo}",
        "a{99999999999}",
        "(?i:a)",
    ] {
        let text = err(p).to_string();
        assert!(
            text.contains(';') || text.contains(" — "),
            "{p}: the message should say what to do: {text}"
        );
        assert!(!text.ends_with('.') && text.len() > 40, "{p}: {text}");
    }
}

#[test]
fn length_limit_counts_characters() {
    assert_eq!(
        Pattern::compile("ééé", 2).map(|_| ()),
        Err(PatternError::TooLong { len: 3, max: 2 })
    );
    assert!(Pattern::compile("ééé", 3).is_ok());
}

#[test]
fn huge_repetitions_are_too_complex_not_a_crash() {
    assert_eq!(
        err("a{99999999999}"),
        PatternError::TooComplex {
            size_limit: ENGINE_SIZE_LIMIT
        }
    );
    assert!(matches!(
        err("(?:a{1000}){1000}"),
        PatternError::TooComplex { .. }
    ));
    assert!(matches!(
        err("\\w{4294967295}"),
        PatternError::TooComplex { .. }
    ));
    assert!(err("(?:a{1000}){1000}")
        .to_string()
        .contains("lower the bounds"));
    assert!(m("^a{1000}$", &"a".repeat(1000)));
}

// ---------------------------------------------------------------------------------------------
// Robustness.

#[test]
fn catastrophic_backtracking_patterns_run_in_linear_time() {
    let long = "a".repeat(100_000);
    let p = compile("^(a+)+$");
    assert!(p.is_match(&long));
    assert!(!p.is_match(&format!("{long}!")));
    let p = compile("(a|a)*b");
    assert!(!p.is_match(&long));
    assert!(p.is_match(&format!("{long}b")));
    let p = compile("^(\\w+\\s?)*$");
    assert!(!p.is_match(&format!("{}!", "word ".repeat(20_000))));
}

/// A huge pattern either compiles or is too big for the engine; nothing else.
fn compile_big(p: &str, limit: usize) -> Option<Pattern> {
    let start = std::time::Instant::now();
    let result = match Pattern::compile(p, limit) {
        Ok(c) => Some(c),
        Err(PatternError::TooComplex { .. }) => None,
        Err(e) => panic!("{} bytes: {e}", p.len()),
    };
    eprintln!(
        "{} bytes starting {:?}: {:?}",
        p.len(),
        p.get(..12),
        start.elapsed()
    );
    result
}

#[test]
fn a_one_mebibyte_pattern_does_not_blow_the_stack() {
    const MIB: usize = 1 << 20;
    let limit = 2 * MIB;
    let flat = "a".repeat(MIB);
    if let Some(p) = compile_big(&flat, limit) {
        assert!(p.is_match(&flat));
    }
    if let Some(p) = compile_big(&"ab|".repeat(MIB / 3), limit) {
        assert!(p.is_match("ab"));
    }
    if let Some(p) = compile_big(&"[a-z]\\d".repeat(MIB / 7), limit) {
        assert!(!p.is_match("a"));
    }
    assert_eq!(
        Pattern::compile(&"(".repeat(MIB), limit).map(|_| ()),
        Err(PatternError::TooDeep {
            offset: MAX_DEPTH,
            max: MAX_DEPTH
        })
    );
    let err = Pattern::compile(&"(?:".repeat(MIB / 3), limit).map(|_| ());
    assert!(matches!(err, Err(PatternError::TooDeep { .. })), "{err:?}");
    // Many named groups and unterminated names stay linear.
    let named: String = (0..MIB / 12).map(|n| format!("(?<n{n:06}>x)")).collect();
    if let Some(p) = compile_big(&named, limit) {
        assert!(p.features().named_groups);
    }
    let names = "(?<abc".repeat(MIB / 6);
    assert!(matches!(
        Pattern::compile(&names, limit),
        Err(PatternError::Syntax { offset: 0, .. })
    ));
    if let Some(p) = compile_big(&"a{1,".repeat(MIB / 4), limit) {
        assert!(p.is_match("a{1,a"));
    }
    let unclosed = format!("{}{}", "a".repeat(MIB), "[");
    assert!(matches!(
        Pattern::compile(&unclosed, limit),
        Err(PatternError::Syntax { offset, .. }) if offset == MIB
    ));
}

#[test]
fn nesting_up_to_the_limit_compiles() {
    // A quarter of the default thread stack, to show the bound leaves room.
    let result = std::thread::Builder::new()
        .stack_size(1 << 19)
        .spawn(|| {
            let deep = format!("{}a{}", "(?:".repeat(MAX_DEPTH), ")*".repeat(MAX_DEPTH));
            let p = compile(&deep);
            assert!(p.is_match("aaa"));
            assert!(!p.portable().is_empty());
            let groups = format!("{}b{}", "(".repeat(MAX_DEPTH), "|c)+".repeat(MAX_DEPTH));
            assert!(compile(&groups).is_match("c"));
            let too_deep = format!(
                "{}a{}",
                "(".repeat(MAX_DEPTH + 1),
                ")".repeat(MAX_DEPTH + 1)
            );
            assert!(matches!(
                Pattern::compile(&too_deep, MAX),
                Err(PatternError::TooDeep { .. })
            ));
        })
        .map(|h| h.join());
    assert!(
        matches!(result, Ok(Ok(()))),
        "the nested patterns panicked or overflowed"
    );
}

// ---------------------------------------------------------------------------------------------
// Features.

#[test]
fn features_describe_the_syntax() {
    let f = compile("^[a-z]{2,8}\\d+$").features().clone();
    assert!(f.anchored_start && f.anchored_end && !f.anchors_inside);
    assert!(f.class_escapes && !f.word_boundary && !f.unicode_property && !f.non_greedy);
    assert_eq!(f.max_repetition, Some(8));
    assert!(f.simple_syntax && f.claude_simple);

    let f = compile("^a$|^b$").features().clone();
    assert!(f.anchored_start && f.anchored_end && !f.anchors_inside);
    let f = compile("(^a|^b)c$").features().clone();
    assert!(f.anchored_start && f.anchored_end && !f.anchors_inside);
    let f = compile("^a|b$").features().clone();
    assert!(!f.anchored_start && !f.anchored_end && !f.anchors_inside);
    let f = compile("a(^|,)b").features().clone();
    assert!(!f.anchored_start && f.anchors_inside && !f.simple_syntax);
    let f = compile("^").features().clone();
    assert!(f.anchored_start && !f.anchored_end);

    let f = compile("\\bx.*?\\p{L}(?<n>y)").features().clone();
    assert!(f.word_boundary && f.non_greedy && f.unicode_property && f.named_groups && f.dot);
    assert!(!f.simple_syntax && !f.claude_simple);
    assert_eq!(f.max_repetition, None);

    let f = compile("[\\s]x{3,}y{0,1}").features().clone();
    assert!(f.class_escapes);
    assert_eq!(
        f.max_repetition,
        Some(3),
        "`{{0,1}}` is `?`; `{{3,}}` counts 3"
    );
    assert!(compile("[\\p{L}]").features().unicode_property);

    let f = compile("^\\d{1,100}$").features().clone();
    assert!(f.simple_syntax && !f.claude_simple);
    assert_eq!(f.max_repetition, Some(100));

    for p in ["\\cJ", "\\u0041", "\\u{41}", "\\v", "\\#", "[\\c1]"] {
        assert!(compile(p).features().backslash_escapes_other, "{p}");
    }
    for p in [
        "\\n\\t\\r\\f\\0\\x41",
        "\\.\\*\\[\\]\\{\\}\\|\\^\\$\\\\\\/",
        "[\\-\\b]",
    ] {
        assert!(!compile(p).features().backslash_escapes_other, "{p}");
    }
}

// ---------------------------------------------------------------------------------------------
// Renderings.

#[test]
fn canonical_rendering() {
    let r = |p: &str| compile(p).to_ecma_string();
    assert_eq!(r("^\\d{3}-\\d{4}$"), "^\\d{3}-\\d{4}$");
    assert_eq!(r("\\x41\\u0042\\u{43}"), "ABC");
    assert_eq!(r("\\@\\-\\/"), "@-/");
    assert_eq!(r("a{1}?b{0,}c{1,}d{0,1}"), "a{1}?b*c+d?");
    assert_eq!(r("{x}]"), "\\{x\\}\\]");
    assert_eq!(r("[\\w-.]"), "[\\w\\-.]");
    assert_eq!(r("[a-bc-e^\\]]"), "[abc-e\\^\\]]");
    assert_eq!(r("\\t\\n\\v\\f\\r\\0\\cA"), "\\t\\n\\x0B\\f\\r\\x00\\x01");
    assert_eq!(r("\\u00A0\\u2028é😀"), "\\u00A0\\u2028é😀");
    assert_eq!(
        r("\\p{gc=Lu}\\P{Script=Latn}\\p{scx=Grek}\\p{Alpha}"),
        "\\p{Lu}\\P{Script=Latin}\\p{Script_Extensions=Greek}\\p{Alphabetic}"
    );
    assert_eq!(r("(a|b)(?:c|d)(?<n>e|f)*?"), "(a|b)(?:c|d)(?<n>e|f)*?");
    assert_eq!(r("[]|[^]|\\uD800"), "[]|[^]|[]");
    assert_eq!(r("\\b\\B^$."), "\\b\\B^$.");
    // The parser splits ranges around the surrogates; the rendering joins them again.
    let all = format!("[\\x00-{}]", char::MAX);
    assert_eq!(r(&all), all);
    assert_eq!(r("[\\uD000-\\uE000]"), "[\u{d000}-\u{e000}]");
}

#[test]
fn portable_rendering_spells_out_class_escapes() {
    let r = |p: &str| compile(p).portable();
    let top = char::MAX;
    assert_eq!(r("^\\d{3}\\D$"), "^[0-9]{3}[^0-9]$");
    assert_eq!(r("\\w\\W"), "[0-9A-Z_a-z][^0-9A-Z_a-z]");
    assert_eq!(
        r("\\s"),
        "[\\t-\\r \u{a0}\u{1680}\u{2000}-\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}]"
    );
    assert_eq!(r("a.b"), "a[^\\n\\r\u{2028}\u{2029}]b");
    assert_eq!(r("[\\d_x-z]"), "[0-9_x-z]");
    assert_eq!(r("[^\\D]"), "[0-9]");
    assert_eq!(r("[\\Da]"), "[^0-9]");
    assert_eq!(r("[\\D5]"), "[^0-46-9]");
    assert_eq!(r("[^\\D5]"), "[0-46-9]");
    assert_eq!(r("[\\D\\d]"), format!("[\\x00-{top}]"));
    assert_eq!(r("[\\W\\S]"), format!("[\\x00-{top}]"));
    assert_eq!(r("[^\\W\\S]"), format!("[^\\x00-{top}]"));
    assert_eq!(r("[\\D\\p{Nd}]"), format!("[\\x00-{top}]"));
    assert_eq!(r("[\\W\\p{Lu}]"), "[^0-9_a-z]");
    assert_eq!(r("[\\W\\w]"), format!("[\\x00-{top}]"));
    assert_eq!(r("[\\p{L}\\d]"), "[0-9\\p{L}]");
    assert_eq!(r("(?<n>a)*?b+?"), "(a)*b+");
    assert_eq!(r("[]"), format!("[^\\x00-{top}]"));
    assert_eq!(r("[^]"), format!("[\\x00-{top}]"));
    assert_eq!(r("\\u00A0\\v"), "\u{a0}\\x0B");
    assert_eq!(r("^\\bx\\p{Lu}$"), "^\\bx\\p{Lu}$");
    for p in ["\\d", "[\\W\\p{Lu}]", ".", "[^\\s\\p{L}]", "(?<n>x)*?"] {
        let f = compile(&r(p)).features().clone();
        assert!(
            !f.class_escapes && !f.dot && !f.named_groups && !f.non_greedy,
            "{p}"
        );
        assert!(!f.backslash_escapes_other, "{p}");
    }
}

// ---------------------------------------------------------------------------------------------
// An independent matcher: ECMA-262's backtracking semantics (22.2.2), run on the tree.

fn is_word(t: &[char], i: Option<usize>) -> bool {
    i.and_then(|i| t.get(i))
        .is_some_and(|&c| c.is_ascii_alphanumeric() || c == '_')
}

fn class_has(c: &Class, ch: char) -> bool {
    let hit = c.items.iter().any(|item| match item {
        ClassItem::Range(lo, hi) => *lo <= ch && ch <= *hi,
        ClassItem::Escape(e) => e.contains(ch),
        ClassItem::Property(p) => property_has(p, ch),
    });
    hit != c.negated
}

/// Properties need Unicode tables; these borrow the engine's for single characters.
fn property_has(p: &Property, ch: char) -> bool {
    let regex = regex::Regex::new(&translate::property_regex(p)).unwrap();
    regex.is_match(&ch.to_string())
}

fn step(n: &Node, t: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    let one = |ok: bool, k: &mut dyn FnMut(usize) -> bool| ok && k(i + 1);
    match n {
        Node::Empty => k(i),
        Node::Literal(c) => one(t.get(i) == Some(c), k),
        Node::Dot => one(
            t.get(i)
                .is_some_and(|c| !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')),
            k,
        ),
        Node::ClassEscape(e) => one(t.get(i).is_some_and(|&c| e.contains(c)), k),
        Node::Property(p) => one(t.get(i).is_some_and(|&c| property_has(p, c)), k),
        Node::Class(c) => one(t.get(i).is_some_and(|&ch| class_has(c, ch)), k),
        Node::Assertion(a) => {
            let ok = match a {
                Assertion::Start => i == 0,
                Assertion::End => i == t.len(),
                Assertion::WordBoundary => is_word(t, i.checked_sub(1)) != is_word(t, Some(i)),
                Assertion::NotWordBoundary => is_word(t, i.checked_sub(1)) == is_word(t, Some(i)),
            };
            ok && k(i)
        }
        Node::Group(g) => step(&g.node, t, i, k),
        Node::Concat(items) => seq(items, t, i, k),
        Node::Alternation(alternatives) => alternatives.iter().any(|a| step(a, t, i, k)),
        Node::Repeat(r) => repeat(r, 0, t, i, k),
    }
}

fn seq(items: &[Node], t: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    match items.split_first() {
        None => k(i),
        Some((first, rest)) => step(first, t, i, &mut |j| seq(rest, t, j, k)),
    }
}

/// RepeatMatcher: another iteration while below `max`, refusing empty iterations once `min`
/// is reached; then (or first, when lazy) the continuation.
fn repeat(r: &Repeat, count: u32, t: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    let more = |k: &mut dyn FnMut(usize) -> bool| {
        r.max.is_none_or(|max| count < max)
            && step(&r.node, t, i, &mut |j| {
                !(count >= r.min && j == i) && repeat(r, count + 1, t, j, k)
            })
    };
    if count < r.min {
        return more(k);
    }
    if r.greedy {
        return more(k) || k(i);
    }
    k(i) || more(k)
}

fn oracle(root: &Node, s: &str) -> bool {
    let t: Vec<char> = s.chars().collect();
    (0..=t.len()).any(|start| step(root, &t, start, &mut |_| true))
}

#[test]
fn oracle_agrees_on_hand_written_cases() {
    let cases = [
        ("^(a+)+$", "aaaa"),
        ("(a|ab)(c|bcd)(d*)", "abcd"),
        ("^(?:a*?)*?b$", "aab"),
        ("^(a?){3}a{3}$", "aaa"),
        ("\\bfoo\\B", "foobar"),
        ("[\\W\\d]x", "5x"),
        ("^[^\\p{Lu}\\d]+$", "abc"),
        ("^.\\s.$", "a\u{feff}😀"),
        ("x{2,3}?$", "xxxx"),
    ];
    for (p, s) in cases {
        let c = compile(p);
        assert_eq!(c.is_match(s), oracle(&c.ast().root, s), "{p} on {s:?}");
        assert!(c.is_match(s), "{p} should match {s:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Generated patterns: the engine, the oracle and both renderings agree.

/// Characters that stress escaping and the ECMA-262 class definitions.
const ALPHABET: &[char] = &[
    'a', 'b', 'Z', '0', '7', '_', ' ', '\t', '\n', '\r', '\u{b}', 'é', '٣', '\u{a0}', '\u{2028}',
    '\u{feff}', '😀', '-', ']', '[', '^', '\\', '.', '{', '}', '$', '|', '(', '*', '/', '\0',
];

fn any_char() -> impl Strategy<Value = char> {
    prop::sample::select(ALPHABET)
}

fn class_escape_strategy() -> impl Strategy<Value = ClassEscape> {
    (
        prop::sample::select(vec![
            ClassEscapeKind::Digit,
            ClassEscapeKind::Word,
            ClassEscapeKind::Space,
        ]),
        any::<bool>(),
    )
        .prop_map(|(kind, negated)| ClassEscape { kind, negated })
}

fn class_strategy() -> impl Strategy<Value = Class> {
    let item = prop_oneof![
        3 => (any_char(), any_char()).prop_map(|(a, b)| ClassItem::Range(a.min(b), a.max(b))),
        2 => any_char().prop_map(|c| ClassItem::Range(c, c)),
        2 => class_escape_strategy().prop_map(ClassItem::Escape),
        1 => Just(ClassItem::Range('\0', char::MAX)),
    ];
    (any::<bool>(), prop::collection::vec(item, 0..4))
        .prop_map(|(negated, items)| Class { negated, items })
}

fn leaf() -> impl Strategy<Value = Node> {
    prop_oneof![
        6 => any_char().prop_map(Node::Literal),
        2 => Just(Node::Dot),
        1 => Just(Node::Empty),
        2 => class_escape_strategy().prop_map(Node::ClassEscape),
        3 => class_strategy().prop_map(Node::Class),
        1 => prop::sample::select(vec![
            Assertion::Start,
            Assertion::End,
            Assertion::WordBoundary,
            Assertion::NotWordBoundary,
        ])
        .prop_map(Node::Assertion),
    ]
}

fn node_strategy() -> impl Strategy<Value = Node> {
    leaf().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Node::Concat),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Node::Alternation),
            (
                inner.clone(),
                0u32..3,
                prop::option::of(0u32..3),
                any::<bool>()
            )
                .prop_map(|(node, min, extra, greedy)| {
                    Node::Repeat(Box::new(Repeat {
                        node,
                        min,
                        max: extra.map(|e| min + e),
                        greedy,
                    }))
                }),
            (inner, 0u8..3).prop_map(|(node, kind)| {
                let kind = match kind {
                    0 => GroupKind::Capturing { index: 0 },
                    1 => GroupKind::NonCapturing,
                    _ => GroupKind::Named {
                        index: 0,
                        name: String::new(),
                    },
                };
                Node::Group(Box::new(Group { kind, node }))
            }),
        ]
    })
}

/// Numbers groups in source order and names named ones uniquely, as the parser would.
fn number_groups(n: &mut Node, next: &mut u32) {
    match n {
        Node::Group(g) => {
            match &mut g.kind {
                GroupKind::Capturing { index } => {
                    *next += 1;
                    *index = *next;
                }
                GroupKind::Named { index, name } => {
                    *next += 1;
                    *index = *next;
                    *name = format!("g{next}");
                }
                GroupKind::NonCapturing => {}
            }
            number_groups(&mut g.node, next);
        }
        Node::Repeat(r) => number_groups(&mut r.node, next),
        Node::Concat(v) | Node::Alternation(v) => v.iter_mut().for_each(|n| number_groups(n, next)),
        _ => {}
    }
}

fn haystacks() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::collection::vec(any_char(), 0..6).prop_map(|v| v.into_iter().collect::<String>()),
        12,
    )
}

proptest! {
    // Failures are not persisted to a file: the cases they found are kept as unit tests
    // (`canonical_rendering`) instead.
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn renderings_round_trip_and_agree_with_the_oracle(mut root in node_strategy(), texts in haystacks()) {
        number_groups(&mut root, &mut 0);
        let ast = Ast { root, captures: 0 };
        let source = render::render(&ast, render::Style::Canonical);
        let original = Pattern::compile(&source, usize::MAX);
        prop_assert!(original.is_ok(), "{source:?}: {original:?}");
        let original = original.unwrap();
        let canonical = original.to_ecma_string();
        prop_assert_eq!(&canonical, &source, "the canonical rendering is a fixpoint");
        let portable = Pattern::compile(&original.portable(), usize::MAX);
        prop_assert!(portable.is_ok(), "{:?}: {portable:?}", original.portable());
        let portable = portable.unwrap();
        prop_assert!(!portable.features().class_escapes && !portable.features().dot);
        prop_assert_eq!(portable.portable(), original.portable(), "portable is a fixpoint");
        for text in texts.iter().map(String::as_str).chain(["", "a_0 b\n"]) {
            let expected = oracle(&ast.root, text);
            prop_assert_eq!(original.is_match(text), expected, "engine: {:?} on {:?} via {:?}", source, text, original.engine_pattern());
            prop_assert_eq!(portable.is_match(text), expected, "portable: {:?} on {:?}", portable.as_str(), text);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,24}", text in "\\PC{0,12}") {
        if let Ok(p) = Pattern::compile(&source, 64) {
            let _ = p.is_match(&text);
            let again = Pattern::compile(&p.to_ecma_string(), usize::MAX);
            prop_assert!(again.is_ok(), "{source:?} -> {:?}: {again:?}", p.to_ecma_string());
            prop_assert_eq!(again.unwrap().is_match(&text), p.is_match(&text));
        }
    }

    #[test]
    fn regex_shaped_text_never_panics(source in "[\\[\\]()|*+?{}^$.\\\\a-c0-9,<>=!:pPdDwWsSbBkuxc-]{0,24}", text in "[a-c0-9 \\-]{0,8}") {
        match Pattern::compile(&source, 64) {
            Ok(p) => {
                let canonical = Pattern::compile(&p.to_ecma_string(), usize::MAX);
                prop_assert!(canonical.is_ok(), "{source:?} -> {:?}", p.to_ecma_string());
                let portable = Pattern::compile(&p.portable(), usize::MAX);
                prop_assert!(portable.is_ok(), "{source:?} -> {:?}", p.portable());
                let expected = p.is_match(&text);
                prop_assert_eq!(canonical.unwrap().is_match(&text), expected);
                prop_assert_eq!(portable.unwrap().is_match(&text), expected);
                prop_assert_eq!(oracle(&p.ast().root, &text), expected, "{:?} on {:?}", source, text);
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert!(!text.is_empty());
                if let Some(offset) = e.offset() {
                    prop_assert!(offset <= source.len());
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The shared corpora.

fn shared_corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "notice: {} is absent; skipping the tests that read the shared corpus",
            dir.display()
        );
        None
    }
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Just enough of JSON Schema to run the suite groups that test patterns.
fn suite_valid(schema: &Value, data: &Value) -> bool {
    let Some(o) = schema.as_object() else {
        return schema.as_bool().unwrap();
    };
    o.iter().all(|(k, v)| match k.as_str() {
        "$schema" => true,
        "type" => match v.as_str().unwrap() {
            "string" => data.is_string(),
            "integer" => data.as_f64().is_some_and(|x| x.fract() == 0.0),
            "number" => data.is_number(),
            "boolean" => data.is_boolean(),
            "null" => data.is_null(),
            "object" => data.is_object(),
            other => panic!("type {other}"),
        },
        "pattern" => data
            .as_str()
            .is_none_or(|s| compile(v.as_str().unwrap()).is_match(s)),
        "maximum" => data.as_f64().is_none_or(|x| x <= v.as_f64().unwrap()),
        "patternProperties" => data.as_object().is_none_or(|obj| {
            obj.iter().all(|(key, value)| {
                v.as_object()
                    .unwrap()
                    .iter()
                    .all(|(p, sub)| !compile(p).is_match(key) || suite_valid(sub, value))
            })
        }),
        "additionalProperties" => data.as_object().is_none_or(|obj| {
            let patterns: Vec<Pattern> = o
                .get("patternProperties")
                .and_then(Value::as_object)
                .map(|pp| pp.keys().map(|p| compile(p)).collect())
                .unwrap_or_default();
            obj.iter()
                .filter(|(key, _)| !patterns.iter().any(|p| p.is_match(key)))
                .all(|(_, value)| suite_valid(v, value))
        }),
        other => panic!("the test evaluator lacks `{other}`"),
    })
}

#[test]
fn official_test_suite_pattern_cases() {
    let Some(corpus) = shared_corpus() else {
        return;
    };
    let dir = corpus.join("json-schema-test-suite/tests/draft2020-12");
    let mut cases = 0;
    for file in [
        "pattern.json",
        "patternProperties.json",
        "optional/ecmascript-regex.json",
        "optional/non-bmp-regex.json",
    ] {
        for group in read_json(&dir.join(file)).as_array().unwrap() {
            let schema = &group["schema"];
            for test in group["tests"].as_array().unwrap() {
                let expected = test["valid"].as_bool().unwrap();
                assert_eq!(
                    suite_valid(schema, &test["data"]),
                    expected,
                    "{file}: {} / {}",
                    group["description"],
                    test["description"]
                );
                cases += 1;
            }
        }
    }
    eprintln!("official suite: {cases} pattern cases pass");
    assert!(cases > 100, "only {cases} cases found");
}

/// Every `pattern` string and `patternProperties` key in a schema, skipping data (`enum`,
/// `const`, `default`, examples) where such keys are not patterns.
fn collect_patterns(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                match (k.as_str(), x) {
                    ("enum" | "const" | "default" | "examples" | "example", _) => {}
                    ("pattern", Value::String(s)) => out.push(s.clone()),
                    ("patternProperties", Value::Object(pp)) => {
                        out.extend(pp.keys().cloned());
                        pp.values().for_each(|x| collect_patterns(x, out));
                    }
                    _ => collect_patterns(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_patterns(x, out)),
        _ => {}
    }
}

/// Strings in test instances (values and property names), to match the patterns against.
fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                collect_strings(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

#[test]
fn every_corpus_pattern_compiles_or_is_rejected_with_a_reason() {
    let Some(corpus) = shared_corpus() else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("jsonschemabench"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let (mut total, mut compiled, mut checked) = (0usize, 0usize, 0usize);
    let mut rejected: std::collections::BTreeMap<String, usize> = Default::default();
    let mut samples: Vec<String> = Vec::new();
    for file in &files {
        let doc = read_json(file);
        let mut patterns = Vec::new();
        collect_patterns(&doc["schema"], &mut patterns);
        if patterns.is_empty() {
            continue;
        }
        let mut strings = Vec::new();
        if let Some(tests) = doc["tests"].as_array() {
            tests
                .iter()
                .for_each(|t| collect_strings(&t["data"], &mut strings));
        }
        for source in patterns {
            total += 1;
            match Pattern::compile(&source, MAX) {
                Ok(p) => {
                    compiled += 1;
                    let canonical = compile(&p.to_ecma_string());
                    // The portable rendering leaves leading look-aheads out: it is wider.
                    let portable = compile(&p.portable());
                    let exact = p.look_aheads().is_empty();
                    for s in &strings {
                        let expected = p.is_match(s);
                        assert_eq!(
                            canonical.is_match(s),
                            expected,
                            "{source:?} canonical on {s:?}"
                        );
                        if exact {
                            assert_eq!(
                                portable.is_match(s),
                                expected,
                                "{source:?} portable on {s:?}"
                            );
                        } else {
                            assert!(!expected || portable.is_match(s), "{source:?} on {s:?}");
                        }
                        checked += 1;
                    }
                }
                Err(e) => {
                    let kind = match &e {
                        PatternError::Syntax { .. } => "syntax",
                        PatternError::Unsupported { reason, .. } => match reason {
                            UnsupportedReason::LookAround
                            | UnsupportedReason::LookAheadPlacement => "unsupported: look-around",
                            UnsupportedReason::Backreference => "unsupported: backreference",
                            _ => "unsupported: other",
                        },
                        PatternError::TooLong { .. } => "too long",
                        other => panic!("{}: {source:?}: unexpected {other:?}", file.display()),
                    };
                    assert!(e.to_string().len() > 40, "{source:?}: {e}");
                    if let Some(offset) = e.offset() {
                        assert!(offset <= source.len());
                    }
                    *rejected.entry(kind.to_owned()).or_default() += 1;
                    if samples.len() < 20 {
                        samples.push(format!("  {source:?}\n    -> {e}"));
                    }
                }
            }
        }
    }
    eprintln!(
        "jsonschemabench: {} files, {total} patterns, {compiled} compiled, rejected {rejected:?}; {checked} instance strings agree across renderings",
        files.len()
    );
    for s in &samples {
        eprintln!("{s}");
    }
    assert!(total > 2000, "only {total} patterns found");
    assert!(
        compiled * 100 >= total * 95,
        "{compiled} of {total} compiled"
    );
}

/// A pattern of the simple anchored shape that weighs at most
/// [`SIMPLE_WEIGHT_WITHOUT_ENGINE`] is not compiled for the engine, which it never runs on.
/// Compiled anyway, the heaviest such rows (each kind of set the shape admits, taken as many
/// times as the bound allows) stay within the default limits, so at those limits skipping the
/// compilation refuses nothing that was accepted and accepts nothing that was refused.
#[test]
fn simple_rows_within_the_bound_need_no_engine_and_would_compile() {
    let limits = crate::Limits::default();
    let affordable = limits.work_floor.saturating_mul(ENGINE_BYTES_PER_STEP) / (SHORT_STRING + 1);
    let affordable = usize::try_from(affordable).unwrap_or(usize::MAX);
    // Scattered code points: many ranges, each its own UTF-8 sequences.
    let scattered = |n: u32| -> String {
        (0..n)
            .filter_map(|i| char::from_u32(0x100 + 7 * i))
            .collect()
    };
    let sets = [
        ".".to_owned(),
        "[^a]".to_owned(),
        "\\S".to_owned(),
        "\\W".to_owned(),
        "[\\u0080-\\u{10FFFF}]".to_owned(),
        format!("[{}]", scattered(40)),
        format!("[{}]", scattered(1_000)),
        "[a-z]".to_owned(),
    ];
    for set in &sets {
        let one = Simple::of(compile(&format!("^{set}$")).ast()).map(|s| s.engine_weight());
        let copies = SIMPLE_WEIGHT_WITHOUT_ENGINE / one.unwrap_or_else(|| panic!("{set:.20}"));
        let source = format!("^{set}{{{copies}}}$");
        let pattern =
            Pattern::compile_with(&source, &limits).unwrap_or_else(|e| panic!("{source:.40}: {e}"));
        assert!(
            matches!(pattern.matcher, Matcher::Simple(_)),
            "{source:.40}"
        );
        assert_eq!(pattern.compiled_size(), 0);
        let engine = engine::Engine::build(
            pattern.engine_pattern(),
            u32::try_from(4 * MAX_DEPTH + 16).unwrap_or(u32::MAX),
            affordable,
        );
        match engine {
            Ok(engine) => {
                assert!(engine.compiled_size() < 500_000, "{source:.40}");
                eprintln!(
                    "{source:.40}: {copies} copies, {} bytes of program",
                    engine.compiled_size()
                )
            }
            Err(e) => panic!("{source:.40} would be refused by the engine: {e}"),
        }
    }
    // Heavier, and the pattern is compiled for the size verdict, as before: a huge count is
    // still refused.
    assert!(matches!(
        Pattern::compile_with(&format!("^[^a]{{{}}}$", 1u64 << 40), &limits),
        Err(PatternError::TooCostly { .. })
    ));
    assert!(matches!(compile("^a{5000}$").matcher, Matcher::Simple(_)));
}
