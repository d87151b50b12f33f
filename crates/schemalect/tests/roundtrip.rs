//! `Schema::to_value` writes back a schema that means the same, and `Lowering::merge_into`
//! merges fragments the way request bodies need.

use schemalect::{LowerOptions, ParseOptions, Schema, Subset, Target};
use serde_json::{json, Value};

fn rewritten_means_the_same(source: Value, subset: Subset, instances: &[Value]) {
    let opts = ParseOptions::default().with_subset(subset);
    let s = Schema::parse_with(&source, &opts).unwrap_or_else(|e| panic!("{e}"));
    let v = s.to_value().unwrap_or_else(|e| panic!("{e}"));
    let again = Schema::parse_with(&v, &opts).unwrap_or_else(|e| panic!("{v}: {e}"));
    assert_eq!(
        again.to_value().ok(),
        Some(v.clone()),
        "writing back is stable"
    );
    for i in instances {
        assert_eq!(s.is_valid(i), again.is_valid(i), "{i} under {v}");
    }
}

#[test]
fn every_keyword_survives_writing_back() {
    rewritten_means_the_same(
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "t",
            "type": "object",
            "properties": {
                "s": {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^a", "format": "date"},
                "n": {"type": "number", "minimum": 0, "exclusiveMinimum": 0, "maximum": 9, "multipleOf": 3},
                "a": {"type": "array", "prefixItems": [{"const": 1}], "items": {"enum": [2, "x"]}, "minItems": 1, "maxItems": 4, "uniqueItems": true},
                "o": {"oneOf": [{"type": "null"}, {"not": {"type": "string"}, "anyOf": [{"type": "integer"}]}]},
                "m": {"type": "object", "additionalProperties": {"type": "boolean"}},
                "all": {"allOf": [{"minimum": 1}, {"maximum": 2}], "default": 1, "examples": [1]}
            },
            "required": ["s"],
            "additionalProperties": false
        }),
        Subset::Adr126,
        &[
            json!({"s": "a"}),
            json!({"s": ""}),
            json!({"s": "ab", "n": 3}),
            json!({"s": "ab", "n": 0}),
            json!({"s": "ab", "a": [1, 2, "x"]}),
            json!({"s": "ab", "a": [1, 2, 2]}),
            json!({"s": "ab", "o": null}),
            json!({"s": "ab", "o": 4}),
            json!({"s": "ab", "m": {"k": true}}),
            json!({"s": "ab", "m": {"k": 1}}),
            json!({"s": "ab", "all": 3}),
            json!({"s": "ab", "x": 1}),
        ],
    );
}

#[test]
fn recursion_is_written_through_defs() {
    rewritten_means_the_same(
        json!({
            "type": "object",
            "properties": {"v": {"type": "integer"}, "next": {"$ref": "#", "description": "the rest"}},
            "required": ["v"]
        }),
        Subset::Extended,
        &[
            json!({"v": 1, "next": {"v": 2}}),
            json!({"v": 1, "next": {"v": "x"}}),
            json!({"v": 1, "next": {}}),
        ],
    );
}

#[test]
fn fragments_merge_into_request_bodies() {
    let s = Schema::parse(&json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false})).unwrap();
    let mut body = json!({"model": "gemini-2.5-flash", "generationConfig": {"temperature": 0}});
    s.lower(Target::Gemini, &LowerOptions::default())
        .merge_into(&mut body);
    assert_eq!(body["generationConfig"]["temperature"], json!(0));
    assert_eq!(
        body["generationConfig"]["responseMimeType"],
        json!("application/json")
    );
    let mut body = json!({"tools": [{"name": "search", "input_schema": {"type": "object"}}]});
    s.lower(Target::Claude, &LowerOptions::default())
        .merge_into(&mut body);
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(body["tool_choice"]["name"], tools[1]["name"]);
}
