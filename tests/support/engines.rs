//! A real grammar engine judges the native wires: llguidance (the engine behind OpenAI-compatible
//! servers such as vLLM and SGLang, and llama.cpp's optional back end) compiles the JSON Schema
//! a wire sends, and its matcher must accept every value the source accepts, written as a
//! model writes it (compact JSON, keys in the schema's order).
//!
//! This is independent of schemalect: it reads only the wire and the values. It complements the
//! decoder-language model of [`oracle`](crate::oracle), which is our reading of the providers'
//! documents; here the reading is the engine's own. Ollama's own converter (llama.cpp's GBNF) is
//! judged by [`gbnf`](crate::gbnf).
//!
//! The matcher runs without a model tokenizer: llguidance's approximate single-byte tokenizer
//! (`ApproximateTokEnv::single_byte_env`) makes every byte one token, so a string is accepted
//! exactly when the grammar's lexer and parser accept its bytes.
//!
//! Limits of the engine itself, which no rewrite of the schema avoids, are listed in
//! `docs/targets.md` ("Engine limits") and in [`ENGINE_LIMITS`]; the tests expect exactly those.

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{ApproximateTokEnv, TokEnv};
use llguidance::{Matcher, ParserFactory};
use schemalect::Target;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// Engine limits: (how the engine or the limit is named, the minimal instance or schema that
/// shows it). Kept equal to the llguidance rows of docs/targets.md ("Engine limits"); nothing
/// else is excused.
///
/// - A number in `enum`/`const` matches only its own spelling: `1.0` is refused where the
///   schema lists `1` (excused when the same value with integral numbers written as integers is
///   accepted).
/// - A recursive `$ref` in a union whose node has sibling keywords (`type`,
///   `additionalProperties`) does not compile (excused by the message); shown by the Ollama wire
///   of the golden case `ext-linked-list`, not yet reduced.
pub const ENGINE_LIMITS: &[(&str, &str)] = &[
    ("number spelling", r#"{"enum":[1]} refuses 1.0"#),
    (
        "circular references with sibling keys are not supported",
        r##"{"type":"object","properties":{"value":{"type":"integer"},"next":{"type":["null","object"],"additionalProperties":true,"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}},"required":["value","next"],"additionalProperties":false,"$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},"next":{"type":["null","object"],"additionalProperties":true,"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}},"required":["value","next"],"additionalProperties":false}}}"##,
    ),
];

/// True when the full engine judgement runs inside `contract::check_lowering` (property tests,
/// corpus replay): `SCHEMALECT_ENGINES=1`. The golden test always runs it.
pub fn enabled() -> bool {
    std::env::var_os("SCHEMALECT_ENGINES").is_some()
}

/// `v` with every integral float written as an integer (`1.0` as `1`).
fn integral(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(integral).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), integral(x))).collect())
        }
        other => other.clone(),
    }
}

/// The JSON Schema a wire asks the provider's engine to follow, for the targets that speak JSON
/// Schema; `None` when the wire sends none natively (prompt or JSON mode, Gemini's OpenAPI
/// `responseSchema`).
pub fn native_schema(target: Target, wire: &Value) -> Option<&Value> {
    let schema = match target {
        Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => {
            let js = wire.pointer("/response_format/json_schema")?;
            if js.get("strict") != Some(&Value::Bool(true)) {
                return None;
            }
            js.get("schema")
        }
        Target::Claude => wire.pointer("/tools/0/input_schema"),
        Target::ClaudeNative => wire
            .pointer("/output_config/format/schema")
            .or_else(|| wire.pointer("/output_format/schema")),
        Target::GeminiJson => wire.pointer("/generationConfig/responseJsonSchema"),
        Target::Ollama => wire.get("format"),
        Target::OpenAiResponses => {
            let format = wire.pointer("/text/format")?;
            if format.get("strict") != Some(&Value::Bool(true)) {
                return None;
            }
            format.get("schema")
        }
        Target::BedrockClaude => wire.pointer("/toolConfig/tools/0/toolSpec/inputSchema/json"),
        Target::GeminiInteractions => match wire.get("response_format")? {
            Value::Array(entries) => entries.iter().find_map(|e| e.get("schema")),
            entry => entry.get("schema"),
        },
        Target::Gemini | Target::VertexGemini => None,
    }?;
    schema.is_object().then_some(schema)
}

fn factory() -> &'static (TokEnv, ParserFactory) {
    static FACTORY: OnceLock<(TokEnv, ParserFactory)> = OnceLock::new();
    FACTORY.get_or_init(|| {
        let env = ApproximateTokEnv::single_byte_env();
        let mut f = ParserFactory::new_simple(&env).unwrap_or_else(|e| panic!("llguidance: {e}"));
        f.quiet();
        (env, f)
    })
}

/// A compiled wire schema.
pub struct Engine {
    matcher: Matcher,
    schema: Value,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("schema", &self.schema)
            .finish()
    }
}

impl Engine {
    /// Compiles `schema` with llguidance's JSON-Schema front end; the error is the engine's.
    pub fn compile(schema: &Value) -> Result<Engine, String> {
        let (_, f) = factory();
        // Lenient: keywords the engine does not implement (`uniqueItems`, `format`s it does not
        // know) are ignored, as providers ignore them, instead of refusing the schema.
        let mut lenient = schema.clone();
        if let Value::Object(m) = &mut lenient {
            m.insert("x-guidance".into(), serde_json::json!({"lenient": true}));
        }
        let parser = f
            .create_parser(TopLevelGrammar::from_json_schema(lenient))
            .map_err(|e| format!("llguidance refuses the schema: {e}"))?;
        let matcher = Matcher::new(Ok(parser));
        if let Some(e) = matcher.get_error() {
            return Err(format!("llguidance refuses the schema: {e}"));
        }
        Ok(Engine {
            matcher,
            schema: schema.clone(),
        })
    }

    /// The text the engine is asked to accept for `value`: compact JSON, object keys in the
    /// order the schema declares them.
    pub fn text(&self, value: &Value) -> String {
        ordered(value, &[&self.schema], &self.schema, 0).to_string()
    }

    /// Whether the engine's matcher accepts `text` as a whole answer; `Err` says where it
    /// stopped.
    pub fn accepts(&self, text: &str) -> Result<(), String> {
        let (env, _) = factory();
        let mut m = self.matcher.deep_clone();
        let tokens = env.tokenize_bytes(text.as_bytes());
        let ok = m.validate_tokens(&tokens).unwrap_or(0);
        if ok < tokens.len() {
            let at = text
                .char_indices()
                .take_while(|(i, _)| *i < ok)
                .last()
                .map_or(0, |(i, _)| i);
            return Err(format!(
                "llguidance stops at byte {ok} of {text:?} (after {:?})",
                text.get(..at).unwrap_or("")
            ));
        }
        m.consume_tokens(&tokens)
            .map_err(|e| format!("llguidance: {e} on {text:?}"))?;
        if m.is_accepting().unwrap_or(false) {
            Ok(())
        } else {
            Err(format!("llguidance does not accept {text:?} as complete"))
        }
    }
}

/// Follows a local `#/...` reference.
fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) if r.starts_with('#') => root
            .pointer(r.trim_start_matches('#'))
            .filter(|t| !std::ptr::eq(*t, s))
            .unwrap_or(s),
        _ => s,
    }
}

/// Every schema that applies at this place, through references and combinators.
fn expand<'a>(root: &'a Value, schemas: &[&'a Value], depth: usize) -> Vec<&'a Value> {
    let mut out = Vec::new();
    for s in schemas {
        let s = resolve(root, s);
        out.push(s);
        if depth < 32 {
            for k in ["anyOf", "oneOf", "allOf"] {
                if let Some(Value::Array(list)) = s.get(k) {
                    let list: Vec<&Value> = list.iter().collect();
                    out.extend(expand(root, &list, depth + 1));
                }
            }
        }
    }
    out
}

/// `value` with object keys in the order the applicable schemas declare them (undeclared keys
/// after, as given).
fn ordered(value: &Value, schemas: &[&Value], root: &Value, depth: usize) -> Value {
    if depth > 256 {
        return value.clone();
    }
    let here = expand(root, schemas, 0);
    match value {
        Value::Object(m) => {
            let mut order: Vec<&str> = Vec::new();
            for s in &here {
                if let Some(Value::Object(p)) = s.get("properties") {
                    for name in p.keys() {
                        if !order.contains(&name.as_str()) {
                            order.push(name);
                        }
                    }
                }
            }
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by_key(|k| order.iter().position(|o| o == k).unwrap_or(usize::MAX));
            let mut out = Map::new();
            for k in keys {
                let children: Vec<&Value> = here
                    .iter()
                    .filter_map(|s| {
                        s.get("properties")
                            .and_then(|p| p.get(k.as_str()))
                            .or_else(|| s.get("additionalProperties").filter(|a| a.is_object()))
                    })
                    .collect();
                out.insert(k.clone(), ordered(&m[k], &children, root, depth + 1));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| {
                    let children: Vec<&Value> = here
                        .iter()
                        .filter_map(|s| {
                            s.get("prefixItems")
                                .and_then(|p| p.get(i))
                                .or_else(|| s.get("items").filter(|a| a.is_object()))
                        })
                        .collect();
                    ordered(x, &children, root, depth + 1)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Judges one wire: its native schema (if any) compiles in llguidance, and the engine accepts
/// every value in `values` (the values the provider is asked for). `Ok(true)` when a native
/// schema was judged.
pub fn judge(target: Target, wire: &Value, values: &[Value]) -> Result<bool, String> {
    let Some(schema) = native_schema(target, wire) else {
        return Ok(false);
    };
    let engine = match Engine::compile(schema) {
        Ok(e) => e,
        Err(e) if ENGINE_LIMITS.iter().any(|(named, _)| e.contains(named)) => return Ok(true),
        Err(e) => return Err(format!("ENGINE: {e}")),
    };
    for v in values {
        let text = engine.text(v);
        if let Err(e) = engine.accepts(&text) {
            if engine.accepts(&engine.text(&integral(v))).is_ok() {
                continue; // number spelling (ENGINE_LIMITS)
            }
            return Err(format!("ENGINE: {e}"));
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The `llguidance` rows of the "Engine limits" table of docs/targets.md are exactly
    /// [`ENGINE_LIMITS`].
    #[test]
    fn the_engine_limits_table_lists_exactly_the_excused_limits() {
        let path = crate::workspace_root().join("docs").join("targets.md");
        let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        let section = page
            .split("## Engine limits")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .unwrap_or_else(|| panic!("docs/targets.md has no \"Engine limits\" section"));
        let rows: Vec<&str> = section
            .lines()
            .filter(|l| l.starts_with("| llguidance"))
            .collect();
        assert_eq!(rows.len(), ENGINE_LIMITS.len(), "{rows:?}");
        for (named, shown) in ENGINE_LIMITS {
            assert!(
                rows.iter()
                    .any(|r| r.contains(named) && r.contains(&format!("`{shown}`"))),
                "no row for {named}"
            );
        }
        // Each limit is real.
        let one =
            Engine::compile(&serde_json::json!({"enum": [1]})).unwrap_or_else(|e| panic!("{e}"));
        assert!(one.accepts("1.0").is_err() && one.accepts("1").is_ok());
        let recursive: Value = serde_json::from_str(ENGINE_LIMITS[1].1).unwrap_or_default();
        assert!(Engine::compile(&recursive).is_err_and(|e| e.contains(ENGINE_LIMITS[1].0)));
        assert!(section.contains("| llama.cpp `json-schema-to-grammar` (Ollama) |"));
    }

    #[test]
    fn the_engine_accepts_what_the_schema_accepts_and_rejects_the_rest() {
        let schema = json!({
            "type": "object",
            "properties": {"b": {"type": "integer"}, "a": {"type": "string", "pattern": "^x+$"}},
            "required": ["b", "a"],
            "additionalProperties": false
        });
        let e = Engine::compile(&schema).unwrap_or_else(|e| panic!("{e}"));
        let text = e.text(&json!({"a": "xx", "b": 3}));
        assert_eq!(text, r#"{"b":3,"a":"xx"}"#);
        assert_eq!(e.accepts(&text), Ok(()));
        assert!(e.accepts(r#"{"b":3,"a":"y"}"#).is_err());
        assert!(e.accepts(r#"{"b":3}"#).is_err());
        assert!(Engine::compile(&json!({"type": "string", "pattern": "(?=a)"})).is_err());
    }
}
