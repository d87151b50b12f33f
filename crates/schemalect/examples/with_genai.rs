//! genai's `ChatResponseFormat` from lowerings for three providers, what genai will not send,
//! and recorded answers taken back: `cargo run -p schemalect --features genai --example
//! with_genai`.

use genai::chat::{
    sanitize_json_schema, ChatMessage, ChatOptions, ChatRequest, ChatResponseFormat,
    JsonSchemaDialect,
};
use schemalect::integrations::genai::response_format;
use schemalect::{LowerOptions, Profile, Schema, Target};
use serde_json::Value;

const TICKET: &str = include_str!("recorded/ticket.schema.json");
const OPENAI: &str = include_str!("recorded/openai-reshaping/valid.json");
const GEMINI: &str = include_str!("recorded/gemini-json/valid.json");
const OLLAMA: &str = include_str!("recorded/ollama/valid.json");
const EMAIL: &str = "Checkout hangs for 30s then errors whenever a coupon is used. \
    Dana Lee <dana.lee@example.com>";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Schema::parse(&serde_json::from_str(TICKET)?)?;
    let options = LowerOptions::default().with_name("ticket_triage");
    let reshaping = options.clone().with_profile(Profile::Reshaping);
    for (model, target, options, recorded, text_at) in [
        (
            "gpt-4o-2024-08-06",
            Target::OpenAi,
            &reshaping,
            OPENAI,
            "/0/choices/0/message/content",
        ),
        (
            "gemini-2.5-flash",
            Target::GeminiJson,
            &options,
            GEMINI,
            "/0/candidates/0/content/parts/0/text",
        ),
        (
            "llama3.1:8b",
            Target::Ollama,
            &options,
            OLLAMA,
            "/0/message/content",
        ),
    ] {
        let plan = schema.lower(target, options);
        let format = response_format(&plan)?;
        if let ChatResponseFormat::JsonSpec(spec) = &format.value {
            // genai's OpenAI adapter sanitizes the schema before sending it: on a strict
            // lowering it has nothing to change.
            if target == Target::OpenAi {
                let sent = sanitize_json_schema(&spec.schema, JsonSchemaDialect::OpenAiStrict);
                assert_eq!(sent, spec.schema, "genai would change the schema");
            }
        }
        for left in &format.left_out {
            eprintln!("{target}: genai will not send {left}");
        }
        println!(
            "{model} ({target}, {} mode): response format\n{:#}",
            plan.mode(),
            serde_json::to_value(&format.value)?
        );
        let _request = ChatRequest::new(vec![ChatMessage::user(EMAIL)]);
        let _options = ChatOptions::default().with_response_format(format.value);
        // ... `client.exec_chat(model, _request, Some(&_options)).await?`, then
        // `plan.accept(response.first_text())`; here, the recorded text:
        let recorded: Value = serde_json::from_str(recorded)?;
        let text = recorded
            .pointer(text_at)
            .and_then(Value::as_str)
            .ok_or("no text")?;
        let ticket = plan.accept(text)?;
        assert_eq!(ticket["component"], "checkout");
        println!("{target}: the answer is valid");
    }
    Ok(())
}
