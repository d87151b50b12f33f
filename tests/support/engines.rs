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
//! The engine runs in its strict mode, as a server that refuses what it cannot enforce would:
//! a keyword it does not implement is a refusal, except the few of [`IGNORED_KEYWORDS`] that
//! the providers ignore too, which are taken out first. Its lenient mode would hide the
//! refusal of any other keyword.
//!
//! Limits of the engine itself, which no rewrite of the schema avoids, are listed in
//! `docs/targets.md` ("Engine limits") and in [`ENGINE_LIMITS`]; the tests expect exactly those.

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{ApproximateTokEnv, TokEnv};
use llguidance::{Matcher, ParserFactory};
use schemalect::Target;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

/// Engine limits: (how the engine or the limit is named, the minimal instance or schema that
/// shows it). Kept equal to the llguidance rows of docs/targets.md ("Engine limits"); nothing
/// else is excused.
///
/// - A number in `enum`/`const` matches only its own spelling: `1.0` is refused where the
///   schema lists `1`; the value is written with integral numbers as integers instead.
/// - U+007F (DEL) is refused raw inside a string; the value is written with it escaped
///   (`\u007f`, which JSON allows and a model can write).
/// - `uniqueItems` is not implemented: the schema is refused in strict mode; it is taken out
///   before compiling ([`IGNORED_KEYWORDS`]).
pub const ENGINE_LIMITS: &[(&str, &str)] = &[
    ("number spelling", r#"{"enum":[1]} refuses 1.0"#),
    (
        "DEL spelling",
        r#"{"type":"string"} refuses "\x7f" raw, accepts "\u007f""#,
    ),
    (
        "uniqueItems is not implemented",
        r#"{"type":"array","uniqueItems":true}"#,
    ),
];

/// Keywords llguidance documents as unsupported (they are not in the supported list of
/// <https://github.com/guidance-ai/llguidance/blob/main/docs/json_schema.md>; llguidance 1.9.1
/// refuses them in strict mode: "Unimplemented keys") that the wires carry and the providers
/// ignore: taken out of a schema before it is compiled, each a row of [`ENGINE_LIMITS`].
/// Every other refusal fails the test.
///
/// - `uniqueItems`: Ollama sends it as a hint that llama.cpp skips (providers.md L5), Gemini's
///   `responseJsonSchema` as a hint outside its supported list (GG2); no grammar can enforce it.
pub const IGNORED_KEYWORDS: &[&str] = &["uniqueItems"];

/// Keywords whose value is one subschema, a map of subschemas, or a list of them.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
const SCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/// `schema` without the [`IGNORED_KEYWORDS`] in any schema position (values in `enum`,
/// `const`, `default` or `examples` stay as they are).
pub fn without_ignored(schema: &Value) -> Value {
    fn strip(schema: &mut Value) {
        let Value::Object(m) = schema else { return };
        for k in IGNORED_KEYWORDS {
            m.shift_remove(*k);
        }
        subschemas_mut(m, strip);
    }
    let mut out = schema.clone();
    strip(&mut out);
    out
}

/// Calls `f` on each subschema directly below the schema object `m`: the values of
/// [`ONE_SCHEMA`] keywords, of the maps of [`SCHEMA_MAPS`] and of the lists of
/// [`SCHEMA_LISTS`] (values in `enum`, `const`, `default` or `examples` are not subschemas).
fn subschemas_mut(m: &mut Map<String, Value>, mut f: impl FnMut(&mut Value)) {
    for (k, v) in m.iter_mut() {
        let k = k.as_str();
        match v {
            Value::Object(_) if ONE_SCHEMA.contains(&k) => f(v),
            Value::Object(sub) if SCHEMA_MAPS.contains(&k) => sub.values_mut().for_each(&mut f),
            Value::Array(list) if SCHEMA_LISTS.contains(&k) => list.iter_mut().for_each(&mut f),
            _ => {}
        }
    }
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
        Target::Ollama | Target::OllamaMlx => wire.get("format"),
        Target::LlamaServer => wire.pointer("/response_format/json_schema/schema"),
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

/// One tokenizer and parser factory for every compile: building them is the costly part of a
/// first compile.
fn factory() -> &'static (TokEnv, ParserFactory) {
    static FACTORY: OnceLock<(TokEnv, ParserFactory)> = OnceLock::new();
    FACTORY.get_or_init(|| {
        let env = ApproximateTokEnv::single_byte_env();
        // The default limits, as servers run it: with them, for example, a large lexeme (a
        // pattern under a length bound) can exhaust the precomputation and block valid text.
        let mut f = ParserFactory::new_simple(&env).unwrap_or_else(|e| panic!("llguidance: {e}"));
        f.quiet();
        (env, f)
    })
}

/// Most compiled schemas kept per test thread. The same wire text comes back for every profile
/// and for the targets that share a dialect, so a small cache saves most compiles.
const CACHED_ENGINES: usize = 256;

thread_local! {
    static ENGINES: RefCell<HashMap<String, Rc<Result<Engine, String>>>> =
        RefCell::new(HashMap::new());
}

/// `schema` compiled, from this thread's cache when the same text was compiled before.
pub fn compiled(schema: &Value) -> Rc<Result<Engine, String>> {
    let key = schema.to_string();
    if let Some(hit) = ENGINES.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    let engine = Rc::new(Engine::compile(schema));
    ENGINES.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHED_ENGINES {
            c.clear();
        }
        c.insert(key, Rc::clone(&engine));
    });
    engine
}

/// Most matcher steps one value may take while looking for an order of keys the grammar
/// allows (see [`Engine::writes`]).
const SEARCH_STEPS: usize = 50_000;

/// A compiled wire schema.
pub struct Engine {
    /// The matcher as compiled, never advanced.
    matcher: Matcher,
    /// The matcher every check advances and rolls back: it keeps the lexer states it built
    /// for earlier values, which a fresh clone would build again.
    working: RefCell<Option<Matcher>>,
    schema: Value,
    /// Texts of the values already found writable: the same wire is judged with the same
    /// values for every profile and for the targets that share a dialect.
    written: RefCell<std::collections::HashSet<String>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("schema", &self.schema)
            .finish()
    }
}

impl Engine {
    /// Compiles `schema` with llguidance's JSON-Schema front end in its strict mode: a keyword
    /// it does not implement is a refusal, except those of [`IGNORED_KEYWORDS`], which are
    /// taken out first. The error is the engine's.
    pub fn compile(schema: &Value) -> Result<Engine, String> {
        let (_, f) = factory();
        let parser = f
            .create_parser(TopLevelGrammar::from_json_schema(without_ignored(schema)))
            .map_err(|e| format!("llguidance refuses the schema: {e}"))?;
        let matcher = Matcher::new(Ok(parser));
        if let Some(e) = matcher.get_error() {
            return Err(format!("llguidance refuses the schema: {e}"));
        }
        Ok(Engine {
            working: RefCell::new(Some(matcher.deep_clone())),
            matcher,
            schema: schema.clone(),
            written: RefCell::default(),
        })
    }

    /// The text the engine is asked to accept for `value`: compact JSON, object keys in the
    /// order the schema declares them (`properties`, then the other names `required` lists,
    /// the order llguidance fixes).
    pub fn text(&self, value: &Value) -> String {
        ordered(value, &[&self.schema], &self.schema, 0).to_string()
    }

    /// Whether the engine's matcher accepts `text` as a whole answer; `Err` says where it
    /// stopped.
    pub fn accepts(&self, text: &str) -> Result<(), String> {
        let (env, _) = factory();
        let tokens = env.tokenize_bytes(text.as_bytes());
        let (ok, complete) = self.on_working(|m| {
            let ok = m.try_consume_tokens(&tokens).unwrap_or(0);
            let complete = ok == tokens.len() && m.is_accepting().unwrap_or(false);
            ((ok, complete), ok)
        });
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
        if complete {
            Ok(())
        } else {
            Err(format!("llguidance does not accept {text:?} as complete"))
        }
    }

    /// Runs `f` on the working matcher, which `f` advances by the tokens it returns; they are
    /// rolled back after. A matcher left in an error state is replaced by a fresh clone.
    fn on_working<R>(&self, f: impl FnOnce(&mut Matcher) -> (R, usize)) -> R {
        let mut m = self
            .working
            .borrow_mut()
            .take()
            .unwrap_or_else(|| self.matcher.deep_clone());
        let (r, consumed) = f(&mut m);
        if m.rollback(consumed).is_err() || m.is_error() {
            m = self.matcher.deep_clone();
        }
        *self.working.borrow_mut() = Some(m);
        r
    }

    /// Whether the engine can write `value` at all: as [`Engine::text`] first, else in any
    /// other order of object keys (the grammar fixes one order per schema, and in a union each
    /// branch has its own) and in the other spellings JSON allows for the same value that the
    /// engine needs ([`ENGINE_LIMITS`]: integral numbers as integers, DEL escaped). The search
    /// asks the matcher piece by piece and backs off by rolling tokens back; it runs on a
    /// thread of its own with a large stack, as it recurses once per piece of the value.
    pub fn writes(&self, value: &Value) -> Result<(), String> {
        let ordered = ordered(value, &[&self.schema], &self.schema, 0);
        let text = ordered.to_string();
        if self.written.borrow().contains(&text) {
            return Ok(());
        }
        let first = match self.accepts(&text) {
            Ok(()) => {
                self.written.borrow_mut().insert(text);
                return Ok(());
            }
            Err(e) => e,
        };
        let found = self.on_working(|m| {
            let mut w = Writer {
                m: m.deep_clone(),
                steps: 0,
                consumed: 0,
            };
            std::mem::swap(m, &mut w.m);
            let found = std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .stack_size(SEARCH_STACK)
                    .spawn_scoped(scope, || {
                        let found = w.value(&ordered, &mut |w| w.m.is_accepting().unwrap_or(false));
                        (found, w.steps)
                    })
                    .map_err(|e| e.to_string())
                    .and_then(|h| {
                        h.join()
                            .map_err(|_| "the search thread panicked".to_owned())
                    })
            });
            std::mem::swap(m, &mut w.m);
            (found, w.consumed)
        });
        match found {
            Ok((true, _)) => {
                self.written.borrow_mut().insert(text);
                Ok(())
            }
            Ok((false, steps)) if steps >= SEARCH_STEPS => Err(format!(
                "{first}; no other order of keys or spelling found within {SEARCH_STEPS} steps"
            )),
            Ok((false, _)) => Err(format!(
                "{first}; nor in any other order of keys or spelling"
            )),
            Err(e) => Err(format!("{first}; {e}")),
        }
    }
}

/// The stack of the search thread of [`Engine::writes`] (reserved, not committed, until used).
const SEARCH_STACK: usize = 512 << 20;

/// What a piece of the search does once its piece is written: write the rest, `true` when the
/// whole value then is written and accepted.
type Rest<'r> = dyn FnMut(&mut Writer) -> bool + 'r;

/// The depth-first writer of [`Engine::writes`]: each method writes one piece of JSON in each
/// way it can and calls `rest` after it, rolling its piece back when `rest` fails.
struct Writer {
    m: Matcher,
    steps: usize,
    /// Tokens consumed and not rolled back.
    consumed: usize,
}

impl Writer {
    /// Consumes `text` whole (`Some(tokens)`), or nothing.
    fn put(&mut self, text: &str) -> Option<usize> {
        self.steps += 1;
        if self.steps >= SEARCH_STEPS {
            return None;
        }
        let (env, _) = factory();
        let tokens = env.tokenize_bytes(text.as_bytes());
        let n = self.m.try_consume_tokens(&tokens).unwrap_or(0);
        self.consumed += n;
        if n == tokens.len() {
            Some(n)
        } else {
            self.back(n);
            None
        }
    }

    fn back(&mut self, n: usize) {
        if n > 0 && self.m.rollback(n).is_ok() {
            self.consumed -= n;
        }
    }

    /// Writes `text`, then the rest; rolls `text` back when the rest fails.
    fn then(&mut self, text: &str, rest: &mut Rest<'_>) -> bool {
        let Some(n) = self.put(text) else {
            return false;
        };
        if rest(self) {
            return true;
        }
        self.back(n);
        false
    }

    /// Writes `text` in the first of `spellings` after which the rest can be written.
    fn any_of(&mut self, spellings: &[String], rest: &mut Rest<'_>) -> bool {
        spellings.iter().any(|s| self.then(s, rest))
    }

    fn value(&mut self, v: &Value, rest: &mut Rest<'_>) -> bool {
        match v {
            Value::Array(items) => self.then("[", &mut |w| w.items(items, 0, rest)),
            Value::Object(m) => {
                let keys: Vec<&String> = m.keys().collect();
                self.then("{", &mut |w| w.members(m, &keys, true, rest))
            }
            Value::String(s) => self.any_of(&string_spellings(s), rest),
            Value::Number(_) => {
                let mut spellings = vec![v.to_string()];
                let whole = integral(v).to_string();
                if !spellings.contains(&whole) {
                    spellings.push(whole);
                }
                self.any_of(&spellings, rest)
            }
            other => self.then(&other.to_string(), rest),
        }
    }

    /// The items of an array from `i` on, then `]`.
    fn items(&mut self, items: &[Value], i: usize, rest: &mut Rest<'_>) -> bool {
        let Some(x) = items.get(i) else {
            return self.then("]", rest);
        };
        let mut after = |w: &mut Writer| w.items(items, i + 1, rest);
        if i == 0 {
            self.value(x, &mut after)
        } else {
            self.then(",", &mut |w| w.value(x, &mut after))
        }
    }

    /// The members `left` of `m` in some order the engine takes, then `}`.
    fn members(
        &mut self,
        m: &Map<String, Value>,
        left: &[&String],
        first: bool,
        rest: &mut Rest<'_>,
    ) -> bool {
        if left.is_empty() {
            return self.then("}", rest);
        }
        for (i, key) in left.iter().enumerate() {
            if self.steps >= SEARCH_STEPS {
                return false;
            }
            let others: Vec<&String> = left
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, k)| *k)
                .collect();
            let Some(x) = m.get(key.as_str()) else {
                continue;
            };
            let mut after =
                |w: &mut Writer| w.value(x, &mut |w| w.members(m, &others, false, rest));
            let keys: Vec<String> = string_spellings(key)
                .into_iter()
                .map(|k| {
                    if first {
                        format!("{k}:")
                    } else {
                        format!(",{k}:")
                    }
                })
                .collect();
            if self.any_of(&keys, &mut after) {
                return true;
            }
        }
        false
    }
}

/// The spellings of a string the writer tries: compact JSON, then with DEL escaped.
fn string_spellings(s: &str) -> Vec<String> {
    let plain = Value::from(s).to_string();
    if s.contains('\u{7f}') {
        let escaped = plain.replace('\u{7f}', "\\u007f");
        vec![plain, escaped]
    } else {
        vec![plain]
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

/// `value` with object keys in the order the applicable schemas declare them: `properties`,
/// then the other names of `required` (undeclared keys after, as given).
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
            for s in &here {
                if let Some(Value::Array(r)) = s.get("required") {
                    for name in r.iter().filter_map(Value::as_str) {
                        if !order.contains(&name) {
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

/// True when llguidance finds that `source` admits no value at all. Compiled leniently (keywords
/// it does not implement ignored, `oneOf` read as `anyOf`), which only widens the schema, so the
/// finding is sound for the source itself.
///
/// When llguidance refuses the source for another reason it does not implement (overlapping
/// `patternProperties`, a regex feature, …), the source is widened further and judged again:
/// see [`without_refused_keywords`].
fn admits_nothing(source: &Value) -> bool {
    let (_, f) = factory();
    let judge = |schema: &Value| {
        let mut lenient = schema.clone();
        if let Value::Object(m) = &mut lenient {
            m.insert("x-guidance".into(), serde_json::json!({"lenient": true}));
        }
        f.create_parser(TopLevelGrammar::from_json_schema(lenient))
            .err()
            .map(|e| e.to_string())
    };
    match judge(source) {
        Some(e) if e.contains("Unsatisfiable schema") => true,
        Some(_) => {
            let mut wider = source.clone();
            without_refused_keywords(&mut wider);
            wider != *source && judge(&wider).is_some_and(|e| e.contains("Unsatisfiable schema"))
        }
        None => false,
    }
}

/// Takes out, at every schema position of `schema`, the keywords llguidance refuses for
/// reasons other than satisfiability, so that the result admits every value `schema` admits:
/// `pattern`, `format` and `propertyNames` are assertions, so leaving them out widens;
/// `patternProperties` admits member names that `additionalProperties` (and
/// `unevaluatedProperties`) would otherwise judge, so those go with it.
fn without_refused_keywords(schema: &mut Value) {
    let Value::Object(m) = schema else { return };
    for k in ["pattern", "format", "propertyNames"] {
        m.shift_remove(k);
    }
    if m.shift_remove("patternProperties").is_some() {
        m.shift_remove("additionalProperties");
        m.shift_remove("unevaluatedProperties");
    }
    // Draft 7's schema dependencies too (a name list there is not a schema, and is skipped).
    if let Some(Value::Object(deps)) = m.get_mut("dependencies") {
        deps.values_mut().for_each(without_refused_keywords);
    }
    subschemas_mut(m, without_refused_keywords);
}

/// Judges one wire of the source schema `source`: its native schema (if any) compiles in
/// llguidance, and the engine can write every value in `values` (the values the provider is
/// asked for). A schema the engine finds unsatisfiable passes only when no value is asked for
/// and the engine finds the source itself unsatisfiable: no answer exists, and saying so is
/// not a refusal of one. `Ok(true)` when a native schema was judged.
pub fn judge(
    source: &Value,
    target: Target,
    wire: &Value,
    values: &[Value],
) -> Result<bool, String> {
    let Some(schema) = native_schema(target, wire) else {
        return Ok(false);
    };
    let compiled = compiled(schema);
    let engine = match compiled.as_ref() {
        Ok(e) => e,
        Err(e)
            if e.contains("Unsatisfiable schema")
                && values.is_empty()
                && admits_nothing(source) =>
        {
            return Ok(true)
        }
        Err(e) => return Err(format!("ENGINE: {e}")),
    };
    for v in values {
        engine.writes(v).map_err(|e| format!("ENGINE: {e}"))?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A source llguidance cannot compile as it is (overlapping `patternProperties`) is still
    /// found to admit nothing when a wider schema does; one that admits values is not.
    #[test]
    fn admits_nothing_sees_past_keywords_llguidance_refuses() {
        let closed_but_required = json!({
            "allOf": [
                {"anyOf": [{"additionalProperties": false}]},
                {"type": "object", "required": ["a"], "properties": {"a": {
                    "patternProperties": {"^[a-z]$": {"type": "string"}, "b": {"type": "string"}}
                }}}
            ]
        });
        assert!(admits_nothing(&closed_but_required));
        let open = json!({
            "type": "object", "required": ["a"], "properties": {"a": {
                "patternProperties": {"^[a-z]$": {"type": "string"}, "b": {"type": "string"}}
            }}
        });
        assert!(!admits_nothing(&open));
        // A member name that only `patternProperties` allows stays allowed.
        let pattern_allowed = json!({
            "type": "object", "required": ["ab"], "additionalProperties": false,
            "patternProperties": {"^a": {"type": "string"}, "b": {"type": "string"}}
        });
        assert!(!admits_nothing(&pattern_allowed));
    }

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
        assert_eq!(one.writes(&json!(1.0)), Ok(()));
        let string = Engine::compile(&json!({"type": "string"})).unwrap_or_else(|e| panic!("{e}"));
        assert!(string.accepts("\"\u{7f}\"").is_err() && string.accepts(r#""\u007f""#).is_ok());
        assert_eq!(string.writes(&json!("a\u{7f}")), Ok(()));
        // Every keyword taken out has its row, and strict llguidance refuses it.
        let (_, f) = factory();
        for k in IGNORED_KEYWORDS {
            let (_, shown) = ENGINE_LIMITS
                .iter()
                .find(|(named, _)| named.starts_with(k))
                .unwrap_or_else(|| panic!("no engine-limit row for {k}"));
            let raw: Value = serde_json::from_str(shown).unwrap_or_else(|e| panic!("{e}"));
            assert!(raw.get(*k).is_some(), "{shown}");
            let refused = f.create_parser(TopLevelGrammar::from_json_schema(raw.clone()));
            assert!(
                refused.is_err_and(|e| e.to_string().contains("Unimplemented keys")),
                "{shown}"
            );
            assert!(Engine::compile(&raw).is_ok(), "{shown}");
        }
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

    /// The writer finds the order a union branch fixes, and the names `required` adds after
    /// `properties`; it does not invent values the grammar rejects.
    #[test]
    fn the_writer_finds_the_order_the_grammar_fixes() {
        let union = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
             "required": ["a", "b"], "additionalProperties": false},
            {"type": "object", "properties": {"c": {"type": "integer"}, "b": {"type": "integer"}},
             "required": ["c", "b"], "additionalProperties": false}
        ]});
        let e = Engine::compile(&union).unwrap_or_else(|e| panic!("{e}"));
        assert!(e.accepts(&e.text(&json!({"b": 1, "c": 2}))).is_err());
        assert_eq!(e.writes(&json!({"b": 1, "c": 2})), Ok(()));
        assert!(e.writes(&json!({"a": 1, "c": 2})).is_err());
        let open = json!({"type": "object", "required": ["zz"], "additionalProperties": true});
        let e = Engine::compile(&open).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.text(&json!({"k": 1, "zz": 2})), r#"{"zz":2,"k":1}"#);
        assert!(e.accepts(r#"{"k":1,"zz":2}"#).is_err());
        assert_eq!(e.writes(&json!({"k": 1, "zz": 2})), Ok(()));
        assert!(e.writes(&json!({"k": 1})).is_err());
    }
}
