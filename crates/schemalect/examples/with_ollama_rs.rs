//! ollama-rs's `FormatType` from an Ollama lowering, and a recorded answer taken back through
//! ollama-rs's response type: `cargo run -p schemalect --features ollama-rs --example
//! with_ollama_rs`.

use ollama_rs::generation::chat::request::ChatMessageRequest;
use ollama_rs::generation::chat::{ChatMessage, ChatMessageResponse};
use schemalect::integrations::ollama_rs::format;
use schemalect::{LowerOptions, Schema, Target};

const TICKET: &str = include_str!("recorded/ticket.schema.json");
const RECORDED: &str = include_str!("recorded/ollama/valid.json");
const EMAIL: &str = "Checkout hangs for 30s then errors whenever a coupon is used. \
    Dana Lee <dana.lee@example.com>";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Schema::parse(&serde_json::from_str(TICKET)?)?;
    let plan = schema.lower(Target::Ollama, &LowerOptions::default());
    for loss in plan.losses() {
        eprintln!("not enforced by Ollama: {loss}");
    }
    let request = ChatMessageRequest::new(
        "llama3.1:8b".to_owned(),
        vec![ChatMessage::user(EMAIL.to_owned())],
    )
    .format(format(&plan)?.into_value());
    let body = serde_json::to_value(&request)?;
    println!("POST /api/chat ({} mode)\n{body:#}", plan.mode());
    // What ollama-rs sends as `format` is the lowering's, member for member.
    assert_eq!(body["format"], plan.wire()["format"]);

    // ... `Ollama::default().send_chat_messages(request).await?`; the recorded response:
    let responses: Vec<ChatMessageResponse> = serde_json::from_str(RECORDED)?;
    let response = responses.first().ok_or("no response")?;
    let ticket = plan.accept(response.message.content.as_str())?;
    println!("the answer, validated:\n{ticket:#}");
    assert_eq!(ticket["severity"], "high");
    Ok(())
}
