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

/// A body reused for several lowerings keeps only what the last one wrote (issue 19).
#[test]
fn merging_again_replaces_what_an_earlier_merge_wrote() {
    let strict = Schema::parse(&json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false})).unwrap();
    let open =
        Schema::parse(&json!({"type": "object", "properties": {"a": {"type": "string"}}})).unwrap();
    let default = LowerOptions::default();

    // OpenAI: strict json_schema, then json_object: no stale `json_schema` member.
    let mut body = json!({"model": "gpt-4o-mini"});
    strict.lower(Target::OpenAi, &default).merge_into(&mut body);
    assert_eq!(body["response_format"]["type"], json!("json_schema"));
    open.lower(Target::OpenAi, &default).merge_into(&mut body);
    assert_eq!(
        body,
        json!({"model": "gpt-4o-mini", "response_format": {"type": "json_object"}})
    );

    // Claude twice, and under two names: one answer tool, the caller's tool kept.
    let mut body = json!({"tools": [{"name": "search", "input_schema": {"type": "object"}}]});
    let once = strict.lower(Target::Claude, &default);
    once.merge_into(&mut body);
    once.merge_into(&mut body);
    strict
        .lower(Target::Claude, &default.clone().with_name("other"))
        .merge_into(&mut body);
    let names: Vec<&Value> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(names, [&json!("search"), &json!("other")]);
    assert_eq!(body["tool_choice"]["name"], json!("other"));
    // Then Claude's output_config.format: the forced answer tool goes.
    strict
        .lower(Target::ClaudeNative, &default)
        .merge_into(&mut body);
    assert_eq!(body["tools"].as_array().unwrap().len(), 1);
    assert!(body.get("tool_choice").is_none());
    assert!(body["output_config"]["format"]["schema"].is_object());

    // Gemini then gemini-json: one of responseSchema / responseJsonSchema.
    let mut body = json!({"generationConfig": {"temperature": 0}});
    strict.lower(Target::Gemini, &default).merge_into(&mut body);
    strict
        .lower(Target::GeminiJson, &default)
        .merge_into(&mut body);
    let config = body["generationConfig"].as_object().unwrap();
    assert!(config.contains_key("responseJsonSchema"));
    assert!(!config.contains_key("responseSchema"));
    assert_eq!(config["temperature"], json!(0));

    // Merging is idempotent on every target.
    for target in Target::ALL {
        for schema in [&strict, &open] {
            let plan = schema.lower(target, &default);
            let mut once = json!({"model": "m"});
            plan.merge_into(&mut once);
            let mut twice = once.clone();
            plan.merge_into(&mut twice);
            assert_eq!(once, twice, "{target}");
        }
    }
}
