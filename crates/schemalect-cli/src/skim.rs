//! Parsing a document for the commands that read only its schemas (`lint`, `lower`).
//!
//! A benchmark-style or test-suite file is mostly its tests: in JSONSchemaBench, four fifths of
//! the bytes are `tests`. Building them as `serde_json::Value`s and dropping them again was
//! about two thirds of a `lower` run over the corpus (allocation and free, by callgrind), for
//! values these commands never read. Here the document is parsed as [`crate::input::parse_json`]
//! parses it, with one difference: the *contents* of a group's `tests` and `meta` (the members
//! of those names of the root object, or of an object in the root array; `meta` holds
//! JSONSchemaBench's feature lists, about a quarter the size of the schema) are checked as JSON
//! and skipped, and stand in the value as placeholders of the same shape: a list keeps its
//! length with `null` items, any other value becomes an empty value of its JSON type. Shape
//! detection ([`crate::input::detect`], [`crate::input::groups`]) reads only that shape, so it
//! decides as it would on the whole value; every syntax error is still found, at the same place.
//!
//! A group's `schema` is not built as a `Value` either: it is read into the document's
//! [`Tree`] (borrowing its strings from the text), which the library parses as it would the
//! `Value` ([`schemalect::Schema::parse_tree`]), and stands in the value as `null`. Building
//! it as a `Value` only to walk it once cost more than parsing it (docs/benchmarks.md, "Schemas
//! read into a tree").
//!
//! The placeholders are right only where the document is read as groups. Where it is read as
//! one plain schema (its shape is not a group file's, or `--kind schema` says so), a member
//! named `tests`, `meta` or `schema` is part of that schema: the caller then parses the text
//! again, whole ([`Skimmed::skipped`] says whether anything was left out).

use schemalect::json::{Id, Tree};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::Cell;
use std::fmt;

/// The members of a group that these commands never read (see the module doc).
const SKIPPED: [&str; 2] = ["tests", "meta"];

/// A document parsed with the contents of its groups' `tests` and `meta` left out, and their
/// `schema`s read into a tree.
#[derive(Debug)]
pub struct Skimmed<'t> {
    /// The document, with placeholders where contents were left out.
    pub value: Value,
    /// Whether any `tests`, `meta` or `schema` member was replaced by a placeholder.
    pub skipped: bool,
    /// Whether the document is an object none of whose keys is repeated.
    pub root_keys_unique: bool,
    /// The groups' schemas.
    pub tree: Tree<'t>,
    /// Where each schema read into the tree was, in document order: `None` for the root
    /// object's, the item's index for an item of the root array's. A repeated `schema`
    /// member is here once for each time; the last one counts, as in a `Value`.
    pub schemas: Vec<(Option<usize>, Id)>,
}

impl Skimmed<'_> {
    /// The schema of the group at `item` (`None`: the root object), when it was read into
    /// the tree.
    pub fn schema(&self, item: Option<usize>) -> Option<Id> {
        self.schemas
            .iter()
            .rev()
            .find(|(at, _)| *at == item)
            .map(|(_, id)| *id)
    }
}

/// Parses `text` as JSON, skipping the contents of groups' `tests` and `meta` and reading
/// their `schema`s into a tree (see the module doc).
pub fn from_str(text: &str) -> serde_json::Result<Skimmed<'_>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let skipped = Cell::new(false);
    let repeated = Cell::new(false);
    let tree = Cell::new(Tree::for_text(text.len()));
    let schemas = Cell::new(Vec::new());
    let value = Level {
        at: At::Root,
        skipped: &skipped,
        repeated: &repeated,
        tree: &tree,
        schemas: &schemas,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(Skimmed {
        root_keys_unique: value.is_object() && !repeated.get(),
        value,
        skipped: skipped.get(),
        tree: tree.take(),
        schemas: schemas.take(),
    })
}

/// Where a value sits, which decides whether its `tests` and `meta` members are skipped.
#[derive(Clone, Copy)]
enum At {
    /// The document: an object may be a benchmark-style group; an array, a list of groups.
    Root,
    /// An item of the root array, by index: an object may be a group.
    Item(usize),
}

/// The seed and visitor of a value at the root or an item of the root array.
#[derive(Clone, Copy)]
struct Level<'s, 'de> {
    at: At,
    skipped: &'s Cell<bool>,
    /// Set when the root object repeats a key.
    repeated: &'s Cell<bool>,
    /// The groups' schemas, taken out while one is read.
    tree: &'s Cell<Tree<'de>>,
    /// Where each schema in the tree was ([`Skimmed::schemas`]).
    schemas: &'s Cell<Vec<(Option<usize>, Id)>>,
}

impl<'de> Level<'_, 'de> {
    /// Reads a group's `schema` member into the tree.
    fn schema<A: MapAccess<'de>>(&self, map: &mut A) -> Result<(), A::Error> {
        let mut tree = self.tree.take();
        let read = map.next_value_seed(tree.seed());
        self.tree.set(tree);
        let id = read?;
        let item = match self.at {
            At::Root => None,
            At::Item(i) => Some(i),
        };
        let mut schemas = self.schemas.take();
        schemas.push((item, id));
        self.schemas.set(schemas);
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Level<'_, 'de> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level<'_, 'de> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        match self.at {
            At::Root => {
                while let Some(v) = seq.next_element_seed(Level {
                    at: At::Item(items.len()),
                    ..self
                })? {
                    items.push(v);
                }
            }
            At::Item(_) => {
                while let Some(v) = seq.next_element::<Value>()? {
                    items.push(v);
                }
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if SKIPPED.contains(&key.as_str()) {
                self.skipped.set(true);
                map.next_value_seed(Placeholder)?
            } else if key == "schema" {
                self.skipped.set(true);
                self.schema(&mut map)?;
                Value::Null
            } else {
                map.next_value::<Value>()?
            };
            // A repeated key: the last one wins, as in `Value`'s own parse.
            if out.insert(key, value).is_some() && matches!(self.at, At::Root) {
                self.repeated.set(true);
            }
        }
        Ok(Value::Object(out))
    }
}

/// A skipped value, kept only as its shape: a list of as many `null`s, or an empty value of
/// the same JSON type.
struct Placeholder;

impl<'de> DeserializeSeed<'de> for Placeholder {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Placeholder {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Bool(false))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::from(0))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::from(0))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::from(0))
    }

    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::String(String::new()))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut n = 0usize;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(Value::Array(vec![Value::Null; n]))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Value::Object(Map::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{detect, groups, parse_json, schema_groups, Kind, Source};
    use serde_json::json;

    fn skimmed(text: &str) -> Value {
        from_str(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .value
    }

    #[test]
    fn schemas_are_kept_and_tests_keep_their_shape() {
        let text = r#"{"description": "d", "meta": {"features": ["enum"], "size": 3},
            "schema": {"type": "object", "tests": [1], "meta": {"a": 1}},
            "tests": [{"data": {"a": [1, 2]}, "valid": true}, {"data": "x", "valid": false}]}"#;
        let doc = from_str(text).expect("valid JSON");
        let v = &doc.value;
        let full = parse_json(text).expect("valid JSON");
        // The schema (with keywords named `tests` and `meta` inside it) is kept whole, in the
        // tree, and `null` stands for it in the value.
        let schema = doc.schema(None).map(|id| doc.tree.to_value(id));
        assert_eq!(schema.as_ref(), Some(&full["schema"]));
        assert_eq!(v["schema"], Value::Null);
        assert_eq!(v["description"], "d");
        assert_eq!(v["tests"], json!([null, null]));
        assert_eq!(v["meta"], json!({}));
        assert_eq!(detect(v), detect(&full));
    }

    #[test]
    fn suite_files_and_plain_schemas_detect_alike() {
        for text in [
            r#"[{"description": "g", "schema": true, "tests": [{"data": 1, "valid": true}]},
                {"description": "h", "schema": {"minimum": 1}, "tests": []}]"#,
            r#"[{"schema": true, "tests": {"not": "a list"}}]"#,
            r#"{"schema": {}, "tests": "no"}"#,
            r#"{"type": "object", "properties": {"tests": {"type": "array"}}}"#,
            r#"{"type": "object", "meta": {"owner": "x"}, "properties": {}}"#,
            r#"[{"schema": {"type": "string"}, "meta": [1, {"a": 2}], "tests": []}]"#,
            r#"[1, 2.5, -3, "s", null, true, [{"tests": [1]}], {"tests": {"a": 1}}]"#,
            r#""just a string""#,
            "12345678901234567890",
        ] {
            let doc = from_str(text).expect("valid JSON");
            let v = &doc.value;
            assert_eq!(doc.root_keys_unique, v.is_object(), "{text}");
            let full = parse_json(text).expect("valid JSON");
            assert_eq!(detect(v), detect(&full), "{text}");
            if detect(v) == Kind::Schema {
                // Read as one plain schema, a skimmed document is parsed again whole.
                assert_eq!(doc.skipped, *v != full, "{text}");
                continue;
            }
            let (a, b) = (schema_groups(&doc, None), groups(&full, None));
            assert_eq!(a.is_ok(), b.is_ok(), "{text}");
            if let (Ok(a), Ok(b)) = (a, b) {
                assert_eq!(a.len(), b.len(), "{text}");
                for (x, y) in a.iter().zip(&b) {
                    assert_eq!(x.schema.to_value(), y.schema.to_value(), "{text}");
                    assert!(matches!(x.schema, Source::Tree(..)), "{text}");
                    assert_eq!(x.tests.len(), y.tests.len(), "{text}");
                }
            }
        }
        // Outside a group's `tests`, nothing is skipped.
        let text = r#"[1, 2.5, -3, "s", null, true, [{"tests": [1]}]]"#;
        assert_eq!(skimmed(text), parse_json(text).expect("valid JSON"));
    }

    #[test]
    fn a_repeated_root_key_is_noticed() {
        let once = from_str(r#"{"schema": {"a": 1, "a": 2}, "tests": []}"#).expect("valid");
        assert!(once.root_keys_unique);
        let twice = from_str(r#"{"schema": {}, "tests": [], "schema": true}"#).expect("valid");
        assert!(!twice.root_keys_unique);
        assert_eq!(
            twice.schema(None).map(|id| twice.tree.to_value(id)),
            Some(true.into())
        );
        let list = from_str(r#"[{"schema": {}, "schema": {}, "tests": []}]"#).expect("valid");
        assert!(!list.root_keys_unique);
    }

    #[test]
    fn syntax_errors_are_found_inside_skipped_tests() {
        for text in [
            r#"{"schema": {}, "tests": [{"data": [1, }]}"#,
            r#"{"schema": {}, "tests": [{"data": "\q"}]}"#,
            r#"{"schema": {}, "tests": []} trailing"#,
            r#"{"schema": {}, "tests": [01]}"#,
            r#"{"meta": {"a": [1,, 2]}, "schema": {}, "tests": []}"#,
        ] {
            let Err(skim) = from_str(text) else {
                panic!("{text} should not parse");
            };
            let full = serde_json::from_str::<Value>(text).expect_err(text);
            assert_eq!(
                (skim.line(), skim.column()),
                (full.line(), full.column()),
                "{text}"
            );
        }
    }
}
