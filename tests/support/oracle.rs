//! The independent oracle of the widening contract (`/work/shared/design/widening.md`).
//!
//! For each target, [`decoder_language`] models the set of JSON values the provider can produce
//! under a request fragment (`wire`) as a JSON Schema 2020-12 document `T(wire)`, and
//! [`provider_problems`] lists the reasons the provider would refuse the fragment outright
//! (`design/providers.md`). Both are written from the design documents and from the Python
//! checker `shared/tools/harness.py`, never from the dialect code of the library: the only thing
//! taken from the library is the [`Target`] enum, as a name. `T(wire)` is checked with the
//! `jsonschema` crate ([`compile`]), a validator independent of ours.
//!
//! The oracle is at least as strict as the harness. Where it is stricter, or where it follows
//! `widening.md` rather than the harness, the item says so under "Differs from the harness".
//! Being stricter here means `T(wire)` is *smaller*: a value the model can produce is only
//! claimed when the document makes it clear that it can, so a narrowing cannot hide behind a
//! generous model of the provider.

use schemalect::Target;
use serde_json::{json, Map, Value};
use std::fmt;

/// The provider would refuse the request (HTTP 4xx/5xx) or cannot use the fragment at all, so
/// there is no decoder language: never an acceptable lowering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderError(pub String);

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProviderError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ProviderError> {
    Err(ProviderError(msg.into()))
}

/// Keywords OpenAI strict mode rejects with HTTP 400 (providers.md §1.2).
pub const OPENAI_STRICT_BANNED: &[&str] = &[
    "allOf",
    "not",
    "oneOf",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "prefixItems",
    "default",
];

/// The string formats OpenAI strict mode accepts (providers.md §1.2).
pub const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords Claude structured outputs and strict tools reject (providers.md §4.3).
pub const CLAUDE_NATIVE_BANNED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "not",
    "oneOf",
    "if",
    "then",
    "else",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "prefixItems",
    "contains",
];

/// The fields of Gemini's OpenAPI-subset `Schema` proto; any other key is HTTP 400 "Unknown
/// name" (providers.md §3.2).
pub const GEMINI_SCHEMA_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// The values of Gemini's `Type` enum (providers.md §3.2), compared case-insensitively.
const GEMINI_TYPES: &[&str] = &[
    "TYPE_UNSPECIFIED",
    "STRING",
    "NUMBER",
    "INTEGER",
    "BOOLEAN",
    "ARRAY",
    "OBJECT",
    "NULL",
];

/// The string formats llama.cpp's converter turns into a string grammar by themselves
/// (providers.md §5.1: `date`, `time`, `date-time`, `uuid`).
const LLAMA_STRING_FORMATS: &[&str] = &[
    "date",
    "time",
    "date-time",
    "uuid",
    "uuid1",
    "uuid2",
    "uuid3",
    "uuid4",
    "uuid5",
];

/// Keywords whose value is one subschema.
const SCHEMA_VALUED: &[&str] = &[
    "items",
    "not",
    "additionalProperties",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is a list of subschemas.
const SCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "$defs",
    "definitions",
    "patternProperties",
    "dependentSchemas",
];

/// Escapes a name for a JSON pointer.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// One schema node of a JSON Schema document.
#[derive(Clone, Copy, Debug)]
pub struct SchemaNode<'a> {
    /// The node.
    pub node: &'a Map<String, Value>,
    /// Nesting depth counted in object and array levels (`properties`, `additionalProperties`,
    /// `items`, `prefixItems`), the way OpenAI counts its nesting limit.
    pub depth: usize,
}

/// Every schema node (JSON object in a schema position) of `s` with its JSON pointer, in
/// document order. Walks keyword positions only, never literal values (`enum`, `const`,
/// `default`, `examples`) or property names.
///
/// Differs from the harness: `prefixItems` and a schema-valued `additionalProperties` count as
/// a nesting level too (the harness counts `items` and `properties` only).
pub fn nodes_of(s: &Value) -> Vec<(String, SchemaNode<'_>)> {
    let mut out = Vec::new();
    walk_nodes(s, "#".to_owned(), 0, &mut out);
    out
}

fn walk_nodes<'a>(
    s: &'a Value,
    path: String,
    depth: usize,
    out: &mut Vec<(String, SchemaNode<'a>)>,
) {
    let Value::Object(node) = s else { return };
    if depth > 200 {
        return;
    }
    out.push((path.clone(), SchemaNode { node, depth }));
    for k in SCHEMA_VALUED {
        if let Some(v @ Value::Object(_)) = node.get(*k) {
            let nest = usize::from(matches!(*k, "items" | "additionalProperties"));
            walk_nodes(v, format!("{path}/{k}"), depth + nest, out);
        }
    }
    for k in SCHEMA_LISTS {
        if let Some(Value::Array(list)) = node.get(*k) {
            let nest = usize::from(*k == "prefixItems");
            for (i, v) in list.iter().enumerate() {
                walk_nodes(v, format!("{path}/{k}/{i}"), depth + nest, out);
            }
        }
    }
    for k in SCHEMA_MAPS {
        if let Some(Value::Object(map)) = node.get(*k) {
            let nest = usize::from(*k == "properties");
            for (name, v) in map {
                walk_nodes(v, format!("{path}/{k}/{}", escape(name)), depth + nest, out);
            }
        }
    }
}

fn type_names(n: &Map<String, Value>) -> Vec<&str> {
    match n.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn is_object_node(n: &Map<String, Value>) -> bool {
    type_names(n).contains(&"object")
}

/// Rebuilds a schema node by mapping every subschema in a keyword position with `f`, keeping
/// every other member as it is; with `keep_not`, the subschema of `not` is kept as it is.
fn map_children(
    n: &Map<String, Value>,
    f: &mut dyn FnMut(&Value) -> Result<Value, ProviderError>,
    keep_not: bool,
) -> Result<Map<String, Value>, ProviderError> {
    let mut out = Map::new();
    for (k, v) in n {
        let mapped = match (k.as_str(), v) {
            ("not", _) if keep_not => v.clone(),
            // Boolean subschemas go to `f` too (llama.cpp cannot convert them), except the
            // boolean form of `additionalProperties`, which is not a subschema there.
            (k, Value::Object(_) | Value::Bool(_))
                if SCHEMA_VALUED.contains(&k)
                    && !(k == "additionalProperties" && v.is_boolean()) =>
            {
                f(v)?
            }
            (k, Value::Array(list)) if SCHEMA_LISTS.contains(&k) => {
                Value::Array(list.iter().map(&mut *f).collect::<Result<_, _>>()?)
            }
            (k, Value::Object(map)) if SCHEMA_MAPS.contains(&k) => {
                let mut m = Map::new();
                for (name, sub) in map {
                    m.insert(name.clone(), f(sub)?);
                }
                Value::Object(m)
            }
            _ => v.clone(),
        };
        out.insert(k.clone(), mapped);
    }
    Ok(out)
}

/// Closes every object node: a missing `additionalProperties` on a node that is an object
/// (`type` names `object`, or it has `properties`) becomes `false`, the way strict decoders
/// and llama.cpp read it. With `empty_is_object`, an empty schema `{}` means an object (closed,
/// no properties: only `{}`), as llama.cpp reads it.
///
/// Differs from the harness: only keyword positions are walked, and the subschema of `not` is
/// left as it is. No provider enforces `not`; `T ∧ ¬B` is smallest (strictest) with `B` read
/// as sent, since closing `B` would shrink `B` and so grow `¬B`.
pub fn close_objects(s: &Value, empty_is_object: bool) -> Value {
    let Value::Object(n) = s else {
        return s.clone();
    };
    if empty_is_object && n.is_empty() {
        return json!({"type": "object", "additionalProperties": false, "properties": {}});
    }
    let mut child = |v: &Value| Ok(close_objects(v, empty_is_object));
    let Ok(mut out) = map_children(n, &mut child, true) else {
        return s.clone();
    };
    if (is_object_node(&out) || out.contains_key("properties"))
        && !out.contains_key("additionalProperties")
    {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(out)
}

/// Gemini `responseSchema` (OpenAPI-subset `Schema`) as a JSON Schema: `type` lowercased,
/// `nullable` adds `null`, the enforced keywords kept, every OBJECT closed (the decoder only
/// emits declared keys). An OBJECT without properties is a provider error (HTTP 400).
/// `minProperties`/`maxProperties` are proto fields of OBJECT (providers.md §3.2, GG1 on the
/// Gemini API, GG4 on Vertex): enforced exactly when the wire carries them, as JSON Schema
/// reads them (on objects only), and never assumed when it does not.
///
/// Differs from the harness: a `type` that is not one of the proto's values is an error, and
/// `TYPE_UNSPECIFIED` is treated like a missing type (which [`provider_problems`] reports).
pub fn gemini_schema_to_js(n: &Value) -> Result<Value, ProviderError> {
    let Value::Object(n) = n else {
        return err("responseSchema node is not an object");
    };
    let mut out = Map::new();
    let nullable = n.get("nullable").is_some_and(|v| v == &Value::Bool(true));
    let mut types: Vec<String> = Vec::new();
    match n.get("type") {
        Some(Value::String(t)) => {
            let up = t.to_uppercase();
            if !GEMINI_TYPES.contains(&up.as_str()) {
                return err(format!("responseSchema type `{t}` is not a Type value"));
            }
            if up != "TYPE_UNSPECIFIED" {
                types.push(t.to_lowercase());
            }
        }
        Some(_) => {
            return err(
                "responseSchema type must be a single string (Proto field is not repeating)",
            )
        }
        None => {}
    }
    if nullable && !types.is_empty() && !types.iter().any(|t| t == "null") {
        types.push("null".into());
    }
    match types.len() {
        0 => {}
        1 => {
            out.insert("type".into(), Value::from(types[0].clone()));
        }
        _ => {
            out.insert("type".into(), json!(types));
        }
    }
    if let Some(any) = n.get("anyOf") {
        let Value::Array(list) = any else {
            return err("responseSchema anyOf must be a list");
        };
        let mut branches = list
            .iter()
            .map(gemini_schema_to_js)
            .collect::<Result<Vec<_>, _>>()?;
        if nullable {
            branches.push(json!({"type": "null"}));
        }
        out.insert("anyOf".into(), Value::Array(branches));
    }
    if let Some(e) = n.get("enum") {
        let Value::Array(values) = e else {
            return err("responseSchema enum must be a list");
        };
        let mut values = values.clone();
        if nullable {
            values.push(Value::Null);
        }
        out.insert("enum".into(), Value::Array(values));
    }
    for k in [
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "minProperties",
        "maxProperties",
        "pattern",
    ] {
        if let Some(v) = n.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    if let Some(items) = n.get("items") {
        out.insert("items".into(), gemini_schema_to_js(items)?);
    }
    if types.first().map(String::as_str) == Some("object") {
        let props = match n.get("properties") {
            Some(Value::Object(p)) if !p.is_empty() => p,
            _ => return err("OBJECT without properties (Gemini answers 400)"),
        };
        let mut js = Map::new();
        for (k, v) in props {
            js.insert(k.clone(), gemini_schema_to_js(v)?);
        }
        out.insert("properties".into(), Value::Object(js));
        if let Some(r) = n.get("required") {
            out.insert("required".into(), r.clone());
        }
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Ok(Value::Object(out))
}

/// What llama.cpp's converter refuses in a schema it is given (Ollama's `format`, llama-server's
/// `json_schema`): each pattern its GBNF parser cannot read, else the converter's own refusal.
fn llama_cpp_problems(f: &Value, probs: &mut Vec<String>) {
    for (path, n) in nodes_of(f) {
        if let Some(p) = n.node.get("pattern").and_then(Value::as_str) {
            if let Some(problem) = llama_pattern_problem(p) {
                probs.push(format!("{path}: {problem}"));
            }
        }
    }
    if let Err(e) = ollama_format_to_js(f) {
        if probs.is_empty() {
            probs.push(e.0);
        }
    }
}

/// Why a pattern is not usable by llama.cpp's converter, if it is not (providers.md §5.1, I-L1):
/// it must start with `^` and end with `$`, and the shorthand classes `\d \w \s \D \W \S` are
/// copied into the grammar as literal escapes that the GBNF parser then rejects.
pub fn llama_pattern_problem(p: &str) -> Option<String> {
    if !(p.starts_with('^') && p.ends_with('$')) {
        return Some(format!(
            "pattern {p:?} must start with ^ and end with $ (llama.cpp)"
        ));
    }
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(e) = chars.next() {
                if "dwsDWS".contains(e) {
                    return Some(format!(
                        "pattern {p:?} uses the shorthand class \\{e}, which llama.cpp copies into the grammar as a literal escape (GBNF parse error)"
                    ));
                }
            }
        }
    }
    None
}

/// True when the node's `type` (absent: none) names an object, or it has `properties`.
fn closes(n: &Map<String, Value>) -> bool {
    is_object_node(n) || n.contains_key("properties")
}

/// The Ollama `format` schema as llama.cpp's `json-schema-to-grammar` reads it (widening.md:
/// missing `additionalProperties` means `false`, `{}` means an object, an unanchored pattern is
/// an error).
///
/// Differs from the harness (stricter, from providers.md §5.1 / L4):
/// - an anchored pattern `^X$` is matched as a whole string `^(?:X)$`: the converter strips the
///   two anchors and compiles `X` as a grammar for the whole string, so `^a|b$` means `a` or
///   `b`, not "starts with a or ends with b";
/// - shorthand classes in a pattern are an error (see [`llama_pattern_problem`]);
/// - a node without `type` gets the type the converter infers from its keywords (`properties`
///   or a non-`true` `additionalProperties` or `allOf`: object; `items`/`prefixItems`: array;
///   `pattern` or a grammar `format`: string); one it cannot infer a type for, and that has no
///   `anyOf`/`oneOf`/`const`/`enum`, is an error ("Unrecognized schema" in the converter
///   Ollama vendored up to v0.29);
/// - `allOf` on an object node without `properties` is read as the converter reads it: the
///   members' properties merged, every property of a member without `anyOf` required, no other
///   keys (added as one more `allOf` member, so the sent members still apply). The node itself
///   is still closed when it lacks `additionalProperties`, as widening.md and the harness read
///   a missing keyword, so this matters beside `additionalProperties: true`.
pub fn ollama_format_to_js(s: &Value) -> Result<Value, ProviderError> {
    ollama_node(s, 0)
}

fn ollama_node(s: &Value, depth: usize) -> Result<Value, ProviderError> {
    let Value::Object(n) = s else {
        return err(format!(
            "llama.cpp cannot convert the non-object schema {s}"
        ));
    };
    if depth > 200 {
        return err("schema nested too deeply");
    }
    if n.is_empty() {
        return Ok(close_objects(s, true));
    }
    if let Some(p) = n.get("pattern") {
        let Value::String(p) = p else {
            return err("pattern is not a string");
        };
        if let Some(problem) = llama_pattern_problem(p) {
            return Err(ProviderError(problem));
        }
    }
    let mut child = |v: &Value| ollama_node(v, depth + 1);
    let mut out = map_children(n, &mut child, true)?;
    if let Some(Value::String(p)) = n.get("pattern") {
        let inner = &p[1..p.len() - 1];
        out.insert("pattern".into(), Value::from(format!("^(?:{inner})$")));
    }
    let union = ["anyOf", "oneOf", "const", "enum", "$ref"]
        .iter()
        .any(|k| n.contains_key(*k));
    let ap_not_true = n
        .get("additionalProperties")
        .is_some_and(|v| v != &Value::Bool(true));
    if !n.contains_key("type") && !union {
        let inferred = if n.contains_key("properties") || ap_not_true || n.contains_key("allOf") {
            "object"
        } else if n.contains_key("items") || n.contains_key("prefixItems") {
            "array"
        } else if n.contains_key("pattern")
            || n.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| LLAMA_STRING_FORMATS.contains(&f))
        {
            "string"
        } else {
            return err(format!(
                "llama.cpp cannot infer a type for {s} (Unrecognized schema)"
            ));
        };
        out.insert("type".into(), Value::from(inferred));
    }
    // A `type` list is read one type at a time; its object copy takes this branch too.
    let object_reading = !n.contains_key("type") || is_object_node(n);
    if object_reading
        && !union
        && !n.contains_key("properties")
        && !ap_not_true
        && n.contains_key("allOf")
    {
        if let Some(Value::Array(members)) = n.get("allOf") {
            let mut props = Map::new();
            let mut required = Vec::new();
            for m in members {
                let (comps, req): (Vec<&Value>, bool) = match m.get("anyOf") {
                    Some(Value::Array(branches)) => (branches.iter().collect(), false),
                    _ => (vec![m], true),
                };
                for c in comps {
                    if let Some(Value::Object(p)) = c.get("properties") {
                        for (name, sub) in p {
                            props.insert(name.clone(), ollama_node(sub, depth + 1)?);
                            if req && !required.contains(name) {
                                required.push(name.clone());
                            }
                        }
                    }
                }
            }
            let reading =
                json!({"properties": props, "required": required, "additionalProperties": false});
            if let Some(Value::Array(list)) = out.get_mut("allOf") {
                list.push(reading);
            }
        }
    }
    if closes(&out) && !out.contains_key("additionalProperties") {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Ok(Value::Object(out))
}

fn openai_strict_problems(schema: Option<&Value>) -> Vec<String> {
    let mut probs = Vec::new();
    let Some(schema @ Value::Object(root)) = schema else {
        probs.push("strict root must be type object and not anyOf".into());
        return probs;
    };
    if root.get("type") != Some(&Value::from("object")) || root.contains_key("anyOf") {
        probs.push("strict root must be type object and not anyOf".into());
        return probs;
    }
    let (mut props_total, mut enums_total, mut chars) = (0usize, 0usize, 0usize);
    for (path, SchemaNode { node: n, depth }) in nodes_of(schema) {
        for k in n.keys() {
            if OPENAI_STRICT_BANNED.contains(&k.as_str()) {
                probs.push(format!("{path}: {k} not permitted in strict mode"));
            }
        }
        if let Some(Value::String(f)) = n.get("format") {
            if !OPENAI_FORMATS.contains(&f.as_str()) {
                probs.push(format!("{path}: format {f} not permitted"));
            }
        }
        if let Some(Value::String(p)) = n.get("pattern") {
            if p.contains("(?=") || p.contains("(?!") || p.contains("(?<") {
                probs.push(format!("{path}: regex lookaround is not supported"));
            }
        }
        if is_object_node(n) || n.contains_key("properties") {
            let names: Vec<&String> = match n.get("properties") {
                Some(Value::Object(p)) => p.keys().collect(),
                _ => Vec::new(),
            };
            if n.get("additionalProperties") != Some(&Value::Bool(false)) {
                probs.push(format!("{path}: additionalProperties must be false"));
            }
            let mut req: Vec<&str> = match n.get("required") {
                Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let mut want: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
            req.sort_unstable();
            want.sort_unstable();
            if req != want {
                probs.push(format!("{path}: required must list every property"));
            }
            props_total += names.len();
            chars += names.iter().map(|k| k.len()).sum::<usize>();
        }
        if let Some(Value::Array(e)) = n.get("enum") {
            enums_total += e.len();
            chars += e.iter().map(|v| v.to_string().len()).sum::<usize>();
        }
        if depth > 10 {
            probs.push(format!("{path}: nesting deeper than 10"));
        }
    }
    if props_total > 5000 {
        probs.push("more than 5000 properties".into());
    }
    if enums_total > 1000 {
        probs.push("more than 1000 enum values".into());
    }
    if chars > 120_000 {
        probs.push("more than 120000 characters of names and enum values".into());
    }
    probs
}

/// Claude's structured-output subset (providers.md §4.3), for `output_config.format` and
/// strict tools.
fn claude_subset_problems(schema: &Value, what: &str) -> Vec<String> {
    let mut probs = Vec::new();
    for (path, SchemaNode { node: n, .. }) in nodes_of(schema) {
        for k in n.keys() {
            if CLAUDE_NATIVE_BANNED.contains(&k.as_str()) {
                probs.push(format!(
                    "{what}{path}: {k} not supported by Claude structured outputs"
                ));
            }
        }
        if n.get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| m > 1)
        {
            probs.push(format!("{what}{path}: minItems other than 0 or 1"));
        }
        if is_object_node(n) && n.get("additionalProperties") != Some(&Value::Bool(false)) {
            probs.push(format!("{what}{path}: additionalProperties must be false"));
        }
        if let Some(Value::Array(e)) = n.get("enum") {
            if e.iter().any(|v| v.is_array() || v.is_object()) {
                probs.push(format!(
                    "{what}{path}: complex (object/array) values in enum are not supported"
                ));
            }
        }
        if let Some(Value::String(p)) = n.get("pattern") {
            if p.contains("\\b") || p.contains("\\B") {
                probs.push(format!(
                    "{what}{path}: \\b/\\B are not supported in pattern"
                ));
            }
        }
    }
    probs
}

fn gemini_response_schema_problems(root: &Value) -> Vec<String> {
    let mut probs = Vec::new();
    let mut stack = vec![("#/generationConfig/responseSchema".to_owned(), root)];
    while let Some((path, n)) = stack.pop() {
        let Value::Object(n) = n else {
            probs.push(format!("{path}: not an object"));
            continue;
        };
        for k in n.keys() {
            if !GEMINI_SCHEMA_FIELDS.contains(&k.as_str()) {
                probs.push(format!("{path}: unknown field {k}"));
            }
        }
        let ty = n
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_uppercase)
            .unwrap_or_default();
        match n.get("type") {
            Some(Value::String(_)) if GEMINI_TYPES.contains(&ty.as_str()) => {}
            Some(Value::String(t)) => probs.push(format!("{path}: unknown type {t}")),
            Some(_) => probs.push(format!(
                "{path}: type must be a single value (Proto field is not repeating, cannot start list)"
            )),
            None => {}
        }
        // Differs from the harness: `type` is REQUIRED in the proto (providers.md §3.2); a node
        // that only has `anyOf` is how the SDKs send unions and is accepted.
        if (ty.is_empty() || ty == "TYPE_UNSPECIFIED") && !n.contains_key("anyOf") {
            probs.push(format!(
                "{path}: type is required (an untyped node is not expressible in responseSchema)"
            ));
        }
        if let Some(e) = n.get("enum") {
            let strings = e.as_array().is_some_and(|a| a.iter().all(Value::is_string));
            if ty != "STRING" || !strings {
                probs.push(format!(
                    "{path}: enum only allowed for STRING type, string values"
                ));
            }
        }
        let has_properties = n
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|m| !m.is_empty());
        if ty == "OBJECT" && !has_properties {
            probs.push(format!(
                "{path}: properties should be non-empty for OBJECT type"
            ));
        }
        if let Some(Value::Object(p)) = n.get("properties") {
            for (k, v) in p {
                stack.push((format!("{path}/properties/{}", escape(k)), v));
            }
        }
        if let Some(items) = n.get("items") {
            stack.push((format!("{path}/items"), items));
        }
        if let Some(Value::Array(list)) = n.get("anyOf") {
            for (i, v) in list.iter().enumerate() {
                stack.push((format!("{path}/anyOf/{i}"), v));
            }
        }
    }
    probs
}

/// Keywords a 2026 live bisect on the Interactions API (gemini-3.8-flash) got HTTP 400 for
/// (providers-2026-12.md §3.3, <https://github.com/linxule/openinterviewer/pull/21>, /pull/23).
pub const INTERACTIONS_REFUSED: &[&str] = &["maxLength", "minimum", "minItems", "maxItems"];

/// The name rule both OpenAI wires share: `[A-Za-z0-9_-]{1,64}` (providers.md O3).
fn openai_name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The Responses API (`text.format`, issue 20 / providers-2026-12.md): the format fields are
/// flat beside `type`, `response_format` is not a parameter of this API, and a strict schema
/// obeys the same strict subset as Chat Completions (providers.md §1.2).
fn responses_problems(w: &Map<String, Value>) -> Vec<String> {
    let mut probs = Vec::new();
    if w.contains_key("response_format") {
        probs
            .push("the Responses API takes text.format; response_format is not a parameter".into());
    }
    let Some(fmt) = w.get("text").and_then(|t| t.get("format")) else {
        return probs;
    };
    match fmt.get("type").and_then(Value::as_str) {
        Some("text" | "json_object") => {}
        Some("json_schema") => {
            let name = fmt.get("name").and_then(Value::as_str).unwrap_or("");
            if !openai_name_ok(name) {
                probs.push("text.format.name must match [A-Za-z0-9_-]{1,64}".into());
            }
            if fmt.get("json_schema").is_some() {
                probs.push("text.format is flat: no json_schema member".into());
            }
            if !fmt.get("schema").is_some_and(Value::is_object) {
                probs.push("text.format.schema must be a schema object".into());
            }
            if fmt.get("strict") == Some(&Value::Bool(true)) {
                probs.extend(openai_strict_problems(fmt.get("schema")));
            }
        }
        other => probs.push(format!("unknown text.format type {other:?}")),
    }
    probs
}

/// The `response_format` entries of an Interactions request (one entry or a list).
fn interactions_entries(w: &Map<String, Value>) -> Vec<&Value> {
    match w.get("response_format") {
        Some(Value::Array(list)) => list.iter().collect(),
        Some(v @ Value::Object(_)) => vec![v],
        _ => Vec::new(),
    }
}

/// The Interactions API (providers-2026-12.md §3.3): `response_format` entries
/// `{type: "text", mime_type: "application/json", schema}`; the keywords the probe saw refused
/// are refused here; `$ref` siblings as for `responseJsonSchema` (stricter: assumed the same).
fn interactions_problems(w: &Map<String, Value>) -> Vec<String> {
    let mut probs = Vec::new();
    if w.contains_key("generationConfig") {
        probs.push("the Interactions API has no generationConfig schema fields".into());
    }
    if w.get("response_format")
        .is_some_and(|v| !v.is_object() && !v.is_array())
    {
        probs.push("response_format must be an entry or a list of entries".into());
    }
    for e in interactions_entries(w) {
        if e.get("type").and_then(Value::as_str) != Some("text") {
            probs.push("response_format entry type must be text".into());
        }
        let Some(schema) = e.get("schema") else {
            continue;
        };
        if e.get("mime_type").and_then(Value::as_str) != Some("application/json") {
            probs.push("a schema entry needs mime_type application/json".into());
        }
        if !schema.is_object() {
            probs.push("response_format.schema must be a schema object".into());
            continue;
        }
        for (path, n) in nodes_of(schema) {
            for k in INTERACTIONS_REFUSED {
                if n.node.contains_key(*k) {
                    probs.push(format!("{path}: {k} refused by the Interactions API (400)"));
                }
            }
            if n.node.contains_key("$ref") && n.node.keys().any(|k| !k.starts_with('$')) {
                probs.push(format!("{path}: $ref with non-$ siblings"));
            }
        }
    }
    probs
}

/// Bedrock Converse with Claude (providers-2026-12.md §3.2, §3.5): tools are
/// `toolConfig.tools[].toolSpec{name, inputSchema: {json}}` (AWS `ToolSpecification`: name
/// `[a-zA-Z0-9_-]{1,64}`), forced by `toolConfig.toolChoice.tool.name`; Claude's native
/// `output_config.format` is refused on Bedrock (`Extra inputs are not permitted`); a strict
/// tool spec obeys Claude's grammar subset (the model's compiler).
fn converse_problems(w: &Map<String, Value>) -> Vec<String> {
    let mut probs = Vec::new();
    for k in [
        "output_config",
        "output_format",
        "tools",
        "tool_choice",
        "outputConfig",
    ] {
        if w.contains_key(k) {
            probs.push(format!(
                "{k}: not modelled on Converse (Extra inputs are not permitted)"
            ));
        }
    }
    let Some(config) = w.get("toolConfig") else {
        return probs;
    };
    let Some(tools) = config.get("tools").and_then(Value::as_array) else {
        probs.push("toolConfig.tools must be a list".into());
        return probs;
    };
    for t in tools {
        let Some(spec) = t.get("toolSpec") else {
            probs.push("each tool needs a toolSpec".into());
            continue;
        };
        let name = spec.get("name").and_then(Value::as_str).unwrap_or("");
        let name_ok = (1..=64).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !name_ok {
            probs.push("toolSpec.name must match [a-zA-Z0-9_-]{1,64}".into());
        }
        let sch = spec
            .pointer("/inputSchema/json")
            .cloned()
            .unwrap_or(json!({}));
        if sch.get("type") != Some(&Value::from("object"))
            || ["anyOf", "oneOf", "allOf"]
                .iter()
                .any(|k| sch.get(*k).is_some())
        {
            probs
                .push("inputSchema.json root must be type object without anyOf/oneOf/allOf".into());
        }
        if spec.get("strict") == Some(&Value::Bool(true)) {
            probs.extend(claude_subset_problems(&sch, "toolSpec.inputSchema.json"));
        }
    }
    if let Some(first) = tools.first() {
        let forced = config.pointer("/toolChoice/tool/name");
        if forced.is_none() {
            probs.push("the structured-output tool is not forced with toolChoice.tool".into());
        } else if forced != first.pointer("/toolSpec/name") {
            probs.push("toolChoice.tool.name does not name the structured-output tool".into());
        }
    }
    probs
}

/// Characters JSON writes escaped inside a string: `"`, `\` and the control characters. A
/// grammar over the raw characters between the quotes (xgrammar's string patterns) writes
/// none of them, so the oracle leaves them out of every patterned string (stricter: a model
/// writing the two raw characters `\"` may still reach `"`).
const RAW_ONLY: &str = "^[^\"\\\\\\u0000-\\u001f]*$";

/// The Ollama `format` schema as xgrammar reads it on Ollama's MLX backend
/// (providers-2026-12.md §3.4 and the xgrammar row of §2.1): strict mode, so a missing
/// `additionalProperties` on an object node is `false` and a missing `items` on a node whose
/// `type` names `array` is `false` (unevaluated items), a `pattern` is matched against the
/// whole string (`^(?:X)$`, anchors of `^X$` stripped first) over raw characters only
/// (`RAW_ONLY`), `{}` is any value. Every other keyword is read as JSON Schema reads it
/// (stricter where xgrammar skips one).
pub fn xgrammar_format_to_js(s: &Value) -> Result<Value, ProviderError> {
    xgrammar_node(s, 0)
}

fn xgrammar_node(s: &Value, depth: usize) -> Result<Value, ProviderError> {
    let Value::Object(n) = s else {
        return Ok(s.clone());
    };
    if depth > 200 {
        return err("schema nested too deeply");
    }
    let mut child = |v: &Value| xgrammar_node(v, depth + 1);
    let mut out = map_children(n, &mut child, true)?;
    if let Some(p) = n.get("pattern") {
        let Value::String(p) = p else {
            return err("pattern is not a string");
        };
        let inner = p.strip_prefix('^').unwrap_or(p);
        let inner = inner.strip_suffix('$').unwrap_or(inner);
        out.insert("pattern".into(), Value::from(format!("^(?:{inner})$")));
        let raw = json!({"pattern": RAW_ONLY});
        match out.get_mut("allOf") {
            Some(Value::Array(list)) => list.push(raw),
            _ => {
                out.insert("allOf".into(), Value::Array(vec![raw]));
            }
        }
    }
    if closes(&out) && !out.contains_key("additionalProperties") {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    if type_names(&out).contains(&"array") && !out.contains_key("items") {
        out.insert("items".into(), Value::Bool(false));
    }
    Ok(Value::Object(out))
}

/// What xgrammar cannot take, from providers-2026-12.md §3.4 and §2.1: a multi-branch
/// `allOf` (degrades to any JSON value, so it is never acceptable), `format` (enforced with
/// xgrammar's own regexes, which no document shows to admit every valid string, and read
/// instead of `pattern`), a length bound (xgrammar's length-bounded strings exclude the
/// characters JSON escapes), and a numeric bound that is not a whole number on an integer node
/// (xgrammar refuses it: "Integer constraint must be a whole number").
fn xgrammar_problems(f: &Value) -> Vec<String> {
    let mut probs = Vec::new();
    for (path, SchemaNode { node: n, .. }) in nodes_of(f) {
        if n.get("allOf")
            .and_then(Value::as_array)
            .is_some_and(|a| a.len() > 1)
        {
            probs.push(format!(
                "{path}: a multi-branch allOf degrades to any JSON value under xgrammar"
            ));
        }
        if n.contains_key("format") {
            probs.push(format!(
                "{path}: format is enforced by xgrammar's own regexes, before pattern"
            ));
        }
        for k in ["minLength", "maxLength"] {
            if n.contains_key(k) {
                probs.push(format!(
                    "{path}: {k}: xgrammar's length-bounded strings cannot hold escaped characters"
                ));
            }
        }
        if type_names(n) == ["integer"] {
            for k in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
                if n.get(k).is_some_and(|v| v.as_i64().is_none()) {
                    probs.push(format!("{path}: {k} must be a whole number for xgrammar"));
                }
            }
        }
    }
    probs
}

/// llama-server's `response_format` (providers-2026-12.md §3.4): `json_schema` with
/// `json_schema.schema`, or `json_object` (with a `schema` member, else a no-op); `grammar`
/// beside a schema is HTTP 500 "Cannot use both json_schema and grammar"; the schema is read by
/// llama.cpp's converter, as Ollama's is.
fn llama_server_schema(w: &Map<String, Value>) -> Result<Option<&Value>, ProviderError> {
    let Some(rf) = w.get("response_format").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let schema = match rf.get("type").and_then(Value::as_str) {
        Some("text") => None,
        Some("json_object") => rf.get("schema"),
        Some("json_schema") => Some(
            rf.pointer("/json_schema/schema")
                .ok_or_else(|| ProviderError("json_schema.schema is missing".into()))?,
        ),
        other => return err(format!("unknown response_format type {other:?}")),
    };
    if schema.is_some() && w.contains_key("grammar") {
        return err("Cannot use both json_schema and grammar (HTTP 500)");
    }
    Ok(schema)
}

fn claude_format(wire: &Value) -> Option<&Value> {
    wire.pointer("/output_config/format")
        .filter(|f| !f.is_null())
        .or_else(|| wire.get("output_format").filter(|f| !f.is_null()))
}

/// Reasons the provider would refuse the request fragment (HTTP 4xx/5xx), from providers.md.
/// Empty when the fragment is acceptable.
///
/// Differs from the harness (stricter): Gemini `responseSchema` nodes need a single known
/// `type` (or `anyOf`), and `responseSchema` and `responseJsonSchema` are exclusive; Ollama
/// patterns may not use shorthand classes and every node must be convertible (see
/// [`ollama_format_to_js`]); a strict Claude tool's `input_schema` obeys the structured-output
/// subset, and `tool_choice` names the tool; Claude's subset refuses complex `enum` values and
/// `\b`; an OpenAI-family `json_schema` needs a `schema`; an unknown `response_format` type or
/// Ollama `format` string is a problem here too (the harness raises it from the language).
pub fn provider_problems(target: Target, wire: &Value) -> Vec<String> {
    let mut probs = Vec::new();
    let Some(w) = wire.as_object() else {
        probs.push(format!("the wire fragment is not a JSON object: {wire}"));
        return probs;
    };
    match target {
        Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => {
            let Some(rf) = w.get("response_format") else {
                return probs;
            };
            match rf.get("type").and_then(Value::as_str) {
                Some("json_object") => {}
                Some("json_schema") => {
                    let js = rf.get("json_schema").cloned().unwrap_or(json!({}));
                    let name = js.get("name").and_then(Value::as_str).unwrap_or("");
                    let name_ok = (1..=64).contains(&name.len())
                        && name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                    if !name_ok {
                        probs.push("json_schema.name must match [A-Za-z0-9_-]{1,64}".into());
                    }
                    if !js.get("schema").is_some_and(Value::is_object) {
                        probs.push("json_schema.schema must be a schema object".into());
                    }
                    if js.get("strict") == Some(&Value::Bool(true)) {
                        probs.extend(openai_strict_problems(js.get("schema")));
                    }
                    if target == Target::Mistral {
                        if let Some(s) = js.get("schema") {
                            for (path, n) in nodes_of(s) {
                                if n.node.contains_key("$id") || n.node.contains_key("$schema") {
                                    probs.push(format!("{path}: Mistral rejects $id/$schema"));
                                }
                            }
                        }
                    }
                }
                other => probs.push(format!("unknown response_format type {other:?}")),
            }
        }
        Target::Gemini | Target::GeminiJson | Target::VertexGemini => {
            let Some(gc) = w.get("generationConfig") else {
                return probs;
            };
            let has_schema = gc.get("responseSchema").is_some();
            let has_json = gc.get("responseJsonSchema").is_some();
            if (has_schema || has_json)
                && gc.get("responseMimeType").and_then(Value::as_str) != Some("application/json")
            {
                probs.push("schema without responseMimeType application/json".into());
            }
            if has_schema && has_json {
                probs.push("responseSchema and responseJsonSchema are mutually exclusive".into());
            }
            if let Some(rs) = gc.get("responseSchema") {
                probs.extend(gemini_response_schema_problems(rs));
            }
            if let Some(js) = gc.get("responseJsonSchema") {
                for (path, n) in nodes_of(js) {
                    if n.node.contains_key("$ref") && n.node.keys().any(|k| !k.starts_with('$')) {
                        probs.push(format!("{path}: $ref with non-$ siblings"));
                    }
                }
            }
        }
        Target::Ollama => match w.get("format") {
            None => {}
            Some(Value::String(s)) if s == "json" => {}
            Some(f @ Value::Object(_)) => llama_cpp_problems(f, &mut probs),
            Some(other) => probs.push(format!(
                "invalid format {other}; expected \"json\" or a JSON Schema object"
            )),
        },
        Target::Claude => {
            let tools = match w.get("tools") {
                None => return probs,
                Some(Value::Array(t)) => t,
                Some(_) => {
                    probs.push("tools must be a list".into());
                    return probs;
                }
            };
            for t in tools {
                let name = t.get("name").and_then(Value::as_str).unwrap_or("");
                let name_ok = (1..=128).contains(&name.len())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if !name_ok {
                    probs.push("tool name must match ^[a-zA-Z0-9_-]{1,128}$".into());
                }
                let sch = t.get("input_schema").cloned().unwrap_or(json!({}));
                if sch.get("type") != Some(&Value::from("object"))
                    || ["anyOf", "oneOf", "allOf"]
                        .iter()
                        .any(|k| sch.get(*k).is_some())
                {
                    probs.push(
                        "input_schema root must be type object without anyOf/oneOf/allOf".into(),
                    );
                }
                if t.get("strict") == Some(&Value::Bool(true)) {
                    probs.extend(claude_subset_problems(&sch, "input_schema"));
                }
            }
            if !tools.is_empty() {
                let choice = w.get("tool_choice");
                if choice.and_then(|c| c.get("type")).and_then(Value::as_str) != Some("tool") {
                    probs.push(
                        "structured-output tool is not forced with tool_choice {type: tool}".into(),
                    );
                } else if choice.and_then(|c| c.get("name")) != tools[0].get("name") {
                    probs.push("tool_choice.name does not name the structured-output tool".into());
                }
            }
        }
        Target::OllamaMlx => match w.get("format") {
            None => {}
            Some(Value::String(s)) if s == "json" => {}
            Some(f @ Value::Object(_)) => {
                probs.extend(xgrammar_problems(f));
                if let Err(e) = xgrammar_format_to_js(f) {
                    probs.push(e.0);
                }
            }
            Some(other) => probs.push(format!(
                "invalid format {other}; expected \"json\" or a JSON Schema object"
            )),
        },
        Target::LlamaServer => match llama_server_schema(w) {
            Err(e) => probs.push(e.0),
            Ok(None) => {}
            Ok(Some(f @ Value::Object(_))) => llama_cpp_problems(f, &mut probs),
            Ok(Some(other)) => probs.push(format!("the schema {other} is not a schema object")),
        },
        Target::OpenAiResponses => probs.extend(responses_problems(w)),
        Target::GeminiInteractions => probs.extend(interactions_problems(w)),
        Target::BedrockClaude => probs.extend(converse_problems(w)),
        Target::ClaudeNative => {
            if let Some(fmt) = claude_format(wire) {
                if fmt.get("type").and_then(Value::as_str) != Some("json_schema") {
                    probs.push("output_config.format.type must be json_schema".into());
                }
                match fmt.get("schema") {
                    Some(s @ Value::Object(_)) => {
                        probs.extend(claude_subset_problems(s, "output_config.format.schema"));
                    }
                    _ => probs.push("output_config.format.schema must be a schema object".into()),
                }
            }
        }
    }
    probs
}

/// `T(wire)`: a JSON Schema 2020-12 document for the set of values the provider can produce
/// under `wire` (widening.md, "Decoder languages"). `true` when nothing constrains the answer.
///
/// Differs from the harness: Ollama's schema is read by [`ollama_format_to_js`] (stricter);
/// Gemini's `responseJsonSchema` and Claude's schemas are closed by [`close_objects`], which
/// leaves `not` as sent (stricter). Non-strict schemas (OpenAI-family `strict: false`, a
/// non-strict Claude tool) are `true` / `{"type":"object"}` here as in widening.md; they are
/// checked separately as [`hint_schemas`].
pub fn decoder_language(target: Target, wire: &Value) -> Result<Value, ProviderError> {
    let empty = json!({});
    let w = if wire.is_null() { &empty } else { wire };
    if !w.is_object() {
        return err(format!("the wire fragment is not a JSON object: {w}"));
    }
    match target {
        Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => {
            let Some(rf) = w.get("response_format").filter(|v| !v.is_null()) else {
                return Ok(Value::Bool(true));
            };
            match rf.get("type").and_then(Value::as_str) {
                Some("json_object") => Ok(json!({"type": "object"})),
                Some("json_schema") => {
                    let js = rf.get("json_schema").cloned().unwrap_or(json!({}));
                    if js.get("strict") == Some(&Value::Bool(true)) {
                        Ok(js.get("schema").cloned().unwrap_or(Value::Bool(true)))
                    } else {
                        Ok(Value::Bool(true))
                    }
                }
                other => err(format!("unknown response_format {other:?}")),
            }
        }
        Target::Gemini | Target::GeminiJson | Target::VertexGemini => {
            let gc = w.get("generationConfig").cloned().unwrap_or(json!({}));
            if let Some(rs) = gc.get("responseSchema") {
                gemini_schema_to_js(rs)
            } else if let Some(js) = gc.get("responseJsonSchema") {
                Ok(close_objects(js, false))
            } else {
                Ok(Value::Bool(true))
            }
        }
        Target::Ollama => match w.get("format") {
            None | Some(Value::Null) => Ok(Value::Bool(true)),
            Some(Value::String(s)) if s == "json" => Ok(json!({"type": "object"})),
            Some(f @ Value::Object(_)) => ollama_format_to_js(f),
            Some(other) => err(format!("unknown Ollama format {other}")),
        },
        Target::Claude => {
            let tools = w.get("tools").and_then(Value::as_array);
            let Some(t0) = tools.and_then(|t| t.first()) else {
                return Ok(Value::Bool(true));
            };
            if t0.get("strict") == Some(&Value::Bool(true)) {
                Ok(close_objects(
                    t0.get("input_schema").unwrap_or(&json!({})),
                    false,
                ))
            } else {
                Ok(json!({"type": "object"}))
            }
        }
        Target::OllamaMlx => match w.get("format") {
            None | Some(Value::Null) => Ok(Value::Bool(true)),
            // Stricter: read as Ollama's `"json"` grammar (`root ::= object`).
            Some(Value::String(s)) if s == "json" => Ok(json!({"type": "object"})),
            Some(f @ Value::Object(_)) => xgrammar_format_to_js(f),
            Some(other) => err(format!("unknown Ollama format {other}")),
        },
        // `json_object` without a schema is a no-op (any text, so any value); a schema is read
        // by llama.cpp's converter.
        Target::LlamaServer => match w
            .as_object()
            .map(llama_server_schema)
            .transpose()?
            .flatten()
        {
            None => Ok(Value::Bool(true)),
            Some(f) => ollama_format_to_js(f),
        },
        // `text.format` (Responses API): the same modes as `response_format`, spelled flat.
        Target::OpenAiResponses => {
            let Some(fmt) = w.pointer("/text/format").filter(|v| !v.is_null()) else {
                return Ok(Value::Bool(true));
            };
            match fmt.get("type").and_then(Value::as_str) {
                Some("text") => Ok(Value::Bool(true)),
                Some("json_object") => Ok(json!({"type": "object"})),
                Some("json_schema") if fmt.get("strict") == Some(&Value::Bool(true)) => {
                    Ok(fmt.get("schema").cloned().unwrap_or(Value::Bool(true)))
                }
                Some("json_schema") => Ok(Value::Bool(true)),
                other => err(format!("unknown text.format {other:?}")),
            }
        }
        // Interactions: the entry's schema, read like `responseJsonSchema` (missing
        // `additionalProperties` closes, the stricter reading); mime type alone: any JSON.
        Target::GeminiInteractions => {
            let schema = w.as_object().and_then(|m| {
                interactions_entries(m)
                    .into_iter()
                    .find_map(|e| e.get("schema"))
            });
            Ok(schema.map_or(Value::Bool(true), |s| close_objects(s, false)))
        }
        // Converse: a strict tool spec is the grammar subset (closed objects); a plain forced
        // tool guarantees an object only.
        Target::BedrockClaude => {
            let Some(spec) = w.pointer("/toolConfig/tools/0/toolSpec") else {
                return Ok(Value::Bool(true));
            };
            if spec.get("strict") == Some(&Value::Bool(true)) {
                Ok(close_objects(
                    spec.pointer("/inputSchema/json").unwrap_or(&json!({})),
                    false,
                ))
            } else {
                Ok(json!({"type": "object"}))
            }
        }
        Target::ClaudeNative => match claude_format(w) {
            None => Ok(Value::Bool(true)),
            Some(fmt) => Ok(close_objects(
                fmt.get("schema").unwrap_or(&json!({})),
                false,
            )),
        },
    }
}

/// Schemas the wire sends as guidance without the decoder enforcing them: an OpenAI-family
/// `json_schema` with `strict` off, and a non-strict Claude tool's `input_schema`.
///
/// Not part of `T(wire)` in widening.md (nor checked by the harness): an addition of this
/// oracle. A hint must not narrow either, read as the standard JSON Schema it is: a model that
/// follows it is steered away from valid answers, and Groq's best-effort mode rejects answers
/// that fail it (providers.md §2, "Generated JSON does not match the expected schema").
pub fn hint_schemas(target: Target, wire: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    if target.is_openai_family() {
        if let Some(js) = wire.pointer("/response_format/json_schema") {
            if wire.pointer("/response_format/type") == Some(&Value::from("json_schema"))
                && js.get("strict") != Some(&Value::Bool(true))
            {
                if let Some(s) = js.get("schema") {
                    out.push(s.clone());
                }
            }
        }
    }
    if target == Target::OpenAiResponses {
        if let Some(fmt) = wire.pointer("/text/format") {
            if fmt.get("type") == Some(&Value::from("json_schema"))
                && fmt.get("strict") != Some(&Value::Bool(true))
            {
                if let Some(s) = fmt.get("schema") {
                    out.push(s.clone());
                }
            }
        }
    }
    if target == Target::BedrockClaude {
        if let Some(spec) = wire.pointer("/toolConfig/tools/0/toolSpec") {
            if spec.get("strict") != Some(&Value::Bool(true)) {
                if let Some(s) = spec.pointer("/inputSchema/json") {
                    out.push(s.clone());
                }
            }
        }
    }
    if target == Target::Claude {
        if let Some(t0) = wire.pointer("/tools/0") {
            if t0.get("strict") != Some(&Value::Bool(true)) {
                if let Some(s) = t0.get("input_schema") {
                    out.push(s.clone());
                }
            }
        }
    }
    out
}

/// A copy of `s` without `$schema` and `$id` in schema positions, so the `jsonschema` crate
/// reads every node as 2020-12 and every `$ref` as a pointer from the root, as the engines
/// modelled here do (it would otherwise switch drafts on a `$schema`, or resolve `$id`s as
/// base URIs). That a reader following the specification reads the wire alike is checked
/// apart, by [`read_alike_problems`].
pub fn strip_dialect_keywords(s: &Value) -> Value {
    let Value::Object(n) = s else {
        return s.clone();
    };
    let mut child = |v: &Value| Ok(strip_dialect_keywords(v));
    let Ok(mut out) = map_children(n, &mut child, false) else {
        return s.clone();
    };
    out.remove("$schema");
    out.remove("$id");
    Value::Object(out)
}

/// Why a wire's JSON Schema would read differently to a reader that follows the specification
/// than to this oracle, which resolves every `$ref` as a pointer from the wire's root and reads
/// every node as 2020-12 ([`strip_dialect_keywords`]): an `$id` below the root (it moves the
/// base URI the `$ref`s beneath it resolve against), a `$schema` below the root or naming
/// another draft than 2020-12 (its reader would switch meaning: 2019-09's `items` applies to
/// every item), or a `$ref` that is not a JSON Pointer reaching a node of the wire.
pub fn read_alike_problems(schema: &Value) -> Vec<String> {
    fn walk(root: &Value, at: &Value, path: &str, problems: &mut Vec<String>) {
        let Value::Object(n) = at else { return };
        if !path.is_empty() {
            for k in ["$id", "$schema"] {
                if n.contains_key(k) {
                    problems.push(format!("{path}: `{k}` below the root"));
                }
            }
        } else if let Some(s) = n.get("$schema") {
            let draft = s.as_str().map(|s| s.trim_end_matches('#'));
            if draft != Some("https://json-schema.org/draft/2020-12/schema") {
                problems.push(format!(
                    "`$schema` {s} is not 2020-12's, which the wire speaks"
                ));
            }
        }
        if let Some(r) = n.get("$ref") {
            let reached = r
                .as_str()
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|p| root.pointer(p));
            if reached.is_none() {
                problems.push(format!("{path}: `$ref` {r} reaches no node from the root"));
            }
        }
        for (k, v) in n {
            if SCHEMA_VALUED.contains(&k.as_str()) {
                walk(root, v, &format!("{path}/{k}"), problems);
            } else if let (true, Value::Array(list)) = (SCHEMA_LISTS.contains(&k.as_str()), v) {
                for (i, sub) in list.iter().enumerate() {
                    walk(root, sub, &format!("{path}/{k}/{i}"), problems);
                }
            } else if let (true, Value::Object(map)) = (SCHEMA_MAPS.contains(&k.as_str()), v) {
                for (name, sub) in map {
                    walk(root, sub, &format!("{path}/{k}/{name}"), problems);
                }
            }
        }
    }
    let mut problems = Vec::new();
    walk(schema, schema, "", &mut problems);
    problems
}

/// Compiles a JSON Schema with the `jsonschema` crate as a 2020-12 document with format
/// assertion off (formats are annotations in the subset and for every provider modelled).
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(false)
        .build(&strip_dialect_keywords(schema))
        .map_err(|e| e.to_string())
}

/// Compiles a JSON Schema with the `jsonschema` crate in the draft its `$schema` declares
/// (2020-12 when absent), as the `full` subset reads it: format assertion off, nothing
/// fetched (the crate is built without its resolvers), so a remote reference is a compile
/// error and the schema has no oracle.
pub fn compile_as_declared(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(false)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// A decoder language, compiled.
pub struct Language {
    /// `T(wire)`.
    pub schema: Value,
    validator: jsonschema::Validator,
}

impl fmt::Debug for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Language")
            .field("schema", &self.schema)
            .finish()
    }
}

impl Language {
    /// True when the provider can produce `x`.
    pub fn accepts(&self, x: &Value) -> bool {
        self.validator.is_valid(x)
    }

    /// Where `T(wire)` rejects `x`: "`keyword` at schema path" for every keyword that fails,
    /// nested ones included (a failing `anyOf` lists what failed in its branches), so that a
    /// narrowing says which keywords of the wire cause it.
    pub fn rejection(&self, x: &Value) -> String {
        let evaluation = self.validator.evaluate(x);
        let mut seen: Vec<String> = Vec::new();
        let mut found: Vec<String> = Vec::new();
        for e in evaluation.iter_errors() {
            let path = e.schema_location;
            let keyword = path.rsplit('/').next().unwrap_or("").to_owned();
            if !seen.contains(&keyword) {
                found.push(format!("`{keyword}` at {path}"));
                seen.push(keyword);
            }
        }
        found.join(", ")
    }

    /// A native schema as the harness's `coverage` command counts it: a schema object other
    /// than plain `{"type":"object"}` (which any JSON mode gives).
    pub fn is_native(&self) -> bool {
        self.schema.is_object() && self.schema != json!({"type": "object"})
    }

    /// Admits a value of every JSON kind, nested ones and free object keys included: the
    /// spelling of "any JSON value" a route without a plain "anything" mode sends (llama-server,
    /// whose converter reads `{}` as an object). Probed, so only a schema that means "any
    /// value" in practice passes.
    pub fn admits_every_kind(&self) -> bool {
        [
            json!(null),
            json!(false),
            json!(0),
            json!(-1.5e300),
            json!(""),
            json!("\"\n\u{0}é"),
            json!([]),
            json!([1, "a", null, [[]], {"k": {}}]),
            json!({}),
            json!({"any key": [true, {"x": null}], "$ref": 1}),
        ]
        .iter()
        .all(|v| self.accepts(v))
    }

    /// Constrains nothing: `true` (or the equivalent `{}`).
    pub fn is_anything(&self) -> bool {
        self.schema == Value::Bool(true) || self.schema == json!({})
    }
}

/// `T(wire)` compiled, after checking that the provider accepts the fragment at all: provider
/// problems and a `T` the validator cannot compile are both errors.
pub fn language(target: Target, wire: &Value) -> Result<Language, ProviderError> {
    let probs = provider_problems(target, wire);
    if !probs.is_empty() {
        return err(format!("provider would refuse: {}", probs.join("; ")));
    }
    let schema = decoder_language(target, wire)?;
    let validator = compile(&schema)
        .map_err(|e| ProviderError(format!("T(wire) is not a usable JSON Schema: {e}")))?;
    Ok(Language { schema, validator })
}

/// Every way `wire` narrows for `x` (which the source schema accepts and which lies in the
/// declared fragment): a provider error, `T(wire) ⊭ x`, or a hint schema rejecting `x`.
/// Empty when the contract holds for `x`.
pub fn narrowing(target: Target, wire: &Value, x: &Value) -> Vec<String> {
    let lang = match language(target, wire) {
        Ok(l) => l,
        Err(e) => return vec![e.0],
    };
    let mut out = Vec::new();
    if !lang.accepts(x) {
        out.push(format!("T(wire) = {} rejects {x}", lang.schema));
    }
    for hint in hint_schemas(target, wire) {
        match compile(&hint) {
            Ok(v) if v.is_valid(x) => {}
            Ok(_) => out.push(format!(
                "the non-strict schema sent as a hint, {hint}, rejects {x}"
            )),
            Err(e) => out.push(format!(
                "the non-strict schema {hint} is not a usable JSON Schema: {e}"
            )),
        }
    }
    out
}
