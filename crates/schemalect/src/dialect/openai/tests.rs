use crate::dialect::capabilities;
use crate::keywords::SUBSET;
use crate::{LowerOptions, Lowering, Mode, Profile, Schema, Target};
use pretty_assertions::assert_eq;
use serde_json::{json, Map, Value};

fn lower_with(target: Target, v: Value, options: &LowerOptions) -> Lowering {
    Schema::parse(&v)
        .unwrap_or_else(|e| panic!("{e}"))
        .lower(target, options)
}

fn lower(v: Value) -> Lowering {
    lower_with(Target::OpenAi, v, &LowerOptions::default())
}

fn strict_wire(name: &str, schema: Value) -> Value {
    json!({"response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": true}}})
}

fn sent(l: &Lowering) -> &Value {
    &l.wire()["response_format"]["json_schema"]["schema"]
}

fn keywords(l: &Lowering) -> Vec<String> {
    let mut k: Vec<String> = l.losses().iter().map(|x| x.keyword.to_string()).collect();
    k.sort();
    k
}

/// A closed, all-required object with the given properties.
fn closed(props: Value) -> Value {
    let names: Vec<Value> = props
        .as_object()
        .map(|p| p.keys().cloned().map(Value::from).collect())
        .unwrap_or_default();
    json!({"type": "object", "properties": props, "required": names, "additionalProperties": false})
}

const JSON_OBJECT: fn() -> Value = || json!({"response_format": {"type": "json_object"}});

#[test]
fn strict_shaped_schemas_reach_strict_exactly() {
    let line = closed(json!({"sku": {"type": "string"}}));
    let branch = closed(json!({"a": {"type": "number"}}));
    let l = lower(closed(json!({
        "id": {"type": "integer", "minimum": 1, "exclusiveMaximum": 100, "multipleOf": 2},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1, "maxItems": 3},
        "note": {"type": ["string", "null"]},
        "kind": {"enum": ["x", "y"]},
        "lines": {"type": "array", "items": line},
        "choice": {"anyOf": [branch, {"type": "null"}]},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"}
    })));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        l.wire(),
        &strict_wire(
            "response",
            closed(json!({
                "id": {"type": "integer", "minimum": 1, "exclusiveMaximum": 100, "multipleOf": 2},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1, "maxItems": 3},
                "note": {"type": ["null", "string"]},
                "kind": {"type": "string", "enum": ["x", "y"]},
                "lines": {"type": "array", "items": line},
                "choice": {"anyOf": [branch, {"type": "null"}]},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"}
            }))
        )
    );
}

#[test]
fn name_and_description_follow_options_then_the_root() {
    let schema = json!({
        "type": "object", "title": "Invoice line (v2)", "description": "One line",
        "properties": {}, "additionalProperties": false
    });
    let l = lower(schema.clone());
    assert_eq!(
        l.wire()["response_format"]["json_schema"],
        json!({
            "name": "Invoice_line_v2",
            "description": "One line",
            "schema": {"title": "Invoice line (v2)", "description": "One line", "type": "object", "additionalProperties": false, "properties": {}, "required": []},
            "strict": true
        })
    );
    let options = LowerOptions::default()
        .with_name("invoice-line")
        .with_description("Answer with one line");
    let l = lower_with(Target::OpenAi, schema.clone(), &options);
    assert_eq!(
        l.wire()["response_format"]["json_schema"]["name"],
        "invoice-line"
    );
    assert_eq!(
        l.wire()["response_format"]["json_schema"]["description"],
        "Answer with one line"
    );
    // An invalid name is not sent; the title is used instead.
    let l = lower_with(
        Target::OpenAi,
        schema,
        &LowerOptions::default().with_name("not valid!"),
    );
    assert_eq!(
        l.wire()["response_format"]["json_schema"]["name"],
        "Invoice_line_v2"
    );
    // Long titles are cut to 64 characters; titles with nothing usable give "response".
    let l =
        lower(json!({"type": "object", "title": "x".repeat(80), "additionalProperties": false}));
    assert_eq!(
        l.wire()["response_format"]["json_schema"]["name"],
        "x".repeat(64)
    );
    let l = lower(json!({"type": "object", "title": "éé", "additionalProperties": false}));
    assert_eq!(
        l.wire()["response_format"]["json_schema"]["name"],
        "response"
    );
    assert!(l.wire()["response_format"]["json_schema"]
        .get("description")
        .is_none());
}

#[test]
fn open_or_optional_objects_fall_back_to_json_object() {
    let l = lower(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
    );
    assert_eq!(l.mode(), Mode::Json);
    assert_eq!(l.wire(), &JSON_OBJECT());
    assert_eq!(keywords(&l), ["additionalProperties"]);

    let l = lower(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
    );
    assert_eq!(l.mode(), Mode::Json);
    assert_eq!(keywords(&l), ["required"]);

    // A map: open to every name.
    let l = lower(json!({"type": "object", "additionalProperties": {"type": "string"}}));
    assert_eq!((l.mode(), l.wire()), (Mode::Json, &JSON_OBJECT()));

    // Nested open objects degrade the whole schema too.
    let l = lower(closed(
        json!({"inner": {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}}),
    ));
    assert_eq!(l.mode(), Mode::Json);
    assert_eq!(l.losses()[0].pointer.as_str(), "/properties/inner");
}

#[test]
fn non_object_roots_get_nothing_native() {
    for schema in [
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": "string"}),
        json!({"type": ["object", "null"], "properties": {}, "additionalProperties": false}),
        json!({"properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}),
        json!({"anyOf": [{"type": "object", "additionalProperties": false}, {"type": "integer"}]}),
    ] {
        let l = lower(schema.clone());
        assert_eq!(l.mode(), Mode::Prompt, "{schema}");
        assert_eq!(l.wire(), &json!({}), "{schema}");
        assert_eq!(l.losses().len(), 2, "{schema}");
    }
}

#[test]
fn a_root_union_of_objects_gets_json_object() {
    let a = closed(json!({"a": {"type": "string"}}));
    let b = closed(json!({"b": {"type": "string"}}));
    let l = lower(json!({"anyOf": [a, b]}));
    assert_eq!((l.mode(), l.wire()), (Mode::Json, &JSON_OBJECT()));
    assert_eq!(keywords(&l), ["anyOf"]);
    // Siblings distributed over a `oneOf` make the root a union as well.
    let l = lower(json!({
        "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false,
        "oneOf": [{"properties": {"a": {"const": "x"}}}, {"properties": {"a": {"const": "y"}}}]
    }));
    assert_eq!((l.mode(), l.wire()), (Mode::Json, &JSON_OBJECT()));
    assert_eq!(keywords(&l), ["oneOf"]);
}

#[test]
fn rejected_keywords_are_dropped_or_rewritten_with_losses() {
    let l = lower(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/s",
        "type": "object",
        "properties": {
            "s": {"type": "string", "minLength": 1, "maxLength": 5, "format": "email", "default": "x", "examples": ["a@b.c"], "description": "Mail"},
            "u": {"type": "array", "items": {"type": "integer"}, "uniqueItems": true},
            "n": {"type": "integer", "not": {"const": 3}},
            "o": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "p": {"type": "string", "pattern": "[a-z]"}
        },
        "required": ["s", "u", "n", "o", "p"],
        "additionalProperties": false
    }));
    assert_eq!(l.mode(), Mode::Widened);
    assert_eq!(
        sent(&l),
        &closed(json!({
            "s": {"description": "Mail (format: email)", "type": "string"},
            "u": {"type": "array", "items": {"type": "integer"}},
            "n": {"type": "integer"},
            "o": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "p": {"type": "string"}
        }))
    );
    // Annotations (`default`, `examples`, `$schema`, `$id`, `format`) go without a loss.
    assert_eq!(
        keywords(&l),
        [
            "maxLength",
            "minLength",
            "not",
            "oneOf",
            "pattern",
            "uniqueItems"
        ]
    );
}

#[test]
fn patterns_are_kept_only_when_anchored_and_simple() {
    let pattern = |p: &str| {
        let l = lower(closed(json!({"p": {"type": "string", "pattern": p}})));
        (
            l.mode(),
            sent(&l)["properties"]["p"].get("pattern").cloned(),
        )
    };
    assert_eq!(
        pattern("^\\d{3}-[a-z]+$"),
        (Mode::Exact, Some(json!("^\\d{3}-[a-z]+$")))
    );
    assert_eq!(
        pattern("^(?:ab|cd)$"),
        (Mode::Exact, Some(json!("^(?:ab|cd)$")))
    );
    assert_eq!(pattern("abc"), (Mode::Widened, None));
    assert_eq!(pattern("^a|b$"), (Mode::Widened, None));
    assert_eq!(pattern("^\\s+$"), (Mode::Widened, None));
}

#[test]
fn non_scalar_enums_are_dropped_whole_and_const_becomes_enum() {
    let l = lower(closed(json!({
        "pair": {"type": ["array", "null"], "items": {"type": "integer"}, "enum": [[1, 2], null]},
        "fixed": {"const": "v1"},
        "one": {"const": 1}
    })));
    assert_eq!(l.mode(), Mode::Widened);
    assert_eq!(
        sent(&l)["properties"],
        json!({
            "pair": {"type": ["null", "array"], "items": {"type": "integer"}},
            "fixed": {"type": "string", "enum": ["v1"]},
            "one": {"type": "integer", "enum": [1]}
        })
    );
    assert_eq!(keywords(&l), ["enum"]);
}

#[test]
fn all_of_is_merged_when_the_merge_keeps_the_contract() {
    let l = lower(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": false,
        "allOf": [{"required": ["b"]}, {"properties": {"a": {"enum": ["x", "y"]}}}]
    }));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        sent(&l),
        &closed(json!({"a": {"type": "string", "enum": ["x", "y"]}, "b": {"type": "integer"}}))
    );
    // Two unions in one conjunction cannot be merged; the members declare properties, so
    // dropping them would narrow.
    let obj = closed(json!({"a": {"type": "string"}}));
    let l = lower(closed(json!({"p": {"allOf": [
        {"anyOf": [obj, {"type": "null"}]},
        {"anyOf": [obj, {"type": "string"}]}
    ]}})));
    assert_eq!(l.mode(), Mode::Json);
}

#[test]
fn required_names_without_a_property_are_not_sent() {
    let l = lower(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a", "ghost"],
        "additionalProperties": false
    }));
    assert_eq!(l.mode(), Mode::Widened);
    assert_eq!(sent(&l), &closed(json!({"a": {"type": "string"}})));
    assert_eq!(keywords(&l), ["required"]);
}

#[test]
fn closed_objects_without_properties_say_so() {
    let l = lower(closed(
        json!({"meta": {"type": "object", "additionalProperties": false}}),
    ));
    assert_eq!(l.mode(), Mode::Exact);
    assert_eq!(
        sent(&l)["properties"]["meta"],
        json!({"type": "object", "additionalProperties": false, "properties": {}, "required": []})
    );
}

#[test]
fn typeless_nodes_get_their_types_or_degrade() {
    let l = lower(closed(json!({"k": {"enum": ["x", 1, null]}})));
    assert_eq!(l.mode(), Mode::Exact);
    assert_eq!(
        sent(&l)["properties"]["k"],
        json!({"type": ["null", "integer", "string"], "enum": ["x", 1, null]})
    );
    // "Anything but null" includes open objects and arrays of anything.
    let l = lower(closed(json!({"k": {"not": {"type": "null"}}})));
    assert_eq!(l.mode(), Mode::Json);
    // Object keywords on a node that admits no object are vacuous and not sent.
    let l = lower(closed(
        json!({"k": {"type": "string", "properties": {"x": {"type": "integer"}}, "minimum": 3}}),
    ));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(sent(&l)["properties"]["k"], json!({"type": "string"}));
}

#[test]
fn arrays_need_items() {
    let l = lower(closed(json!({"tags": {"type": "array", "maxItems": 3}})));
    assert_eq!(l.mode(), Mode::Json);
    assert_eq!(keywords(&l), ["items"]);
    assert_eq!(l.losses()[0].pointer.as_str(), "/properties/tags");
    // A tuple with a tail is sent as `items: anyOf` of every position.
    let l = lower(closed(
        json!({"t": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}}),
    ));
    assert_eq!(l.mode(), Mode::Widened);
    assert_eq!(
        sent(&l)["properties"]["t"],
        json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}})
    );
    assert_eq!(keywords(&l), ["prefixItems"]);
    // Without a tail, items after the prefix are unconstrained.
    let l = lower(closed(
        json!({"t": {"type": "array", "prefixItems": [{"type": "string"}]}}),
    ));
    assert_eq!(l.mode(), Mode::Json);
}

/// Objects nested `levels` deep, the root counting as one.
fn nested(levels: usize) -> Value {
    let mut schema = closed(json!({"leaf": {"type": "string"}}));
    for _ in 1..levels {
        schema = closed(json!({"c": schema}));
    }
    schema
}

#[test]
fn nesting_is_limited_to_ten_levels() {
    assert_eq!(lower(nested(10)).mode(), Mode::Exact);
    let l = lower(nested(11));
    assert_eq!(l.mode(), Mode::Json);
    assert!(
        l.losses()[0].reason.contains("11 levels"),
        "{}",
        l.losses()[0]
    );
}

#[test]
fn size_limits_are_kept() {
    let values = |n: usize, width: usize| -> Vec<Value> {
        (0..n)
            .map(|i| Value::from(format!("{i:0width$}")))
            .collect()
    };
    // 1,000 enum values pass, 1,001 do not.
    let l = lower(closed(
        json!({"e": {"type": "string", "enum": values(1000, 4)}}),
    ));
    assert_eq!(l.mode(), Mode::Exact);
    let l = lower(closed(
        json!({"e": {"type": "string", "enum": values(1001, 4)}}),
    ));
    assert_eq!(l.mode(), Mode::Json);
    assert!(l.losses()[0].reason.contains("1001 enum values"));
    // A string enum of more than 250 values is limited to 15,000 characters.
    let l = lower(closed(
        json!({"e": {"type": "string", "enum": values(251, 59)}}),
    ));
    assert_eq!(l.mode(), Mode::Exact);
    let l = lower(closed(
        json!({"e": {"type": "string", "enum": values(251, 60)}}),
    ));
    assert_eq!(l.mode(), Mode::Json);
    // 5,000 properties in all.
    let props = |n: usize, width: usize| -> Value {
        let mut m = Map::new();
        for i in 0..n {
            m.insert(format!("{i:0width$}"), json!({"type": "null"}));
        }
        Value::Object(m)
    };
    assert_eq!(lower(closed(props(5000, 4))).mode(), Mode::Exact);
    let l = lower(closed(props(5001, 4)));
    assert_eq!(l.mode(), Mode::Json);
    assert!(l.losses()[0].reason.contains("5001 object properties"));
    // 120,000 characters of names and values.
    let l = lower(closed(props(2000, 61)));
    assert_eq!(l.mode(), Mode::Json);
    assert!(l.losses()[0].reason.contains("122000 characters"));
}

#[test]
fn union_objects_must_not_share_their_first_key() {
    let a = closed(json!({"name": {"type": "string"}, "a": {"type": "string"}}));
    let b = closed(
        json!({"name": {"type": "string", "description": "other"}, "b": {"type": "string"}}),
    );
    let l = lower(closed(json!({"op": {"anyOf": [a, b]}})));
    assert_eq!(l.mode(), Mode::Json);
    assert!(l.losses()[0].reason.contains("`name`"), "{}", l.losses()[0]);
    // A discriminator first is fine: same name, different schema.
    let a = closed(json!({"kind": {"const": "a"}, "a": {"type": "string"}}));
    let b = closed(json!({"kind": {"const": "b"}, "b": {"type": "string"}}));
    let l = lower(closed(json!({"op": {"anyOf": [a, b]}})));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
}

#[test]
fn groq_is_strict_only_when_the_model_supports_it() {
    let schema = closed(
        json!({"n": {"type": "integer", "minimum": 0}, "s": {"type": "string", "pattern": "^a+$"}}),
    );
    let l = lower_with(Target::Groq, schema.clone(), &LowerOptions::default());
    assert_eq!((l.mode(), l.wire()), (Mode::Json, &JSON_OBJECT()));
    assert!(l.losses()[0].reason.contains("groq_strict"));
    let l = lower_with(
        Target::Groq,
        schema,
        &LowerOptions::default().with_groq_strict(true),
    );
    assert_eq!(l.mode(), Mode::Widened);
    assert_eq!(
        l.wire(),
        &strict_wire(
            "response",
            closed(json!({"n": {"type": "integer"}, "s": {"type": "string"}}))
        )
    );
    assert_eq!(keywords(&l), ["minimum", "pattern"]);
}

#[test]
fn mistral_gets_no_meta_keywords_and_only_the_core() {
    let l = lower_with(
        Target::Mistral,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "urn:x",
            "type": "object",
            "properties": {"a": {"$id": "urn:y", "type": "array", "items": {"type": "string"}, "maxItems": 2}},
            "required": ["a"],
            "additionalProperties": false
        }),
        &LowerOptions::default(),
    );
    assert_eq!(l.mode(), Mode::Widened);
    assert_eq!(
        l.wire(),
        &strict_wire(
            "response",
            closed(json!({"a": {"type": "array", "items": {"type": "string"}}}))
        )
    );
    assert_eq!(keywords(&l), ["maxItems"]);
}

#[test]
fn openrouter_requires_parameter_support_unless_told_not_to() {
    let strict_schema = closed(json!({"a": {"type": "boolean"}}));
    let l = lower_with(
        Target::OpenRouter,
        strict_schema.clone(),
        &LowerOptions::default(),
    );
    assert_eq!(l.mode(), Mode::Exact);
    let mut want = strict_wire("response", strict_schema.clone());
    if let Value::Object(m) = &mut want {
        m.insert("provider".into(), json!({"require_parameters": true}));
    }
    assert_eq!(l.wire(), &want);

    let open = json!({"type": "object"});
    let l = lower_with(Target::OpenRouter, open.clone(), &LowerOptions::default());
    assert_eq!(
        l.wire(),
        &json!({"response_format": {"type": "json_object"}, "provider": {"require_parameters": true}})
    );
    let off = LowerOptions::default().with_openrouter_require_parameters(false);
    assert_eq!(
        lower_with(Target::OpenRouter, open, &off).wire(),
        &JSON_OBJECT()
    );
    assert_eq!(
        lower_with(Target::OpenRouter, strict_schema.clone(), &off).wire(),
        &strict_wire("response", strict_schema)
    );
    let l = lower_with(
        Target::OpenRouter,
        json!({"type": "string"}),
        &LowerOptions::default(),
    );
    assert_eq!((l.mode(), l.wire()), (Mode::Prompt, &json!({})));
}

#[test]
fn every_subset_keyword_has_exactly_one_row() {
    for target in [
        Target::OpenAi,
        Target::Groq,
        Target::Mistral,
        Target::OpenRouter,
    ] {
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

#[test]
fn a_fallback_names_every_blocker_once_per_node_with_the_properties_it_concerns() {
    // Five nodes that strict mode cannot send: an open root with optional `b`, an open nested
    // object, an array without `items`, a closed object with an optional property, and one
    // more array deep inside an `anyOf` branch.
    let l = lower(json!({
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "integer"},
            "open": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
            "list": {"type": "array"},
            "closed": {
                "type": "object",
                "properties": {"p": {"type": "string"}, "q": {"type": "string"}},
                "required": ["p"],
                "additionalProperties": false
            },
            "either": {"anyOf": [{"type": "string"}, {"type": "array"}]}
        },
        "required": ["a", "open", "list", "closed", "either"]
    }));
    assert_eq!(l.mode(), Mode::Json);
    let mut at: Vec<(&str, &str)> = l
        .losses()
        .iter()
        .map(|x| (x.pointer.as_str(), &*x.keyword))
        .collect();
    at.sort_unstable();
    assert_eq!(
        at,
        [
            ("", "additionalProperties"),
            ("/properties/closed", "required"),
            ("/properties/either/anyOf/1", "items"),
            ("/properties/list", "items"),
            ("/properties/open", "additionalProperties"),
        ]
    );
    let reason = |p: &str| {
        l.losses()
            .iter()
            .find(|x| x.pointer.as_str() == p)
            .map(|x| x.reason.to_string())
            .unwrap_or_default()
    };
    assert!(reason("").contains("`b` is optional"), "{}", reason(""));
    assert!(reason("/properties/closed").contains("`q` is optional"));
    // The reshaping profile closes, requires and wraps: it reaches strict mode.
    let hint = l.stronger_profile(&LowerOptions::default());
    assert_eq!(hint, Some((Profile::Reshaping, Mode::Widened)));
    // Already native, or already reshaping: no hint.
    let native = lower(closed(json!({"a": {"type": "string"}})));
    assert_eq!(native.stronger_profile(&LowerOptions::default()), None);
    let reshaping = LowerOptions::default().with_profile(Profile::Reshaping);
    assert_eq!(l.stronger_profile(&reshaping), None);
}
