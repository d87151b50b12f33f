//! The tree against serde_json's `Value`, the reference it must match: the same value (order
//! and repeated names included), the same errors at the same places, and the same parse of a
//! schema from it.

use super::Tree;
use crate::json::Json;
use crate::subset::{parse_sized, ParseOptions};
use crate::{Schema, Subset};
use proptest::prelude::*;
use serde_json::Value;

/// The tree's value and error, against serde_json's, for one text.
fn same_as_serde(text: &str) {
    let ours = Tree::parse(text).map(|(t, root)| t.get(root).as_value().into_owned());
    let reference = serde_json::from_str::<Value>(text);
    match (ours, reference) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{text}");
            // `Value`'s equality ignores member order; the text keeps it.
            assert_eq!(a.to_string(), b.to_string(), "{text}");
            // The size counted while reading, when known, and the walk of the tree are the
            // walk of the `Value`.
            let bytes = crate::budget::value_bytes(&b);
            if let Ok((tree, root)) = Tree::parse(text) {
                assert_eq!(crate::budget::value_bytes(tree.get(root)), bytes, "{text}");
                let size = tree.size(root);
                assert!(
                    size.is_none() || size == Some(bytes),
                    "{text}: {size:?} {bytes}"
                );
            }
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
        (a, b) => panic!("{text}: tree {a:?}, serde_json {b:?}"),
    }
}

/// `Schema::from_json_str` (through the tree) against serde_json then the parse of the
/// `Value`, in every subset.
fn same_schema(text: &str) {
    for subset in [Subset::Adr126, Subset::Extended, Subset::Full] {
        let options = ParseOptions::default().with_subset(subset);
        let ours = Schema::from_json_str(text, &options);
        let reference = serde_json::from_str::<Value>(text)
            .map_err(|e| crate::Error::json(&e))
            .and_then(|v| Ok(parse_sized(&v, &options, text.len() as u64)?));
        assert_eq!(
            format!("{ours:?}"),
            format!("{reference:?}"),
            "{subset:?}: {text}"
        );
        // A value of a tree, work budget included, against `parse_with` of the `Value`.
        if let (Ok((tree, root)), Ok(v)) = (Tree::parse(text), serde_json::from_str(text)) {
            assert_eq!(
                format!("{:?}", Schema::parse_tree(&tree, root, &options)),
                format!("{:?}", Schema::parse_with(&v, &options)),
                "{subset:?}: {text}"
            );
        }
    }
}

#[test]
fn a_tree_holds_several_values_and_survives_an_error() {
    use serde_core::de::DeserializeSeed;
    let mut tree = Tree::new();
    let mut de = serde_json::Deserializer::from_str(r#"{"a": [1, {"b": "c"}]} ["x", {}] [1, {"#);
    let first = tree.seed().deserialize(&mut de).ok();
    let second = tree.seed().deserialize(&mut de).ok();
    assert!(tree.seed().deserialize(&mut de).is_err());
    let read = |id: Option<super::Id>| id.map(|id| tree.get(id).as_value().into_owned());
    assert_eq!(read(first), Some(serde_json::json!({"a": [1, {"b": "c"}]})));
    assert_eq!(read(second), Some(serde_json::json!(["x", {}])));
    assert!(
        tree.open.is_empty(),
        "the failed value's open children are dropped"
    );
    // An id of another tree reads as `null`, never as a node that happens to share its index.
    let (other, root) = Tree::parse(r#"{"type": "string"}"#).expect("JSON");
    assert_eq!(tree.to_value(root), Value::Null);
    assert_eq!(tree.size(root), None);
    let refused = Schema::parse_tree(&tree, root, &ParseOptions::default());
    assert!(refused.is_err(), "{refused:?}");
    assert!(Schema::parse_tree(&other, root, &ParseOptions::default()).is_ok());
}

#[test]
fn values_read_as_serde_json_reads_them() {
    for text in [
        "null",
        "true",
        " false ",
        "0",
        "-0",
        "-0.0",
        "1.0",
        "2.5e-3",
        "1e300",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        r#""""#,
        r#""plain""#,
        r#""esc\"aped\\ \n \u00e9 \ud83d\ude00""#,
        "[]",
        "{}",
        "[1, [2, [3, {}]], {\"a\": []}]",
        r#"{"a": 1, "b": {"c": [true, null]}, "\u0061b": "x"}"#,
        // Repeated names: the first place, the last value.
        r#"{"a": 1, "b": 2, "a": 3}"#,
        r#"{"a": {"x": 1}, "b": 2, "\u0061": {"y": [1, 2]}, "a": 4}"#,
        r#"[{"k": 1, "k": 2}, {"k": 3}]"#,
    ] {
        same_as_serde(text);
    }
}

#[test]
fn sizes_are_counted_while_reading_unless_a_value_was_replaced() {
    let size = |text: &str| Tree::parse(text).ok().and_then(|(t, root)| t.size(root));
    let bytes =
        |text: &str| serde_json::from_str(text).map(|v: Value| crate::budget::value_bytes(&v));
    for text in [
        r#"{"a": [1, "xé", null, true, false, {"": 2.5}], "b": {}}"#,
        "[]",
        r#""A""#,
        "-0.0",
        r#"{"a": {"b": [[], [{}]]}, "c": "d"}"#,
    ] {
        assert_eq!(size(text), bytes(text).ok(), "{text}");
    }
    // A replaced value's bytes were counted: the size is not known, and the walk measures.
    assert_eq!(size(r#"{"a": "long value", "a": 1}"#), None);
}

#[test]
fn repeated_names_in_a_large_object_are_found_by_hashing() {
    // More members than the pairwise scan takes: names repeat from the 17th on, some with an
    // escape, so both the borrowed and the owned names meet in the index.
    let mut members: Vec<String> = (0..40).map(|i| format!(r#""m{}": {i}"#, i % 23)).collect();
    members.push(r#""\u006d3": "escaped""#.into());
    members.push(r#""m3": {"inner": {"m3": 1, "m3": 2}}"#.into());
    let text = format!("{{{}}}", members.join(", "));
    same_as_serde(&text);
    let tree = Tree::parse(&text).ok();
    let root = tree.as_ref().map(|(t, root)| t.get(*root));
    assert_eq!(root.and_then(|r| r.members()).map(|m| m.len()), Some(23));
}

#[test]
fn errors_are_serde_jsons_at_the_same_place() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for text in [
        "",
        " ",
        "[1,]",
        "{\"a\": 1,}",
        "{\"a\" 1}",
        "{1: 2}",
        "[1 2]",
        "tru",
        "01",
        "1e400",
        "\"\\ud800\"",
        "\"tab\there\"",
        "\"\\x\"",
        "{} {}",
        "[\"unterminated",
        deep.as_str(),
    ] {
        same_as_serde(text);
    }
}

#[test]
fn schemas_parse_as_from_a_value() {
    for text in [
        r#"{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}"#,
        r#"{"type": "string", "type": "integer", "minimum": 1}"#,
        r#"{"properties": {"a": {"type": "string"}, "b": {"type": "null"}, "a": {"enum": [1, [2], {"x": null}]}}}"#,
        r#"{"type": ["string", "nul"], "enum": [], "const": {"a": [1]}, "default": 3, "examples": [1, "two"]}"#,
        r#"{"type": "array", "items": [{"type": "string"}], "additionalItems": false}"#,
        r##"{"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}"##,
        r#"{"type": "object", "self": {"vendor": "v", "name": "n", "format": "jsonschema", "version": "1-0-0"}}"#,
        r#"{"type": "string", "pattern": "^(a|b)+$", "description": "d\u00e9", "title": "t", "x-extra": 1}"#,
        r#"{"anyOf": [true, false, 3, "s", null, [], {"type": "number", "multipleOf": 0.5}]}"#,
        r#"{"type": "integer", "exclusiveMinimum": true, "minimum": 2, "maximum": 9.5}"#,
        r#"[{"type": "string"}]"#,
        r#"{"type": "string""#,
    ] {
        same_schema(text);
    }
}

#[test]
fn literals_past_the_limits_are_refused_as_from_a_value() {
    // Literals nested past the depth limit, and an enum past its count, read from a tree
    // are refused before they are built as `Value`s, with the violations of the `Value`.
    let deep = format!("{}1{}", "[".repeat(12), "]".repeat(12));
    let texts = [
        format!(r#"{{"const": {deep}}}"#),
        format!(r#"{{"enum": [1, {deep}]}}"#),
        format!(
            r#"{{"type": "array", "default": {deep}, "examples": [{deep}], "example": {deep}}}"#
        ),
        r#"{"enum": [1, 2, 3, 4, 5]}"#.to_owned(),
    ];
    let limits = crate::limits::Limits::default()
        .with_max_depth(4)
        .with_max_enum_values(3);
    for text in &texts {
        for subset in [Subset::Adr126, Subset::Extended] {
            let options = ParseOptions::default()
                .with_subset(subset)
                .with_limits(limits);
            let value: Value = serde_json::from_str(text).expect("JSON");
            let (tree, root) = Tree::parse(text).expect("JSON");
            let from_tree = Schema::parse_tree(&tree, root, &options);
            assert!(from_tree.is_err(), "{text}");
            assert_eq!(
                format!("{from_tree:?}"),
                format!("{:?}", Schema::parse_with(&value, &options)),
                "{text}"
            );
        }
    }
}

/// A JSON value that may repeat member names, written out by [`write`].
#[derive(Clone, Debug)]
enum Doc {
    Null,
    Bool(bool),
    Number(&'static str),
    String(&'static str, bool),
    List(Vec<Doc>),
    Object(Vec<(&'static str, bool, Doc)>),
}

const NAMES: &[&str] = &[
    "type",
    "properties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "enum",
    "const",
    "required",
    "additionalProperties",
    "additionalItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "minLength",
    "maxItems",
    "multipleOf",
    "pattern",
    "description",
    "title",
    "default",
    "examples",
    "example",
    "$defs",
    "definitions",
    "$ref",
    "$id",
    "id",
    "uniqueItems",
    "format",
    "readOnly",
    "x-vendor",
    "unknownKeyword",
    "a",
    "b",
    "é",
];

const STRINGS: &[&str] = &[
    "string",
    "object",
    "array",
    "integer",
    "number",
    "boolean",
    "null",
    "#/$defs/a",
    "#",
    "^a+$",
    "(",
    "date-time",
    "é\"\\\n",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "3",
    "2.5",
    "1.0",
    "-0.0",
    "1e3",
    "1e300",
    "18446744073709551615",
    "-9223372036854775808",
    "0.1",
];

fn doc() -> impl Strategy<Value = Doc> {
    let leaf = prop_oneof![
        Just(Doc::Null),
        any::<bool>().prop_map(Doc::Bool),
        prop::sample::select(NUMBERS).prop_map(Doc::Number),
        (prop::sample::select(STRINGS), any::<bool>()).prop_map(|(s, e)| Doc::String(s, e)),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Doc::List),
            prop::collection::vec((prop::sample::select(NAMES), any::<bool>(), inner), 0..7)
                .prop_map(Doc::Object),
        ]
    })
}

/// A string literal, every letter escaped as `\u00XX` when `escaped`.
fn write_str(s: &str, escaped: bool, out: &mut String) {
    if !escaped {
        out.push_str(&Value::from(s).to_string());
        return;
    }
    out.push('"');
    for c in s.chars() {
        if c.is_ascii_alphabetic() {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            let quoted = Value::from(c.to_string()).to_string();
            out.push_str(quoted.trim_matches('"'));
        }
    }
    out.push('"');
}

fn write(d: &Doc, out: &mut String) {
    match d {
        Doc::Null => out.push_str("null"),
        Doc::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Doc::Number(n) => out.push_str(n),
        Doc::String(s, e) => write_str(s, *e, out),
        Doc::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, out);
            }
            out.push(']');
        }
        Doc::Object(members) => {
            out.push_str("{\n");
            for (i, (name, escaped, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                write_str(name, *escaped, out);
                out.push_str(": ");
                write(value, out);
            }
            out.push_str("\n}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_document_reads_as_serde_json_reads_it(d in doc()) {
        let mut text = String::new();
        write(&d, &mut text);
        same_as_serde(&text);
    }

    #[test]
    fn any_document_parses_as_a_schema_as_from_a_value(d in doc()) {
        let mut text = String::new();
        write(&d, &mut text);
        same_schema(&text);
    }

    #[test]
    fn a_cut_document_fails_as_serde_json_fails(d in doc(), cut in 0.0f64..1.0) {
        let mut text = String::new();
        write(&d, &mut text);
        let at = (text.len() as f64 * cut) as usize;
        let end = (0..=at).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        same_as_serde(text.get(..end).unwrap_or_default());
    }
}
