//! The widening contract, proved from outside the library (`design/widening.md`): no answer the
//! source schema accepts (in the declared fragment) is made impossible by what a lowering sends.
//!
//! Everything here goes through `support`'s independent oracle (`T(wire)` and the provider
//! refusal rules, written from the design documents and the Python harness, checked with the
//! `jsonschema` crate), never through the dialect code:
//!
//! - `oracle_*`: the oracle itself on hand-written wires, including wires that narrow;
//! - `generated_schemas_widen_on_every_target`: the property test (proptest; schemas and
//!   values generated from JSON, failures shrink to a minimal schema and value);
//! - `corpus_replay`: every in-subset schema of the shared JSONSchemaBench corpus with its
//!   instances;
//! - `regression_*`: one test per narrowing class of widening.md and per applicable nr-llm bug
//!   of peers.md §7, each through the library for every target and through the oracle with a
//!   hand-made wire that makes the mistake.
//!
//! Targets without a native lowering yet answer in prompt mode and pass trivially; they are
//! checked in full as soon as they emit a wire.

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use schemalect::{LowerOptions, Mode, ParseOptions, Profile, Schema, Subset, Target};
use serde_json::{json, Value};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::time::Instant;
use support::contract;
use support::declared::declared;
use support::{extended, gen, gen_full, oracle};

fn lang(target: Target, wire: Value) -> oracle::Language {
    oracle::language(target, &wire).unwrap_or_else(|e| panic!("{target}: {e}\nwire: {wire}"))
}

fn refused(target: Target, wire: Value) -> String {
    match oracle::language(target, &wire) {
        Ok(l) => panic!(
            "{target}: expected a provider error for {wire}, got T = {}",
            l.schema
        ),
        Err(e) => e.0,
    }
}

// ---------------------------------------------------------------------------------------------
// The oracle on hand-written wires

#[test]
fn oracle_nothing_sent_is_anything() {
    for t in Target::ALL {
        let l = lang(t, json!({}));
        assert!(l.is_anything() && !l.is_native(), "{t}");
        for x in [json!(null), json!([1]), json!("s"), json!({"a": 1})] {
            assert!(l.accepts(&x), "{t} {x}");
        }
    }
}

#[test]
fn oracle_json_modes_are_objects_only() {
    for (t, wire) in [
        (
            Target::OpenAi,
            json!({"response_format": {"type": "json_object"}}),
        ),
        (
            Target::Groq,
            json!({"response_format": {"type": "json_object"}}),
        ),
        (Target::Ollama, json!({"format": "json"})),
    ] {
        let l = lang(t, wire);
        assert_eq!(l.schema, json!({"type": "object"}), "{t}");
        assert!(l.accepts(&json!({"any": [1]})));
        assert!(!l.accepts(&json!([1])) && !l.accepts(&json!(null)), "{t}");
    }
    // Gemini with the mime type only: any JSON value.
    let l = lang(
        Target::Gemini,
        json!({"generationConfig": {"responseMimeType": "application/json"}}),
    );
    assert!(l.is_anything());
    refused(Target::OpenAi, json!({"response_format": {"type": "yaml"}}));
    refused(Target::Ollama, json!({"format": "yaml"}));
}

#[test]
fn oracle_issue_20_routes() {
    // Responses API: `text.format`, flat; the Chat Completions field is not a parameter there.
    let l = lang(
        Target::OpenAiResponses,
        json!({"text": {"format": {"type": "json_object"}}}),
    );
    assert_eq!(l.schema, json!({"type": "object"}));
    let strict = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false});
    let l = lang(
        Target::OpenAiResponses,
        json!({"text": {"format": {"type": "json_schema", "name": "x", "schema": strict, "strict": true}}}),
    );
    assert!(l.accepts(&json!({"a": "s"})) && !l.accepts(&json!({"a": 1})));
    refused(
        Target::OpenAiResponses,
        json!({"response_format": {"type": "json_object"}}),
    );
    refused(
        Target::OpenAiResponses,
        json!({"text": {"format": {"type": "json_schema", "name": "x", "schema": {"type": "object", "properties": {}, "required": [], "additionalProperties": false, "default": {}}, "strict": true}}}),
    );
    // Interactions: the probe's refused keywords are refused; missing additionalProperties
    // reads as closed (the stricter reading).
    let entry = |schema: Value| json!({"response_format": {"type": "text", "mime_type": "application/json", "schema": schema}});
    refused(
        Target::GeminiInteractions,
        entry(json!({"type": "string", "maxLength": 3})),
    );
    refused(
        Target::GeminiInteractions,
        entry(json!({"type": "array", "items": {"type": "integer", "minimum": 0}})),
    );
    let l = lang(
        Target::GeminiInteractions,
        entry(json!({"type": "object", "properties": {"a": {"type": "string"}}})),
    );
    assert!(l.accepts(&json!({"a": "s"})) && !l.accepts(&json!({"a": "s", "b": 1})));
    refused(
        Target::GeminiInteractions,
        json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {"type": "object"}}}),
    );
    // Bedrock Converse: a strict tool spec is closed; a plain one guarantees an object;
    // `output_config` is refused there; the tool must be forced.
    let tool = |schema: Value, strict: bool| {
        let mut spec = json!({"name": "answer", "inputSchema": {"json": schema}});
        if strict {
            spec["strict"] = json!(true);
        }
        json!({"toolConfig": {"tools": [{"toolSpec": spec}], "toolChoice": {"tool": {"name": "answer"}}}})
    };
    let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let l = lang(Target::BedrockClaude, tool(open.clone(), false));
    assert_eq!(l.schema, json!({"type": "object"}));
    refused(Target::BedrockClaude, tool(open, true));
    let l = lang(Target::BedrockClaude, tool(strict.clone(), true));
    assert!(!l.accepts(&json!({"a": "s", "b": 1})));
    refused(
        Target::BedrockClaude,
        json!({"output_config": {"format": {"type": "json_schema", "schema": strict}}}),
    );
    let mut unforced = tool(strict, true);
    if let Some(c) = unforced["toolConfig"].as_object_mut() {
        c.remove("toolChoice");
    }
    refused(Target::BedrockClaude, unforced);
    // Vertex `responseSchema`: the Gemini `Schema` rules.
    refused(
        Target::VertexGemini,
        json!({"generationConfig": {"responseMimeType": "application/json", "responseSchema": {"type": ["STRING", "NULL"]}}}),
    );
}

/// Issue 20, the last two routes: Ollama's MLX backend (xgrammar) and llama-server.
#[test]
fn oracle_ollama_mlx_and_llama_server() {
    let mlx = |f: Value| json!({"format": f});
    // Strict mode: a missing `additionalProperties` closes, a missing `items` too.
    let l = lang(
        Target::OllamaMlx,
        mlx(json!({"type": "object", "properties": {"a": {"type": "array"}}})),
    );
    assert!(l.accepts(&json!({"a": []})));
    assert!(!l.accepts(&json!({"a": [1]})) && !l.accepts(&json!({"a": [], "b": 1})));
    let l = lang(
        Target::OllamaMlx,
        mlx(json!({"type": "array", "items": {}, "maxItems": 2})),
    );
    assert!(l.accepts(&json!([null, {"k": 1}])) && !l.accepts(&json!([1, 2, 3])));
    // A pattern is matched whole, over raw characters only.
    let l = lang(
        Target::OllamaMlx,
        mlx(json!({"type": "string", "pattern": "a+"})),
    );
    assert!(l.accepts(&json!("aa")) && !l.accepts(&json!("baa")));
    let l = lang(
        Target::OllamaMlx,
        mlx(json!({"type": "string", "pattern": "^[^x]*$"})),
    );
    assert!(l.accepts(&json!("ab")) && !l.accepts(&json!("a\"b")));
    // What xgrammar degrades or misreads is never acceptable.
    for bad in [
        json!({"allOf": [{"type": "object"}, {"required": ["a"]}]}),
        json!({"type": "string", "format": "email"}),
        json!({"type": "string", "maxLength": 3}),
        json!({"type": "integer", "minimum": 0.5}),
    ] {
        refused(Target::OllamaMlx, mlx(bad));
    }
    assert_eq!(
        lang(Target::OllamaMlx, json!({"format": "json"})).schema,
        json!({"type": "object"})
    );

    // llama-server: `json_schema` read by llama.cpp's converter; `json_object` without a
    // schema constrains nothing; `grammar` beside a schema is a 500.
    let rf = |schema: Value| json!({"response_format": {"type": "json_schema", "json_schema": {"schema": schema}}});
    let l = lang(
        Target::LlamaServer,
        rf(json!({"type": "object", "properties": {"a": {"type": "string"}}})),
    );
    assert!(l.accepts(&json!({"a": "s"})) && !l.accepts(&json!({"a": "s", "b": 1})));
    let l = lang(Target::LlamaServer, rf(json!({})));
    assert!(l.accepts(&json!({})) && !l.accepts(&json!(1)) && !l.accepts(&json!({"a": 1})));
    let l = lang(
        Target::LlamaServer,
        json!({"response_format": {"type": "json_object"}}),
    );
    assert!(l.is_anything());
    let mut both = rf(json!({"type": "string"}));
    both["grammar"] = json!("root ::= \"x\"");
    refused(Target::LlamaServer, both);
    refused(
        Target::LlamaServer,
        rf(json!({"type": "string", "pattern": "ab"})),
    );
    // The fallback's schema admits every kind of value as llama.cpp reads it.
    let any = json!({"anyOf": [
        {"type": "object", "additionalProperties": true},
        {"type": ["null", "boolean", "array", "number", "string"]}
    ]});
    let l = lang(Target::LlamaServer, rf(any));
    assert!(l.admits_every_kind());
    assert!(!lang(Target::LlamaServer, rf(json!({"type": "object"}))).admits_every_kind());
}

#[test]
fn oracle_gemini_response_schema() {
    let gc = |s: Value| json!({"generationConfig": {"responseMimeType": "application/json", "responseSchema": s}});
    // An OBJECT without properties is HTTP 400, never acceptable output.
    let e = refused(Target::Gemini, gc(json!({"type": "OBJECT"})));
    assert!(e.contains("properties"), "{e}");
    assert!(oracle::decoder_language(Target::Gemini, &gc(json!({"type": "OBJECT"}))).is_err());
    assert!(oracle::gemini_schema_to_js(
        &json!({"type": "ARRAY", "items": {"type": "OBJECT", "properties": {}}})
    )
    .is_err());
    refused(
        Target::Gemini,
        gc(json!({"type": "OBJECT", "properties": {}})),
    );
    // `type` is a single value; a list is a proto error.
    refused(Target::Gemini, gc(json!({"type": ["STRING", "NULL"]})));
    // Unknown fields are 400 "Unknown name".
    refused(
        Target::Gemini,
        gc(
            json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}}, "additionalProperties": true}),
        ),
    );
    // Untyped nodes are not expressible.
    refused(Target::Gemini, gc(json!({"description": "anything"})));
    // enum: strings with type STRING only.
    refused(
        Target::Gemini,
        gc(json!({"type": "INTEGER", "enum": ["1"]})),
    );
    refused(
        Target::Gemini,
        gc(json!({"type": "STRING", "enum": ["a", 1]})),
    );
    // The mime type is required beside a schema.
    refused(
        Target::Gemini,
        json!({"generationConfig": {"responseSchema": {"type": "STRING"}}}),
    );

    // `nullable` adds null.
    let l = lang(
        Target::Gemini,
        gc(json!({"type": "STRING", "nullable": true})),
    );
    assert!(l.accepts(&json!(null)) && l.accepts(&json!("x")) && !l.accepts(&json!(1)));
    let l = lang(Target::Gemini, gc(json!({"type": "STRING"})));
    assert!(!l.accepts(&json!(null)));
    let l = lang(
        Target::Gemini,
        gc(json!({"type": "STRING", "enum": ["a"], "nullable": true})),
    );
    assert!(l.accepts(&json!(null)) && l.accepts(&json!("a")) && !l.accepts(&json!("b")));
    let l = lang(
        Target::Gemini,
        gc(json!({"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}], "nullable": true})),
    );
    assert!(l.accepts(&json!(null)) && l.accepts(&json!(1)) && !l.accepts(&json!(true)));
    // Every OBJECT is closed; properties are optional unless required.
    let l = lang(
        Target::Gemini,
        gc(json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": []})),
    );
    assert!(l.accepts(&json!({})) && l.accepts(&json!({"a": "x"})));
    assert!(!l.accepts(&json!({"a": "x", "b": 1})));
    // Kept keywords are enforced.
    let l = lang(
        Target::Gemini,
        gc(json!({"type": "ARRAY", "items": {"type": "INTEGER", "minimum": 0}, "maxItems": 2})),
    );
    assert!(l.accepts(&json!([0, 1])) && !l.accepts(&json!([-1])) && !l.accepts(&json!([1, 2, 3])));
    // `minProperties`/`maxProperties` (proto fields, issue 17): enforced on both hosts when
    // the wire carries them, on objects only, and nothing is assumed when it does not.
    let object = json!({"type": "OBJECT", "nullable": true,
        "properties": {"a": {"type": "STRING"}, "b": {"type": "STRING"}, "c": {"type": "STRING"}}});
    let mut counted = object.clone();
    counted["minProperties"] = json!(1);
    counted["maxProperties"] = json!(2);
    for t in [Target::Gemini, Target::VertexGemini] {
        assert!(oracle::provider_problems(t, &gc(counted.clone())).is_empty());
        let l = lang(t, gc(counted.clone()));
        assert!(l.accepts(&json!({"a": "x"})) && l.accepts(&json!({"a": "x", "c": "z"})));
        assert!(l.accepts(&json!(null)), "{t}: counts speak of objects only");
        assert!(!l.accepts(&json!({})) && !l.accepts(&json!({"a": "x", "b": "y", "c": "z"})));
        let l = lang(t, gc(object.clone()));
        assert!(l.accepts(&json!({})) && l.accepts(&json!({"a": "x", "b": "y", "c": "z"})));
    }
}

#[test]
fn oracle_gemini_json_schema() {
    let gc = |s: Value| json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": s}});
    // An object without additionalProperties is closed; `true` keeps it open.
    let l = lang(
        Target::GeminiJson,
        gc(json!({"type": "object", "properties": {"m": {"type": "object"}}})),
    );
    assert!(l.accepts(&json!({"m": {}})));
    assert!(!l.accepts(&json!({"m": {"k": 1}})));
    let l = lang(
        Target::GeminiJson,
        gc(json!({"type": "object", "additionalProperties": true})),
    );
    assert!(l.accepts(&json!({"k": 1})));
    // `$ref` siblings are refused.
    refused(
        Target::GeminiJson,
        gc(
            json!({"properties": {"a": {"$ref": "#/$defs/x", "description": "d"}}, "$defs": {"x": {"type": "string"}}}),
        ),
    );
    refused(
        Target::GeminiJson,
        json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {"type": "string"}, "responseSchema": {"type": "STRING"}}}),
    );
}

#[test]
fn oracle_ollama_reads_like_llama_cpp() {
    let f = |s: Value| json!({ "format": s });
    // Missing additionalProperties means false; `true` is open.
    let l = lang(
        Target::Ollama,
        f(json!({"type": "object", "properties": {"a": {"type": "string"}}})),
    );
    assert!(l.accepts(&json!({"a": "x"})) && !l.accepts(&json!({"a": "x", "b": 1})));
    let l = lang(Target::Ollama, f(json!({"type": "object"})));
    assert!(l.accepts(&json!({})) && !l.accepts(&json!({"k": 1})));
    let l = lang(
        Target::Ollama,
        f(json!({"type": "object", "additionalProperties": true})),
    );
    assert!(l.accepts(&json!({"k": 1})));
    // `{}` means an object (closed: only `{}`), not any value.
    let l = lang(Target::Ollama, f(json!({"type": "array", "items": {}})));
    assert!(l.accepts(&json!([{}])));
    assert!(!l.accepts(&json!([1])) && !l.accepts(&json!(["s"])));
    // An unanchored pattern is an error; shorthand classes break the grammar.
    let e = refused(
        Target::Ollama,
        f(json!({"type": "string", "pattern": "ab"})),
    );
    assert!(e.contains("^"), "{e}");
    refused(
        Target::Ollama,
        f(json!({"type": "string", "pattern": "^ab"})),
    );
    let e = refused(
        Target::Ollama,
        f(json!({"type": "string", "pattern": "^\\d+$"})),
    );
    assert!(e.contains("shorthand"), "{e}");
    // An anchored pattern is a whole-string grammar: `^a|b$` is "a" or "b".
    let l = lang(
        Target::Ollama,
        f(json!({"type": "string", "pattern": "^a|b$"})),
    );
    assert!(l.accepts(&json!("a")) && l.accepts(&json!("b")));
    assert!(!l.accepts(&json!("ax")) && !l.accepts(&json!("xb")));
    let l = lang(
        Target::Ollama,
        f(json!({"type": "string", "pattern": "^[a-c]+$"})),
    );
    assert!(l.accepts(&json!("abc")) && !l.accepts(&json!("abd")));
    // A node without type gets the type llama.cpp infers, or is refused.
    let l = lang(Target::Ollama, f(json!({"items": {"type": "string"}})));
    assert!(l.accepts(&json!(["x"])) && !l.accepts(&json!("x")));
    let l = lang(
        Target::Ollama,
        f(json!({"type": "array", "items": {"pattern": "^a$"}})),
    );
    assert!(l.accepts(&json!(["a"])) && !l.accepts(&json!([1])));
    refused(Target::Ollama, f(json!({"minimum": 1})));
    refused(
        Target::Ollama,
        f(json!({"type": "array", "items": {"description": "x"}})),
    );
    // Unions keep their meaning; `enum`/`const` need no type.
    let l = lang(
        Target::Ollama,
        f(json!({"anyOf": [{"type": "integer"}, {"enum": ["a", null]}]})),
    );
    assert!(l.accepts(&json!(1)) && l.accepts(&json!(null)) && !l.accepts(&json!("b")));
    // `allOf` on an object reads as the members' properties, all required, nothing else
    // (even beside `additionalProperties: true`, which the converter then ignores).
    let l = lang(
        Target::Ollama,
        f(
            json!({"type": "object", "additionalProperties": true, "allOf": [{"properties": {"a": {"type": "string"}}}]}),
        ),
    );
    assert!(l.accepts(&json!({"a": "x"})));
    assert!(
        !l.accepts(&json!({})),
        "llama.cpp makes allOf members' properties required"
    );
    assert!(
        !l.accepts(&json!({"a": "x", "z": 1})),
        "llama.cpp closes the merged object"
    );
    // Without `additionalProperties`, the node itself is closed, as widening.md and the
    // harness read a missing keyword: the members' properties cannot appear at all.
    let l = lang(
        Target::Ollama,
        f(json!({"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}}]})),
    );
    assert!(!l.accepts(&json!({"a": "x"})));
    // A boolean schema is not convertible.
    refused(Target::Ollama, f(json!({"type": "array", "items": true})));
}

#[test]
fn oracle_openai_family() {
    let strict = |s: Value| json!({"response_format": {"type": "json_schema", "json_schema": {"name": "r", "strict": true, "schema": s}}});
    let ok = json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "required": ["a"], "additionalProperties": false});
    for t in [
        Target::OpenAi,
        Target::Groq,
        Target::Mistral,
        Target::OpenRouter,
    ] {
        let l = lang(t, strict(ok.clone()));
        assert_eq!(l.schema, ok);
        assert!(l.accepts(&json!({"a": null})) && !l.accepts(&json!({})));
    }
    for bad in [
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}, "required": ["a"], "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}, "required": ["a"], "additionalProperties": false}),
        json!({"anyOf": [{"type": "object"}]}),
    ] {
        refused(Target::OpenAi, strict(bad));
    }
    refused(
        Target::OpenAi,
        json!({"response_format": {"type": "json_schema", "json_schema": {"name": "bad name", "strict": true, "schema": ok}}}),
    );
    let mut with_meta = ok.clone();
    with_meta["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    lang(Target::OpenAi, strict(with_meta.clone()));
    refused(Target::Mistral, strict(with_meta));
    // Non-strict: not enforced (T is anything), but the schema is a hint that must not narrow.
    let hint = json!({"response_format": {"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "array"}}}});
    assert!(lang(Target::Groq, hint.clone()).is_anything());
    assert!(oracle::narrowing(Target::Groq, &hint, &json!([1])).is_empty());
    assert!(!oracle::narrowing(Target::Groq, &hint, &json!({"a": 1})).is_empty());
}

#[test]
fn oracle_claude() {
    let tool = |strict: bool, s: Value| json!({"tools": [{"name": "emit", "strict": strict, "input_schema": s}], "tool_choice": {"type": "tool", "name": "emit"}});
    let s = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]});
    // A non-strict tool: any object (the schema guides only), but the guide must not narrow.
    let w = tool(false, s.clone());
    let l = lang(Target::Claude, w.clone());
    assert_eq!(l.schema, json!({"type": "object"}));
    assert!(oracle::narrowing(Target::Claude, &w, &json!({"a": 1})).is_empty());
    assert!(!oracle::narrowing(Target::Claude, &w, &json!({"b": 1})).is_empty());
    // A strict tool: the schema, closed; numeric bounds are refused.
    let mut closed = s.clone();
    closed["additionalProperties"] = json!(false);
    let l = lang(Target::Claude, tool(true, closed));
    assert!(l.accepts(&json!({"a": 1})) && !l.accepts(&json!({"a": 1, "b": 2})));
    refused(Target::Claude, tool(true, s.clone()));
    refused(
        Target::Claude,
        tool(
            true,
            json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}}, "additionalProperties": false}),
        ),
    );
    // Root combinators, unforced tools and bad names are refused.
    refused(
        Target::Claude,
        tool(false, json!({"anyOf": [{"type": "object"}]})),
    );
    refused(Target::Claude, tool(false, json!({"type": "array"})));
    refused(
        Target::Claude,
        json!({"tools": [{"name": "emit", "input_schema": s}], "tool_choice": {"type": "auto"}}),
    );
    refused(
        Target::Claude,
        json!({"tools": [{"name": "emit.it", "input_schema": s}], "tool_choice": {"type": "tool", "name": "emit.it"}}),
    );
    // Native structured outputs: the schema, closed; its subset is enforced.
    let native =
        |s: Value| json!({"output_config": {"format": {"type": "json_schema", "schema": s}}});
    let l = lang(
        Target::ClaudeNative,
        native(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
        ),
    );
    assert!(l.is_native() && l.accepts(&json!({})) && !l.accepts(&json!({"b": 1})));
    let l = lang(
        Target::ClaudeNative,
        native(json!({"type": "array", "items": {"type": "string"}, "minItems": 1})),
    );
    assert!(l.accepts(&json!(["a"])) && !l.accepts(&json!([])));
    refused(Target::ClaudeNative, native(json!({"type": "object"})));
    refused(
        Target::ClaudeNative,
        native(json!({"type": "array", "minItems": 2})),
    );
    refused(
        Target::ClaudeNative,
        native(json!({"type": "integer", "maximum": 2})),
    );
    refused(Target::ClaudeNative, native(json!({"enum": [[1], "a"]})));
}

#[test]
fn oracle_declared_fragment() {
    let s = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    assert!(declared(&s, &json!({"a": 1})));
    assert!(!declared(&s, &json!({"a": 1, "b": 2})));
    assert!(
        declared(&s, &json!([1, {"z": 1}])),
        "not an object: nothing declared"
    );
    // Maps declare no names: any key, and its value is checked below.
    let m = json!({"additionalProperties": {"properties": {"v": {"type": "null"}}}});
    assert!(declared(&m, &json!({"k": {"v": null}})));
    assert!(!declared(&m, &json!({"k": {"w": 1}})));
    // The union of the branches' names, through every combinator.
    let u = json!({"anyOf": [{"properties": {"a": {"type": "null"}}}, {"allOf": [{"properties": {"b": {"type": "null"}}}]}]});
    assert!(declared(&u, &json!({"a": 1, "b": 2})));
    assert!(!declared(&u, &json!({"c": 1})));
    // Arrays: prefixItems then items.
    let t = json!({"prefixItems": [{"properties": {"a": {"type": "null"}}}], "items": {"type": "object"}});
    assert!(declared(&t, &json!([{"a": 1}, {"z": 1}])));
    assert!(!declared(&t, &json!([{"z": 1}])));
}

#[test]
fn oracle_generated_values_aim_at_the_schema() {
    // The generator is part of the proof: check that it produces valid values of each kind.
    let mut runner = TestRunner::new_with_rng(
        Config::with_cases(1),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    for s in [
        json!({"type": "string", "pattern": "^a|b$"}),
        json!({"type": "integer", "exclusiveMinimum": 2, "maximum": 30, "multipleOf": 4}),
        json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 2}}, "required": ["a"], "additionalProperties": false}),
        json!({"type": "object", "additionalProperties": {"type": "integer"}}),
        json!({"type": "array", "prefixItems": [{"const": 1}], "items": {"type": "boolean"}, "minItems": 2}),
        json!({"oneOf": [{"type": "null"}, {"type": "string", "maxLength": 2}]}),
        json!({"allOf": [{"properties": {"a": {"enum": [1, "x"]}}, "required": ["a"]}], "type": "object"}),
    ] {
        let schema = Schema::parse(&s).unwrap_or_else(|e| panic!("{s}: {e}"));
        let strategy = gen::value(&s);
        let valid = valid_out_of_40(&schema, &strategy, &mut runner);
        assert!(
            valid >= 30,
            "{s}: only {valid} of 40 generated values are valid"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The property test

/// The lowerings every schema is checked under: each profile, and the reshaping profile with
/// `null` read as absent (`LowerOptions::null_means_absent`), whose lift may drop explicit
/// `null` members (`contract::check_lowering_with` checks exactly that).
const CONFIGS: [(Profile, bool); 3] = [
    (Profile::Conservative, false),
    (Profile::Reshaping, false),
    (Profile::Reshaping, true),
];

/// The name of a configuration in reports.
fn config_name(profile: Profile, nulls: bool) -> &'static str {
    match (profile, nulls) {
        (Profile::Reshaping, true) => "reshaping+nulls",
        (p, _) => p.name(),
    }
}

/// Cases per run: `SCHEMALECT_PROPTEST_CASES` (default sized for CI).
fn cases() -> u32 {
    cases_from("SCHEMALECT_PROPTEST_CASES", 2000)
}

/// A case count from the environment variable `var`, else `default`.
fn cases_from(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The random seed: `SCHEMALECT_PROPTEST_SEED` (a number, or `random`); a fixed one by default
/// so that CI is reproducible.
fn rng() -> (TestRng, String) {
    let seed = match std::env::var("SCHEMALECT_PROPTEST_SEED").ok().as_deref() {
        Some("random") => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        Some(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("SCHEMALECT_PROPTEST_SEED={v}")),
        None => 0x005c_4e3a_1ec7,
    };
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    (
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
        seed.to_string(),
    )
}

/// Values generated per schema.
const CANDIDATES: usize = 8;

#[derive(Default)]
struct Tally {
    cases: Cell<usize>,
    candidates: Cell<usize>,
    valid: Cell<usize>,
    negatives: Cell<usize>,
    value_checks: Cell<usize>,
    lowerings: Cell<usize>,
    native: Cell<usize>,
}

impl Tally {
    fn add(c: &Cell<usize>, n: usize) {
        c.set(c.get() + n);
    }

    /// The generated values and the checks made, for the property tests' report line.
    fn summary(&self) -> String {
        let (cand, valid) = (self.candidates.get(), self.valid.get());
        format!(
            "{valid}/{cand} generated values valid and declared ({:.0}%), {} lowerings ({} native), {} (value, target, profile) checks, {} negative checks",
            100.0 * valid as f64 / cand.max(1) as f64,
            self.lowerings.get(),
            self.native.get(),
            self.value_checks.get(),
            self.negatives.get(),
        )
    }

    /// A property test that passed did what it claims: every case ran, at least one generated
    /// value in `valid_one_in` was valid and declared, and there were at least
    /// `checks_per_lowering` value checks per case, target and profile.
    fn assert_covered(&self, cases: u32, valid_one_in: usize, checks_per_lowering: usize) {
        let (n, cand, valid) = (self.cases.get(), self.candidates.get(), self.valid.get());
        assert_eq!(n, cases as usize, "every case runs once when nothing fails");
        assert!(
            valid * valid_one_in >= cand,
            "the value generator misses its schemas: only {valid} of {cand} values are valid and declared"
        );
        let floor = cases as usize * Target::ALL.len() * Profile::ALL.len() * checks_per_lowering;
        assert!(
            self.value_checks.get() >= floor,
            "only {} (value, target, profile) checks, fewer than {floor}",
            self.value_checks.get()
        );
    }
}

/// A library bug already reported, tolerated until fixed (`tests/regressions/known-library-bugs.json`).
/// A failure whose report starts with `[{target} ` (or `[validator]`) and contains `matches`
/// counts as a hit instead of failing. `known_library_bugs_still_reproduce` checks every entry
/// on its own `repro`, so an entry that no longer happens fails until it is removed.
#[derive(Debug)]
struct Known {
    target: String,
    matches: String,
    schema: Value,
    value: Value,
}

fn known_bugs() -> Vec<Known> {
    let path = support::workspace_root().join("tests/regressions/known-library-bugs.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let list: Vec<Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    list.iter()
        .map(|e| {
            let s = |k: &str| {
                e[k].as_str()
                    .unwrap_or_else(|| panic!("known bug without {k}: {e}"))
                    .to_owned()
            };
            assert!(!s("reason").is_empty(), "{e}");
            Known {
                target: s("target"),
                matches: s("matches"),
                schema: e["repro"]["schema"].clone(),
                value: e["repro"]["value"].clone(),
            }
        })
        .collect()
}

/// Where failures go: known bugs are counted, everything else fails (or, in survey mode, is
/// collected so that one run lists every kind of failure).
struct Sink {
    known: Vec<Known>,
    hits: std::cell::RefCell<BTreeMap<usize, usize>>,
    survey: Option<std::cell::RefCell<BTreeMap<String, ()>>>,
}

impl Sink {
    fn new() -> Sink {
        Sink {
            known: known_bugs(),
            hits: Default::default(),
            survey: std::env::var_os("SCHEMALECT_WIDENING_SURVEY").map(|_| Default::default()),
        }
    }

    /// `Ok` when the failure is tolerated (known, or collected by the survey).
    fn tolerate(&self, report: String) -> Result<(), String> {
        let hit = self.known.iter().position(|k| {
            (report.starts_with(&format!("[{} ", k.target))
                || report.starts_with(&format!("[{}]", k.target)))
                && report.contains(&k.matches)
        });
        if let Some(i) = hit {
            *self.hits.borrow_mut().entry(i).or_default() += 1;
            return Ok(());
        }
        match &self.survey {
            Some(found) => {
                found.borrow_mut().entry(report).or_default();
                Ok(())
            }
            None => Err(report),
        }
    }

    /// Prints the known bugs hit, and fails on what the survey found.
    fn finish(&self, test: &str) {
        for (i, k) in self.known.iter().enumerate() {
            if let Some(n) = self.hits.borrow().get(&i) {
                println!(
                    "  {test}: known library bug hit {n} times: [{}] {}",
                    k.target, k.matches
                );
            }
        }
        if let Some(found) = &self.survey {
            let found = found.borrow();
            if !found.is_empty() {
                // Group by the first line with pointers and details cut, so that one kind of
                // failure shows once, with its count and its shortest report.
                let mut kinds: BTreeMap<String, (usize, &String)> = BTreeMap::new();
                for report in found.keys() {
                    let first = report.lines().next().unwrap_or("");
                    let key: Vec<&str> = first
                        .split(';')
                        .next()
                        .unwrap_or("")
                        .split_whitespace()
                        .filter(|w| !w.starts_with('#') && !w.starts_with('"'))
                        .collect();
                    let e = kinds.entry(key.join(" ")).or_insert((0, report));
                    e.0 += 1;
                    if report.len() < e.1.len() {
                        e.1 = report;
                    }
                }
                let out = std::env::var("SCHEMALECT_WIDENING_SURVEY").unwrap_or_default();
                let all: Vec<&str> = found.keys().map(String::as_str).collect();
                if !out.is_empty() && out != "1" {
                    let _ = std::fs::write(&out, all.join("\n"));
                }
                let summary: Vec<String> = kinds
                    .iter()
                    .map(|(k, (n, r))| format!("{n} × {k}\n{r}"))
                    .collect();
                panic!(
                    "{test} survey: {} failures of {} kinds:\n\n{}",
                    all.len(),
                    kinds.len(),
                    summary.join("\n")
                );
            }
        }
    }
}

/// The report of a verdict the two validators disagree on, with the pattern that causes it
/// when one does.
fn disagreement(s: &Value, x: &Value, ours: bool, origin: &str) -> String {
    let cause = pattern_cause(s, x).unwrap_or_else(|| "no single pattern explains it".into());
    format!(
        "[validator] VALIDATOR DISAGREEMENT ({cause}): schemalect says {ours}, the jsonschema crate {}{origin}\n  schema: {s}\n  value:  {x}",
        !ours
    )
}

fn strings_in(x: &Value, out: &mut Vec<String>) {
    match x {
        Value::String(t) => out.push(t.clone()),
        Value::Array(a) => a.iter().for_each(|v| strings_in(v, out)),
        Value::Object(m) => m.values().for_each(|v| strings_in(v, out)),
        _ => {}
    }
}

/// Runs every pattern of `s` alone on every string of `x` with both validators; the first
/// pair they disagree on, with the class of the difference (ECMA-262 `\d \w \s \b` are
/// ASCII-only and `.` excludes every line terminator; Rust's `regex` differs on both).
fn pattern_cause(s: &Value, x: &Value) -> Option<String> {
    let patterns: Vec<String> = oracle::nodes_of(s)
        .iter()
        .filter_map(|(_, n)| n.node.get("pattern")?.as_str().map(str::to_owned))
        .collect();
    let mut strings = Vec::new();
    strings_in(x, &mut strings);
    for p in &patterns {
        let one = json!({"type": "string", "pattern": p});
        let (Ok(ours), Ok(theirs)) = (Schema::parse(&one), oracle::compile(&one)) else {
            continue;
        };
        for t in &strings {
            let (a, b) = (ours.is_valid(&json!(t)), theirs.is_valid(&json!(t)));
            if a == b {
                continue;
            }
            let shorthand = ["\\d", "\\w", "\\s", "\\b", "\\D", "\\W", "\\S", "\\B"]
                .iter()
                .any(|c| p.contains(c));
            let class = if p.contains('.') && t.contains(['\r', '\u{2028}', '\u{2029}']) {
                "pattern class: dot matches a line terminator"
            } else if shorthand && !t.is_ascii() {
                "pattern class: Unicode shorthand"
            } else {
                "pattern class: other"
            };
            return Some(format!(
                "{class}; pattern {p:?} on {t:?}: schemalect {a}, ECMA-262 {b}"
            ));
        }
    }
    None
}

/// One generated case: the validators agree on every candidate, then every target and profile
/// keeps the contract for the valid ones.
fn check_case(s: &Value, candidates: &[Value], tally: &Tally, sink: &Sink) -> Result<(), String> {
    check_case_in(Subset::Adr126, s, candidates, tally, sink)
}

/// [`check_case`] for a schema of `subset` (the extended subset: parsed with references, and
/// read by the `jsonschema` crate through [`extended::for_oracle`]).
fn check_case_in(
    subset: Subset,
    s: &Value,
    candidates: &[Value],
    tally: &Tally,
    sink: &Sink,
) -> Result<(), String> {
    let schema = Schema::parse_with(s, &ParseOptions::default().with_subset(subset))
        .map_err(|e| format!("generated schema left the subset: {e}"))?;
    let oracle_src = match subset {
        // The `full` subset follows the draft the document declares, and so does its oracle.
        Subset::Full => oracle::compile_as_declared(s),
        _ => oracle::compile(&source_for_oracle(subset, s)),
    }
    .map_err(|e| format!("jsonschema cannot compile {s}: {e}"))?;
    // `Some(verdict)` when both validators agree; `None` for a tolerated disagreement.
    let agree = |x: &Value| -> Result<Option<bool>, String> {
        let ours = schema.is_valid(x);
        if ours != schema.validate(x).is_ok() {
            return Err(format!(
                "[validator] is_valid and validate disagree\n  schema: {s}\n  value:  {x}"
            ));
        }
        if ours != oracle_src.is_valid(x) {
            sink.tolerate(disagreement(s, x, ours, ""))?;
            return Ok(None);
        }
        Ok(Some(ours))
    };
    let mut valid: Vec<Value> = Vec::new();
    for x in candidates {
        if agree(x)? == Some(true) && declared(s, x) && !valid.contains(x) {
            valid.push(x.clone());
        }
    }
    let mut invalid: Vec<Value> = Vec::new();
    for x in candidates
        .iter()
        .chain(valid.iter())
        .flat_map(gen::mutations)
    {
        if invalid.len() >= 24 {
            break;
        }
        if agree(&x)? == Some(false) && declared(s, &x) && !invalid.contains(&x) {
            invalid.push(x);
        }
    }
    Tally::add(&tally.cases, 1);
    Tally::add(&tally.candidates, candidates.len());
    Tally::add(&tally.valid, valid.len());
    for nulls in [false, true] {
        let options = LowerOptions::default().with_null_means_absent(nulls);
        contract::shared_hints_alike(&schema, &options)
            .map_err(|e| format!("{e}\n  schema: {s}"))?;
    }
    for target in Target::ALL {
        for (profile, nulls) in CONFIGS {
            let options = LowerOptions::default()
                .with_profile(profile)
                .with_null_means_absent(nulls);
            let lowering = schema.lower(target, &options);
            contract::assessed_alike(&schema, target, &options, &lowering)
                .map_err(|e| format!("{e}\n  schema: {s}"))?;
            match contract::check_lowering_with(s, &lowering, profile, nulls, &valid, &invalid) {
                Ok(c) => {
                    Tally::add(&tally.lowerings, 1);
                    Tally::add(&tally.value_checks, c.values);
                    Tally::add(&tally.negatives, c.negatives);
                    Tally::add(&tally.native, usize::from(c.native));
                }
                Err(e) => sink.tolerate(e)?,
            }
        }
    }
    Ok(())
}

/// `n` values aimed at `s`, drawn deterministically from `seed`, so that the schema can shrink
/// on its own (its values are drawn again from the same seed).
fn values_from_seed(s: &Value, seed: u64, n: usize) -> Vec<Value> {
    draw(&gen::value(s), seed, n)
}

/// `n` values of `strategy` from a generator seeded with `seed`: the same values for the
/// same seed.
fn draw(strategy: &BoxedStrategy<Value>, seed: u64, n: usize) -> Vec<Value> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    (0..n)
        .filter_map(|_| strategy.new_tree(&mut runner).ok().map(|t| t.current()))
        .collect()
}

/// Shrinks the values of a failing case for a fixed (already minimal) schema of `subset`:
/// proptest over single values aimed at it. `None` when no single value reproduces a failure.
fn minimal_value_in(subset: Subset, s: &Value) -> Option<(String, Value)> {
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 2048,
            max_shrink_iters: 4096,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let tally = Tally::default();
    let values = match subset {
        Subset::Adr126 => gen::value(s),
        Subset::Full => gen_full::value(s),
        _ => extended::value(s),
    };
    match runner.run(&values, |x| {
        check_case_in(
            subset,
            s,
            std::slice::from_ref(&x),
            &tally,
            &Sink {
                survey: None,
                ..Sink::new()
            },
        )
        .map_err(TestCaseError::fail)
    }) {
        Err(TestError::Fail(reason, x)) => Some((reason.to_string(), x)),
        _ => None,
    }
}

/// The runner of a widening property: `cases` cases drawn from this run's seed.
fn property_runner(cases: u32) -> (TestRunner, String) {
    let (rng, seed) = rng();
    let config = Config {
        cases,
        max_shrink_iters: 8192,
        max_global_rejects: 100_000,
        failure_persistence: None,
        ..Config::default()
    };
    (TestRunner::new_with_rng(config, rng), seed)
}

/// Panics with the minimal case when a widening property failed: the shrunk schema, then a
/// single value shrunk for it (or the case's values when no single one fails).
fn fail_with_minimal_case(
    label: &str,
    subset: Subset,
    seed: &str,
    result: Result<(), TestError<(Value, u64)>>,
    values: fn(&Value, u64, usize) -> Vec<Value>,
) {
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, (s, value_seed))) => {
            let rerun = format!("seed {seed}; rerun with SCHEMALECT_PROPTEST_SEED={seed}");
            match minimal_value_in(subset, &s) {
                Some((reason, x)) => panic!(
                    "{label} property failed ({rerun}).\nMinimal case:\n{reason}\n  minimal schema: {s}\n  minimal value:  {x}"
                ),
                None => panic!(
                    "{label} property failed ({rerun}).\nMinimal case:\n{reason}\n  minimal schema: {s}\n  values: {}",
                    Value::Array(values(&s, value_seed, CANDIDATES))
                ),
            }
        }
        Err(TestError::Abort(why)) => panic!("property test aborted (seed {seed}): {why}"),
    }
}

/// How many of 40 values drawn from `strategy` `schema` accepts.
fn valid_out_of_40(
    schema: &Schema,
    strategy: &impl Strategy<Value = Value>,
    runner: &mut TestRunner,
) -> usize {
    (0..40)
        .filter(|_| {
            let x = strategy
                .new_tree(runner)
                .unwrap_or_else(|e| panic!("{e}"))
                .current();
            schema.is_valid(&x)
        })
        .count()
}

#[test]
fn generated_schemas_widen_on_every_target() {
    let started = Instant::now();
    let cases = cases();
    let (mut runner, seed) = property_runner(cases);
    // The schema shrinks first (its values are redrawn from the same seed), then the values
    // of the minimal schema shrink in `minimal_value_in`.
    let strategy = (
        gen::root_schema(3).prop_filter("in the subset", |s| Schema::parse(s).is_ok()),
        any::<u64>(),
    );
    let tally = Tally::default();
    let sink = Sink::new();
    let result = runner.run(&strategy, |(s, value_seed)| {
        let xs = values_from_seed(&s, value_seed, CANDIDATES);
        check_case(&s, &xs, &tally, &sink).map_err(TestCaseError::fail)
    });
    fail_with_minimal_case("widening", Subset::Adr126, &seed, result, values_from_seed);
    println!(
        "widening property (seed {seed}): {} schemas, {}, {:.1?}",
        tally.cases.get(),
        tally.summary(),
        started.elapsed()
    );
    sink.finish("property");
    tally.assert_covered(cases, 2, 2);
}

/// Every known library bug still happens on its own reproduction, with the report its entry
/// matches; when one is fixed this fails until the entry is removed, so the list stays true.
#[test]
fn known_library_bugs_still_reproduce() {
    for k in known_bugs() {
        let schema = Schema::parse(&k.schema).unwrap_or_else(|e| panic!("{}: {e}", k.schema));
        let mut reports = Vec::new();
        if k.target == "validator" {
            let theirs = oracle::compile(&k.schema).unwrap_or_else(|e| panic!("{e}"));
            let ours = schema.is_valid(&k.value);
            if ours != theirs.is_valid(&k.value) {
                reports.push(disagreement(&k.schema, &k.value, ours, ""));
            }
        } else {
            assert!(
                schema.is_valid(&k.value) && declared(&k.schema, &k.value),
                "{k:?}: the value must be valid"
            );
            let target = Target::from_name(&k.target).unwrap_or_else(|| panic!("{k:?}"));
            for profile in Profile::ALL {
                let l = schema.lower(target, &LowerOptions::default().with_profile(profile));
                if let Err(e) = contract::check_lowering(
                    &k.schema,
                    &l,
                    profile,
                    std::slice::from_ref(&k.value),
                    &[],
                ) {
                    reports.push(e);
                }
            }
        }
        assert!(
            reports.iter().any(|r| r.contains(&k.matches)),
            "the known library bug [{}] {:?} no longer reproduces on {} with {}; remove it from tests/regressions/known-library-bugs.json.\nreports: {reports:#?}",
            k.target, k.matches, k.schema, k.value
        );
        println!("still a bug: [{}] {}\n{}", k.target, k.matches, reports[0]);
    }
}

// ---------------------------------------------------------------------------------------------
// The extended subset (issue 10): the same contract, property test and corpus replay for
// schemas with local references, recursion, `$comment`, vendor keys and any-value subschemas.

fn parse_extended(s: &Value) -> Schema {
    Schema::parse_with(s, &ParseOptions::default().with_subset(Subset::Extended))
        .unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn oracle_follows_references() {
    // T(wire) is validated with references resolved: a recursive strict schema accepts a
    // deep list and rejects a wrong element at depth.
    let list = json!({
        "type": "object",
        "properties": {"head": {"$ref": "#/$defs/node"}},
        "required": ["head"],
        "additionalProperties": false,
        "$defs": {"node": {
            "type": "object",
            "properties": {"v": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}},
            "required": ["v", "next"],
            "additionalProperties": false
        }}
    });
    let l = lang(Target::OpenAi, openai_strict(list.clone()));
    let deep = json!({"head": {"v": 1, "next": {"v": 2, "next": {"v": 3, "next": null}}}});
    assert!(l.accepts(&deep));
    assert!(!l.accepts(&json!({"head": {"v": 1, "next": {"v": "2", "next": null}}})));
    // A wire that closes the object a reference reaches while the source leaves it open
    // narrows, and the oracle sees it through the reference. The declared fragment follows a
    // reference written as a plain pointer (`extra` is then undeclared at `/m`), not one a
    // reader of the text cannot follow (`%24` is `$`).
    let plain_source = json!({
        "type": "object", "properties": {"m": {"$ref": "#/$defs/meta"}}, "required": ["m"], "additionalProperties": false,
        "$defs": {"meta": {"type": "object", "properties": {"s": {"type": "string"}}}}
    });
    let x = json!({"m": {"s": "a", "extra": 1}});
    assert!(parse_extended(&plain_source).is_valid(&x) && !declared(&plain_source, &x));
    assert!(declared(&plain_source, &json!({"m": {"s": "a"}})));
    let open_source = json!({
        "type": "object", "properties": {"m": {"$ref": "#/%24defs/meta"}}, "required": ["m"], "additionalProperties": false,
        "$defs": {"meta": {"type": "object", "properties": {"s": {"type": "string"}}}}
    });
    assert!(parse_extended(&open_source).is_valid(&x) && declared(&open_source, &x));
    let closed_wire = gemini_json(json!({
        "type": "object", "properties": {"m": {"$ref": "#/$defs/meta"}}, "required": ["m"], "additionalProperties": false,
        "$defs": {"meta": {"type": "object", "properties": {"s": {"type": "string"}}}}
    }));
    assert!(!oracle::narrowing(Target::GeminiJson, &closed_wire, &x).is_empty());
    let open_wire = gemini_json(json!({
        "type": "object", "properties": {"m": {"$ref": "#/$defs/meta"}}, "required": ["m"], "additionalProperties": false,
        "$defs": {"meta": {"type": "object", "properties": {"s": {"type": "string"}}, "additionalProperties": true}}
    }));
    assert!(oracle::narrowing(Target::GeminiJson, &open_wire, &x).is_empty());
    // And the library keeps the contract on that schema, on every target and profile.
    let schema = parse_extended(&open_source);
    for target in Target::ALL {
        for profile in Profile::ALL {
            let lowering = schema.lower(target, &LowerOptions::default().with_profile(profile));
            if let Err(e) = contract::check_lowering(
                &open_source,
                &lowering,
                profile,
                std::slice::from_ref(&x),
                &[],
            ) {
                panic!("{e}");
            }
        }
    }
}

#[test]
fn oracle_reads_draft04_tuples_as_the_extended_subset_does() {
    // `items` as a list with `additionalItems` is draft 04's tuple; the jsonschema crate reads
    // the 2020-12 spelling, so the oracle is given that.
    let s = json!({"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false});
    let ours = parse_extended(&s);
    let theirs = oracle::compile(&extended::for_oracle(&s)).unwrap_or_else(|e| panic!("{e}"));
    for (x, want) in [
        (json!(["a", 1]), true),
        (json!(["a"]), true),
        (json!([]), true),
        (json!(["a", 1, 2]), false),
        (json!([1, "a"]), false),
    ] {
        assert_eq!(ours.is_valid(&x), want, "schemalect on {x}");
        assert_eq!(theirs.is_valid(&x), want, "jsonschema on {x}");
    }
    let open = json!({"items": [{"type": "string"}], "additionalItems": {"type": "boolean"}});
    let theirs = oracle::compile(&extended::for_oracle(&open)).unwrap_or_else(|e| panic!("{e}"));
    assert!(theirs.is_valid(&json!(["a", true])) && !theirs.is_valid(&json!(["a", 1])));
    assert!(parse_extended(&open).is_valid(&json!(["a", true])));
}

#[test]
fn extended_generator_aims_at_its_schemas() {
    let mut runner = TestRunner::new_with_rng(
        Config::with_cases(1),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    for s in [
        json!({"$defs": {"n": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#/$defs/n"}, {"type": "null"}]}}, "required": ["v", "next"], "additionalProperties": false}}, "$ref": "#/$defs/n"}),
        json!({"type": "object", "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}, "required": ["label"]}),
        json!({"definitions": {"a b": {"type": "string", "minLength": 2}}, "type": "object", "properties": {"x": {"$ref": "#/definitions/a%20b", "maxLength": 4}}, "required": ["x"]}),
        json!({"type": "object", "properties": {"free": {}, "t": true, "c": {"$comment": "any"}}, "x-note": 1}),
    ] {
        let schema = parse_extended(&s);
        let strategy = extended::value(&s);
        let valid = valid_out_of_40(&schema, &strategy, &mut runner);
        assert!(
            valid >= 24,
            "{s}: only {valid} of 40 generated values are valid"
        );
    }
    // Undeclared members go where the declared fragment allows them and nowhere else.
    let behind_ref = json!({"type": "object", "properties": {"m": {"$ref": "#/%24defs/o"}}, "$defs": {"o": {"type": "object", "properties": {"a": {"type": "integer"}}}}});
    let x = extended::with_undeclared_members(&json!({"m": {"a": 1}}));
    assert_eq!(x, json!({"m": {"a": 1, "zz": null}}));
    assert!(declared(&behind_ref, &x) && parse_extended(&behind_ref).is_valid(&x));
}

/// Cases of the extended property test: `SCHEMALECT_PROPTEST_EXTENDED_CASES` (default sized
/// for CI).
fn extended_cases() -> u32 {
    cases_from("SCHEMALECT_PROPTEST_EXTENDED_CASES", 600)
}

/// Like [`values_from_seed`] for an extended schema: `n` values aimed at `s`, and each with
/// undeclared members added below the root (kept only where valid and declared).
fn extended_values_from_seed(s: &Value, seed: u64, n: usize) -> Vec<Value> {
    let mut out = draw(&extended::value(s), seed, n);
    let more: Vec<Value> = out.iter().map(extended::with_undeclared_members).collect();
    out.extend(more);
    out
}

/// Cases of the two-walks property: `SCHEMALECT_PROPTEST_WALKS_CASES` (default sized for CI).
fn walks_cases() -> u32 {
    cases_from("SCHEMALECT_PROPTEST_WALKS_CASES", 400)
}

/// The two validation walks (the subsets', over the validation plan, and the `full` subset's)
/// give the same verdicts and errors on generated extended schemas, with references and
/// recursion, and values aimed at them ([`support::walks`]).
#[test]
fn generated_extended_schemas_validate_alike_in_both_walks() {
    let started = Instant::now();
    let (mut runner, seed) = property_runner(walks_cases());
    let extended_options = ParseOptions::default().with_subset(Subset::Extended);
    let full = ParseOptions::default().with_subset(Subset::Full);
    let filter = extended_options.clone();
    let strategy = (
        extended::root_schema().prop_filter("in the extended subset", move |s| {
            Schema::parse_with(s, &filter).is_ok()
        }),
        any::<u64>(),
    );
    let (cases, values) = (Cell::new(0usize), Cell::new(0usize));
    let result = runner.run(&strategy, |(s, value_seed)| {
        let a = Schema::parse_with(&s, &extended_options)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let b = Schema::parse_with(&s, &full).map_err(|e| {
            TestCaseError::fail(format!("the full subset refuses an extended schema: {e}"))
        })?;
        Tally::add(&cases, 1);
        for x in extended_values_from_seed(&s, value_seed, CANDIDATES) {
            Tally::add(&values, 1);
            if let Some(d) = support::walks::difference(&a, &b, &x) {
                return Err(TestCaseError::fail(d));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!(
            "the two walks differ (seed {seed}; rerun with SCHEMALECT_PROPTEST_SEED={seed}): {e}"
        );
    }
    println!(
        "two walks (seed {seed}): {} schemas, {} values, {:.1?}",
        cases.get(),
        values.get(),
        started.elapsed()
    );
}

#[test]
fn generated_extended_schemas_widen_on_every_target() {
    let started = Instant::now();
    let cases = extended_cases();
    let (mut runner, seed) = property_runner(cases);
    let options = ParseOptions::default().with_subset(Subset::Extended);
    let filter = options.clone();
    let strategy = (
        extended::root_schema().prop_filter("in the extended subset", move |s| {
            Schema::parse_with(s, &filter).is_ok()
        }),
        any::<u64>(),
    );
    let tally = Tally::default();
    let sink = Sink::new();
    let (references, recursive) = (Cell::new(0usize), Cell::new(0usize));
    let result = runner.run(&strategy, |(s, value_seed)| {
        let text = s.to_string();
        Tally::add(&references, usize::from(text.contains("$ref")));
        let parsed =
            Schema::parse_with(&s, &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Recursive: the unrolled schema still has a reference three levels down.
        Tally::add(
            &recursive,
            usize::from(
                parsed.has_references() && extended::unroll(&s, 3) != extended::unroll(&s, 4),
            ),
        );
        let xs = extended_values_from_seed(&s, value_seed, CANDIDATES);
        check_case_in(Subset::Extended, &s, &xs, &tally, &sink).map_err(TestCaseError::fail)
    });
    fail_with_minimal_case(
        "extended widening",
        Subset::Extended,
        &seed,
        result,
        extended_values_from_seed,
    );
    let n = tally.cases.get();
    println!(
        "extended widening property (seed {seed}): {n} schemas ({} with references, {} recursive), {}, {:.1?}",
        references.get(),
        recursive.get(),
        tally.summary(),
        started.elapsed()
    );
    sink.finish("extended property");
    assert!(
        references.get() * 2 >= n && recursive.get() * 5 >= n,
        "the generator misses its purpose: {} of {n} schemas have references, {} recurse",
        references.get(),
        recursive.get()
    );
    tally.assert_covered(cases, 4, 1);
}

// ---------------------------------------------------------------------------------------------
// The corpus replay

#[derive(Default)]
struct TargetTally {
    modes: BTreeMap<(&'static str, &'static str), usize>,
    native: usize,
    value_checks: usize,
    negatives: usize,
}

#[test]
fn corpus_replay() {
    replay(Subset::Adr126);
}

/// Issue 10: the replay in the extended subset (every schema of the corpus the extended
/// subset accepts, references and recursion included), both profiles, zero violations.
#[test]
fn corpus_replay_extended() {
    replay(Subset::Extended);
}

/// Issue 17: the replay in the `full` subset (every schema of the corpus, each in the draft it
/// declares), both profiles, zero violations: what is sent was widened from the full schema
/// (`lower::widen_full`) and must still accept every valid instance.
#[test]
fn corpus_replay_full() {
    replay(Subset::Full);
}

/// The schema the `jsonschema` crate reads for a source of `subset`.
fn source_for_oracle(subset: Subset, s: &Value) -> Value {
    match subset {
        Subset::Adr126 => s.clone(),
        _ => extended::for_oracle(s),
    }
}

/// The corpus replay of every schema of the shared corpus inside `subset`.
fn replay(subset: Subset) {
    let Some(files) = support::jsonschemabench_files() else {
        return;
    };
    let parse_options = ParseOptions::default().with_subset(subset);
    let started = Instant::now();
    let mut in_subset = 0usize;
    let mut with_values = 0usize;
    let mut instances = 0usize;
    let mut failures: Vec<String> = Vec::new();
    let mut disagreements: Vec<String> = Vec::new();
    let mut no_oracle: Vec<String> = Vec::new();
    let mut per_target: BTreeMap<Target, TargetTally> = BTreeMap::new();
    let sink = Sink::new();
    // `SCHEMALECT_WIDENING_DUMP=FILE` writes every native wire with the oracle's verdicts, one
    // JSON line each, for `tests/regressions/harness_crosscheck.py` (the Python harness must
    // never reject what this oracle accepts).
    let mut dump = std::env::var_os("SCHEMALECT_WIDENING_DUMP")
        .filter(|_| subset == Subset::Adr126)
        .map(|p| std::fs::File::create(&p).unwrap_or_else(|e| panic!("{p:?}: {e}")));
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = &doc["schema"];
        let Ok(schema) = Schema::parse_with(s, &parse_options) else {
            continue;
        };
        in_subset += 1;
        let oracle_src = match subset {
            Subset::Full => oracle::compile_as_declared(s),
            _ => oracle::compile(&source_for_oracle(subset, s)),
        };
        let tests = doc["tests"].as_array().cloned().unwrap_or_default();
        let (mut valid, mut invalid) = (Vec::new(), Vec::new());
        for (i, t) in tests.iter().enumerate() {
            let x = &t["data"];
            let ours = schema.is_valid(x);
            match &oracle_src {
                Ok(v) if v.is_valid(x) != ours => {
                    if let Err(e) =
                        sink.tolerate(disagreement(s, x, ours, &format!(" ({name} test {i})")))
                    {
                        disagreements.push(e);
                    }
                    continue;
                }
                // The full subset reads patterns as ECMA-262 says (`\{` and a lone `]` are
                // literals); the crate's regex syntax is stricter, so such a schema has no
                // oracle for its verdicts (counted). The other subsets refuse those patterns.
                Err(e) if i == 0 && subset == Subset::Full && e.contains("is not a \"regex\"") => {
                    no_oracle.push(format!("{name}: {e}"))
                }
                Err(e) if i == 0 => {
                    disagreements.push(format!("{name}: jsonschema cannot compile the schema: {e}"))
                }
                _ => {}
            }
            if !declared(s, x) {
                continue;
            }
            if ours {
                valid.push(x.clone());
            } else {
                invalid.push(x.clone());
            }
        }
        with_values += usize::from(!valid.is_empty());
        instances += valid.len();
        for nulls in [false, true] {
            let options = LowerOptions::default().with_null_means_absent(nulls);
            if let Err(e) = contract::shared_hints_alike(&schema, &options) {
                failures.push(format!("{name}: {e}"));
            }
        }
        for target in Target::ALL {
            let tt = per_target.entry(target).or_default();
            for (profile, nulls) in CONFIGS {
                let options = LowerOptions::default()
                    .with_profile(profile)
                    .with_null_means_absent(nulls);
                let lowering = schema.lower(target, &options);
                if let Err(e) = contract::assessed_alike(&schema, target, &options, &lowering) {
                    failures.push(format!("{name}: {e}"));
                }
                if let Some(out) = dump.as_mut().filter(|_| lowering.wire() != &json!({})) {
                    use std::io::Write as _;
                    let all: Vec<Value> = tests.iter().map(|t| t["data"].clone()).collect();
                    let lang = oracle::language(target, lowering.wire());
                    let accepts: Vec<bool> = match &lang {
                        Ok(l) => all.iter().map(|x| l.accepts(x)).collect(),
                        Err(_) => Vec::new(),
                    };
                    let line = json!({"file": name, "target": target.name(), "wire": lowering.wire(),
                        "data": all, "refused": lang.is_err(), "accepts": accepts});
                    writeln!(out, "{line}").unwrap_or_else(|e| panic!("{e}"));
                }
                *tt.modes
                    .entry((config_name(profile, nulls), lowering.mode().name()))
                    .or_default() += 1;
                match contract::check_lowering_with(s, &lowering, profile, nulls, &valid, &invalid)
                {
                    Ok(c) => {
                        tt.value_checks += c.values;
                        tt.negatives += c.negatives;
                        if profile == Profile::Conservative && c.native {
                            tt.native += 1;
                        }
                    }
                    Err(e) => {
                        if let Err(e) = sink.tolerate(e) {
                            failures.push(format!("{name}: {e}"));
                        }
                    }
                }
            }
        }
    }
    println!(
        "corpus replay{}: {in_subset} in-subset schemas of {}, {with_values} with valid declared instances ({instances} instances), {:.1?}",
        match subset {
            Subset::Adr126 => "",
            Subset::Full => " (full subset)",
            _ => " (extended subset)",
        },
        files.len(),
        started.elapsed()
    );
    for (target, tt) in &per_target {
        let modes = |p: &str| {
            Mode::ALL
                .iter()
                .map(|m| {
                    format!(
                        "{} {}",
                        m.name(),
                        tt.modes.get(&(p, m.name())).copied().unwrap_or(0)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "  {target:<13} conservative: {}; reshaping: {}; reshaping, null means absent: {}; native schema {}/{in_subset} ({:.1}%); {} value checks, {} negative checks",
            modes("conservative"),
            modes("reshaping"),
            modes("reshaping+nulls"),
            tt.native,
            100.0 * tt.native as f64 / in_subset.max(1) as f64,
            tt.value_checks,
            tt.negatives
        );
    }
    if !no_oracle.is_empty() {
        println!(
            "  {} schemas without an oracle for their verdicts (the jsonschema crate refuses an ECMA-262 pattern): {}",
            no_oracle.len(),
            no_oracle.join("; ")
        );
    }
    sink.finish(match subset {
        Subset::Adr126 => "corpus",
        Subset::Full => "corpus (full)",
        _ => "corpus (extended)",
    });
    assert!(
        in_subset > 3000,
        "suspiciously few in-subset schemas: {in_subset}"
    );
    assert!(
        instances > 3000,
        "suspiciously few valid instances: {instances}"
    );
    let show = |list: &[String]| list.iter().take(12).cloned().collect::<Vec<_>>().join("\n");
    assert!(
        disagreements.is_empty(),
        "{} validator disagreements with the jsonschema crate on corpus instances:\n{}",
        disagreements.len(),
        show(&disagreements)
    );
    assert!(
        failures.is_empty(),
        "{} widening violations on the corpus:\n{}",
        failures.len(),
        show(&failures)
    );
}

// ---------------------------------------------------------------------------------------------
// Regressions: one per narrowing class (widening.md) and per applicable nr-llm bug (peers.md §7)

/// Checks `schema` with its `valid` instances through the library for every target and
/// profile, then shows that the oracle catches each hand-made narrowing wire in `caught`
/// (for at least one instance) and passes each correct wire in `passed` (for all of them).
fn regression(
    schema: Value,
    valid: &[Value],
    caught: &[(Target, Value)],
    passed: &[(Target, Value)],
) {
    let parsed = Schema::parse(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
    let src = oracle::compile(&schema).unwrap_or_else(|e| panic!("{e}"));
    for x in valid {
        assert!(
            parsed.is_valid(x) && src.is_valid(x),
            "{x} must be valid for {schema}"
        );
        assert!(
            declared(&schema, x),
            "{x} must lie in the declared fragment of {schema}"
        );
    }
    for target in Target::ALL {
        for (profile, nulls) in CONFIGS {
            let options = LowerOptions::default()
                .with_profile(profile)
                .with_null_means_absent(nulls);
            let lowering = parsed.lower(target, &options);
            if let Err(e) =
                contract::check_lowering_with(&schema, &lowering, profile, nulls, valid, &[])
            {
                panic!("{e}");
            }
        }
    }
    for (target, wire) in caught {
        let found: Vec<String> = valid
            .iter()
            .flat_map(|x| oracle::narrowing(*target, wire, x))
            .collect();
        assert!(
            !found.is_empty(),
            "{target}: the oracle misses the narrowing wire {wire} for {schema}"
        );
    }
    for (target, wire) in passed {
        for x in valid {
            let found = oracle::narrowing(*target, wire, x);
            assert!(
                found.is_empty(),
                "{target}: correct wire {wire} flagged for {x}: {found:?}"
            );
        }
    }
}

fn gemini(s: Value) -> Value {
    json!({"generationConfig": {"responseMimeType": "application/json", "responseSchema": s}})
}

fn gemini_json(s: Value) -> Value {
    json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": s}})
}

fn openai_strict(s: Value) -> Value {
    json!({"response_format": {"type": "json_schema", "json_schema": {"name": "response", "strict": true, "schema": s}}})
}

fn ollama(s: Value) -> Value {
    json!({ "format": s })
}

fn claude_native(s: Value) -> Value {
    json!({"output_config": {"format": {"type": "json_schema", "schema": s}}})
}

/// widening.md: "a required property whose schema the dialect cannot express is dropped from a
/// closed object" — and nr-llm bug 1: a property whose subschema cannot be converted (a type
/// list, an untyped `enum`/`const`/union) is deleted with its `required` entry.
#[test]
fn regression_inexpressible_required_property_dropped() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "tag": {"type": ["string", "null"]},
            "level": {"enum": ["low", 2]},
            "kind": {"const": 7},
            "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
        },
        "required": ["name", "tag", "level", "kind", "either"],
        "additionalProperties": false
    });
    let valid = [
        json!({"name": "a", "tag": null, "level": 2, "kind": 7, "either": true}),
        json!({"name": "b", "tag": "t", "level": "low", "kind": 7, "either": 3}),
    ];
    let dropped =
        json!({"type": "OBJECT", "properties": {"name": {"type": "STRING"}}, "required": ["name"]});
    let dropped_js = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "additionalProperties": false});
    let kept = json!({"type": "object", "properties": {
        "name": {"type": "string"}, "tag": {"type": ["string", "null"]}, "level": {"enum": ["low", 2]},
        "kind": {"const": 7}, "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
    }, "required": ["name", "tag", "level", "kind", "either"], "additionalProperties": false});
    regression(
        schema,
        &valid,
        &[
            (Target::Gemini, gemini(dropped)),
            (Target::GeminiJson, gemini_json(dropped_js.clone())),
            (Target::OpenAi, openai_strict(dropped_js.clone())),
            (Target::ClaudeNative, claude_native(dropped_js)),
        ],
        &[
            (Target::GeminiJson, gemini_json(kept.clone())),
            (Target::OpenAi, openai_strict(kept.clone())),
            (Target::Ollama, ollama(kept)),
        ],
    );
}

/// widening.md: "a map (`additionalProperties: {...}`, no `properties`) becomes a closed
/// OBJECT that only fits `{}`" — and nr-llm bug 3 (every property dropped: an OBJECT without
/// properties, refused by Gemini) and bug 4 (open objects closed: "dict fields always arrive
/// empty").
#[test]
fn regression_map_closed_to_empty_object() {
    let schema = json!({
        "type": "object",
        "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}},
        "required": ["tags"]
    });
    let valid = [json!({"tags": {"a": "x", "b": "y"}}), json!({"tags": {}})];
    regression(
        schema,
        &valid,
        &[
            (
                Target::Gemini,
                gemini(
                    json!({"type": "OBJECT", "properties": {"tags": {"type": "OBJECT"}}, "required": ["tags"]}),
                ),
            ),
            (
                Target::Gemini,
                gemini(
                    json!({"type": "OBJECT", "properties": {"tags": {"type": "OBJECT", "properties": {"_": {"type": "STRING"}}}}, "required": ["tags"]}),
                ),
            ),
            (
                Target::GeminiJson,
                gemini_json(
                    json!({"type": "object", "properties": {"tags": {"type": "object"}}, "required": ["tags"]}),
                ),
            ),
            (
                Target::Ollama,
                ollama(
                    json!({"type": "object", "properties": {"tags": {"type": "object"}}, "required": ["tags"], "additionalProperties": true}),
                ),
            ),
        ],
        &[
            (
                Target::GeminiJson,
                gemini_json(
                    json!({"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["tags"], "additionalProperties": true}),
                ),
            ),
            (
                Target::Ollama,
                ollama(
                    json!({"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["tags"], "additionalProperties": true}),
                ),
            ),
        ],
    );
    // A map at the root, and a bare `{"type": "object"}` root.
    regression(
        json!({"type": "object", "additionalProperties": {"type": "integer"}}),
        &[json!({"a": 1, "b": 2})],
        &[
            (Target::Gemini, gemini(json!({"type": "OBJECT"}))),
            (Target::Ollama, ollama(json!({"type": "object"}))),
            (
                Target::ClaudeNative,
                claude_native(json!({"type": "object", "additionalProperties": false})),
            ),
        ],
        &[(
            Target::Ollama,
            ollama(json!({"type": "object", "additionalProperties": {"type": "integer"}})),
        )],
    );
}

/// widening.md: "`json_object` is sent for a schema whose root is an array" — and nr-llm bug 5:
/// the object-only JSON mode is the fallback for roots of `array`, `string`, `number` or
/// `["object","null"]` too.
#[test]
fn regression_object_json_mode_for_non_object_root() {
    let json_object = json!({"response_format": {"type": "json_object"}});
    for (schema, x) in [
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            json!([1, 2]),
        ),
        (json!({"type": "string", "minLength": 1}), json!("s")),
        (json!({"type": "number"}), json!(2.5)),
        (
            json!({"type": ["object", "null"], "properties": {"a": {"type": "string"}}}),
            json!(null),
        ),
    ] {
        regression(
            schema,
            &[x],
            &[
                (Target::OpenAi, json_object.clone()),
                (Target::Mistral, json_object.clone()),
                (Target::Ollama, json!({"format": "json"})),
                (
                    Target::Claude,
                    json!({"tools": [{"name": "emit", "input_schema": {"type": "object"}}], "tool_choice": {"type": "tool", "name": "emit"}}),
                ),
            ],
            &[
                (Target::OpenAi, json!({})),
                (
                    Target::Gemini,
                    json!({"generationConfig": {"responseMimeType": "application/json"}}),
                ),
            ],
        );
    }
}

/// widening.md: "an optional property is made required without admitting null (the model must
/// invent a value)".
#[test]
fn regression_optional_made_required() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": false
    });
    let valid = [json!({"a": "x"}), json!({"a": "x", "b": 1})];
    let forced = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"], "additionalProperties": false});
    let forced_null = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}}, "required": ["a", "b"], "additionalProperties": false});
    regression(
        schema.clone(),
        &valid,
        &[
            (Target::OpenAi, openai_strict(forced.clone())),
            (Target::Groq, openai_strict(forced.clone())),
            // Admitting null is the reshaping lens's encoding; sent for the plain value it
            // still narrows: `{"a": "x"}` itself is not producible.
            (Target::OpenRouter, openai_strict(forced_null)),
            (Target::ClaudeNative, claude_native(forced.clone())),
            (
                Target::Gemini,
                gemini(
                    json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}, "b": {"type": "INTEGER"}}, "required": ["a", "b"]}),
                ),
            ),
        ],
        &[
            (Target::ClaudeNative, claude_native(schema.clone())),
            (
                Target::Gemini,
                gemini(
                    json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}, "b": {"type": "INTEGER"}}, "required": ["a"]}),
                ),
            ),
        ],
    );
}

/// widening.md: "a non-string `enum` is filtered down to its string members" (peers.md §7: the
/// right answer is to drop the enum whole).
#[test]
fn regression_non_string_enum_filtered() {
    let schema = json!({
        "type": "object",
        "properties": {"v": {"enum": ["a", 1, null, true]}},
        "required": ["v"]
    });
    let valid = [
        json!({"v": "a"}),
        json!({"v": 1}),
        json!({"v": null}),
        json!({"v": true}),
    ];
    regression(
        schema,
        &valid,
        &[
            (
                Target::Gemini,
                gemini(
                    json!({"type": "OBJECT", "properties": {"v": {"type": "STRING", "enum": ["a"]}}, "required": ["v"]}),
                ),
            ),
            (
                Target::GeminiJson,
                gemini_json(
                    json!({"type": "object", "properties": {"v": {"enum": ["a"]}}, "required": ["v"]}),
                ),
            ),
            (
                Target::Ollama,
                ollama(
                    json!({"type": "object", "properties": {"v": {"enum": ["a", 1]}}, "required": ["v"], "additionalProperties": true}),
                ),
            ),
        ],
        &[(
            Target::Ollama,
            ollama(
                json!({"type": "object", "properties": {"v": {"enum": ["a", 1, null, true]}}, "required": ["v"], "additionalProperties": true}),
            ),
        )],
    );
}

/// widening.md: "Ollama gets an open object without `additionalProperties: true`" — and nr-llm
/// bug 6: Ollama verbatim is not neutral (llama.cpp closes objects, reads `{}` as an object;
/// an empty `properties` list from PHP is refused).
#[test]
fn regression_ollama_open_object_without_additional_properties_true() {
    let schema = json!({
        "type": "object",
        "properties": {"meta": {"type": "object"}, "any": {"not": {"type": "null"}}},
        "required": ["meta"]
    });
    let valid = [
        json!({"meta": {"k": 1}}),
        json!({"meta": {}, "any": [1, "x"]}),
    ];
    regression(
        schema.clone(),
        &valid,
        &[
            (Target::Ollama, ollama(schema.clone())),
            (
                Target::Ollama,
                ollama(
                    json!({"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": true}, "any": {}}, "required": ["meta"], "additionalProperties": true}),
                ),
            ),
            (
                Target::Ollama,
                ollama(json!({"type": "object", "properties": [], "additionalProperties": true})),
            ),
        ],
        &[(
            Target::Ollama,
            ollama(json!({"type": "object", "properties": {
                "meta": {"type": "object", "additionalProperties": true},
                "any": {"type": ["boolean", "object", "array", "number", "string"], "additionalProperties": true}
            }, "required": ["meta"], "additionalProperties": true})),
        )],
    );
}

/// nr-llm bug 2: `allOf` beside `type: object` is dropped with the `properties` and `required`
/// inside it.
#[test]
fn regression_all_of_properties_dropped() {
    let schema = json!({
        "type": "object",
        "allOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}}
        ]
    });
    let valid = [json!({"a": "x"}), json!({"a": "x", "b": 2})];
    regression(
        schema,
        &valid,
        &[
            (Target::GeminiJson, gemini_json(json!({"type": "object"}))),
            (
                Target::Gemini,
                gemini(
                    json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}}, "required": ["a"]}),
                ),
            ),
            // llama.cpp makes every property of an `allOf` member required.
            (
                Target::Ollama,
                ollama(
                    json!({"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "integer"}}}]}),
                ),
            ),
        ],
        &[(
            Target::Ollama,
            ollama(
                json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"], "additionalProperties": true}),
            ),
        )],
    );
}

/// nr-llm bug 7: Claude's forced-tool input `{}` came back as `[]`. The lift of every lowering
/// must give back `{}` (an object), and every wire must let the model produce it.
#[test]
fn regression_empty_object_survives_the_round_trip() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    regression(
        schema.clone(),
        &[json!({})],
        &[
            (
                Target::Gemini,
                gemini(
                    json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}}, "required": ["a"]}),
                ),
            ),
            (
                Target::Claude,
                json!({"tools": [{"name": "emit", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}], "tool_choice": {"type": "tool", "name": "emit"}}),
            ),
        ],
        &[(
            Target::Claude,
            json!({"tools": [{"name": "emit", "input_schema": schema}], "tool_choice": {"type": "tool", "name": "emit"}}),
        )],
    );
    let parsed = Schema::parse(&schema).unwrap_or_else(|e| panic!("{e}"));
    for target in Target::ALL {
        let l = parsed.lower(target, &LowerOptions::default());
        let lifted = l
            .accept(&json!({}))
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        assert_eq!(lifted, json!({}), "{target}");
        let lifted = l.accept("{}").unwrap_or_else(|e| panic!("{target}: {e}"));
        assert_eq!(lifted, json!({}), "{target}");
    }
}

/// peers.md §7, the strict path shared by Groq, Mistral and OpenRouter (bug 8) applies as a
/// refusal: Mistral rejects `$id`/`$schema`, so a wire keeping them is never acceptable, and
/// root annotations must not stop any target from keeping the contract.
#[test]
fn regression_mistral_meta_keywords() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/person.json",
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": false
    });
    let sent = schema.clone();
    let mut stripped = schema.clone();
    if let Some(m) = stripped.as_object_mut() {
        m.remove("$schema");
        m.remove("$id");
    }
    regression(
        schema,
        &[json!({"name": "Ada"})],
        &[(Target::Mistral, openai_strict(sent))],
        &[(Target::Mistral, openai_strict(stripped))],
    );
}

// ---------------------------------------------------------------------------------------------
// The `full` subset (issue 17, item 7): the same contract and property test for schemas of the
// five drafts using the keywords only `full` reads (`support::gen_full`), judged by the
// `jsonschema` crate in the draft each declares.

fn parse_full(s: &Value) -> Schema {
    Schema::parse_with(s, &ParseOptions::default().with_subset(Subset::Full))
        .unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Cases of the `full` property test: `SCHEMALECT_PROPTEST_FULL_CASES` (default sized for CI:
/// a few seconds in a release build, well under a minute in a debug build on 2 cores).
fn full_cases() -> u32 {
    cases_from("SCHEMALECT_PROPTEST_FULL_CASES", 300)
}

/// Like [`values_from_seed`] for a `full` schema.
fn full_values_from_seed(s: &Value, seed: u64, n: usize) -> Vec<Value> {
    draw(&gen_full::value(s), seed, n)
}

#[test]
fn full_generator_spells_each_draft_and_aims_at_its_schemas() {
    use gen_full::Draft;
    // The draft-specific spellings are rewritten as 2020-12 says them for value generation.
    let d4 = json!({"items": [{"type": "string"}], "additionalItems": false,
        "minimum": 2, "exclusiveMinimum": true, "dependencies": {"a": ["b"], "c": {"required": ["d"]}}});
    assert_eq!(
        gen_full::to_2020(&d4, Draft::D4),
        json!({"prefixItems": [{"type": "string"}], "items": false, "exclusiveMinimum": 2,
            "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}})
    );
    let d7_ref = json!({"$ref": "#/definitions/a", "maxLength": 1, "definitions": {"a": {"type": "string"}}});
    assert_eq!(
        gen_full::to_2020(&d7_ref, Draft::D7),
        json!({"$ref": "#/definitions/a", "definitions": {"a": {"type": "string"}}})
    );
    assert_eq!(
        gen_full::decimal_multiples(&serde_json::Number::from_f64(0.1).unwrap_or(1.into()))
            .into_iter()
            .filter(|v| [json!(0.3), json!(-0.6), json!(1.2)].contains(v))
            .count(),
        3
    );
    // Every draft is drawn, each schema parses in `full` and compiles in its draft, and the
    // keywords only `full` reads all appear.
    let mut runner = TestRunner::new_with_rng(
        Config::with_cases(1),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let strategy = gen_full::root_schema(3);
    let mut drafts = BTreeMap::new();
    let mut keywords: BTreeMap<&str, usize> = BTreeMap::new();
    const WANTED: &[&str] = &[
        "\"patternProperties\"",
        "\"propertyNames\"",
        "\"minProperties\"",
        "\"maxProperties\"",
        "\"dependentRequired\"",
        "\"dependentSchemas\"",
        "\"dependencies\"",
        "\"if\"",
        "\"contains\"",
        "\"minContains\"",
        "\"maxContains\"",
        "\"unevaluatedProperties\"",
        "\"unevaluatedItems\"",
        "\"prefixItems\"",
        "\"additionalItems\"",
        "\"multipleOf\":0.",
        "\"const\"",
        ":false",
        "\"$ref\"",
        "\"$defs\"",
        "\"definitions\"",
    ];
    for _ in 0..400 {
        let s = strategy
            .new_tree(&mut runner)
            .unwrap_or_else(|e| panic!("{e}"))
            .current();
        *drafts.entry(Draft::of(&s)).or_insert(0usize) += 1;
        let text = s.to_string();
        for k in WANTED {
            if text.contains(k) {
                *keywords.entry(k).or_default() += 1;
            }
        }
        parse_full(&s);
        oracle::compile_as_declared(&s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    assert_eq!(drafts.len(), 5, "{drafts:?}");
    for k in WANTED {
        assert!(
            keywords.get(k).copied().unwrap_or(0) >= 3,
            "{k} is rarely generated: {keywords:?}"
        );
    }
    // Values aim at hand-written schemas of each draft.
    for s in [
        json!({"$schema": Draft::D4.uri(), "type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false, "minProperties": 1}),
        json!({"$schema": Draft::D7.uri(), "type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "number", "multipleOf": 0.1}, "contains": {"type": "string"}}),
        json!({"$schema": Draft::D7.uri(), "if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "number", "exclusiveMinimum": 0}}),
        json!({"$schema": Draft::D2019.uri(), "type": "object", "properties": {"a": {"type": "string"}}, "dependentRequired": {"a": ["b"]}, "unevaluatedProperties": {"type": "boolean"}}),
        json!({"type": "array", "prefixItems": [{"const": {"k": [1]}}], "items": {"type": "integer", "multipleOf": 2.5}, "unevaluatedItems": false}),
    ] {
        let schema = parse_full(&s);
        let valid = valid_out_of_40(&schema, &gen_full::value(&s), &mut runner);
        assert!(
            valid >= 12,
            "{s}: only {valid} of 40 generated values are valid"
        );
    }
}

/// Found by the `full` property test, a deviation of the oracle rather than of schemalect: in
/// 2019-09 `contains` does not evaluate items for `unevaluatedItems` (that came with 2020-12,
/// and the official suite tests it there only); the `jsonschema` crate applies the 2020-12
/// rule to both, so the generator leaves that pair out of 2019-09 schemas. schemalect
/// follows each draft.
#[test]
fn full_unevaluated_items_sees_contains_from_2020_12_only() {
    let in_2019 = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
        "type": "array", "contains": {"type": "string"}, "unevaluatedItems": false});
    let in_2020 = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array", "contains": {"type": "string"}, "unevaluatedItems": false});
    assert!(!parse_full(&in_2019).is_valid(&json!([""])));
    assert!(
        !parse_full(&in_2019).is_valid(&json!([])),
        "`contains` still needs an item"
    );
    assert!(parse_full(&in_2020).is_valid(&json!([""])));
    assert!(!parse_full(&in_2020).is_valid(&json!(["", 1])));
    // The oracle's reading, which the generator therefore avoids.
    let theirs = oracle::compile_as_declared(&in_2019).unwrap_or_else(|e| panic!("{e}"));
    assert!(theirs.is_valid(&json!([""])), "the jsonschema crate now follows 2019-09: the generator may use `contains` with `unevaluatedItems` there again");
}

#[test]
fn generated_full_schemas_widen_on_every_target() {
    let started = Instant::now();
    let cases = full_cases();
    let (mut runner, seed) = property_runner(cases);
    let options = ParseOptions::default().with_subset(Subset::Full);
    let filter = options.clone();
    let strategy = (
        gen_full::root_schema(3).prop_filter("in the full subset, with an oracle", move |s| {
            Schema::parse_with(s, &filter).is_ok() && oracle::compile_as_declared(s).is_ok()
        }),
        any::<u64>(),
    );
    let tally = Tally::default();
    let sink = Sink::new();
    let drafts: std::cell::RefCell<BTreeMap<gen_full::Draft, usize>> = Default::default();
    let result = runner.run(&strategy, |(s, value_seed)| {
        *drafts
            .borrow_mut()
            .entry(gen_full::Draft::of(&s))
            .or_default() += 1;
        let xs = full_values_from_seed(&s, value_seed, CANDIDATES);
        check_case_in(Subset::Full, &s, &xs, &tally, &sink).map_err(TestCaseError::fail)
    });
    fail_with_minimal_case(
        "full widening",
        Subset::Full,
        &seed,
        result,
        full_values_from_seed,
    );
    println!(
        "full widening property (seed {seed}): {} schemas ({:?}), {}, {:.1?}",
        tally.cases.get(),
        drafts.borrow(),
        tally.summary(),
        started.elapsed()
    );
    sink.finish("full property");
    tally.assert_covered(cases, 4, 1);
}

/// Found by the `full` property test (seed 396449423047, 3,000 cases), in every subset: an
/// optional property whose schema admits `null` by its types but rejects it (`not`), with
/// `null` read as absent, was sent as its own schema with `null` for absence, and then had no
/// encoding for an absent property. Each subset's spelling, every target and configuration.
#[test]
fn regression_optional_property_that_rejects_null_under_null_means_absent() {
    regression(
        json!({"type": "object", "properties": {"a": {"allOf": [{"type": "null"}], "not": {"type": "null"}}, "b": {"type": ["string", "null"], "not": {"type": "null"}}}}),
        &[json!({}), json!({"b": "s"})],
        &[],
        &[],
    );
    let full = json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object",
        "properties": {"a": {"$ref": "#/$defs/d0", "not": {"type": "null"}}}, "$defs": {"d0": {"allOf": [{"type": "null"}]}}});
    let schema = parse_full(&full);
    let tally = Tally::default();
    let sink = Sink::new();
    check_case_in(Subset::Full, &full, &[json!({})], &tally, &sink)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(schema.is_valid(&json!({})));
}
