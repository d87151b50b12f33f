use super::*;
use crate::lower::{json_mode, AcceptError, Mode};
use pretty_assertions::assert_eq;
use serde_json::json;

fn ticket() -> Value {
    json!({
        "title": "ticket_triage",
        "type": "object",
        "properties": {
            "summary": {"type": "string", "minLength": 10, "maxLength": 120},
            "severity": {"enum": ["low", "medium", "high", "critical"]},
            "component": {"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$"},
            "reporter_email": {"type": "string", "pattern": "@example\\.com$"},
            "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 5},
            "estimate_hours": {"type": "number", "minimum": 0.5, "maximum": 40},
            "duplicate_of": {"type": ["integer", "null"], "minimum": 1}
        },
        "required": ["summary", "severity", "component", "labels"],
        "additionalProperties": false
    })
}

const TICKET_TEXT: &str = r#"{"title":"ticket_triage","type":"object","properties":{"summary":{"type":"string","minLength":10,"maxLength":120},"severity":{"enum":["low","medium","high","critical"]},"component":{"type":"string","pattern":"^[a-z]+(-[a-z]+)*$"},"reporter_email":{"type":"string","pattern":"@example\\.com$"},"labels":{"type":"array","items":{"type":"string"},"uniqueItems":true,"maxItems":5},"estimate_hours":{"type":"number","minimum":0.5,"maximum":40},"duplicate_of":{"type":["integer","null"],"minimum":1}},"required":["summary","severity","component","labels"],"additionalProperties":false}"#;

fn flow(target: Target) -> Flow {
    Flow::new(&ticket(), target, &LowerOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn widened_instruction_spells_out_every_unenforced_constraint() {
    let f = flow(Target::Ollama);
    assert_eq!(f.lowering().mode(), Mode::Widened);
    let expected = format!(
        "Answer with JSON only: a single JSON value that conforms to the JSON Schema below, with no text before or after it and no Markdown code fence.
JSON Schema:
{TICKET_TEXT}
These constraints of the schema are not enforced while you write, so make sure your answer meets them:
- `$.reporter_email`: must match the regular expression `@example\\.com$`.
- `$.labels`: must not contain the same item twice.
- `$.estimate_hours`: must be at least 0.5 and at most 40.
- `$.duplicate_of`: if a number, must be at least 1."
    );
    assert_eq!(f.instruction(), expected);
    assert_eq!(f.schema_text(), Some(TICKET_TEXT));
}

/// An array of objects nested deeper than OpenAI's strict limit: no native schema for OpenAI.
fn deep_array() -> Value {
    let mut deep = json!({"type": "string"});
    for _ in 0..12 {
        deep = json!({"type": "object", "properties": {"a": deep}, "required": ["a"], "additionalProperties": false});
    }
    json!({"type": "array", "items": deep})
}

#[test]
fn prompt_mode_instruction_says_nothing_is_enforced() {
    let schema = deep_array();
    let f = Flow::new(&schema, Target::OpenAi, &LowerOptions::default()).unwrap();
    assert_eq!(f.lowering().mode(), Mode::Prompt);
    assert_eq!(
        f.instruction(),
        format!(
            "Answer with JSON only: a single JSON value that conforms to the JSON Schema below, with no text before or after it and no Markdown code fence.
JSON Schema:
{schema}
Nothing enforces the schema while you write: keep to every constraint in it yourself."
        )
    );
}

#[test]
fn json_object_mode_asks_for_an_object_and_keeps_the_word_json() {
    // OpenAI strict needs every property required: the ticket falls back to `json_object`.
    let f = flow(Target::OpenAi);
    assert_eq!(f.lowering().mode(), Mode::Json);
    assert_eq!(
        f.wire(),
        &json!({"response_format": {"type": "json_object"}})
    );
    assert_eq!(
        f.instruction(),
        format!(
            "Answer with JSON only: a single JSON object that conforms to the JSON Schema below, with no text before or after it and no Markdown code fence.
JSON Schema:
{TICKET_TEXT}
Only JSON syntax is enforced while you write, not the schema: keep to every constraint in it yourself."
        )
    );
    let Outcome::Repair(repair, _) = f.start().check("nope") else {
        panic!("no repair")
    };
    assert!(repair.text().contains(
        "Answer again with the corrected JSON only, keeping what was already right: a single JSON object, with no text before or after it and no Markdown code fence. It must conform to this JSON Schema:\n"
    ));
}

#[test]
fn a_reshaped_lowering_shows_the_wire_schema_and_lifts_the_answer() {
    let options = LowerOptions::default().with_profile(crate::Profile::Reshaping);
    let f = Flow::new(&ticket(), Target::OpenAi, &options).unwrap();
    assert!(f.lowering().is_reshaped());
    let wire_schema = f
        .wire()
        .pointer("/response_format/json_schema/schema")
        .unwrap();
    assert_eq!(f.schema_text(), Some(wire_schema.to_string().as_str()));
    assert!(f.instruction().contains(prompt::RESHAPED_NOTE));
    assert!(f.instruction().contains(
        "\nThese constraints of the data (located in its natural form) are not enforced while you write, so make sure your answer meets them:\n- `$.summary`: must be 10 to 120 characters long.\n"
    ));
    // Every member present, `null` for absent: lifted back to the natural form.
    let answer = json!({"summary": "Checkout times out with coupons", "severity": "high", "component": "checkout",
        "reporter_email": null, "labels": ["x", "x"], "estimate_hours": null, "duplicate_of": null});
    let Outcome::Repair(repair, last) = f.start().check(&answer) else {
        panic!("no repair")
    };
    assert!(repair.text().starts_with(
        "Your previous answer was rejected: the data it encodes breaks the schema's constraints (1 error; locations name the data in its natural form):\n- at `/labels`: has duplicate items\n"
    ));
    let mut fixed = answer.clone();
    fixed["labels"] = json!(["x"]);
    fixed["duplicate_of"] = json!({"value": 7});
    assert_eq!(
        last.check(&fixed).unwrap(),
        json!({"summary": "Checkout times out with coupons", "severity": "high", "component": "checkout", "labels": ["x"], "duplicate_of": 7})
    );
}

#[test]
fn gemini_reshaped_schemas_are_named_for_what_they_are() {
    let map = json!({"type": "object", "additionalProperties": {"type": "integer"}});
    let options = LowerOptions::default().with_profile(crate::Profile::Reshaping);
    let f = Flow::new(&map, Target::Gemini, &options).unwrap();
    assert!(f.lowering().is_reshaped());
    assert!(f.instruction().starts_with(
        "Answer with JSON only: a single JSON value that conforms to the schema below, with no text before or after it and no Markdown code fence. The schema describes"
    ));
    assert!(f.instruction().contains(
        "\nSchema (the OpenAPI 3.0 subset Gemini reads; `nullable: true` admits null):\n"
    ));
    let entries = r#"[{"key": "a", "value": 1}, {"key": "b", "value": 2}]"#;
    let Outcome::Accepted(v) = f.start().check(entries) else {
        panic!("not accepted")
    };
    assert_eq!(v, json!({"a": 1, "b": 2}));
}

#[test]
fn a_reshaping_that_sends_no_schema_falls_back_to_the_natural_form() {
    let schema = deep_array();
    let options = LowerOptions::default().with_profile(crate::Profile::Reshaping);
    let lowering = Schema::parse(&schema)
        .unwrap()
        .lower(Target::OpenAi, &options);
    // The envelope makes `json_object` possible, but nothing would tell the model about it.
    assert!(lowering.is_reshaped() && lowering.mode() == Mode::Json);
    assert!(matches!(
        Flow::with_lowering(&schema, lowering),
        Err(FlowError::ReshapedWithoutSchema { mode: Mode::Json })
    ));
    let f = Flow::new(&schema, Target::OpenAi, &options).unwrap();
    assert!(!f.lowering().is_reshaped());
    assert_eq!(f.lowering().mode(), Mode::Prompt);
    assert_eq!(f.schema_text(), Some(schema.to_string().as_str()));
    let Outcome::Accepted(_) = f.start().check("[]") else {
        panic!("not accepted")
    };
}

#[test]
fn exact_lowerings_add_nothing_after_the_schema() {
    let schema =
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    let f = Flow::new(&schema, Target::Ollama, &LowerOptions::default()).unwrap();
    assert_eq!(f.lowering().mode(), Mode::Exact);
    assert!(f.instruction().ends_with(
        "JSON Schema:\n{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}"
    ));
}

#[test]
fn every_target_profile_and_root_gets_a_stable_instruction_with_json_and_the_schema() {
    let schemas = [
        ticket(),
        json!({"type": "array", "items": {"type": "integer", "multipleOf": 3}}),
        json!({"type": ["string", "null"], "pattern": "^x"}),
        json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "integer"}]}),
    ];
    for schema in &schemas {
        for target in Target::ALL {
            for profile in crate::Profile::ALL {
                let options = LowerOptions::default().with_profile(profile);
                let a = Flow::new(schema, target, &options).unwrap();
                let b = Flow::new(schema, target, &options).unwrap();
                assert_eq!(a.instruction(), b.instruction());
                assert!(a.instruction().contains("JSON"), "{target}");
                let shown = a.schema_text().unwrap_or_default();
                assert!(a.instruction().contains(shown), "{target}");
                if !a.lowering().is_reshaped() {
                    assert_eq!(shown, schema.to_string());
                }
            }
        }
        for target in Target::ALL {
            let j = Flow::json(target);
            assert!(j
                .instruction()
                .starts_with("Answer with JSON only: a single JSON"));
            assert!(j.schema_text().is_none());
        }
    }
}

#[test]
fn json_mode_flow_only_decodes() {
    let f = Flow::json(Target::Gemini);
    assert_eq!(
        f.instruction(),
        "Answer with JSON only: a single JSON value, with no text before or after it and no Markdown code fence."
    );
    let Outcome::Accepted(v) = f.start().check("[1, 2]") else {
        panic!("not accepted")
    };
    assert_eq!(v, json!([1, 2]));
    // Leading prose and fences are stripped (`Lowering::accept`); what holds no JSON is not.
    let Outcome::Accepted(v) = f.start().check("Sure! ```json\n[1, 2]\n```") else {
        panic!("not accepted")
    };
    assert_eq!(v, json!([1, 2]));
    let Outcome::Repair(repair, _) = f.start().check("Sure! [1, 2") else {
        panic!("no repair")
    };
    assert_eq!(
        repair.text(),
        "Your previous answer was rejected: it is not valid JSON (expected value at line 1, column 1).
Your previous answer was:
<previous_answer>
Sure! [1, 2
</previous_answer>
Answer again with the corrected JSON only, keeping what was already right: a single JSON value, with no text before or after it and no Markdown code fence."
    );
}

#[test]
fn construction_errors_are_typed() {
    assert!(matches!(
        Flow::new(
            &json!({"$ref": "#"}),
            Target::Ollama,
            &LowerOptions::default()
        ),
        Err(FlowError::Subset(_))
    ));
    assert!(matches!(
        Flow::with_lowering(&ticket(), json_mode(Target::OpenAi)),
        Err(FlowError::NoSchema)
    ));
    let lowering = Schema::parse(&ticket())
        .unwrap()
        .lower(Target::Ollama, &LowerOptions::default());
    let mut deep = json!({"type": "string"});
    for _ in 0..600 {
        deep = json!({"not": deep});
    }
    assert!(matches!(
        Flow::with_lowering(&deep, lowering.clone()),
        Err(FlowError::TooDeep)
    ));
    assert!(Flow::with_lowering(&ticket(), lowering).is_ok());
}

const VALID: &str = r#"{"summary":"Checkout times out with coupons","severity":"high","component":"checkout","labels":["timeout"]}"#;

#[test]
fn valid_answers_are_accepted_at_once() {
    let f = flow(Target::Ollama);
    let Outcome::Accepted(v) = f.start().check(VALID) else {
        panic!("not accepted")
    };
    assert_eq!(v["severity"], "high");
}

#[test]
fn one_repair_then_accept() {
    let f = flow(Target::Ollama);
    let invalid = r#"{"summary":"short","severity":"urgent","component":"Checkout","labels":["a","a"],"extra":1}"#;
    let Outcome::Repair(repair, last) = f.start().check(invalid) else {
        panic!("no repair")
    };
    assert_eq!(
        repair.text(),
        format!(
            "Your previous answer was rejected: it does not conform to the JSON Schema (5 errors):
- at `/summary`: is 5 characters long, shorter than 10 (schema: `/properties/summary/minLength`)
- at `/severity`: \"urgent\" is not one of the 4 allowed values (schema: `/properties/severity/enum`)
- at `/component`: \"Checkout\" does not match the pattern \"^[a-z]+(-[a-z]+)*$\" (schema: `/properties/component/pattern`)
- at `/labels`: has duplicate items (schema: `/properties/labels/uniqueItems`)
- at the top level: the property `extra` is not allowed (schema: `/additionalProperties`)
Your previous answer was:
<previous_answer>
{invalid}
</previous_answer>
Answer again with the corrected JSON only, keeping what was already right: a single JSON value, with no text before or after it and no Markdown code fence. It must conform to this JSON Schema:
{TICKET_TEXT}"
        )
    );
    assert_eq!(repair.previous(), &Reply::Text(invalid.into()));
    assert!(repair.tool_use_id().is_none() && repair.claude_tool_result().is_none());
    assert!(matches!(last.first_error(), AcceptError::Invalid(e) if e.errors.len() == 5));
    assert_eq!(last.check(VALID).unwrap()["component"], "checkout");
}

#[test]
fn the_final_attempt_fails_instead_of_repairing_again() {
    let f = flow(Target::Ollama);
    let Outcome::Repair(_, last) = f.start().check("{") else {
        panic!("no repair")
    };
    match last.check(r#"{"summary": 1}"#) {
        Err(Failure::Rejected {
            first: AcceptError::Decode {
                line: 1, column: 1, ..
            },
            last: AcceptError::Invalid(e),
        }) => assert_eq!(e.errors.len(), 4),
        other => panic!("{other:?}"),
    }
}

fn ollama_body(content: &str, done_reason: &str) -> Value {
    json!({"model": "llama3.1", "created_at": "2025-06-01T10:00:00Z", "message": {"role": "assistant", "content": content}, "done": true, "done_reason": done_reason})
}

#[test]
fn provider_stops_are_failures_without_a_repair() {
    let f = flow(Target::Ollama);
    match f.start().check_response(&ollama_body("{\"summ", "length")) {
        Outcome::Failed(Failure::NoAnswer {
            error: ExtractError::Truncated { reason },
            first: None,
        }) => assert_eq!(reason, "length"),
        other => panic!("{other:?}"),
    }
    let Outcome::Repair(_, last) = f.start().check_response(&ollama_body("[]", "stop")) else {
        panic!("no repair")
    };
    match last.check_response(&json!({"error": "model 'llama3.1' not found"})) {
        Err(Failure::NoAnswer {
            error: ExtractError::Provider { message },
            first: Some(AcceptError::Invalid(_)),
        }) => assert_eq!(message, "model 'llama3.1' not found"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn huge_answers_are_shortened_and_say_so() {
    let f = Flow::json(Target::Ollama);
    let huge = format!("{{\"a\": \"{}", "x".repeat(9_990));
    let Outcome::Repair(repair, _) = f.start().check(huge.as_str()) else {
        panic!("no repair")
    };
    let text = repair.text();
    assert!(text.contains("Your previous answer (9997 characters, shortened here) was:"));
    assert!(text.contains("\n[... 5997 characters omitted ...]\n"));
    assert!(text.contains(&format!(
        "<previous_answer>\n{{\"a\": \"{}",
        "x".repeat(2_993)
    )));
    assert!(text.contains(&format!("{}\n</previous_answer>", "x".repeat(1_000))));
    assert!(text.chars().count() < 4_600, "{}", text.chars().count());
}

#[test]
fn long_error_lists_are_capped() {
    let schema = json!({"type": "array", "items": {"type": "string"}});
    let f = Flow::new(&schema, Target::Ollama, &LowerOptions::default()).unwrap();
    let Outcome::Repair(repair, _) = f.start().check(&json!((0..30).collect::<Vec<_>>())) else {
        panic!("no repair")
    };
    let text = repair.text();
    assert!(text.contains("(30 errors):"));
    assert!(text.contains("- at `/19`: expected string, found integer"));
    assert!(!text.contains("- at `/20`"));
    assert!(text.contains("\n- and 10 more.\n"));
}

#[test]
fn tool_calls_are_answered_with_a_tool_result() {
    let f = flow(Target::Claude);
    let reply = Reply::ToolUse {
        id: "toolu_01".into(),
        name: "ticket_triage".into(),
        input: json!({"summary": "x"}),
    };
    let Outcome::Repair(repair, _) = f.start().check_reply(reply) else {
        panic!("no repair")
    };
    assert_eq!(repair.tool_use_id(), Some("toolu_01"));
    let block = repair.claude_tool_result().unwrap();
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], "toolu_01");
    assert_eq!(block["is_error"], true);
    assert_eq!(block["content"], repair.text());
    assert!(repair
        .text()
        .contains("<previous_answer>\n{\"summary\":\"x\"}\n</previous_answer>"));
}

fn recorded(text: &str) -> Vec<Value> {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn forced_tool_texts_ask_for_the_tool_call() {
    let f = flow(Target::Claude);
    assert_eq!(f.tool_name(), Some("ticket_triage"));
    assert!(f.instruction().starts_with(
        "Answer by calling the tool `ticket_triage` exactly once. Its input is your answer: a single JSON value that conforms to the JSON Schema below.\nJSON Schema:\n"
    ));
    let bodies = recorded(include_str!(
        "../../examples/recorded/claude/invalid-then-repaired.json"
    ));
    let Outcome::Repair(repair, last) = f.start().check_response(&bodies[0]) else {
        panic!("no repair")
    };
    assert!(repair.text().starts_with(
        "Your previous answer was rejected: it does not conform to the JSON Schema (2 errors):\n- at `/summary`: is 9 characters long, shorter than 10 (schema: `/properties/summary/minLength`)\n- at `/labels`: has duplicate items (schema: `/properties/labels/uniqueItems`)\n"
    ));
    assert!(repair.text().contains(&format!(
        "Call the tool `ticket_triage` again with corrected input, as a single JSON value, keeping what was already right. It must conform to this JSON Schema:\n{TICKET_TEXT}"
    )));
    let block = repair.claude_tool_result().unwrap();
    assert_eq!(block["tool_use_id"], "toolu_01A09q90qw90lq917835lq90");
    assert_eq!(last.check_response(&bodies[1]).unwrap()["severity"], "high");
}

#[test]
fn forced_tool_recordings_give_each_outcome() {
    let f = flow(Target::Claude);
    let valid = recorded(include_str!("../../examples/recorded/claude/valid.json"));
    assert!(
        matches!(f.start().check_response(&valid[0]), Outcome::Accepted(v) if v["component"] == "checkout")
    );
    let refusal = recorded(include_str!("../../examples/recorded/claude/refusal.json"));
    assert!(matches!(
        f.start().check_response(&refusal[0]),
        Outcome::Failed(Failure::NoAnswer {
            error: ExtractError::Refusal { .. },
            first: None
        })
    ));
    let truncated = recorded(include_str!(
        "../../examples/recorded/claude/truncated.json"
    ));
    assert!(matches!(
        f.start().check_response(&truncated[0]),
        Outcome::Failed(Failure::NoAnswer { error: ExtractError::Truncated { ref reason }, .. }) if reason == "max_tokens"
    ));
    // A text answer where the request forced the tool.
    let text = json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": VALID}], "stop_reason": "end_turn"});
    assert!(matches!(
        f.start().check_response(&text),
        Outcome::Failed(Failure::NoAnswer {
            error: ExtractError::NoToolUse { .. },
            ..
        })
    ));
}
