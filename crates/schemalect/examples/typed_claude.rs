//! From a Rust type to a Claude Messages request body (one strict forced tool), and back from a
//! recorded response: `cargo run -p schemalect --features schemars --example typed_claude`.

#[path = "common/ticket.rs"]
mod common;

use common::{recorded_answer, Ticket, EMAIL};
use schemalect::flow::{Flow, Reply, Turn};
use schemalect::Target;
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let flow = Flow::for_type::<Ticket>(Target::Claude)?;
    let tool = flow.flow().tool_name().ok_or("no tool")?.to_owned();
    let ticket = flow.complete(|turn| {
        let mut body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024,
            "system": flow.instruction(),
            "messages": [{"role": "user", "content": EMAIL}]});
        flow.merge_into(&mut body);
        if let Turn::Repair(repair) = turn {
            // The model's tool call as its turn, then the tool result that rejects it.
            let Reply::ToolUse { id, name, input } = repair.previous() else {
                return Err("the previous answer was not a tool call".into());
            };
            let result = repair.claude_tool_result().ok_or("not a tool call")?;
            body["messages"].as_array_mut().ok_or("no messages")?.extend([
                json!({"role": "assistant", "content": [
                    {"type": "tool_use", "id": id, "name": name, "input": input}]}),
                json!({"role": "user", "content": [result]}),
            ]);
        }
        println!("POST https://api.anthropic.com/v1/messages\n{body:#}");
        // ... send `body`; the recorded response:
        Ok::<_, Box<dyn std::error::Error>>(json!({"type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_01", "name": tool, "input": recorded_answer()}],
            "stop_reason": "tool_use"}))
    })?;
    println!(
        "mode {}; the answer, typed:\n{ticket:#?}",
        flow.flow().lowering().mode()
    );
    assert_eq!(ticket.customer.email, None);
    Ok(())
}
