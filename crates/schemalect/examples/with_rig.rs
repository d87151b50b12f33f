//! rig: a schema from rig's `schemars`, the `output_schema` its providers take, a forced tool
//! for its Anthropic provider, and a recorded answer taken back as the Rust type:
//! `cargo run -p schemalect --features rig --example with_rig`.

use rig::completion::CompletionRequest;
use rig::schemars::{self, JsonSchema};
use schemalect::integrations::rig::{forced_tool, lower, output_schema};
use schemalect::{LowerOptions, Profile, Target};
use serde::Deserialize;
use serde_json::Value;

const CLAUDE: &str = include_str!("recorded/claude/valid.json");
const OPENAI: &str = include_str!("recorded/openai-reshaping/valid.json");
const EMAIL: &str = "Checkout hangs for 30s then errors whenever a coupon is used. \
    Dana Lee <dana.lee@example.com>";

/// A triaged bug report.
#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct TicketTriage {
    summary: String,
    severity: Severity,
    component: String,
    reporter_email: Option<String>,
    labels: Vec<String>,
    estimate_hours: Option<f64>,
    duplicate_of: Option<u64>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let generated = schemars::schema_for!(TicketTriage);
    let options = LowerOptions::default()
        .with_name("ticket_triage")
        .with_profile(Profile::Reshaping)
        .with_null_means_absent(true);

    // `output_schema` for rig's OpenAI provider: strict, every member present.
    let plan = lower(&generated, Target::OpenAi, &options)?;
    let schema = output_schema(&plan)?;
    for left in &schema.left_out {
        eprintln!("rig will not send {left}");
    }
    println!(
        "openai ({} mode): the request's `output_schema`\n{:#}",
        plan.mode(),
        schema.value.as_value()
    );
    let request = CompletionRequest::new(EMAIL).output_schema(schema.value);
    assert_eq!(
        request.output_schema.as_ref().map(|s| s.as_value()),
        plan.wire().pointer("/response_format/json_schema/schema")
    );
    // ... `model.completion(request).await?`; the recorded reply text:
    let recorded: Value = serde_json::from_str(OPENAI)?;
    let text = recorded
        .pointer("/0/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or("no content")?;
    let ticket: TicketTriage = plan.accept_as(text)?;
    println!("openai: {ticket:?}");

    // A forced tool for rig's Anthropic provider: the answer is the call's arguments.
    let plan = lower(&generated, Target::Claude, &options)?;
    let tool = forced_tool(&plan)?;
    for left in &tool.left_out {
        eprintln!("rig will not send {left}");
    }
    println!(
        "claude ({} mode): the request's tool (forced)\n{:#}\n{:?}",
        plan.mode(),
        serde_json::to_value(&tool.value.definition)?,
        tool.value.choice
    );
    let request = CompletionRequest::new(EMAIL)
        .tool(tool.value.definition)
        .tool_choice(tool.value.choice);
    assert_eq!(request.tools.len(), 1);
    // ... `model.completion(request).await?`; the recorded `tool_use` block:
    let recorded: Value = serde_json::from_str(CLAUDE)?;
    let input = recorded
        .pointer("/0/content")
        .and_then(Value::as_array)
        .and_then(|blocks| blocks.iter().find(|b| b["type"] == "tool_use"))
        .map(|block| block["input"].clone())
        .ok_or("no tool_use block")?;
    let ticket: TicketTriage = plan.accept_as(&input)?;
    assert_eq!(ticket.severity, Severity::High);
    println!("claude: {ticket:?}");
    Ok(())
}
