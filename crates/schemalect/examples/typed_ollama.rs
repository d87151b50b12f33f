//! From a Rust type to an Ollama `/api/chat` request body (`format`), and back from a recorded
//! response: `cargo run -p schemalect --features schemars --example typed_ollama`.

#[path = "common/ticket.rs"]
mod common;

use common::{Ticket, EMAIL};
use schemalect::flow::{Flow, Turn};
use schemalect::Target;
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let flow = Flow::for_type::<Ticket>(Target::Ollama)?;
    let ticket = flow.complete(|turn| {
        let mut body = json!({"model": "llama3.1", "stream": false, "messages": [
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
        println!("POST http://localhost:11434/api/chat\n{body:#}");
        // ... send `body`; the recorded response (Ollama enforces the schema as written, so
        // the map comes back as an object):
        let content = json!({
            "title": "Export button crashes the app on Linux after update",
            "severity": "bug",
            "labels": ["export", "linux", "crash"],
            "customer": {"name": "Ada Lovelace"},
            "facts": {"version": "4.2.1", "workaround": "yes"}
        });
        Ok::<_, Box<dyn std::error::Error>>(json!({"model": "llama3.1",
            "message": {"role": "assistant", "content": content.to_string()}, "done": true}))
    })?;
    println!(
        "mode {}; the answer, typed:\n{ticket:#?}",
        flow.flow().lowering().mode()
    );
    assert_eq!(ticket.priority, None);
    Ok(())
}
