//! The Rust type the `typed_*` examples ask each provider for, and the answer they recorded.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A support ticket, as triaged from a customer's e-mail.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ticket {
    /// A one-line summary.
    pub title: String,
    pub severity: Severity,
    /// 1 (urgent) to 5, when the e-mail says.
    pub priority: Option<u8>,
    pub labels: Vec<String>,
    pub customer: Customer,
    /// Other facts the e-mail states, by name.
    pub facts: HashMap<String, String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Outage,
    Bug,
    Question,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Customer {
    pub name: String,
    pub email: Option<String>,
}

/// The e-mail the examples send.
pub const EMAIL: &str = "From: Ada Lovelace. Since this morning's update the export button \
    crashes the app on Linux (version 4.2.1). Not urgent, we have a workaround.";

/// The answer every provider gave, in the reshaped form the typed entry asks for (maps as
/// `{key, value}` entries, `null` for an absent option). Ollama sends the schema as written,
/// so its example records its own answer.
#[allow(dead_code)]
pub fn recorded_answer() -> serde_json::Value {
    serde_json::json!({
        "title": "Export button crashes the app on Linux after update",
        "severity": "bug",
        "priority": null,
        "labels": ["export", "linux", "crash"],
        "customer": {"name": "Ada Lovelace", "email": null},
        "facts": [{"key": "version", "value": "4.2.1"}, {"key": "workaround", "value": "yes"}]
    })
}
