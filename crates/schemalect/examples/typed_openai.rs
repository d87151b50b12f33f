//! From a Rust type to an OpenAI Chat Completions request body, and back from a recorded
//! response: `cargo run -p schemalect --features schemars --example typed_openai`.

#[path = "common/ticket.rs"]
mod common;

use common::{recorded_answer, Ticket, EMAIL};
use schemalect::flow::{Flow, Turn};
use schemalect::Target;
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let flow = Flow::for_type::<Ticket>(Target::OpenAi)?;
    let ticket = flow.complete(|turn| {
        let mut body = json!({"model": "gpt-4o-mini", "messages": [
            {"role": "system", "content": flow.instruction()},
            {"role": "user", "content": EMAIL}
        ]});
        flow.merge_into(&mut body);
        if let Turn::Repair(repair) = turn {
            let previous = repair.previous().to_text().into_owned();
            body["messages"]
                .as_array_mut()
                .ok_or("no messages")?
                .extend([
                    json!({"role": "assistant", "content": previous}),
                    json!({"role": "user", "content": repair.text()}),
                ]);
        }
        println!("POST https://api.openai.com/v1/chat/completions\n{body:#}");
        // ... send `body`; the recorded response:
        let content = recorded_answer().to_string();
        Ok::<_, Box<dyn std::error::Error>>(json!({"choices": [{"index": 0,
            "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}))
    })?;
    println!(
        "mode {}; the answer, typed:\n{ticket:#?}",
        flow.flow().lowering().mode()
    );
    assert_eq!(ticket.facts["version"], "4.2.1");
    Ok(())
}
