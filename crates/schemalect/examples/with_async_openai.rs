//! async-openai's request types from a lowering, and a recorded answer taken back through
//! async-openai's response type: `cargo run -p schemalect --features async-openai --example
//! with_async_openai`.
//!
//! Three routes: Chat Completions `response_format`, the same schema as a forced function tool,
//! and the Responses API `text.format`.

use async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestMessage, ChatCompletionRequestUserMessage,
    CreateChatCompletionRequestArgs, CreateChatCompletionResponse,
};
use async_openai::types::responses::CreateResponseArgs;
use schemalect::integrations::async_openai::{forced_tool, response_format, text};
use schemalect::{LowerOptions, Profile, Schema, Target};

const TICKET: &str = include_str!("recorded/ticket.schema.json");
/// The recorded Chat Completions answer to the reshaping (strict) request.
const RECORDED: &str = include_str!("recorded/openai-reshaping/valid.json");
const EMAIL: &str = "Checkout hangs for 30s then errors whenever a coupon is used. \
    Dana Lee <dana.lee@example.com>";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Schema::parse(&serde_json::from_str(TICKET)?)?;
    // The ticket has optional members: the reshaping profile sends them as required and
    // nullable, which strict `json_schema` enforces, and `accept` turns back.
    let options = LowerOptions::default()
        .with_name("ticket_triage")
        .with_profile(Profile::Reshaping);

    // 1. Chat Completions `response_format`.
    let plan = schema.lower(Target::OpenAi, &options);
    let format = response_format(&plan)?;
    for left in &format.left_out {
        eprintln!("not sent: {left}");
    }
    let request = CreateChatCompletionRequestArgs::default()
        .model("gpt-4o-2024-08-06")
        .messages(vec![ChatCompletionRequestMessage::User(
            ChatCompletionRequestUserMessage::from(EMAIL),
        )])
        .response_format(format.value)
        .build()?;
    println!(
        "POST /v1/chat/completions ({} mode, {} losses)\n{:#}",
        plan.mode(),
        plan.losses().len(),
        serde_json::to_value(&request)?
    );
    let responses: Vec<CreateChatCompletionResponse> = serde_json::from_str(RECORDED)?;
    let content = responses
        .first()
        .and_then(|r| r.choices.first())
        .and_then(|c| c.message.content.as_deref())
        .ok_or("no content")?;
    let ticket = plan.accept(content)?;
    println!("the answer, lifted and validated:\n{ticket:#}");
    assert!(ticket.get("reporter_email").is_some());

    // 2. The same schema as a forced function tool: the answer is the call's `arguments`.
    let tool = forced_tool(&plan)?.into_value();
    let request = CreateChatCompletionRequestArgs::default()
        .model("gpt-4o-2024-08-06")
        .messages(vec![ChatCompletionRequestMessage::User(
            ChatCompletionRequestUserMessage::from(EMAIL),
        )])
        .tools(vec![tool.tool])
        .tool_choice(tool.tool_choice)
        .build()?;
    println!(
        "POST /v1/chat/completions (forced tool)\n{:#}",
        serde_json::to_value(&request)?
    );
    // The recorded answer as a tool call (the same content in `function.arguments`).
    let call: CreateChatCompletionResponse = serde_json::from_value(serde_json::json!({
        "id": "chatcmpl-BeN7q2Yx4kRr9tF1vW1", "object": "chat.completion",
        "created": 1748855104, "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null, "message": {
            "role": "assistant", "content": null, "refusal": null,
            "tool_calls": [{"id": "call_7yQ2", "type": "function",
                "function": {"name": "ticket_triage", "arguments": content}}]}}]
    }))?;
    let arguments = match call
        .choices
        .first()
        .and_then(|c| c.message.tool_calls.as_ref())
        .and_then(|calls| calls.first())
    {
        Some(ChatCompletionMessageToolCalls::Function(f)) => f.function.arguments.clone(),
        _ => return Err("no function call".into()),
    };
    assert_eq!(plan.accept(arguments.as_str())?, ticket);

    // 3. The Responses API: `text.format`.
    let plan = schema.lower(Target::OpenAiResponses, &options);
    let request = CreateResponseArgs::default()
        .model("gpt-4o-2024-08-06")
        .input(EMAIL)
        .text(text(&plan)?.into_value())
        .build()?;
    println!("POST /v1/responses\n{:#}", serde_json::to_value(&request)?);
    // The response's `output_text` is the same JSON text.
    assert_eq!(plan.accept(content)?, ticket);
    Ok(())
}
