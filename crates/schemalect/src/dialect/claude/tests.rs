use super::DEFAULT_DESCRIPTION;
use crate::dialect::capabilities;
use crate::keywords::SUBSET;
use crate::{LowerOptions, Lowering, Mode, Schema, Target};
use pretty_assertions::assert_eq;
use serde_json::{json, Map, Value};

fn lower_with(target: Target, v: Value, options: &LowerOptions) -> Lowering {
    Schema::parse(&v)
        .unwrap_or_else(|e| panic!("{e}"))
        .lower(target, options)
}

fn tool(v: Value) -> Lowering {
    lower_with(Target::Claude, v, &LowerOptions::default())
}

fn native(v: Value) -> Lowering {
    lower_with(Target::ClaudeNative, v, &LowerOptions::default())
}

fn input_schema(l: &Lowering) -> &Value {
    &l.wire()["tools"][0]["input_schema"]
}

fn keywords(l: &Lowering) -> Vec<String> {
    let mut k: Vec<String> = l.losses().iter().map(|x| x.keyword.to_string()).collect();
    k.sort();
    k
}

fn forced(name: &str, description: &str, schema: Value, strict: bool) -> Value {
    let mut t = json!({"name": name, "description": description, "input_schema": schema});
    if strict {
        if let Value::Object(m) = &mut t {
            m.insert("strict".into(), Value::Bool(true));
        }
    }
    json!({"tools": [t], "tool_choice": {"type": "tool", "name": name}})
}

fn object(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

#[test]
fn a_closed_schema_is_sent_as_a_strict_forced_tool() {
    let schema = json!({
        "type": "object",
        "title": "Weather report",
        "properties": {
            "city": {"type": "string"},
            "unit": {"enum": ["c", "f"]},
            "days": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
            "where": {"anyOf": [object(json!({"lat": {"type": "number"}}), &["lat"]), {"type": "null"}]}
        },
        "required": ["city"],
        "additionalProperties": false
    });
    let l = tool(schema);
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        l.wire(),
        &forced(
            "Weather_report",
            DEFAULT_DESCRIPTION,
            json!({
                "title": "Weather report",
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["c", "f"]},
                    "days": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
                    "where": {"anyOf": [object(json!({"lat": {"type": "number"}}), &["lat"]), {"type": "null"}]}
                },
                "required": ["city"],
                "additionalProperties": false
            }),
            true
        )
    );
}

#[test]
fn name_and_description_are_configurable() {
    let schema = object(json!({"a": {"type": "string"}}), &["a"]);
    let options = LowerOptions::default()
        .with_name("record_answer")
        .with_description("Record the answer.");
    let l = lower_with(Target::Claude, schema.clone(), &options);
    assert_eq!(l.wire()["tools"][0]["name"], "record_answer");
    assert_eq!(l.wire()["tools"][0]["description"], "Record the answer.");
    assert_eq!(
        l.wire()["tool_choice"],
        json!({"type": "tool", "name": "record_answer"})
    );
    // Invalid names are not sent; without a title the default is used.
    let l = lower_with(
        Target::Claude,
        schema,
        &LowerOptions::default().with_name("a.b"),
    );
    assert_eq!(l.wire()["tools"][0]["name"], "response");
    // Titles are cut to 128 characters; the root description is the tool's.
    let l = tool(
        json!({"type": "object", "title": "t".repeat(200), "description": "Why", "additionalProperties": true}),
    );
    assert_eq!(l.wire()["tools"][0]["name"], "t".repeat(128));
    assert_eq!(l.wire()["tools"][0]["description"], "Why");
}

#[test]
fn grammar_subset_drops_bounds_and_clamps_min_items() {
    let l = tool(object(
        json!({
            "n": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 2},
            "s": {"type": "string", "minLength": 1, "maxLength": 9, "format": "uri"},
            "xs": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 5, "uniqueItems": true},
            "o": {"oneOf": [{"type": "string"}, {"type": "integer", "not": {"const": 0}}]}
        }),
        &["n", "s", "xs", "o"],
    ));
    assert_eq!(l.mode(), Mode::Widened);
    assert_eq!(l.wire()["tools"][0]["strict"], true);
    assert_eq!(
        input_schema(&l),
        &object(
            json!({
                "n": {"type": "integer"},
                "s": {"description": "format: uri", "type": "string"},
                "xs": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "o": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
            }),
            &["n", "s", "xs", "o"]
        )
    );
    assert_eq!(
        keywords(&l),
        [
            "exclusiveMaximum",
            "maxItems",
            "maxLength",
            "minItems",
            "minLength",
            "minimum",
            "multipleOf",
            "not",
            "oneOf",
            "uniqueItems"
        ]
    );
}

#[test]
fn patterns_are_kept_when_simple() {
    let pattern = |p: &str| {
        let l = tool(object(
            json!({"p": {"type": "string", "pattern": p}}),
            &["p"],
        ));
        input_schema(&l)["properties"]["p"].get("pattern").cloned()
    };
    assert_eq!(pattern("^\\d{3}$"), Some(json!("^\\d{3}$")));
    // Claude documents partial matching, so unanchored simple patterns are kept.
    assert_eq!(pattern("ab+c"), Some(json!("ab+c")));
    assert_eq!(pattern("\\bfoo"), None);
    assert_eq!(pattern("^a{1,500}$"), None);
}

#[test]
fn open_schemas_get_a_plain_forced_tool_in_json_mode() {
    let l = tool(json!({
        "type": "object",
        "properties": {"a": {"type": "string", "minLength": 2}, "m": {"type": "object", "additionalProperties": {"type": "integer"}}},
        "required": ["a"]
    }));
    assert_eq!(l.mode(), Mode::Json);
    assert_eq!(
        l.wire(),
        &forced(
            "response",
            DEFAULT_DESCRIPTION,
            json!({
                "type": "object",
                "properties": {"a": {"type": "string"}, "m": {"type": "object", "additionalProperties": {"type": "integer"}}},
                "required": ["a"],
                "additionalProperties": true
            }),
            false
        )
    );
    // Every blocker, one per node: the root and `m` are both open.
    assert_eq!(
        keywords(&l),
        ["additionalProperties", "additionalProperties"]
    );
    let at: Vec<&str> = l.losses().iter().map(|x| x.pointer.as_str()).collect();
    assert_eq!(at, ["/properties/m", ""]);
}

#[test]
fn per_request_limits_keep_the_tool_plain() {
    let many = |n: usize, schema: Value| -> Value {
        let mut m = Map::new();
        for i in 0..n {
            m.insert(format!("p{i}"), schema.clone());
        }
        Value::Object(m)
    };
    // One schema with 24 optional properties already fails compilation: 23 fit, 24 do not.
    let l = tool(object(many(23, json!({"type": "string"})), &[]));
    assert_eq!(l.mode(), Mode::Exact);
    let l = tool(object(many(24, json!({"type": "string"})), &[]));
    assert_eq!(l.mode(), Mode::Json);
    assert!(l.losses()[0].reason.contains("24 optional"));
    assert!(l.losses()[0].reason.contains("at most 23"));
    // Likewise 16 union-typed nodes: 15 fit, 16 do not.
    let nullable = json!({"type": ["string", "null"]});
    let names: Vec<String> = (0..16).map(|i| format!("p{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let l = tool(object(
        many(15, nullable.clone()),
        names.get(..15).unwrap_or_default(),
    ));
    assert_eq!(l.mode(), Mode::Exact);
    let l = tool(object(many(16, nullable.clone()), &names));
    assert_eq!(l.mode(), Mode::Json);
    assert!(l.losses()[0].reason.contains("16 union-typed"));
    // Bedrock's forced tool is the same model's compiler: the same thresholds.
    let l = lower_with(
        Target::BedrockClaude,
        object(many(16, nullable), &names),
        &LowerOptions::default(),
    );
    assert_eq!(l.mode(), Mode::Json);
    assert_eq!(
        l.wire().pointer("/toolConfig/tools/0/toolSpec/strict"),
        None,
        "{}",
        l.wire()
    );
}

#[test]
fn empty_closed_objects_are_not_sent_strict() {
    let schema = object(
        json!({"meta": {"type": "object", "additionalProperties": false}}),
        &["meta"],
    );
    let l = tool(schema.clone());
    assert_eq!(l.mode(), Mode::Json);
    // Named at its node, beside any other blocker (issue 19), not as a reason of the whole.
    let named: Vec<_> = l
        .losses()
        .iter()
        .map(|x| (x.pointer.as_str(), &*x.keyword))
        .collect();
    assert_eq!(named, [("/properties/meta", "additionalProperties")]);
    let l = native(schema);
    assert_eq!((l.mode(), l.wire()), (Mode::Prompt, &json!({})));
}

#[test]
fn arrays_without_items_are_not_sent_strict() {
    let schema = object(json!({"xs": {"type": "array"}}), &["xs"]);
    let l = tool(schema.clone());
    assert_eq!(l.mode(), Mode::Json);
    assert_eq!(keywords(&l), ["items"]);
    assert_eq!(native(schema).mode(), Mode::Prompt);
}

#[test]
fn thinking_forbids_the_forced_tool() {
    let l = lower_with(
        Target::Claude,
        object(json!({"a": {"type": "string"}}), &["a"]),
        &LowerOptions::default().with_claude_thinking(true),
    );
    assert_eq!((l.mode(), l.wire()), (Mode::Prompt, &json!({})));
    assert!(l.losses()[0].reason.contains("thinking"));
    // `output_config.format` is not a forced tool.
    let l = lower_with(
        Target::ClaudeNative,
        object(json!({"a": {"type": "string"}}), &["a"]),
        &LowerOptions::default().with_claude_thinking(true),
    );
    assert_eq!(l.mode(), Mode::Exact);
}

#[test]
fn roots_must_be_objects_and_not_unions() {
    let a = object(json!({"a": {"type": "string"}}), &["a"]);
    let b = object(json!({"b": {"type": "string"}}), &["b"]);
    for schema in [
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": ["object", "null"], "properties": {}, "additionalProperties": false}),
        json!({"anyOf": [a, b]}),
        json!({"type": "object", "oneOf": [a, b]}),
    ] {
        for l in [tool(schema.clone()), native(schema.clone())] {
            assert_eq!((l.mode(), l.wire()), (Mode::Prompt, &json!({})), "{schema}");
            assert_eq!(l.losses().len(), 1);
        }
    }
    // A root `allOf` is merged first.
    let l = tool(
        json!({"type": "object", "allOf": [a], "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
    );
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(input_schema(&l), &a);
}

#[test]
fn native_output_config_carries_the_grammar_schema() {
    let l = native(json!({
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "number", "maximum": 1}, "minItems": 2}},
        "required": ["xs"],
        "additionalProperties": false,
        "default": {"xs": [0, 0]}
    }));
    assert_eq!(l.mode(), Mode::Widened);
    assert_eq!(
        l.wire(),
        &json!({"output_config": {"format": {"type": "json_schema", "schema": {
            "type": "object",
            "properties": {"xs": {"type": "array", "items": {"type": "number"}, "minItems": 1}},
            "required": ["xs"],
            "additionalProperties": false,
            "default": {"xs": [0, 0]}
        }}}})
    );
    assert_eq!(keywords(&l), ["maximum", "minItems"]);
    // Open objects: Claude has no JSON-only mode, so nothing native is sent.
    let l = native(json!({"type": "object"}));
    assert_eq!((l.mode(), l.wire()), (Mode::Prompt, &json!({})));
    assert_eq!(keywords(&l), ["additionalProperties"]);
}

#[test]
fn every_subset_keyword_has_exactly_one_row() {
    for target in [Target::Claude, Target::ClaudeNative] {
        let caps = capabilities(target);
        assert_eq!(caps.target, target);
        assert_eq!(caps.rows.len(), SUBSET.len(), "{target}");
        for k in SUBSET {
            let n = caps.rows.iter().filter(|r| r.keyword == k.name).count();
            assert_eq!(n, 1, "{target}: `{}` has {n} rows", k.name);
        }
        assert!(
            caps.rows.iter().all(|r| r.source.contains("https://")),
            "{target}"
        );
    }
}
