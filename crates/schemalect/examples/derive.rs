//! One derived Rust type, four providers: the request bodies for OpenAI, Gemini, Ollama and
//! Claude built from it, and a recorded answer of each taken back as the typed value.
//!
//! ```text
//! cargo run -p schemalect --example derive --features schemars
//! ```

use schemalect::derive::{schema_for, schema_value_for};
use schemalect::{Hint, LowerOptions, Lowering, Mode, Target};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;

/// An invoice, as extracted from a scanned document.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Invoice {
    /// The invoice number, as printed.
    number: String,
    /// The issue date, as YYYY-MM-DD.
    #[schemars(regex(pattern = r"^\d{4}-\d{2}-\d{2}$"))]
    issued: String,
    seller: Party,
    /// The buyer, when the invoice names one.
    buyer: Option<Party>,
    currency: Currency,
    #[schemars(length(min = 1))]
    lines: Vec<Line>,
    /// The VAT rate in percent, when printed.
    vat_percent: Option<u8>,
    payment: Payment,
    /// Any other labelled field printed on the invoice, by label.
    other_fields: BTreeMap<String, String>,
}

/// A company or a person.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Party {
    name: String,
    /// The VAT identification number, when printed.
    vat_id: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    #[schemars(length(equal = 2))]
    country: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
enum Currency {
    Eur,
    Usd,
    Gbp,
    Chf,
}

/// One invoice line.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Line {
    description: String,
    quantity: u32,
    /// The unit price in cents of the currency.
    unit_price_cents: u64,
}

/// Whether the invoice is paid.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
enum Payment {
    Paid {
        /// The payment date, as YYYY-MM-DD.
        on: String,
    },
    Due {
        within_days: u16,
    },
    Unknown,
}

const DOCUMENT: &str = "ACME Tools GmbH, DE811907980 — Invoice 2025-0042, 14 March 2025. \
    Bill to: Globex Ltd. 3 × hammer at €19.90, 1 × ladder at €129.00. VAT 19%. \
    Payable within 30 days. PO number: 7781.";

/// Members of `fragment` into `body`, object members merged recursively (so a body's own
/// `generationConfig` keeps its settings), anything else replaced.
fn merge(body: &mut Value, fragment: &Value) {
    match (body, fragment) {
        (Value::Object(mine), Value::Object(theirs)) => {
            for (key, value) in theirs {
                match mine.get_mut(key) {
                    Some(slot) if slot.is_object() && value.is_object() => merge(slot, value),
                    _ => {
                        mine.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (slot, value) => *slot = value.clone(),
    }
}

/// The instructions; when the provider does not enforce the schema (json or prompt mode), the
/// schema itself goes into them.
fn instructions(plan: &Lowering, schema: &Value) -> String {
    let mut text = String::from("Extract the invoice from the document. Answer with JSON only.");
    if plan.mode() >= Mode::Json {
        text.push_str(" The JSON must match this JSON Schema: ");
        text.push_str(&schema.to_string());
    }
    text
}

/// The request body for `target`: the provider's own fields, then the lowering's fragment.
fn request(target: Target, plan: &Lowering, schema: &Value) -> Value {
    let system = instructions(plan, schema);
    let mut body = match target {
        Target::Gemini | Target::GeminiJson => json!({
            "systemInstruction": {"parts": [{"text": system}]},
            "contents": [{"role": "user", "parts": [{"text": DOCUMENT}]}],
            "generationConfig": {"temperature": 0}
        }),
        Target::Ollama => json!({
            "model": "llama3.1",
            "stream": false,
            "options": {"temperature": 0},
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": DOCUMENT}
            ]
        }),
        Target::Claude | Target::ClaudeNative => json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 2048,
            "system": system,
            "messages": [{"role": "user", "content": DOCUMENT}]
        }),
        _ => json!({
            "model": "gpt-4o-mini",
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": DOCUMENT}
            ]
        }),
    };
    merge(&mut body, plan.wire());
    body
}

/// What each provider answered (recorded responses, abridged to what a client reads).
fn recorded_response(target: Target) -> Value {
    let invoice = json!({
        "number": "2025-0042",
        "issued": "2025-03-14",
        "seller": {"name": "ACME Tools GmbH", "vat_id": "DE811907980", "country": "DE"},
        "buyer": {"name": "Globex Ltd.", "vat_id": null, "country": null},
        "currency": "EUR",
        "lines": [
            {"description": "hammer", "quantity": 3, "unit_price_cents": 1990},
            {"description": "ladder", "quantity": 1, "unit_price_cents": 12900}
        ],
        "vat_percent": 19,
        "payment": {"status": "due", "within_days": 30},
        "other_fields": {"PO number": "7781"}
    });
    match target {
        Target::Gemini | Target::GeminiJson => json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": invoice.to_string()}]}, "finishReason": "STOP"}]
        }),
        Target::Ollama => json!({
            "model": "llama3.1",
            "message": {"role": "assistant", "content": invoice.to_string()},
            "done": true
        }),
        Target::Claude | Target::ClaudeNative => json!({
            "type": "message",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_01", "name": "invoice", "input": invoice}],
            "stop_reason": "tool_use"
        }),
        _ => json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": invoice.to_string()}, "finish_reason": "stop"}]
        }),
    }
}

/// Reads the answer out of a provider's response and takes it back as an `Invoice`.
fn take_back(target: Target, plan: &Lowering, response: &Value) -> Result<Invoice, Box<dyn Error>> {
    let invoice = match target {
        Target::Gemini | Target::GeminiJson => {
            let text = response
                .pointer("/candidates/0/content/parts/0/text")
                .and_then(Value::as_str)
                .ok_or("no text part")?;
            plan.accept_as(text)?
        }
        Target::Ollama => {
            let text = response
                .pointer("/message/content")
                .and_then(Value::as_str)
                .ok_or("no message content")?;
            plan.accept_as(text)?
        }
        Target::Claude | Target::ClaudeNative => {
            let blocks = response["content"].as_array().ok_or("no content")?;
            // A forced tool answers with its input (already JSON); otherwise a text block.
            match blocks.iter().find(|b| b["type"] == "tool_use") {
                Some(tool_use) => plan.accept_as(&tool_use["input"])?,
                None => {
                    let text = blocks
                        .iter()
                        .find_map(|b| b["text"].as_str())
                        .ok_or("no text block")?;
                    plan.accept_as(text)?
                }
            }
        }
        _ => {
            let text = response
                .pointer("/choices/0/message/content")
                .and_then(Value::as_str)
                .ok_or("no message content")?;
            plan.accept_as(text)?
        }
    };
    Ok(invoice)
}

fn main() -> Result<(), Box<dyn Error>> {
    let schema = schema_for::<Invoice>()?;
    let schema_json = schema_value_for::<Invoice>()?;
    println!("# The subset schema of `Invoice`\n{schema_json:#}\n");

    let options = LowerOptions::default().with_name("invoice");
    let mut taken = Vec::new();
    for target in [
        Target::OpenAi,
        Target::Gemini,
        Target::Ollama,
        Target::Claude,
    ] {
        let plan = schema.lower(target, &options);
        println!("# {target}: mode {}", plan.mode());
        // A loss about a struct serde leaves open (`Party`, `Line`, the variants of `Payment`
        // here) ends with the attribute that lets the provider enforce it: add
        // `#[serde(deny_unknown_fields)]` to the type it names.
        for loss in plan.losses() {
            println!("  not enforced by the provider: {loss}");
        }
        let open: BTreeSet<String> = plan
            .hints()
            .map(|hint| match hint {
                Hint::DenyUnknownFields { rust_type } => rust_type.clone(),
                _ => hint.to_string(),
            })
            .collect();
        if !open.is_empty() {
            let open: Vec<String> = open.into_iter().collect();
            println!("  open Rust types: {}", open.join(", "));
        }
        println!("{:#}\n", request(target, &plan, &schema_json));

        let invoice = take_back(target, &plan, &recorded_response(target))?;
        println!("# {target}: the answer, taken back\n{invoice:?}\n");
        taken.push(invoice);
    }
    if taken.windows(2).any(|w| w.first() != w.last()) {
        return Err("the providers' answers differ".into());
    }
    println!("All four answers are the same `Invoice`.");
    Ok(())
}
