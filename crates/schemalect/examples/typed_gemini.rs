//! From a Rust type to a Gemini `generateContent` request body (`responseSchema`), and back
//! from a recorded response: `cargo run -p schemalect --features schemars --example typed_gemini`.

#[path = "common/ticket.rs"]
mod common;

use common::{recorded_answer, Ticket, EMAIL};
use schemalect::flow::{Flow, Turn};
use schemalect::Target;
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let flow = Flow::for_type::<Ticket>(Target::Gemini)?;
    let ticket = flow.complete(|turn| {
        let mut body = json!({
            "systemInstruction": {"parts": [{"text": flow.instruction()}]},
            "contents": [{"role": "user", "parts": [{"text": EMAIL}]}],
            "generationConfig": {"temperature": 0}
        });
        flow.merge_into(&mut body);
        if let Turn::Repair(repair) = turn {
            let previous = repair.previous().to_text().into_owned();
            body["contents"].as_array_mut().ok_or("no contents")?.extend([
                json!({"role": "model", "parts": [{"text": previous}]}),
                json!({"role": "user", "parts": [{"text": repair.text()}]}),
            ]);
        }
        println!("POST https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent\n{body:#}");
        // ... send `body`; the recorded response:
        let text = recorded_answer().to_string();
        Ok::<_, Box<dyn std::error::Error>>(json!({"candidates": [{"content": {"role": "model",
            "parts": [{"text": text}]}, "finishReason": "STOP"}]}))
    })?;
    println!(
        "mode {}; the answer, typed:\n{ticket:#?}",
        flow.flow().lowering().mode()
    );
    assert_eq!(ticket.labels.len(), 3);
    Ok(())
}
