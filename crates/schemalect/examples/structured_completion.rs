//! The structured-completion flow end to end, for every target, against recorded provider
//! answers (no network): build the request, read the answer out of the response body, validate
//! it, make the single repair round when needed, and print the outcome.
//!
//! ```text
//! cargo run -p schemalect --example structured_completion
//! ```
//!
//! The answers are in `examples/recorded/<target>/<case>.json` (see the README there).

use schemalect::flow::{lenient, Failure, Flow, Outcome, Reply};
use schemalect::{AcceptError, LowerOptions, Profile, Target};
use serde_json::{json, Map, Value};
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

const CASES: [&str; 4] = ["valid", "invalid-then-repaired", "refusal", "truncated"];

const TASK: &str = "Triage this bug report.
From: dana.lee@example.com
Subject: Checkout hangs with coupon
When I apply the code SPRING25 at checkout the page spins for about 30 seconds and then shows a 504. Without the coupon it works. Happens on Chrome and Firefox.";

fn main() -> Result<(), Box<dyn Error>> {
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/recorded");
    let schema: Value =
        serde_json::from_str(&fs::read_to_string(recorded.join("ticket.schema.json"))?)?;
    let options = LowerOptions::default().with_name("ticket_triage");
    let mut shown_instructions: Vec<(String, String)> = Vec::new();
    let mut shown_repairs: Vec<&'static str> = Vec::new();

    // Every target with the default (conservative) profile; then OpenAI with the reshaping
    // profile, which sends strict `json_schema` for a reshaped form and lifts the answer back;
    // then Ollama in plain JSON mode (no schema sent: the model can answer in prose).
    let mut runs: Vec<(String, Flow)> = Vec::new();
    for target in Target::ALL {
        runs.push((target.name().into(), Flow::new(&schema, target, &options)?));
    }
    let reshaping = options.clone().with_profile(Profile::Reshaping);
    runs.push((
        "openai-reshaping".into(),
        Flow::new(&schema, Target::OpenAi, &reshaping)?,
    ));
    runs.push(("ollama-json-mode".into(), Flow::json(Target::Ollama)));

    for (name, flow) in &runs {
        let lowering = flow.lowering();
        println!(
            "== {name}: {} mode{}, {} loss{}",
            lowering.mode(),
            if lowering.is_reshaped() {
                ", reshaped"
            } else {
                ""
            },
            lowering.losses().len(),
            if lowering.losses().len() == 1 {
                ""
            } else {
                "es"
            }
        );
        for loss in lowering.losses() {
            println!("  loss {loss}");
        }
        let (endpoint, request) = request(flow);
        println!("request: POST {endpoint}");
        println!("  {}", abridged(&request, flow));
        match shown_instructions
            .iter()
            .find(|(text, _)| text == flow.instruction())
        {
            Some((_, first)) => println!("instruction: same as {first}"),
            None => {
                println!("instruction:");
                for line in flow.instruction().lines() {
                    println!("  | {line}");
                }
                shown_instructions.push((flow.instruction().to_owned(), name.clone()));
            }
        }
        let dir = recorded.join(name);
        if !dir.is_dir() {
            // Answers are recorded from real runs only; a route with none is shown up to its
            // request, and its answers are not made up.
            println!("(no recorded answers for {name} yet)");
            println!();
            continue;
        }
        for case in CASES {
            run_case(flow, &request, &dir, case, &mut shown_repairs)?;
        }
        println!();
    }

    // Lenient mode, for inputs whose schemas come from outside (here an MCP tool's input
    // schema, which uses `$ref` and so is outside the subset): structure only.
    let tool_schema = json!({
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"$ref": "#/$defs/limit"}},
        "required": ["query"],
        "$defs": {"limit": {"type": "integer", "minimum": 1}}
    });
    let strict = schemalect::Schema::parse(&tool_schema)
        .err()
        .map(|e| {
            let keywords: Vec<&str> = e.keywords().into_iter().filter(|k| !k.is_empty()).collect();
            format!("`{}` outside the subset", keywords.join("`, `"))
        })
        .unwrap_or_default();
    println!("== lenient check of an MCP tool input (strict refuses the schema: {strict})");
    for input in [
        json!({"query": "coupon 504", "limit": 0}),
        json!({"limit": 5}),
    ] {
        match lenient::validate(&tool_schema, &input) {
            Ok(()) => {
                println!("  {input}: matches (only type, required and properties are checked)")
            }
            Err(errors) => {
                for e in &errors.errors {
                    println!("  {input}: {e}");
                }
            }
        }
    }
    Ok(())
}

/// Feeds one recorded case through the flow and prints what happened. The first repair text
/// of each kind (decode failure, schema mismatch, …) is printed whole, later ones up to the
/// previous answer.
fn run_case(
    flow: &Flow,
    request: &Value,
    dir: &Path,
    case: &str,
    shown_repairs: &mut Vec<&'static str>,
) -> Result<(), Box<dyn Error>> {
    let path: PathBuf = dir.join(format!("{case}.json"));
    let bodies: Vec<Value> = serde_json::from_str(&fs::read_to_string(&path)?)?;
    let mut bodies = bodies.iter();
    let first = bodies.next().ok_or("a recorded case needs a response")?;
    print!("  {case:<22} ");
    let result = match flow.start().check_response(first) {
        Outcome::Accepted(value) => Ok(value),
        Outcome::Failed(failure) => Err(failure),
        Outcome::Repair(repair, last) => {
            let kind = match last.first_error() {
                AcceptError::Decode { .. } => "not JSON",
                AcceptError::Invalid(_) => "schema mismatch",
                _ => "wrong shape",
            };
            let follow_up = repair_request(flow, request, repair.previous(), &repair);
            println!(
                "rejected ({kind}) -> repair request, turns: {}",
                turns(flow, &follow_up)
            );
            let whole = !shown_repairs.contains(&kind);
            for (i, line) in repair.text().lines().enumerate() {
                if !whole && i > 0 && line.starts_with("Your previous answer") {
                    println!("  {:<22} | (then the previous answer and the request to answer again, as above)", "");
                    break;
                }
                let line = match flow.schema_text() {
                    Some(schema) if line == schema => "<the schema, as in the instruction>",
                    _ => line,
                };
                println!("  {:<22} | {line}", "");
            }
            if whole {
                shown_repairs.push(kind);
            }
            print!("  {:<22} ", "");
            match bodies.next() {
                Some(second) => last.check_response(second),
                None => {
                    println!("(no recorded answer to the repair request)");
                    return Ok(());
                }
            }
        }
    };
    match result {
        Ok(value) => println!("accepted: {value}"),
        Err(Failure::NoAnswer { error, first }) => println!(
            "failed, no answer{}: {error}",
            if first.is_some() {
                " in the repair round"
            } else {
                ""
            }
        ),
        Err(failure) => println!("failed: {}", first_line(&failure.to_string())),
    }
    Ok(())
}

/// The request body (and where it goes) for a target: the instruction as the system prompt,
/// the task as the user message, and the lowering's fragment merged in.
fn request(flow: &Flow) -> (String, Value) {
    let instruction = flow.instruction();
    let (endpoint, mut body) = match flow.target() {
        Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => {
            let (url, model) = match flow.target() {
                Target::OpenAi => (
                    "https://api.openai.com/v1/chat/completions",
                    "gpt-4o-2024-08-06",
                ),
                Target::Groq => (
                    "https://api.groq.com/openai/v1/chat/completions",
                    "openai/gpt-oss-120b",
                ),
                Target::Mistral => (
                    "https://api.mistral.ai/v1/chat/completions",
                    "mistral-small-latest",
                ),
                _ => (
                    "https://openrouter.ai/api/v1/chat/completions",
                    "openai/gpt-4o-mini",
                ),
            };
            (
                url,
                json!({"model": model, "messages": [
                    {"role": "system", "content": instruction},
                    {"role": "user", "content": TASK}
                ]}),
            )
        }
        Target::Gemini | Target::GeminiJson => (
            if flow.target() == Target::Gemini {
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
            } else {
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent"
            },
            json!({
                "systemInstruction": {"parts": [{"text": instruction}]},
                "contents": [{"role": "user", "parts": [{"text": TASK}]}]
            }),
        ),
        Target::Ollama => (
            "http://localhost:11434/api/chat",
            json!({"model": "llama3.1:8b", "stream": false, "messages": [
                {"role": "system", "content": instruction},
                {"role": "user", "content": TASK}
            ]}),
        ),
        Target::OllamaMlx => (
            "http://localhost:11434/api/chat",
            json!({"model": "qwen3:8b-mlx", "stream": false, "messages": [
                {"role": "system", "content": instruction},
                {"role": "user", "content": TASK}
            ]}),
        ),
        Target::LlamaServer => (
            "http://localhost:8080/v1/chat/completions",
            json!({"messages": [
                {"role": "system", "content": instruction},
                {"role": "user", "content": TASK}
            ]}),
        ),
        Target::OpenAiResponses => (
            "https://api.openai.com/v1/responses",
            json!({"model": "gpt-4o-2024-08-06", "instructions": instruction, "input": TASK}),
        ),
        Target::GeminiInteractions => (
            "https://generativelanguage.googleapis.com/v1beta/interactions",
            json!({"model": "gemini-2.5-flash", "system_instruction": instruction, "input": TASK}),
        ),
        Target::VertexGemini => (
            "https://aiplatform.googleapis.com/v1/projects/PROJECT/locations/global/publishers/google/models/gemini-2.5-flash:generateContent",
            json!({
                "systemInstruction": {"parts": [{"text": instruction}]},
                "contents": [{"role": "user", "parts": [{"text": TASK}]}]
            }),
        ),
        Target::BedrockClaude => (
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1:0/converse",
            json!({
                "system": [{"text": instruction}],
                "messages": [{"role": "user", "content": [{"text": TASK}]}]
            }),
        ),
        Target::Claude | Target::ClaudeNative => (
            "https://api.anthropic.com/v1/messages",
            json!({
                "model": "claude-sonnet-4-5-20250929",
                "max_tokens": 1024,
                "system": instruction,
                "messages": [{"role": "user", "content": TASK}]
            }),
        ),
    };
    if let (Some(body), Some(fragment)) = (body.as_object_mut(), flow.wire().as_object()) {
        merge(body, fragment);
    }
    (endpoint.to_owned(), body)
}

/// Merges a request fragment into a body, object members recursively.
fn merge(body: &mut Map<String, Value>, fragment: &Map<String, Value>) {
    for (k, v) in fragment {
        match (body.get_mut(k), v) {
            (Some(Value::Object(into)), Value::Object(from)) => merge(into, from),
            _ => {
                body.insert(k.clone(), v.clone());
            }
        }
    }
}

/// The request for the repair round: the conversation so far, the model's invalid output as
/// its turn, then the repair message (for a Claude tool call, as its `tool_result`).
fn repair_request(
    flow: &Flow,
    request: &Value,
    previous: &Reply,
    repair: &schemalect::flow::RepairRequest,
) -> Value {
    let mut body = request.clone();
    let previous_text = previous.to_text();
    let (list, turns) = match flow.target() {
        Target::Gemini | Target::GeminiJson => (
            "contents",
            vec![
                json!({"role": "model", "parts": [{"text": previous_text}]}),
                json!({"role": "user", "parts": [{"text": repair.text()}]}),
            ],
        ),
        Target::Claude | Target::ClaudeNative => match (previous, repair.claude_tool_result()) {
            (Reply::ToolUse { id, name, input }, Some(result)) => (
                "messages",
                vec![
                    json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}),
                    json!({"role": "user", "content": [result]}),
                ],
            ),
            _ => (
                "messages",
                vec![
                    json!({"role": "assistant", "content": previous_text}),
                    json!({"role": "user", "content": repair.text()}),
                ],
            ),
        },
        _ => (
            "messages",
            vec![
                json!({"role": "assistant", "content": previous_text}),
                json!({"role": "user", "content": repair.text()}),
            ],
        ),
    };
    if let Some(Value::Array(list)) = body.get_mut(list) {
        list.extend(turns);
    }
    body
}

fn conversation(flow: &Flow, body: &Value) -> Vec<Value> {
    let list = match flow.target() {
        Target::Gemini | Target::GeminiJson => "contents",
        _ => "messages",
    };
    body.get(list)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The roles of the repair request's turns, with the block type of Claude tool turns.
fn turns(flow: &Flow, body: &Value) -> String {
    let roles: Vec<String> = conversation(flow, body)
        .iter()
        .map(|turn| {
            let role = turn.get("role").and_then(Value::as_str).unwrap_or("?");
            match turn.pointer("/content/0/type").and_then(Value::as_str) {
                Some(block) => format!("{role} ({block})"),
                None => role.to_owned(),
            }
        })
        .collect();
    roles.join(", ")
}

/// The request body with the instruction and the task elided, so one line shows its shape.
fn abridged(request: &Value, flow: &Flow) -> String {
    request
        .to_string()
        .replace(
            &serde_json::to_string(flow.instruction()).unwrap_or_default(),
            "\"<instruction>\"",
        )
        .replace(
            &serde_json::to_string(TASK).unwrap_or_default(),
            "\"<task>\"",
        )
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}
