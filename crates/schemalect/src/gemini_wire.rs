//! Gemini `functionCall` / `functionResponse` parts whose Struct roots are always JSON objects.
//!
//! Gemini's Generate Content contract types `FunctionCall.args` and `FunctionResponse.response`
//! as `google.protobuf.Struct`, so the server's proto-JSON parser refuses anything but an object
//! at those two roots. A list there (what dynamic-language clients emit for an empty or
//! numeric-key map, or what a tool returns) fails the whole request with HTTP 400:
//!
//! ```text
//! Invalid JSON payload received. Unknown name "response" at
//! 'contents[2].parts[0].function_response': Proto field is not repeating, cannot start list.
//! ```
//!
//! These helpers are for clients that translate provider-neutral tool turns into Gemini parts.
//! Only the root is rewritten: a list below the root is a `ListValue`, which a Struct may hold,
//! so nested values are passed through untouched (and never walked, so depth cannot exhaust the
//! stack here). Nothing in this module panics, whatever the input.
//!
//! ```
//! use schemalect::gemini_wire::{function_call_part, function_response_part, replay_part};
//! use serde_json::json;
//!
//! // A provider-neutral tool call, arguments as JSON text (OpenAI-style), and its result.
//! let call = json!({"name": "list_files", "arguments": "[]"});
//! let result = r#"["a.txt", "b.txt"]"#;
//!
//! let body = json!({
//!     "contents": [
//!         {"role": "user", "parts": [{"text": "What is in the folder?"}]},
//!         {"role": "model", "parts": [
//!             function_call_part(call["name"].as_str().unwrap_or_default(), &call["arguments"]),
//!         ]},
//!         {"role": "user", "parts": [function_response_part("list_files", result)]},
//!     ]
//! });
//! let text = serde_json::to_string(&body)?;
//! assert!(text.contains(r#"{"functionCall":{"name":"list_files","args":{}}}"#));
//! assert!(text.contains(r#""response":{"0":"a.txt","1":"b.txt"}"#));
//!
//! // A part the model sent earlier, stored by a client that turned `{}` into `[]`.
//! let stored = json!({"thoughtSignature": "c2ln", "functionCall": {"name": "f", "args": []}});
//! assert_eq!(
//!     serde_json::to_string(&replay_part(&stored))?,
//!     r#"{"thoughtSignature":"c2ln","functionCall":{"name":"f","args":{}}}"#
//! );
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde_json::{Map, Value};
use std::fmt;

/// What stood at a Struct root instead of an object or a list, when a fallback was needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Found {
    /// `null`; usual for a call without arguments, so callers may treat it as benign.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number.
    Number,
    /// JSON text that decoded to a string. For arguments this means JSON encoded twice; it is
    /// decoded once only, because decoding again on a guess could misread a legitimate string.
    String,
    /// Text that is empty or only JSON whitespace; OpenAI-style clients send `""` for a call
    /// without arguments, so callers may treat it as benign.
    EmptyText,
    /// Text that is not JSON (including JSON nested deeper than `serde_json`'s parser allows).
    InvalidJson,
}

impl Found {
    /// A short name for logs and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Found::Null => "null",
            Found::Boolean => "boolean",
            Found::Number => "number",
            Found::String => "string",
            Found::EmptyText => "empty text",
            Found::InvalidJson => "invalid JSON text",
        }
    }
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a Struct root was obtained, so a caller can log or reject a lossy call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RootEncoding {
    /// An object, sent with every member in its order.
    Object,
    /// A list of `len` items, sent as an object keyed `"0"`, `"1"`, … in list order.
    ListAsNumericKeys {
        /// How many items the list had (`0` gives `{}`).
        len: usize,
    },
    /// Neither an object nor a list: arguments became `{}` (the value is lost), a tool result
    /// became `{"result": <the original text>}` (nothing is lost).
    Fallback {
        /// What was there instead.
        found: Found,
    },
}

impl RootEncoding {
    /// Whether the fallback was taken.
    pub fn is_fallback(self) -> bool {
        matches!(self, RootEncoding::Fallback { .. })
    }
}

/// What [`function_call_part_with_report`] did with the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArgsReport {
    /// The arguments were a `Value::String`, treated as JSON text and decoded once.
    pub from_text: bool,
    /// What the (decoded) arguments became.
    pub encoding: RootEncoding,
}

impl ArgsReport {
    /// Whether the arguments were replaced by `{}`: the model will not see what the caller
    /// passed, which is worth a log line or an error in strict clients.
    pub fn is_fallback(self) -> bool {
        self.encoding.is_fallback()
    }
}

/// The Struct root Gemini accepts for `value`.
///
/// A list is rekeyed because Gemini has no other way to carry it at a Struct root, and the
/// numeric keys keep both the items and their order visible to the model. Anything else gives
/// `{}`; a `Value::String` is not decoded here (that is [`function_call_part`]'s job, because
/// only arguments arrive as JSON text).
pub fn struct_root(value: &Value) -> Map<String, Value> {
    match borrowed_root(value) {
        Ok((map, _)) => map,
        Err(_) => Map::new(),
    }
}

/// `{"functionCall": {"name": name, "args": <Struct root>}}`.
///
/// `args` is always present, so the model sees an explicit empty object for a call without
/// arguments. Use [`function_call_part_with_report`] to learn whether the arguments were lost.
pub fn function_call_part(name: &str, args: &Value) -> Value {
    function_call_part_with_report(name, args).0
}

/// [`function_call_part`], also telling whether the arguments were JSON text and whether they
/// fell back to `{}`.
///
/// A `Value::String` is decoded once as JSON text (surrounding whitespace allowed), because
/// OpenAI-style tool calls carry arguments that way; an object or a list then becomes the root,
/// anything else gives `{}`.
pub fn function_call_part_with_report(name: &str, args: &Value) -> (Value, ArgsReport) {
    let (root, report) = encode_args(args);
    let mut call = Map::new();
    call.insert("name".to_owned(), Value::String(name.to_owned()));
    call.insert("args".to_owned(), Value::Object(root));
    (single("functionCall", Value::Object(call)), report)
}

/// `{"functionResponse": {"name": name, "response": <Struct root>}}` from a tool's result text.
///
/// Tool results are text in most provider-neutral formats; an object result keeps its shape, a
/// list result is rekeyed, and anything else is wrapped as `{"result": <the original text>}` so
/// the model still sees exactly what the tool said.
pub fn function_response_part(name: &str, result: &str) -> Value {
    function_response_part_with_report(name, result).0
}

/// [`function_response_part`], also telling how the result became a Struct root.
pub fn function_response_part_with_report(name: &str, result: &str) -> (Value, RootEncoding) {
    let (root, encoding) = encode_response_text(result);
    let mut response = Map::new();
    response.insert("name".to_owned(), Value::String(name.to_owned()));
    response.insert("response".to_owned(), Value::Object(root));
    (
        single("functionResponse", Value::Object(response)),
        encoding,
    )
}

/// A part the model sent earlier, re-encoded so a follow-up request is accepted.
///
/// Stored history is often reloaded by code that turned `{}` into `[]`, or kept `args` as JSON
/// text; replaying it verbatim fails the whole conversation. Only `functionCall.args` and
/// `functionResponse.response` (and their snake_case spellings `function_call` /
/// `function_response`, which some SDKs store and Gemini's proto-JSON parser also accepts) are
/// re-encoded, keeping the spelling, with the same rules as [`function_call_part`] and
/// [`function_response_part`]; a non-string scalar response is wrapped as
/// `{"result": <value>}`. Every other member, `thoughtSignature` first among them, is kept with
/// its value and position, because the model checks its signatures. A missing root is not
/// invented, and a part that is not an object, or whose `functionCall` is not an object, is
/// returned as it is: there is nothing sound to rewrite.
pub fn replay_part(part: &Value) -> Value {
    let Value::Object(members) = part else {
        return clone_value(part);
    };
    let replayed = members
        .iter()
        .map(|(key, value)| {
            let value = match (key.as_str(), value) {
                ("functionCall" | "function_call", Value::Object(call)) => {
                    Value::Object(replace_member(call, "args", |args| encode_args(args).0))
                }
                ("functionResponse" | "function_response", Value::Object(response)) => {
                    Value::Object(replace_member(response, "response", encode_response_value))
                }
                _ => clone_value(value),
            };
            (key.clone(), value)
        })
        .collect();
    Value::Object(replayed)
}

/// `object` with member `name` (if present) replaced in place by `encode` of its value.
fn replace_member(
    object: &Map<String, Value>,
    name: &str,
    encode: impl Fn(&Value) -> Map<String, Value>,
) -> Map<String, Value> {
    object
        .iter()
        .map(|(key, value)| {
            let value = if key == name {
                Value::Object(encode(value))
            } else {
                clone_value(value)
            };
            (key.clone(), value)
        })
        .collect()
}

fn single(key: &str, value: Value) -> Value {
    let mut part = Map::new();
    part.insert(key.to_owned(), value);
    Value::Object(part)
}

fn encode_args(args: &Value) -> (Map<String, Value>, ArgsReport) {
    let (root, encoding) = match args {
        Value::String(text) => match decode(text) {
            Ok(value) => owned_root(value)
                .unwrap_or_else(|found| (Map::new(), RootEncoding::Fallback { found })),
            Err(found) => (Map::new(), RootEncoding::Fallback { found }),
        },
        _ => borrowed_root(args)
            .unwrap_or_else(|found| (Map::new(), RootEncoding::Fallback { found })),
    };
    let report = ArgsReport {
        from_text: args.is_string(),
        encoding,
    };
    (root, report)
}

fn encode_response_text(text: &str) -> (Map<String, Value>, RootEncoding) {
    let found = match decode(text) {
        Ok(value) => match owned_root(value) {
            Ok(root) => return root,
            Err(found) => found,
        },
        Err(found) => found,
    };
    (
        wrap_result(Value::String(text.to_owned())),
        RootEncoding::Fallback { found },
    )
}

fn encode_response_value(response: &Value) -> Map<String, Value> {
    match response {
        Value::String(text) => encode_response_text(text).0,
        _ => match borrowed_root(response) {
            Ok((root, _)) => root,
            Err(_) => wrap_result(clone_value(response)),
        },
    }
}

fn wrap_result(value: Value) -> Map<String, Value> {
    let mut root = Map::new();
    root.insert("result".to_owned(), value);
    root
}

/// JSON text to a value, or why not. `serde_json` skips surrounding whitespace itself and
/// refuses nesting deeper than 128, so hostile text cannot exhaust the stack.
fn decode(text: &str) -> Result<Value, Found> {
    if text.chars().all(|c| matches!(c, ' ' | '\t' | '\n' | '\r')) {
        return Err(Found::EmptyText);
    }
    serde_json::from_str(text).map_err(|_| Found::InvalidJson)
}

fn owned_root(value: Value) -> Result<(Map<String, Value>, RootEncoding), Found> {
    match value {
        Value::Object(map) => Ok((map, RootEncoding::Object)),
        Value::Array(items) => {
            let len = items.len();
            Ok((numeric_keys(items), RootEncoding::ListAsNumericKeys { len }))
        }
        // A scalar: borrowing it clones nothing large.
        scalar => borrowed_root(&scalar),
    }
}

fn borrowed_root(value: &Value) -> Result<(Map<String, Value>, RootEncoding), Found> {
    match value {
        Value::Object(map) => Ok((clone_members(map), RootEncoding::Object)),
        Value::Array(items) => Ok((
            numeric_keys(items.iter().map(clone_value)),
            RootEncoding::ListAsNumericKeys { len: items.len() },
        )),
        Value::Null => Err(Found::Null),
        Value::Bool(_) => Err(Found::Boolean),
        Value::Number(_) => Err(Found::Number),
        Value::String(_) => Err(Found::String),
    }
}

/// A deep copy that does not recurse: `Value::clone` recurses once per level, and a caller's
/// value (unlike JSON text, which `serde_json` stops at 128 levels) may nest 100,000 deep.
fn clone_value(value: &Value) -> Value {
    enum Open<'a> {
        List(std::slice::Iter<'a, Value>, Vec<Value>),
        Object(serde_json::map::Iter<'a>, Map<String, Value>, String),
    }
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        let mut done = match next.take() {
            Some(Value::Array(items)) => {
                stack.push(Open::List(items.iter(), Vec::with_capacity(items.len())));
                None
            }
            Some(Value::Object(map)) => {
                stack.push(Open::Object(map.iter(), Map::new(), String::new()));
                None
            }
            Some(scalar) => Some(scalar.clone()),
            None => None,
        };
        // Hand finished values up, and find the next child to copy.
        loop {
            let Some(top) = stack.last_mut() else {
                return done.unwrap_or(Value::Null);
            };
            match top {
                Open::List(items, out) => {
                    out.extend(done.take());
                    if let Some(child) = items.next() {
                        next = Some(child);
                        break;
                    }
                }
                Open::Object(members, out, key) => {
                    if let Some(v) = done.take() {
                        out.insert(std::mem::take(key), v);
                    }
                    if let Some((k, child)) = members.next() {
                        key.clone_from(k);
                        next = Some(child);
                        break;
                    }
                }
            }
            done = match stack.pop() {
                Some(Open::List(_, out)) => Some(Value::Array(out)),
                Some(Open::Object(_, out, _)) => Some(Value::Object(out)),
                None => None,
            };
        }
    }
}

fn clone_members(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .map(|(k, v)| (k.clone(), clone_value(v)))
        .collect()
}

fn numeric_keys(items: impl IntoIterator<Item = Value>) -> Map<String, Value> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| (i.to_string(), item))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(value: &Value) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn blank_text_is_empty_not_invalid() {
        for blank in ["", " ", "\t\r\n "] {
            assert_eq!(decode(blank), Err(Found::EmptyText), "{blank:?}");
        }
        // U+00A0 is not JSON whitespace, so the text is invalid JSON rather than empty.
        assert_eq!(decode("\u{a0}"), Err(Found::InvalidJson));
        assert_eq!(decode(" [1] \n"), Ok(json!([1])));
    }

    #[test]
    fn owned_and_borrowed_roots_agree() {
        for value in [
            json!({}),
            json!({"b": 1, "a": [2]}),
            json!([]),
            json!([[1], {"x": []}]),
            json!(null),
            json!(false),
            json!(1.5),
            json!("s"),
        ] {
            let owned = owned_root(value.clone());
            let borrowed = borrowed_root(&value);
            assert_eq!(owned, borrowed, "{value}");
        }
    }

    #[test]
    fn numeric_keys_count_in_decimal_from_zero() {
        let map = numeric_keys((0..12).map(|i| json!(i)));
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"]
        );
    }

    #[test]
    fn replace_member_keeps_position_and_absence() {
        let object = json!({"id": "c1", "args": [1], "name": "f"});
        let Value::Object(object) = object else {
            unreachable!()
        };
        let replaced = replace_member(&object, "args", struct_root);
        assert_eq!(
            text(&Value::Object(replaced)),
            r#"{"id":"c1","args":{"0":1},"name":"f"}"#
        );
        let replaced = replace_member(&object, "missing", |_| Map::new());
        assert_eq!(Value::Object(replaced), Value::Object(object));
    }

    #[test]
    fn clone_value_copies_exactly() {
        let v = json!({"a": [1, {"b": null, "c": [true, "x", 2.5]}, []], "d": {}, "e": "f"});
        let c = clone_value(&v);
        assert_eq!(c, v);
        assert_eq!(text(&c), text(&v), "member order is kept");
        assert_eq!(clone_value(&json!(3)), json!(3));
        assert_eq!(clone_value(&json!([])), json!([]));
    }

    #[test]
    fn found_names_are_stable() {
        assert_eq!(Found::Null.to_string(), "null");
        assert_eq!(Found::EmptyText.as_str(), "empty text");
        assert_eq!(Found::InvalidJson.to_string(), "invalid JSON text");
    }

    #[test]
    fn fallback_reports() {
        let (_, report) = function_call_part_with_report("f", &json!("\"{}\""));
        assert_eq!(
            report,
            ArgsReport {
                from_text: true,
                encoding: RootEncoding::Fallback {
                    found: Found::String
                }
            }
        );
        assert!(report.is_fallback());
        let (_, report) = function_call_part_with_report("f", &json!([]));
        assert!(!report.is_fallback());
    }
}
