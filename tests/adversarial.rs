//! Hostile schemas and hostile answers: every case ends in a clear error or a correct answer,
//! never a panic, a stack overflow, a hang or unbounded memory (see docs/security.md).
//!
//! - Cases that could overflow the stack or use a lot of memory run in a child process (this
//!   test binary again, running the same test with `SCHEMALECT_ADVERSARIAL_CASE` naming it: see
//!   [`run_child`]), under an address-space cap; the parent reports the child's peak resident
//!   memory and turns a crash into an assertion message instead of aborting the whole suite. No
//!   test here is ignored.
//! - Nothing is timed: a quadratic or exponential path would simply not finish. Elapsed times
//!   are printed (`--nocapture`) for the record.
//! - `serde_json::Value`'s own `Drop` and `Clone` recurse, so the very deep values built here
//!   are built by hand and taken apart by [`dismantle`], never cloned.
//! - Property tests: `SCHEMALECT_PROPTEST_CASES` sets the number of cases (default 256, which
//!   keeps this file CI-friendly on two cores).

use proptest::prelude::*;
use schemalect::gemini_wire;
use schemalect::limits::{Limit, Operation};
use schemalect::pattern::{Pattern, PatternError};
use schemalect::{
    json_mode, AcceptError, Error, Limits, LowerOptions, Lowering, Mode, ParseOptions, Profile,
    Schema, Subset, SubsetError, Target, ViolationKind,
};
use serde_json::{json, Map, Value};
use std::process::Command;
use std::time::Instant;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn extended() -> ParseOptions {
    ParseOptions::default().with_subset(Subset::Extended)
}

fn both_subsets() -> [ParseOptions; 2] {
    [ParseOptions::default(), extended()]
}

fn parse(v: &Value) -> Schema {
    Schema::parse(v).unwrap_or_else(|e| panic!("the schema {v} should parse: {e}"))
}

fn parse_ext(v: &Value) -> Schema {
    Schema::parse_with(v, &extended())
        .unwrap_or_else(|e| panic!("the schema {v} should parse in the extended subset: {e}"))
}

/// Every target × profile.
fn lower_everywhere(schema: &Schema) -> Vec<Lowering> {
    let mut out = Vec::new();
    for profile in Profile::ALL {
        for target in Target::ALL {
            out.push(schema.lower(target, &LowerOptions::default().with_profile(profile)));
        }
    }
    out
}

/// The answer a provider sends for the source answer `text` under `l`: encoded through the
/// reshaping lens (an envelope around a non-object root, entry lists…) when `l` reshapes.
/// An answer that does not encode (not source-shaped) is sent as it is.
fn wire_text(l: &Lowering, text: &str) -> String {
    if !l.is_reshaped() {
        return text.to_owned();
    }
    let v: Value = serde_json::from_str(text).expect("a JSON answer");
    match l.encode(&v) {
        Ok(wire) => serde_json::to_string(&wire).expect("serialises"),
        Err(_) => text.to_owned(),
    }
}

/// Takes a value apart without recursion (`Value`'s own `Drop` recurses once per level).
fn dismantle(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// `[[[…0…]]]`, `depth` levels, built by hand.
fn deep_array(depth: usize) -> Value {
    let mut v = json!(0);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

/// `{"a": {"a": …0…}}`, `depth` levels, built by hand.
fn deep_object(depth: usize) -> Value {
    let mut v = json!(0);
    for _ in 0..depth {
        let mut m = Map::new();
        m.insert("a".into(), v);
        v = Value::Object(m);
    }
    v
}

/// A schema nested `depth` levels through `wrap` (e.g. `{"items": <inner>}`), built by hand.
fn deep_schema(depth: usize, wrap: Wrap) -> Value {
    let mut v = json!({"type": "null"});
    for _ in 0..depth {
        v = wrap(v);
    }
    v
}

fn one(key: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(key.into(), v);
    Value::Object(m)
}

/// Puts a subschema inside a parent schema.
type Wrap = fn(Value) -> Value;

/// The ways a subschema nests in another, with the keyword the depth error names.
const WRAPPERS: [(&str, Wrap); 9] = [
    ("items", |v| one("items", v)),
    ("not", |v| one("not", v)),
    ("anyOf", |v| one("anyOf", Value::Array(vec![v]))),
    ("oneOf", |v| one("oneOf", Value::Array(vec![v]))),
    ("allOf", |v| one("allOf", Value::Array(vec![v]))),
    ("prefixItems", |v| one("prefixItems", Value::Array(vec![v]))),
    ("properties", |v| one("properties", one("a", v))),
    ("additionalProperties", |v| one("additionalProperties", v)),
    ("$defs", |v| {
        let mut m = Map::new();
        m.insert("type".into(), json!("object"));
        m.insert("$defs".into(), one("d", v));
        Value::Object(m)
    }),
];

fn limit_violations(e: &SubsetError) -> Vec<Limit> {
    e.violations
        .iter()
        .filter_map(|v| match v.kind {
            ViolationKind::Limit { limit, .. } => Some(limit),
            _ => None,
        })
        .collect()
}

fn assert_limit(result: Result<Schema, SubsetError>, limit: Limit, what: &str) {
    match result {
        Ok(_) => panic!("{what}: parsed, expected a {limit:?} limit error"),
        Err(e) => {
            assert!(
                limit_violations(&e).contains(&limit),
                "{what}: expected a {limit:?} limit violation, got: {e}"
            );
            let text = e.to_string();
            let (field, flag) = limit.knob();
            assert!(
                text.contains(field) || text.contains(flag) || text.contains(limit.what()),
                "{what}: the message does not say which limit was hit: {text}"
            );
        }
    }
}

/// `schema` is a depth-limit error in both subsets, except that ADR-126 may refuse it
/// outright (`outside_adr126`) for a keyword it does not accept.
fn assert_depth_limit(schema: &Value, outside_adr126: bool, what: &str) {
    for options in both_subsets() {
        let r = Schema::parse_with(schema, &options);
        if outside_adr126 && options.subset == Subset::Adr126 {
            assert!(r.is_err(), "{what}: refused by ADR-126");
            continue;
        }
        assert_limit(r, Limit::Depth, what);
    }
}

/// A 100,000-deep JSON text `{"items":{"items":…}}` or `[[[…]]]`.
fn deep_text(depth: usize, open: &str, leaf: &str, close: &str) -> String {
    let mut s = String::with_capacity(depth * (open.len() + close.len()) + leaf.len());
    for _ in 0..depth {
        s.push_str(open);
    }
    s.push_str(leaf);
    for _ in 0..depth {
        s.push_str(close);
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Child processes: crash isolation and peak memory
// ---------------------------------------------------------------------------------------------

const CASE_VAR: &str = "SCHEMALECT_ADVERSARIAL_CASE";

/// What a child run reported.
struct ChildRun {
    /// Peak resident set (VmHWM), KiB; 0 where `/proc` is absent.
    peak_kib: u64,
    stdout: String,
}

/// Runs `case` in a child process limited to `cap_mib` MiB of address space, and returns what
/// the child reported. `test` is the name of the calling test: the child is this test binary
/// again, running that one test with [`CASE_VAR`] set to it, and in the child this function runs
/// `case`, prints its peak resident memory and ends the process, so the rest of the test never
/// runs there. A wrong `test` name runs no test in the child and fails here ("case done"
/// missing), so the indirection cannot pass silently. Panics, with the child's output, when the
/// child does not succeed: a crash (stack overflow, out of memory) is an assertion failure here
/// rather than an abort of the whole suite.
fn run_child(test: &str, case: fn(), cap_mib: u64) -> ChildRun {
    if std::env::var(CASE_VAR).is_ok_and(|v| v == test) {
        run_here(test, case);
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let started = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {} 2>/dev/null; exec \"$0\" \"$@\"",
            cap_mib * 1024
        ))
        .arg(&exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CASE_VAR, test)
        .output()
        .expect("the child process starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("case done:"),
        "the adversarial case `{test}` failed in its child process ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    for line in stdout.lines() {
        let noise = line.is_empty()
            || line.starts_with("running ")
            || line.starts_with("test result")
            || line.starts_with("VmHWM");
        if !noise {
            println!("  | {line}");
        }
    }
    let peak_kib = stdout
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    println!(
        "case `{test}`: peak resident memory {:.1} MiB, {:.2?} in the child",
        peak_kib as f64 / 1024.0,
        started.elapsed()
    );
    ChildRun { peak_kib, stdout }
}

/// The child side of [`run_child`]: runs `case`, reports its time and peak resident memory on
/// standard output, and ends the process (exit status 0; a panic in `case` fails it first).
fn run_here(test: &str, case: fn()) -> ! {
    let started = Instant::now();
    case();
    println!("case done: {test} in {:.2?}", started.elapsed());
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
            println!("{line}");
        }
    }
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::process::exit(0)
}

// ---------------------------------------------------------------------------------------------
// Nesting 100,000 deep
// ---------------------------------------------------------------------------------------------

#[test]
fn deep_schema_text_is_a_json_error_with_a_position() {
    for (what, text) in [
        ("items", deep_text(100_000, r#"{"items":"#, "{}", "}")),
        ("arrays", deep_text(100_000, "[", "0", "]")),
        ("anyOf", deep_text(100_000, r#"{"anyOf":["#, "{}", "]}")),
    ] {
        for options in both_subsets() {
            match Schema::from_json_str(&text, &options) {
                Err(Error::Json {
                    line,
                    column,
                    message,
                }) => {
                    assert_eq!(line, 1, "{what}: line");
                    assert!(column > 0, "{what}: a column");
                    assert!(
                        message.contains("recursion limit"),
                        "{what}: says why: {message}"
                    );
                }
                other => panic!("{what}: expected a JSON error, got {other:?}"),
            }
        }
    }
}

#[test]
fn deep_schema_value_is_a_depth_limit_error() {
    for (keyword, wrap) in WRAPPERS {
        let schema = deep_schema(100_000, wrap);
        // Definitions are outside ADR-126: refused before their contents are walked.
        assert_depth_limit(
            &schema,
            keyword == "$defs",
            &format!("100,000 levels of `{keyword}`"),
        );
        dismantle(schema);
    }
    // Exactly at the limit parses; one more level does not.
    let at = deep_schema(64, WRAPPERS[0].1);
    assert!(Schema::parse(&at).is_ok(), "64 levels of `items` parse");
    let over = deep_schema(65, WRAPPERS[0].1);
    assert_limit(Schema::parse(&over), Limit::Depth, "65 levels of `items`");
}

#[test]
fn deep_literals_are_depth_limit_errors() {
    for keyword in ["const", "enum", "default", "examples", "example"] {
        let deep = deep_array(100_000);
        let value = if matches!(keyword, "enum" | "examples") {
            Value::Array(vec![deep])
        } else {
            deep
        };
        let mut m = Map::new();
        m.insert("type".into(), json!("array"));
        m.insert(keyword.into(), value);
        let schema = Value::Object(m);
        // `example` (OpenAPI) is an extended-subset keyword: outside ADR-126 anyway.
        assert_depth_limit(
            &schema,
            keyword == "example",
            &format!("a 100,000-deep `{keyword}`"),
        );
        dismantle(schema);
    }
}

#[test]
fn deep_instance_value_validates_without_recursion() {
    let instance = deep_array(100_000);
    let object = deep_object(100_000);
    // Non-recursive schemas stop where the schema stops.
    let s = parse(&json!({"type": "array", "items": {"type": "array"}}));
    assert!(s.is_valid(&instance));
    assert!(s.validate(&instance).is_ok());
    let s = parse(&json!({"type": "array", "items": {"type": "object"}}));
    let e = s
        .validate(&instance)
        .expect_err("[[…]] is not an array of objects");
    assert_eq!(e.errors.len(), 1);
    assert_eq!(e.errors[0].instance_path.as_str(), "/0");
    let s = parse(&json!({"type": "array", "uniqueItems": true}));
    assert!(s.is_valid(&instance), "one item is unique");
    let s = parse(&json!({"enum": [[[[0]]]], "type": "array"}));
    assert!(!s.is_valid(&instance), "deep equality is iterative");
    let s = parse(&json!({"const": {"a": {"a": 0}}}));
    assert!(!s.is_valid(&object));
    // A recursive schema follows the instance down to the evaluation limit, then stops with an
    // error (fail-closed) instead of exhausting the stack.
    let tree = parse_ext(&json!({
        "$defs": {"t": {"type": "array", "items": {"$ref": "#/$defs/t"}}},
        "$ref": "#/$defs/t"
    }));
    assert!(
        !tree.is_valid(&instance),
        "past the evaluation limit: not accepted"
    );
    let e = tree
        .validate(&instance)
        .expect_err("past the evaluation limit");
    assert!(
        e.to_string().contains("validation limit"),
        "the error names the limit: {e}"
    );
    let tree = parse_ext(&json!({
        "$defs": {"t": {"type": ["object", "integer"], "additionalProperties": {"$ref": "#/$defs/t"}}},
        "$ref": "#/$defs/t"
    }));
    assert!(!tree.is_valid(&object));
    assert!(
        tree.is_valid(&deep_object(100)),
        "100 levels are within the limit"
    );
    dismantle(instance);
    dismantle(object);
}

#[test]
fn deep_answer_text_is_a_decode_error() {
    let s = parse(&json!({"type": "array"}));
    let text = deep_text(100_000, "[", "0", "]");
    for l in lower_everywhere(&s) {
        match l.accept(text.as_str()) {
            Err(AcceptError::Decode { line, message, .. }) => {
                assert_eq!(line, 1);
                assert!(message.contains("recursion limit"), "{message}");
            }
            other => panic!("{}: expected a decode error, got {other:?}", l.target()),
        }
    }
    // The Gemini helpers treat it as text that is not JSON.
    let (_, report) =
        gemini_wire::function_call_part_with_report("f", &Value::String(text.clone()));
    assert!(
        report.is_fallback(),
        "deep text is not JSON to Gemini either"
    );
    let (part, encoding) = gemini_wire::function_response_part_with_report("f", &text);
    assert!(encoding.is_fallback());
    assert_eq!(
        part.pointer("/functionResponse/response/result"),
        Some(&Value::String(text)),
        "the text is kept as the result"
    );
}

/// Finding: `Lowering::accept`, `encode` and `lift` cloned the answer with `Value::clone`,
/// which recurses once per level: a 100,000-deep `Value` overflowed the stack.
#[test]
fn deep_answer_value_is_refused_without_overflow() {
    run_child(
        "deep_answer_value_is_refused_without_overflow",
        case_deep_value_accept,
        4096,
    );
}

fn case_deep_value_accept() {
    let deep = deep_array(100_000);
    let object = deep_object(100_000);
    let schemas = [
        parse(&json!({"type": "array"})),
        parse(&json!({"type": "object", "properties": {"a": {"type": "object"}}})),
        parse_ext(&json!({"type": "array", "items": true})),
    ];
    for schema in &schemas {
        for l in lower_everywhere(schema)
            .into_iter()
            .chain(Target::ALL.map(json_mode))
        {
            for value in [&deep, &object] {
                match l.accept(value) {
                    Err(AcceptError::Shape { message, .. }) => {
                        assert!(message.contains("deep"), "says why: {message}")
                    }
                    Err(AcceptError::Invalid(_)) => {}
                    Err(e) => panic!("{}: unexpected error {e}", l.target()),
                    Ok(v) => {
                        dismantle(v);
                        panic!(
                            "{}: a 100,000-deep answer was accepted; answers deeper than the reshaping limit are refused",
                            l.target()
                        );
                    }
                }
                match l.encode(value) {
                    Ok(v) => dismantle(v),
                    Err(e) => assert!(e.to_string().contains("deep"), "says why: {e}"),
                }
                match l.lift(value) {
                    Ok(v) => dismantle(v),
                    Err(e) => assert!(e.to_string().contains("deep"), "says why: {e}"),
                }
            }
        }
    }
    dismantle(deep);
    dismantle(object);
}

/// Finding: the Gemini wire helpers cloned argument values with the recursive `Value::clone`.
#[test]
fn deep_values_through_the_gemini_wire_helpers() {
    run_child(
        "deep_values_through_the_gemini_wire_helpers",
        case_deep_value_gemini_wire,
        4096,
    );
}

fn case_deep_value_gemini_wire() {
    let list = deep_array(100_000);
    let object = deep_object(100_000);
    let root = gemini_wire::struct_root(&list);
    assert_eq!(root.len(), 1, "a one-item list becomes {{\"0\": …}}");
    dismantle(Value::Object(root));
    let root = gemini_wire::struct_root(&object);
    assert!(root.contains_key("a"));
    dismantle(Value::Object(root));
    let (part, report) = gemini_wire::function_call_part_with_report("f", &object);
    assert!(!report.is_fallback());
    let replayed = gemini_wire::replay_part(&part);
    dismantle(part);
    dismantle(replayed);
    let mut response = Map::new();
    response.insert("response".into(), list);
    let mut part = Map::new();
    part.insert("functionResponse".into(), Value::Object(response));
    let part = Value::Object(part);
    let replayed = gemini_wire::replay_part(&part);
    assert!(replayed
        .pointer("/functionResponse/response/0")
        .is_some_and(Value::is_array));
    dismantle(replayed);
    dismantle(part);
    dismantle(object);
}

/// Every entry point on 100,000-deep built values in one run, as a caller might chain them.
#[test]
fn deep_values_everywhere() {
    run_child("deep_values_everywhere", case_deep_value_everything, 4096);
}

fn case_deep_value_everything() {
    let schema = deep_schema(100_000, WRAPPERS[0].1);
    for options in both_subsets() {
        assert!(Schema::parse_with(&schema, &options).is_err());
        let tight = options.with_limits(Limits::default().with_max_depth(100_000_000));
        // Raising the depth limit past what the stack can take is the caller's choice; the
        // node budget still stops the walk long before that here.
        let tight = tight.with_limits(
            Limits::default()
                .with_max_depth(100_000_000)
                .with_max_nodes(2_000),
        );
        assert_limit(
            Schema::parse_with(&schema, &tight),
            Limit::Nodes,
            "100,000 levels with 2,000 nodes allowed",
        );
    }
    dismantle(schema);
    let s = parse(&json!({"type": ["array", "object"], "items": {"type": "array"}}));
    for v in [deep_array(100_000), deep_object(100_000)] {
        let _ = s.is_valid(&v);
        let _ = s.validate(&v);
        dismantle(v);
    }
}

// ---------------------------------------------------------------------------------------------
// Width: a 1,000,000-value enum, 100,000 properties
// ---------------------------------------------------------------------------------------------

#[test]
fn million_value_enum() {
    run_child("million_value_enum", case_enum_1m, 8192);
    let values: Vec<Value> = (0..1_000_000).map(|i| json!(format!("v{i}"))).collect();
    let schema = json!({"type": "string", "enum": values});
    for options in both_subsets() {
        assert_limit(
            Schema::parse_with(&schema, &options),
            Limit::EnumValues,
            "a 1,000,000-value enum",
        );
    }
}

fn case_enum_1m() {
    let values: Vec<Value> = (0..1_000_000).map(|i| json!(format!("v{i}"))).collect();
    let schema = json!({"type": "string", "enum": values});
    let raised =
        ParseOptions::default().with_limits(Limits::default().with_max_enum_values(1_000_000));
    let t = Instant::now();
    let s = Schema::parse_with(&schema, &raised).expect("parses with the limit raised");
    println!("parse: {:.2?}", t.elapsed());
    let t = Instant::now();
    for i in (0..1_000_000).step_by(997) {
        assert!(s.is_valid(&json!(format!("v{i}"))), "v{i} is a member");
    }
    assert!(!s.is_valid(&json!("v1000000")));
    assert!(!s.is_valid(&json!(1)));
    println!("1,004 membership checks: {:.2?}", t.elapsed());
    let t = Instant::now();
    for l in lower_everywhere(&s) {
        assert!(
            l.accept(wire_text(&l, "\"v999999\"").as_str()).is_ok(),
            "{}",
            l.target()
        );
        assert!(
            l.accept(wire_text(&l, "\"nope\"").as_str()).is_err(),
            "{}",
            l.target()
        );
    }
    println!("lower × 18 and accept: {:.2?}", t.elapsed());
}

#[test]
fn hundred_thousand_properties() {
    run_child("hundred_thousand_properties", case_properties_100k, 8192);
    let props: Map<String, Value> = (0..100_000)
        .map(|i| (format!("p{i}"), json!({"type": "integer"})))
        .collect();
    let schema = json!({"type": "object", "properties": props});
    for options in both_subsets() {
        let e = Schema::parse_with(&schema, &options).expect_err("over the node limit");
        assert_eq!(
            limit_violations(&e),
            vec![Limit::Nodes],
            "the node limit is reported once, not 50,001 times"
        );
    }
}

fn case_properties_100k() {
    let names: Vec<String> = (0..100_000).map(|i| format!("p{i}")).collect();
    let props: Map<String, Value> = names
        .iter()
        .map(|n| (n.clone(), json!({"type": "integer"})))
        .collect();
    let schema = json!({
        "type": "object",
        "properties": props,
        "required": names,
        "additionalProperties": false
    });
    let raised = ParseOptions::default().with_limits(Limits::default().with_max_nodes(200_000));
    let t = Instant::now();
    let s = Schema::parse_with(&schema, &raised).expect("parses with the node limit raised");
    println!("parse: {:.2?}", t.elapsed());
    let good: Map<String, Value> = names.iter().map(|n| (n.clone(), json!(1))).collect();
    let mut bad = good.clone();
    bad.insert("p77".into(), json!("x"));
    bad.insert("extra".into(), json!(1));
    let (good, bad) = (Value::Object(good), Value::Object(bad));
    let t = Instant::now();
    assert!(s.is_valid(&good));
    let e = s.validate(&bad).expect_err("two bad members");
    assert_eq!(e.errors.len(), 2, "{e}");
    println!("validate: {:.2?}", t.elapsed());
    let t = Instant::now();
    for l in lower_everywhere(&s) {
        assert!(l.accept(&good).is_ok(), "{}", l.target());
        assert!(l.accept(&bad).is_err(), "{}", l.target());
    }
    println!("lower × 18 and accept: {:.2?}", t.elapsed());
    // Open, with every other property required: what the dialects look up per property
    // (required names, names declared beside) is hashed, never scanned (once quadratic:
    // 25 s for `gemini` and the reshaping profile).
    let half: Vec<&String> = names.iter().step_by(2).collect();
    let open = json!({"type": "object", "properties": schema["properties"], "required": half});
    let s = Schema::parse_with(&open, &raised).expect("parses with the node limit raised");
    let t = Instant::now();
    for l in lower_everywhere(&s) {
        assert!(
            l.accept(wire_text(&l, &good.to_string()).as_str()).is_ok(),
            "{}",
            l.target()
        );
    }
    println!(
        "open, half required: lower × 18 and accept: {:.2?}",
        t.elapsed()
    );
}

#[test]
fn long_unions_lower_in_bounded_time() {
    // Reshaping checks union branches pairwise (are they told apart on the wire?): bounded
    // by `MAX_UNION_PAIRS`, past which the union is sent as the source has it.
    for n in [1_000, 5_000] {
        let branches: Vec<Value> = (0..n)
            .map(|i| {
                json!({"type": "object", "properties": {"kind": {"enum": [format!("k{i}"), format!("K{i}")]}, format!("v{i}"): {"type": "integer"}}, "required": ["kind"]})
            })
            .collect();
        let schema = json!({"type": "object", "properties": {"x": {"anyOf": branches}}, "required": ["x"], "additionalProperties": false});
        let s = parse(&schema);
        let answer = json!({"x": {"kind": format!("K{}", n - 1), format!("v{}", n - 1): 3}});
        let t = Instant::now();
        for l in lower_everywhere(&s) {
            assert!(
                l.accept(wire_text(&l, &answer.to_string()).as_str())
                    .is_ok(),
                "{}",
                l.target()
            );
        }
        println!(
            "anyOf of {n} object branches: lower × 18 and accept: {:.2?}",
            t.elapsed()
        );
    }
}

/// Finding: `required` was checked for duplicates pairwise, quadratic in its length; 100,000
/// names took minutes.
#[test]
fn long_required_list_parses_and_lowers() {
    let names: Vec<Value> = (0..100_000).map(|i| json!(format!("p{i}"))).collect();
    let t = Instant::now();
    let s = parse(&json!({"type": "object", "required": names}));
    println!("parse, 100,000 required names: {:.2?}", t.elapsed());
    assert!(!s.is_valid(&json!({"p0": 1})));
    let mut dup = names.clone();
    dup.push(json!("p5"));
    let e = Schema::parse(&json!({"type": "object", "required": dup})).expect_err("duplicate");
    assert!(e.to_string().contains("`p5` is listed twice"), "{e}");
    let t = Instant::now();
    lower_everywhere(&s);
    println!("lower × 18: {:.2?}", t.elapsed());
}

// ---------------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------------

#[test]
fn one_mib_pattern() {
    run_child("one_mib_pattern", case_pattern_1mib, 8192);
    let pattern = "a".repeat(1 << 20);
    let schema = json!({"type": "string", "pattern": pattern});
    for options in both_subsets() {
        assert_limit(
            Schema::parse_with(&schema, &options),
            Limit::PatternLength,
            "a 1 MiB pattern",
        );
    }
}

fn case_pattern_1mib() {
    // With the limit raised, each either compiles or is refused as too large for the engine:
    // never a hang or a crash. Matching costs O(pattern × input) (see
    // `long_patterns_on_long_strings`), so the haystack here is short.
    let raised = Limits::default().with_max_pattern_len(usize::MAX);
    for (what, pattern) in [
        ("literal", "a".repeat(1 << 20)),
        ("classes", "[a-z]".repeat((1 << 20) / 5)),
        ("alternation", "ab|".repeat((1 << 20) / 3)),
        ("groups", "(?:a)".repeat((1 << 20) / 5)),
        (
            "nested groups",
            "(".repeat(100) + &"a".repeat(1 << 20) + &")".repeat(100),
        ),
        ("repetition", "a{1000}".repeat((1 << 20) / 7)),
        (
            "look-aheads",
            format!("^{}a", "(?=a)".repeat((1 << 20) / 5 - 1)),
        ),
    ] {
        let t = Instant::now();
        let schema = json!({"type": "string", "pattern": pattern});
        match Schema::parse_with(&schema, &ParseOptions::default().with_limits(raised)) {
            Ok(s) => {
                let _ = s.is_valid(&json!("a".repeat(1 << 10)));
                println!("{what}: compiled and matched in {:.2?}", t.elapsed());
            }
            Err(e) => {
                assert!(
                    e.violations.iter().all(|v| matches!(
                        v.kind,
                        ViolationKind::Pattern(
                            PatternError::TooComplex { .. }
                                | PatternError::TooCostly { .. }
                                | PatternError::TooDeep { .. }
                        )
                    )),
                    "{what}: only a size or nesting refusal is acceptable: {e}"
                );
                println!(
                    "{what}: refused in {:.2?}: {}",
                    t.elapsed(),
                    e.violations[0]
                );
            }
        }
    }
}

#[test]
fn nested_quantifiers_on_long_inputs_run_in_linear_time() {
    let long_a = "a".repeat(1 << 20);
    for (pattern, input, expected) in [
        ("(a+)+$", format!("{long_a}!"), false),
        ("^(a+)+$", format!("{long_a}!"), false),
        ("^(a+)+$", long_a.clone(), true),
        ("(a|a)*b", long_a.clone(), false),
        ("(a|aa)+$", format!("{long_a}b"), false),
        ("^(a*)*$", format!("{long_a}b"), false),
        ("(.*a){20}", long_a.clone(), true),
        ("^(\\w+\\s?)*$", format!("{long_a}!"), false),
        ("^([a-z]+)*[0-9]$", long_a.clone(), false),
    ] {
        let t = Instant::now();
        let s = parse(&json!({"type": "string", "pattern": pattern}));
        let input = Value::String(input);
        assert_eq!(s.is_valid(&input), expected, "{pattern} on 1 MiB");
        assert_eq!(s.validate(&input).is_ok(), expected, "{pattern} on 1 MiB");
        println!("{pattern} on 1 MiB: {:.2?}", t.elapsed());
    }
    // Look-around and backreferences, which need backtracking, are refused with a reason.
    for pattern in ["(?=a)a", "(a)\\1", "(?<!a)b"] {
        let e = Schema::parse(&json!({"type": "string", "pattern": pattern}))
            .expect_err("needs backtracking");
        assert!(
            e.to_string().contains("linear-time"),
            "{pattern}: says why: {e}"
        );
    }
    match Pattern::compile("(?:(?:a{1000}){1000}){1000}", 4096) {
        Err(PatternError::TooComplex { .. }) => {}
        other => panic!("a repetition that multiplies out is refused: {other:?}"),
    }
}

/// Finding 9: matching is linear in the input but its constant is the size of the compiled
/// pattern when the engine's lazy DFA cache cannot hold the states a string visits: the engine
/// then simulates the NFA at about one step per NFA state per input byte. With the default
/// 2 MiB cache, on 2 MiB of answer strings, 4,000 `a`s then `!` (within the 4,096-character
/// limit) took 121 s; `(?:\p{L}|\p{N}){1,200}!` 63 s; `\p{L}{0,100}b` 14 s. The engine now
/// caches up to `ENGINE_DFA_CACHE` per pattern. Run in a child process, which prints the time.
#[test]
fn long_patterns_on_long_strings() {
    run_child("long_patterns_on_long_strings", case_long_patterns, 4096);
}

fn case_long_patterns() {
    let long_a = Value::String("a".repeat(1 << 20));
    let long_mixed = Value::String("a1".repeat(1 << 19));
    for pattern in [
        "a".repeat(4_000) + "!",
        "(?:\\p{L}|\\p{N}){1,200}!".to_owned(),
        "\\p{L}{0,100}b".to_owned(),
        "[a-z]{0,1000}!".to_owned(),
        "(?:a|b|c|\\p{N}){0,500}z".to_owned(),
    ] {
        let t = Instant::now();
        let s = match Schema::parse(&json!({"type": "string", "pattern": pattern})) {
            Ok(s) => s,
            Err(e) => {
                // Too large for the work budget to match even a short string on the
                // engine's slowest path: refused when parsed.
                assert!(
                    e.violations.iter().all(|v| matches!(
                        v.kind,
                        ViolationKind::Pattern(PatternError::TooCostly { .. })
                    )),
                    "{pattern:.30}: {e}"
                );
                println!("{pattern:.30}: refused when parsed: {}", e.violations[0]);
                continue;
            }
        };
        assert!(!s.is_valid(&long_a), "{pattern:.30} on 1 MiB of `a`");
        assert!(!s.is_valid(&long_mixed), "{pattern:.30} on 1 MiB of `a1`");
        assert!(s.validate(&long_a).is_err());
        println!("{pattern:.30}: {:.2?} for 3 × 1 MiB", t.elapsed());
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

#[test]
fn number_out_of_range_is_a_json_error() {
    for text in [
        r#"{"type": "number", "maximum": 1e400}"#,
        r#"{"const": -1e400}"#,
    ] {
        match Schema::from_json_str(text, &ParseOptions::default()) {
            Err(Error::Json { message, .. }) => {
                assert!(message.contains("number out of range"), "{message}")
            }
            other => panic!("{text}: expected a JSON error, got {other:?}"),
        }
    }
    let s = parse(&json!({"type": "number"}));
    for l in lower_everywhere(&s) {
        match l.accept("1e400") {
            Err(AcceptError::Decode { message, .. }) => {
                assert!(message.contains("number out of range"), "{message}")
            }
            other => panic!("{}: expected a decode error, got {other:?}", l.target()),
        }
    }
    // 1e308 is a finite double and an integer by value.
    assert!(parse(&json!({"type": "integer"})).is_valid(&json!(1e308)));
}

/// Finding (fuzzer, `lower` target): serde_json's default float parsing is not correctly
/// rounded, so two spellings of one decimal number could read as different doubles
/// (`922.372036854776000` and `922.372036854776`, one ulp apart): an answer equal to a bound or
/// a `const` was rejected, and a wire fragment did not survive a JSON round trip.
#[test]
fn decimal_spellings_of_one_number_are_equal() {
    let parsed = |text: &str| serde_json::from_str::<Value>(text).expect("JSON");
    for (a, b) in [
        ("922.372036854776000", "922.372036854776"),
        ("0.1000000000000000055511151231257827", "0.1"),
        ("9007199254740993.0", "9007199254740992.0"),
        ("1e23", "100000000000000000000000"),
    ] {
        assert_eq!(parsed(a), parsed(b), "{a} and {b} are the same double");
        let s = Schema::from_json_str(
            &format!(r#"{{"type": "number", "maximum": {a}, "enum": [{a}]}}"#),
            &ParseOptions::default(),
        )
        .expect("a schema");
        for l in lower_everywhere(&s) {
            assert!(
                l.accept(wire_text(&l, b).as_str()).is_ok(),
                "{}: {b} equals the bound {a}",
                l.target()
            );
            let text = serde_json::to_string(l.wire()).expect("serialises");
            assert_eq!(
                &parsed(&text),
                l.wire(),
                "{}: the wire survives JSON text",
                l.target()
            );
        }
    }
    // The fuzzer's input, kept as it was found.
    let found = std::fs::read_to_string(
        support::workspace_root().join("tests/regressions/lower-float-roundtrip.json"),
    )
    .expect("the regression input");
    for options in both_subsets() {
        let Ok(s) = Schema::from_json_str(&found, &options) else {
            continue;
        };
        for l in lower_everywhere(&s) {
            let text = serde_json::to_string(l.wire()).expect("serialises");
            assert_eq!(
                &parsed(&text),
                l.wire(),
                "{}: the wire survives JSON text",
                l.target()
            );
        }
    }
}

#[test]
fn negative_zero_is_zero() {
    let minus_zero: Value = serde_json::from_str("-0").expect("-0 is JSON");
    let minus_zero_float: Value = serde_json::from_str("-0.0").expect("-0.0 is JSON");
    for z in [&minus_zero, &minus_zero_float] {
        assert!(
            parse(&json!({"type": "integer"})).is_valid(z),
            "{z} is an integer"
        );
        assert!(parse(&json!({"const": 0})).is_valid(z), "{z} equals 0");
        assert!(
            parse(&json!({"enum": [0, 1]})).is_valid(z),
            "{z} is in [0, 1]"
        );
        assert!(parse(&json!({"type": "number", "minimum": 0})).is_valid(z));
        assert!(parse(&json!({"type": "number", "maximum": 0})).is_valid(z));
        assert!(!parse(&json!({"type": "number", "exclusiveMinimum": 0})).is_valid(z));
        assert!(parse(&json!({"type": "integer", "multipleOf": 7})).is_valid(z));
        assert!(
            !parse(&json!({"type": "array", "uniqueItems": true})).is_valid(&json!([0, z])),
            "0 and {z} are the same value"
        );
    }
    let s: Value = serde_json::from_str(r#"{"type": "number", "minimum": -0.0}"#).expect("JSON");
    let s = parse(&s);
    assert!(s.is_valid(&json!(0)));
    assert!(!s.is_valid(&json!(-1e-300)));
}

#[test]
fn integers_beyond_u64_and_i64() {
    // 2^64 and -2^63-1 do not fit u64/i64: serde_json reads them as doubles (no precision
    // beyond 53 bits). Comparisons stay exact on what was read.
    let two_64: Value = serde_json::from_str("18446744073709551616").expect("JSON");
    // -2^63 - 2048: the first double below i64::MIN (-2^63 - 1 itself reads as -2^63).
    let below_i64: Value = serde_json::from_str("-9223372036854777856").expect("JSON");
    let huge: Value = serde_json::from_str(&format!("1{}", "0".repeat(300))).expect("JSON");
    let int = parse(&json!({"type": "integer"}));
    for v in [&two_64, &below_i64, &huge] {
        assert!(int.is_valid(v), "{v} is an integer by value");
    }
    let max = parse(&json!({"type": "integer", "maximum": u64::MAX}));
    assert!(max.is_valid(&json!(u64::MAX)));
    assert!(!max.is_valid(&two_64), "2^64 > u64::MAX, compared exactly");
    let min = parse(&json!({"type": "integer", "minimum": i64::MIN}));
    assert!(min.is_valid(&json!(i64::MIN)));
    assert!(!min.is_valid(&below_i64), "-2^63 - 2048 < i64::MIN");
    let multiple = parse(&json!({"type": "integer", "multipleOf": 3}));
    assert!(!multiple.is_valid(&two_64), "2^64 mod 3 = 1");
    assert!(
        multiple.is_valid(&json!(u64::MAX)),
        "u64::MAX = 3 · 6148914691236517205"
    );
    assert!(
        parse(&json!({"multipleOf": 1024})).is_valid(&huge),
        "10^300 as a double"
    );
    // As a count (`maxLength` …) it is not an exact u64: refused with the value.
    let e = Schema::from_json_str(
        r#"{"type": "string", "maxLength": 18446744073709551616}"#,
        &ParseOptions::default(),
    )
    .expect_err("not a u64");
    assert!(e.to_string().contains("maxLength"), "{e}");
    // Precision is what a double has: documented, not an error.
    let a: Value = serde_json::from_str("18446744073709551617").expect("JSON");
    assert!(
        parse(&json!({"const": two_64})).is_valid(&a),
        "2^64 + 1 reads as 2^64 (53-bit doubles); see docs/security.md"
    );
    for l in lower_everywhere(&int) {
        assert!(
            l.accept(wire_text(&l, "18446744073709551616").as_str())
                .is_ok(),
            "{}",
            l.target()
        );
        assert!(
            l.accept(wire_text(&l, "-9223372036854775809").as_str())
                .is_ok(),
            "{}",
            l.target()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Duplicate keys, encodings
// ---------------------------------------------------------------------------------------------

#[test]
fn duplicate_keys_last_one_wins() {
    // In a schema: the last `type` wins, at the position of the first.
    let s = Schema::from_json_str(
        r#"{"type": "string", "minimum": 1, "type": "integer"}"#,
        &ParseOptions::default(),
    )
    .expect("duplicate keys are not an error");
    assert!(s.is_valid(&json!(3)));
    assert!(!s.is_valid(&json!("x")));
    assert!(!s.is_valid(&json!(0)));
    // In an answer: the last value is the one validated and returned.
    let s = parse(&json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": false
    }));
    for l in lower_everywhere(&s) {
        match l.accept(r#"{"a": "smuggled", "a": 1}"#) {
            Ok(v) => assert_eq!(v, json!({"a": 1}), "{}", l.target()),
            Err(e) => panic!("{}: {e}", l.target()),
        }
        assert!(
            l.accept(r#"{"a": 1, "a": "smuggled"}"#).is_err(),
            "{}: the last value is validated",
            l.target()
        );
    }
}

#[test]
fn invalid_unicode_is_a_json_error() {
    // The library takes `&str`: bytes that are not UTF-8 cannot reach it; the caller's
    // conversion fails first, with the byte offset.
    let mut bytes = br#"{"type": "string", "pattern": ""#.to_vec();
    let valid = bytes.len();
    bytes.extend([0xff, 0xfe, b'"', b'}']);
    let e = std::str::from_utf8(&bytes).expect_err("not UTF-8");
    assert_eq!(e.valid_up_to(), valid, "the error gives the byte offset");
    // The JSON-level equivalent, a lone surrogate escape, is a JSON error with a position.
    for text in [
        r#"{"type": "string", "const": "\ud800"}"#,
        r#"{"type": "string", "pattern": "\udc00+"}"#,
    ] {
        match Schema::from_json_str(text, &ParseOptions::default()) {
            Err(Error::Json { message, .. }) => {
                assert!(
                    message.contains("surrogate") || message.contains("escape"),
                    "says why: {message}"
                )
            }
            other => panic!("{text}: expected a JSON error, got {other:?}"),
        }
    }
    let s = parse(&json!({"type": "string"}));
    for l in lower_everywhere(&s) {
        assert!(
            matches!(l.accept(r#""\udfff""#), Err(AcceptError::Decode { .. })),
            "{}",
            l.target()
        );
    }
    // Control characters and NUL inside strings are data, escaped on the way out.
    let s = parse(&json!({"type": "string", "maxLength": 3}));
    assert!(s.is_valid(&json!("\u{0}\u{1}\u{7f}")));
}

// ---------------------------------------------------------------------------------------------
// A 100 MiB answer
// ---------------------------------------------------------------------------------------------

/// `accept` on 100 MiB of JSON text completes in bounded memory: no answer-size limit is
/// needed for correctness (the caller bounds what it reads; see docs/security.md).
#[test]
fn hundred_mib_answer() {
    let run = run_child("hundred_mib_answer", case_answer_100mib, 8192);
    assert!(run.stdout.contains("accepted"), "{}", run.stdout);
    if run.peak_kib > 0 {
        // Text (100 MiB) + decoded value + lifted copy, with allocator slack: a generous bound
        // that a quadratic or leaking path would still exceed.
        assert!(
            run.peak_kib < 2 * 1024 * 1024,
            "peak {} KiB for a 100 MiB answer",
            run.peak_kib
        );
    }
}

fn case_answer_100mib() {
    let item = format!("\"{}\"", "x".repeat(98));
    let count = (100 << 20) / (item.len() + 1);
    let mut text = String::with_capacity(100 << 20);
    text.push('[');
    for i in 0..count {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&item);
    }
    text.push(']');
    println!("answer: {} bytes, {count} items", text.len());
    let s = parse(&json!({"type": "array", "items": {"type": "string", "maxLength": 100}}));
    for (target, profile) in [
        (Target::Ollama, Profile::Conservative),
        (Target::OpenAi, Profile::Reshaping),
    ] {
        let l = s.lower(target, &LowerOptions::default().with_profile(profile));
        let t = Instant::now();
        let v = l
            .accept(wire_text(&l, &text).as_str())
            .expect("a valid 100 MiB answer");
        assert_eq!(v.as_array().map(Vec::len), Some(count));
        println!(
            "{target}/{}: accepted in {:.2?}",
            profile.name(),
            t.elapsed()
        );
        drop(v);
    }
    // Invalid: every item fails; the errors are reported in linear time.
    let bad = parse(&json!({"type": "array", "items": {"type": "string", "maxLength": 10}}));
    let l = bad.lower(Target::Ollama, &LowerOptions::default());
    let t = Instant::now();
    match l.accept(text.as_str()) {
        Err(AcceptError::Invalid(e)) => {
            assert!(!e.errors.is_empty());
            println!(
                "rejected with {} errors in {:.2?}",
                e.errors.len(),
                t.elapsed()
            );
        }
        other => panic!("expected validation errors, got {:?}", other.map(|_| ())),
    }
}

// ---------------------------------------------------------------------------------------------
// Findings: shared references, node limits, amplification
// ---------------------------------------------------------------------------------------------

/// `d0 = anyOf[d1, d1]`, `d1 = anyOf[d2, d2]`, …: a DAG of `levels` definitions whose
/// unfolding has 2^levels paths.
fn reference_dag(levels: usize, combinator: &str, leaf: Value) -> Value {
    let mut defs = Map::new();
    for i in 0..levels {
        let r = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(format!("d{i}"), one(combinator, json!([r, r])));
    }
    defs.insert(format!("d{levels}"), leaf);
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

/// Finding: validation walked a DAG of shared `$ref` targets as a tree, so 60 definitions
/// (180 nodes) took 2^60 steps; `validate` also collected 2^n identical errors.
#[test]
fn shared_references_validate_in_polynomial_time() {
    run_child(
        "shared_references_validate_in_polynomial_time",
        case_reference_dag,
        4096,
    );
}

fn case_reference_dag() {
    for combinator in ["anyOf", "oneOf", "allOf"] {
        let s = parse_ext(&reference_dag(60, combinator, json!({"type": "string"})));
        let t = Instant::now();
        assert!(!s.is_valid(&json!(1)), "{combinator}: 1 is not a string");
        let e = s.validate(&json!(1)).expect_err("1 is not a string");
        assert!(
            e.errors.len() <= 64,
            "{combinator}: {} errors for one failing leaf",
            e.errors.len()
        );
        let valid = s.is_valid(&json!("x"));
        // oneOf over two identical branches never matches exactly one.
        assert_eq!(valid, combinator != "oneOf", "{combinator} on \"x\"");
        println!("{combinator}: validated in {:.2?}", t.elapsed());
        let t = Instant::now();
        for l in lower_everywhere(&s) {
            let _ = l.accept("\"x\"");
            let _ = l.accept("1");
        }
        println!("{combinator}: lowered × 18 in {:.2?}", t.elapsed());
    }
    // Over an instance: each shared target is checked once per instance value.
    let s = parse_ext(&reference_dag(
        40,
        "anyOf",
        json!({"type": "array", "items": {"type": "integer"}}),
    ));
    let items: Vec<Value> = (0..10_000).map(|i| json!(i)).collect();
    assert!(s.is_valid(&Value::Array(items)));
}

/// Finding: in the extended subset, a `true` subschema that met the node limit was dropped
/// without an error, so `"not": true` (nothing is valid) silently became "everything is valid".
#[test]
fn node_limit_never_drops_a_subschema_silently() {
    let tight = extended().with_limits(Limits::default().with_max_nodes(2));
    for schema in [
        json!({"properties": {"a": {}}, "not": true}),
        json!({"properties": {"a": {}}, "anyOf": [true]}),
        json!({"properties": {"a": {}}, "items": true}),
        json!({"properties": {"a": {}}, "$defs": {"t": true}, "$ref": "#/$defs/t"}),
    ] {
        match Schema::parse_with(&schema, &tight) {
            Ok(s) => panic!(
                "{schema}: parsed with {} nodes under a 2-node limit (the full schema has {})",
                s.len(),
                parse_ext(&schema).len()
            ),
            Err(e) => assert_eq!(limit_violations(&e), vec![Limit::Nodes], "{schema}: {e}"),
        }
    }
    let full = parse_ext(&json!({"properties": {"a": {}}, "not": true}));
    assert!(!full.is_valid(&json!(1)), "`not: true` rejects everything");
}

/// Finding 6: every schema node stored its own pointer text, so one long property name above
/// many nodes was copied into each of them (2 GiB here; a 1 MiB name above 50,000 properties
/// would have needed 50 GB). Pointers now share their prefix.
#[test]
fn long_names_above_many_nodes_stay_linear() {
    run_child(
        "long_names_above_many_nodes_stay_linear",
        case_long_names_nodes,
        4096,
    );
}

fn case_long_names_nodes() {
    run_child_amplification(|| {
        let key = "k".repeat(1 << 20);
        let children: Map<String, Value> = (0..2_000)
            .map(|i| (format!("c{i}"), json!({"type": "null"})))
            .collect();
        let schema = json!({"properties": {key.clone(): {"properties": children}}});
        let full = ParseOptions::default().with_subset(Subset::Full);
        for options in both_subsets().into_iter().chain([full]) {
            let s = Schema::parse_with(&schema, &options).expect("parses");
            assert!(s.is_valid(&json!({key.clone(): {"c1": null}})));
            assert!(!s.is_valid(&json!({key.clone(): {"c1": 1}})));
            let e = s
                .validate(&json!({key.clone(): {"c1": 1}}))
                .expect_err("c1 is not null");
            assert_eq!(e.errors.len(), 1);
            let _ = lower_everywhere(&s);
        }
    });
}

/// `[[…[i]…]]`, `depth` levels around `i`.
fn wrapped(i: usize, depth: usize) -> Value {
    let mut v = json!(i);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

/// Finding: values were hashed only down to 24 levels, so values that differ only deeper (text
/// reaches 127) all fell into one hash bucket and `uniqueItems` and `enum` compared them
/// pairwise: 8,000 such items (a 500 KB answer) took 75 s, 100,000 would take hours.
#[test]
fn deep_near_duplicates_stay_near_linear() {
    let items: Vec<Value> = (0..40_000).map(|i| wrapped(i, 30)).collect();
    let unique = parse(&json!({"type": "array", "uniqueItems": true}));
    let t = Instant::now();
    assert!(
        unique.is_valid(&Value::Array(items.clone())),
        "all distinct"
    );
    let mut dup = items.clone();
    dup.push(wrapped(39_999, 30));
    assert!(!unique.is_valid(&Value::Array(dup)), "one duplicate");
    println!("uniqueItems, 40,000 items 30 deep: {:.2?}", t.elapsed());
    let members: Vec<Value> = (0..10_000).map(|i| wrapped(i, 30)).collect();
    let one_of = parse(&json!({"type": "array", "items": {"enum": members}}));
    let answer: Vec<Value> = (0..10_000).rev().map(|i| wrapped(i, 30)).collect();
    let t = Instant::now();
    assert!(one_of.is_valid(&Value::Array(answer)));
    assert!(!one_of.is_valid(&json!([wrapped(10_000, 30)])));
    println!(
        "enum of 10,000 values 30 deep × 10,000 items: {:.2?}",
        t.elapsed()
    );
    // As text, which is what an answer is: 127 levels is as deep as serde_json goes.
    let text = serde_json::to_string(&Value::Array((0..2_000).map(|i| wrapped(i, 120)).collect()))
        .expect("serialises");
    for l in lower_everywhere(&unique) {
        assert!(
            l.accept(wire_text(&l, &text).as_str()).is_ok(),
            "{}",
            l.target()
        );
    }
}

/// Finding: every validation error stores its full instance path, and `validate` recorded
/// every error, so one long member name above many failing items multiplied: a 1 MiB name
/// above 2,000 failing items recorded 2 GiB of paths; a 3 MiB answer could need a terabyte.
#[test]
fn long_names_above_many_errors_stay_linear() {
    run_child(
        "long_names_above_many_errors_stay_linear",
        case_error_amplification,
        4096,
    );
}

fn case_error_amplification() {
    let schema = json!({"additionalProperties": {"items": {"type": "string"}}});
    error_amplification(&parse(&schema));
    let full = ParseOptions::default().with_subset(Subset::Full);
    error_amplification(&Schema::parse_with(&schema, &full).expect("a full-subset schema"));
}

/// [`case_error_amplification`] on one parsed schema (each subset has its own walk).
fn error_amplification(s: &Schema) {
    let before = peak_kib();
    let key = "k".repeat(1 << 20);
    let answer = json!({ key: vec![1; 2_000] });
    let e = s.validate(&answer).expect_err("no item is a string");
    let bytes: usize = e
        .errors
        .iter()
        .map(|e| e.instance_path.as_str().len() + e.message.len())
        .sum();
    println!(
        "{} errors, {bytes} bytes of paths and messages",
        e.errors.len()
    );
    assert!(
        bytes < 8 << 20,
        "{bytes} bytes of errors for a 1 MiB answer"
    );
    let last = e.errors.last().expect("at least one error");
    assert!(
        last.message.contains("omitted"),
        "the last error says that more were omitted: {last}"
    );
    assert!(!s.is_valid(&answer));
    // Many short errors: the count is capped too, and the verdict stays "invalid".
    let many = json!({"a": vec![1; 1_000_000]});
    let e = s.validate(&many).expect_err("no item is a string");
    println!("{} errors for 1,000,000 failing items", e.errors.len());
    assert!(
        e.errors.len() <= 1_001,
        "{} errors recorded",
        e.errors.len()
    );
    let grown = peak_kib().saturating_sub(before);
    println!("peak grew by {} MiB", grown / 1024);
    if before > 0 {
        assert!(grown < 512 * 1024, "peak grew by {} MiB", grown / 1024);
    }
}

/// Finding 8: lowering wrote non-recursive references out in place, literals included, so one
/// large `enum` referenced from many places was copied per reference (5.6 GiB here). Past an
/// output bound the references are now kept: sent once as `$defs` where the provider accepts
/// them, and a weaker mode with a loss naming the bound where it does not.
#[test]
fn one_large_enum_referenced_many_times_stays_linear() {
    run_child(
        "one_large_enum_referenced_many_times_stays_linear",
        case_shared_enum,
        4096,
    );
}

fn case_shared_enum() {
    run_child_amplification(|| {
        let big: Vec<Value> = (0..10_000).map(|i| json!(format!("value-{i}"))).collect();
        let props: Map<String, Value> = (0..2_000)
            .map(|i| (format!("p{i}"), json!({"$ref": "#/$defs/big"})))
            .collect();
        // Closed: an open object this wide goes to Ollama as a free object (llama.cpp's rule
        // for other keys would pass its limits), which would hide the references.
        let source = json!({"$defs": {"big": {"enum": big}}, "type": "object",
            "properties": props, "additionalProperties": false});
        let source_len = source.to_string().len();
        let s = parse_ext(&source);
        for l in lower_everywhere(&s) {
            let wire = serde_json::to_string(l.wire()).expect("serialises");
            assert!(
                wire.len() < 4 * source_len + (1 << 20),
                "{}: {} bytes of wire for a {source_len}-byte schema",
                l.target(),
                wire.len()
            );
            if l.mode() > Mode::Widened {
                for loss in l.losses().iter().filter(|x| x.keyword == "$ref") {
                    assert!(
                        loss.reason.contains("output bound"),
                        "{}: a fallback for the kept references names the bound: {loss:?}",
                        l.target()
                    );
                }
            }
            println!(
                "{} ({:?}): {} bytes of wire",
                l.target(),
                l.mode(),
                wire.len()
            );
            let answer = json!({"p0": "value-7", "p1999": "value-9999"});
            assert!(l
                .accept(wire_text(&l, &answer.to_string()).as_str())
                .is_ok());
            let wrong = json!({"p0": "value-10000"});
            assert!(l
                .accept(wire_text(&l, &wrong.to_string()).as_str())
                .is_err());
        }
        let ollama = s.lower(Target::Ollama, &LowerOptions::default());
        assert!(ollama.mode() <= Mode::Widened, "{:?}", ollama.losses());
        assert!(
            serde_json::to_string(ollama.wire()).is_ok_and(|t| t.contains("$defs")),
            "Ollama receives the shared definition once, as `$defs`"
        );
    });
}

/// Runs `f` in this process and fails when its allocations grew the peak resident set by more
/// than 512 MiB (each case above has inputs of about 1 MiB; 2,000 copies of it are 2 GiB).
fn run_child_amplification(f: impl FnOnce()) {
    let before = peak_kib();
    f();
    let after = peak_kib();
    assert!(
        after.saturating_sub(before) < 512 * 1024,
        "peak resident memory grew by {} MiB for about 1 MiB of input",
        after.saturating_sub(before) / 1024
    );
}

fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// The work budget: the `full` subset's applicators, unions over big instances, DFA-busting
// patterns. Each case ends in the right verdict or in a refusal that names the budget; the
// children run under the 1 GiB target (address space capped at 2 GiB: the engines reserve
// more than they touch) and the parent checks the peak resident set against it.
// ---------------------------------------------------------------------------------------------

fn full_subset() -> ParseOptions {
    ParseOptions::default().with_subset(Subset::Full)
}

fn parse_full(v: &Value) -> Schema {
    Schema::parse_with(v, &full_subset())
        .unwrap_or_else(|e| panic!("the schema should parse in the full subset: {e}"))
}

/// Runs a budget case in a child process (see [`run_child`]) and checks the 1 GiB peak target.
fn run_budget_child(test: &str, case: fn()) {
    let run = run_child(test, case, 2048);
    assert!(
        run.peak_kib < 1024 * 1024,
        "{test}: peak resident memory {} MiB, over the 1 GiB target",
        run.peak_kib / 1024
    );
}

/// How one validation ended under the default budget.
#[derive(Debug, PartialEq)]
enum Judged {
    Valid,
    Invalid,
    /// Refused by the work budget, which had this many steps.
    OutOfWork(u64),
}

/// Validates `instance` every way (`is_valid`, `validate`, `accept` through a lowering) and
/// checks that they agree: the verdict, or a refusal by the work budget that says which
/// operation ran out, how many steps it had and how to raise it. Prints the time, and for a
/// refusal the time per step of the budget.
fn judge(s: &Schema, instance: &Value, what: &str) -> Judged {
    let t = Instant::now();
    let quick = s.is_valid(instance);
    let quick_time = t.elapsed();
    let t = Instant::now();
    let full = s.validate(instance);
    let full_time = t.elapsed();
    let work_error = full
        .as_ref()
        .err()
        .and_then(|e| e.errors.iter().find(|e| e.is_work_limit()).cloned());
    let plan = s.lower(Target::Ollama, &LowerOptions::default());
    let t = Instant::now();
    let accepted = plan.accept(instance);
    let accept_time = t.elapsed();
    let verdict = match (&accepted, &work_error) {
        (Err(AcceptError::Work(e)), Some(v)) => {
            assert!(!quick, "{what}: is_valid accepts what ran out of budget");
            assert!(
                v.message.starts_with("validation stopped after")
                    && v.message.contains("Limits::with_work_per_byte"),
                "{what}: the validation error names the operation and the knob: {}",
                v.message
            );
            let text = e.to_string();
            assert!(
                text.starts_with("accepting the answer stopped after")
                    && text.contains(&e.budget.to_string())
                    && text.contains("--work-per-byte"),
                "{what}: the accept error names the operation, the count and the knob: {text}"
            );
            let slowest = quick_time.max(full_time).max(accept_time);
            println!(
                "{what}: refused by the budget ({} steps for {} bytes): is_valid {quick_time:.2?}, validate {full_time:.2?}, accept {accept_time:.2?} (slowest {:.1} ns per step of the budget); at {} (schema {})",
                e.budget,
                e.input_bytes,
                slowest.as_nanos() as f64 / e.budget as f64,
                v.instance_path,
                v.schema_path,
            );
            Judged::OutOfWork(e.budget)
        }
        (Ok(v), None) => {
            assert!(quick, "{what}: accepted, but is_valid disagrees");
            assert!(full.is_ok(), "{what}: accepted, but validate disagrees");
            assert_eq!(v, instance, "{what}: accept returns the answer");
            println!("{what}: valid in is_valid {quick_time:.2?}, validate {full_time:.2?}, accept {accept_time:.2?}");
            Judged::Valid
        }
        // Too deep for the answer lens (256 levels): not accepted, as the validators say.
        (Err(AcceptError::Invalid(_) | AcceptError::Shape { .. }), None) => {
            assert!(!quick, "{what}: rejected, but is_valid accepts");
            assert!(full.is_err(), "{what}: rejected, but validate accepts");
            println!("{what}: invalid in is_valid {quick_time:.2?}, validate {full_time:.2?}, accept {accept_time:.2?}");
            Judged::Invalid
        }
        (a, v) => panic!("{what}: the entry points disagree: accept {a:?}, validate's work error {v:?}, is_valid {quick}"),
    };
    verdict
}

/// Lowers `s` for every target and profile: each lowering either stays within the budget or
/// falls back to prompt mode with a loss that names the budget.
fn lower_within_budget(s: &Schema, what: &str) {
    let t = Instant::now();
    let mut refused = 0;
    for l in lower_everywhere(s) {
        if l.losses().iter().any(|x| x.reason.contains("work budget")) {
            assert_eq!(l.mode(), Mode::Prompt, "{what}: {}", l.target());
            refused += 1;
        }
    }
    println!(
        "{what}: 18 lowerings in {:.2?} ({refused} past the budget)",
        t.elapsed()
    );
}

/// Every operation runs out the same way under a budget the caller sets: a typed error that
/// names the operation, the count and the knob, never a panic or a partial result.
#[test]
fn every_operation_refuses_past_a_caller_set_budget() {
    let tight = Limits::default().with_work_floor(200).with_work_per_byte(0);
    let props: Map<String, Value> = (0..100)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "array", "items": {"type": "integer", "minimum": 0}}),
            )
        })
        .collect();
    let schema = json!({"type": "object", "properties": props, "additionalProperties": false});
    // Parse: a `Work` violation; the schema is refused.
    let e = Schema::parse_with(&schema, &ParseOptions::default().with_limits(tight))
        .expect_err("200 steps do not parse 201 nodes");
    let v = e
        .violations
        .iter()
        .find_map(|v| match &v.kind {
            ViolationKind::Work(w) => Some(w),
            _ => None,
        })
        .expect("a work violation");
    assert_eq!((v.operation, v.budget), (Operation::Parse, 200));
    assert!(
        e.to_string()
            .contains("parsing the schema stopped after 200 steps"),
        "{e}"
    );
    // The rest: a schema parsed with room to parse, but not to validate, lower or accept.
    let room = Limits::default()
        .with_work_floor(4_000)
        .with_work_per_byte(0);
    let s = Schema::parse_with(&schema, &ParseOptions::default().with_limits(room))
        .expect("4,000 steps parse 201 nodes");
    let instance = Value::Object(
        (0..100)
            .map(|i| {
                (
                    format!("p{i}"),
                    Value::Array((0..50).map(|j| json!(j)).collect()),
                )
            })
            .collect(),
    );
    let small = json!({"p1": [1]});
    assert!(
        s.is_valid(&small) && s.validate(&small).is_ok(),
        "small enough"
    );
    // 100 arrays of 50 items take about 10,000 steps; at 0 per byte, counting the instance's
    // bytes adds nothing, so the validation is refused.
    assert!(!s.is_valid(&instance));
    let errors = s.validate(&instance).expect_err("refused");
    let last = errors.errors.last().expect("an error");
    assert!(last.is_work_limit(), "{last}");
    assert!(
        last.message
            .starts_with("validation stopped after 4000 steps"),
        "{}",
        last.message
    );
    // Lowering tries the conservative and the reshaped form: together past 4,000 steps.
    let reshaping = LowerOptions::default().with_profile(Profile::Reshaping);
    let lowered = s.lower(Target::OpenAi, &reshaping);
    assert_eq!(lowered.mode(), Mode::Prompt);
    assert!(
        lowered
            .losses()
            .iter()
            .any(|l| l.reason.starts_with("lowering stopped after 4000 steps")),
        "{:?}",
        lowered.losses()
    );
    let plan = s.lower(Target::Ollama, &LowerOptions::default());
    match plan.accept(instance.to_string().as_str()) {
        Err(AcceptError::Work(w)) => {
            assert_eq!(w.operation, Operation::Accept);
            assert!(w.to_string().contains("Limits::with_work_per_byte"), "{w}");
        }
        other => panic!("expected a work error, got {other:?}"),
    }
    // Reshaping an answer (encode, lift): one step per value.
    let one = Schema::parse_with(
        &json!({"type": "object", "properties": {"p": {"type": "array", "items": {"type": "integer"}}}}),
        &ParseOptions::default().with_limits(room),
    )
    .expect("parses");
    let reshaped = one.lower(Target::OpenAi, &reshaping);
    assert!(reshaped.is_reshaped(), "{:?}", reshaped.losses());
    let long = json!({"p": (0..200_000).collect::<Vec<_>>()});
    assert!(matches!(reshaped.encode(&long), Err(AcceptError::Work(_))));
    assert!(matches!(reshaped.lift(&long), Err(AcceptError::Work(_))));
    assert!(matches!(
        reshaped.accept(long.to_string().as_str()),
        Err(AcceptError::Work(_))
    ));
    assert_eq!(
        reshaped.accept(r#"{"p": [1, 2]}"#).ok(),
        Some(json!({"p": [1, 2]}))
    );
}

/// `patternProperties` over many members: every member name is matched against every pattern.
#[test]
fn full_subset_pattern_properties_over_many_members() {
    run_budget_child(
        "full_subset_pattern_properties_over_many_members",
        case_full_pattern_properties,
    );
}

fn case_full_pattern_properties() {
    let patterns = |n: usize| -> Map<String, Value> {
        (0..n)
            .map(|i| (format!("^p{i}_"), json!({"type": "null"})))
            .collect()
    };
    let members = |n: usize, patterns: usize| -> Value {
        Value::Object(
            (0..n)
                .map(|j| (format!("p{}_{j}", j % patterns), Value::Null))
                .collect(),
        )
    };
    let s = parse_full(&json!({
        "type": "object",
        "patternProperties": patterns(1_000),
        "additionalProperties": false
    }));
    assert_eq!(
        judge(&s, &members(2_000, 1_000), "1,000 patterns × 2,000 members"),
        Judged::Valid
    );
    let mut wrong = members(2_000, 1_000);
    wrong["q"] = json!(null);
    assert_eq!(
        judge(
            &s,
            &wrong,
            "1,000 patterns × 2,000 members, one not allowed"
        ),
        Judged::Invalid
    );
    lower_within_budget(&s, "1,000 patterns");
    let s = parse_full(&json!({
        "type": "object",
        "patternProperties": patterns(4_000),
        "additionalProperties": false
    }));
    assert!(matches!(
        judge(
            &s,
            &members(50_000, 4_000),
            "4,000 patterns × 50,000 members"
        ),
        Judged::OutOfWork(_)
    ));
}

/// `unevaluatedProperties` and `unevaluatedItems` over nested `anyOf`: with annotations to
/// collect, every branch of every union is evaluated, so a DAG of shared unions unfolds.
#[test]
fn full_subset_unevaluated_over_nested_unions() {
    run_budget_child(
        "full_subset_unevaluated_over_nested_unions",
        case_full_unevaluated,
    );
}

fn case_full_unevaluated() {
    for (levels, expect_budget) in [(8, false), (40, true)] {
        let mut props = reference_dag(levels, "anyOf", json!({"properties": {"a": true}}));
        props["unevaluatedProperties"] = json!(false);
        let s = parse_full(&props);
        let what = format!("unevaluatedProperties over {levels} levels of shared anyOf");
        match judge(&s, &json!({"a": 1}), &what) {
            Judged::OutOfWork(_) => assert!(expect_budget, "{what}: refused"),
            verdict => {
                assert!(!expect_budget, "{what}: {verdict:?}, expected a refusal");
                assert_eq!(verdict, Judged::Valid);
                assert_eq!(judge(&s, &json!({"a": 1, "b": 2}), &what), Judged::Invalid);
            }
        }
        lower_within_budget(&s, &what);
        let mut items = reference_dag(levels, "anyOf", json!({"prefixItems": [true]}));
        items["unevaluatedItems"] = json!(false);
        let s = parse_full(&items);
        let what = format!("unevaluatedItems over {levels} levels of shared anyOf");
        match judge(&s, &json!([1]), &what) {
            Judged::OutOfWork(_) => assert!(expect_budget, "{what}: refused"),
            verdict => {
                assert!(!expect_budget, "{what}: {verdict:?}, expected a refusal");
                assert_eq!(verdict, Judged::Valid);
                assert_eq!(judge(&s, &json!([1, 2]), &what), Judged::Invalid);
            }
        }
    }
    // Wide instead of deep: 200 branches that each evaluate every member of a big object.
    let branches: Vec<Value> = (0..100)
        .map(|i| json!({"properties": {format!("m{i}"): {"type": "integer"}}, "additionalProperties": {"type": "integer"}}))
        .collect();
    let s = parse_full(&json!({"anyOf": branches, "unevaluatedProperties": false}));
    let big = Value::Object((0..50_000).map(|i| (format!("m{i}"), json!(i))).collect());
    let verdict = judge(
        &s,
        &big,
        "100 anyOf branches × 50,000 members, unevaluatedProperties",
    );
    assert!(verdict == Judged::Valid || matches!(verdict, Judged::OutOfWork(_)));
}

/// `$dynamicRef` chains: every evaluation walks the dynamic scope and its resources' anchors.
#[test]
fn full_subset_dynamic_reference_chains() {
    run_budget_child(
        "full_subset_dynamic_reference_chains",
        case_full_dynamic_ref,
    );
}

fn case_full_dynamic_ref() {
    // The standard recursive shape (a tree whose node schema is extended dynamically).
    let tree = json!({
        "$id": "https://example.com/tree",
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$dynamicRef": "#node"}}}
    });
    let s = parse_full(&tree);
    // Within the walk's nesting cap, then past it (refused, not overflowed).
    let mut deep = json!({});
    for _ in 0..50 {
        deep = json!({"children": [deep]});
    }
    assert_eq!(judge(&s, &deep, "a tree 50 levels deep"), Judged::Valid);
    for _ in 0..950 {
        deep = json!({"children": [deep]});
    }
    assert_eq!(
        judge(&s, &deep, "a tree 1,000 levels deep"),
        Judged::Invalid
    );
    dismantle(deep);
    let wide =
        json!({"children": (0..100_000).map(|_| json!({"children": []})).collect::<Vec<_>>()});
    assert_eq!(judge(&s, &wide, "a tree of 100,000 leaves"), Judged::Valid);
    lower_within_budget(&s, "recursive tree");
    // Many anchors in the resource, one dynamic reference per item: each evaluation scans them.
    let mut defs = Map::new();
    for i in 0..10_000 {
        defs.insert(
            format!("d{i}"),
            json!({"$dynamicAnchor": format!("a{i}"), "type": "integer"}),
        );
    }
    let s = parse_full(&json!({
        "$id": "https://example.com/anchors",
        "$defs": defs,
        "type": "array",
        "items": {"$dynamicRef": "#a9999"}
    }));
    let items = Value::Array((0..20_000).map(|i| json!(i)).collect());
    let verdict = judge(&s, &items, "10,000 dynamic anchors × 20,000 items");
    assert!(verdict == Judged::Valid || matches!(verdict, Judged::OutOfWork(_)));
    lower_within_budget(&s, "10,000 dynamic anchors");
}

/// `contains` over big arrays, alone and under a wide union.
#[test]
fn full_subset_contains_over_big_arrays() {
    run_budget_child("full_subset_contains_over_big_arrays", case_full_contains);
}

fn case_full_contains() {
    let s = parse_full(&json!({
        "type": "array",
        "contains": {"type": "string", "pattern": "^x+$"},
        "minContains": 2
    }));
    let ints = Value::Array((0..1_000_000).map(|i| json!(i)).collect());
    assert_eq!(
        judge(&s, &ints, "contains over 1,000,000 items"),
        Judged::Invalid
    );
    let mut two = (0..1_000_000).map(|i| json!(i)).collect::<Vec<_>>();
    two.push(json!("xx"));
    two.push(json!("xxx"));
    assert_eq!(
        judge(&s, &Value::Array(two), "contains over 1,000,002 items"),
        Judged::Valid
    );
    let branches: Vec<Value> = (0..1_000)
        .map(|k| json!({"contains": {"const": -1 - k}}))
        .collect();
    let s = parse_full(&json!({"anyOf": branches}));
    let items = Value::Array((0..100_000).map(|i| json!(i)).collect());
    assert!(matches!(
        judge(
            &s,
            &items,
            "1,000 anyOf branches of contains × 100,000 items"
        ),
        Judged::OutOfWork(_)
    ));
    lower_within_budget(&s, "1,000 branches of contains");
}

/// `dependentSchemas`: each present member applies a schema to the whole object.
#[test]
fn full_subset_dependent_schemas() {
    run_budget_child("full_subset_dependent_schemas", case_full_dependent_schemas);
}

fn case_full_dependent_schemas() {
    let deps = |n: usize| -> Map<String, Value> {
        (0..n)
            .map(|i| {
                (
                    format!("k{i}"),
                    json!({"additionalProperties": {"type": "integer"}, "required": [format!("k{i}")]}),
                )
            })
            .collect()
    };
    let object = |n: usize| Value::Object((0..n).map(|i| (format!("k{i}"), json!(i))).collect());
    let s = parse_full(&json!({"type": "object", "dependentSchemas": deps(100)}));
    assert_eq!(
        judge(&s, &object(100), "100 dependent schemas × 100 members"),
        Judged::Valid
    );
    let mut wrong = object(100);
    wrong["k7"] = json!("seven");
    assert_eq!(
        judge(&s, &wrong, "100 dependent schemas, one member wrong"),
        Judged::Invalid
    );
    let s = parse_full(&json!({"type": "object", "dependentSchemas": deps(5_000)}));
    assert!(matches!(
        judge(
            &s,
            &object(5_000),
            "5,000 dependent schemas × 5,000 members"
        ),
        Judged::OutOfWork(_)
    ));
    lower_within_budget(&s, "5,000 dependent schemas");
}

/// `if`/`then`/`else`: nested 60 deep (written out), and shared through references, where
/// each level evaluates the next twice (the condition and a branch).
#[test]
fn full_subset_if_then_else_nesting() {
    run_budget_child("full_subset_if_then_else_nesting", case_full_if_then_else);
}

fn case_full_if_then_else() {
    let mut nested = json!({"type": "integer"});
    for i in 0..60 {
        nested = json!({"if": {"minimum": i}, "then": nested, "else": {"type": "integer"}});
    }
    let s = parse_full(&nested);
    assert_eq!(
        judge(&s, &json!(100), "if/then/else nested 60 deep"),
        Judged::Valid
    );
    assert_eq!(
        judge(&s, &json!("x"), "if/then/else nested 60 deep, a string"),
        Judged::Invalid
    );
    lower_within_budget(&s, "if/then/else nested 60 deep");
    let mut defs = Map::new();
    for i in 0..40 {
        let next = json!({"$ref": format!("#/$defs/x{}", i + 1)});
        defs.insert(
            format!("x{i}"),
            json!({"if": next, "then": next, "else": next}),
        );
    }
    defs.insert("x40".into(), json!({"type": "integer"}));
    let s = parse_full(&json!({"$defs": defs, "$ref": "#/$defs/x0"}));
    assert!(matches!(
        judge(&s, &json!(1), "if/then/else shared 40 deep"),
        Judged::OutOfWork(_)
    ));
    lower_within_budget(&s, "if/then/else shared 40 deep");
}

/// The ADR-126 walk is memoised and linear per (node, value), but a wide union over a big
/// answer is a product: 2,000 branches × 200,000 items.
#[test]
fn unions_over_big_answers_are_bounded_by_the_budget() {
    run_budget_child(
        "unions_over_big_answers_are_bounded_by_the_budget",
        case_budget_subset_walk,
    );
}

fn case_budget_subset_walk() {
    let branches: Vec<Value> = (0..2_000)
        .map(|i| json!({"type": "array", "items": {"type": "integer", "maximum": 1_000_000 + i}, "maxItems": 1_000_000 - i}))
        .collect();
    let s = parse(&json!({"anyOf": branches}));
    let small = Value::Array((0..100).map(|i| json!(i)).collect());
    assert_eq!(
        judge(&s, &small, "2,000 array branches × 100 items"),
        Judged::Valid
    );
    let mut big: Vec<Value> = (0..200_000).map(|i| json!(i)).collect();
    big.push(json!(5_000_000));
    assert!(matches!(
        judge(
            &s,
            &Value::Array(big),
            "2,000 array branches × 200,001 items"
        ),
        Judged::OutOfWork(_)
    ));
    lower_within_budget(&s, "2,000 array branches");
}

/// Patterns whose lazy DFA gives up (a few bytes are enough): the NFA fallback is charged at
/// its worst case before it runs, so a long string is refused by the budget, never matched for
/// minutes; a pattern too large to match even a short string is refused when parsed.
#[test]
fn dfa_busting_patterns_are_refused_or_bounded() {
    run_budget_child(
        "dfa_busting_patterns_are_refused_or_bounded",
        case_dfa_busting_patterns,
    );
}

fn case_dfa_busting_patterns() {
    let random_ab: String = {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..1 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x & 1 == 0 {
                    'a'
                } else {
                    'b'
                }
            })
            .collect()
    };
    let short = json!(format!("{}c", "a".repeat(40)));
    let long = json!(random_ab);
    for (pattern, on_short, on_long) in [
        ("(?:a|b)*a(?:a|b){20}c", Judged::Valid, Judged::Invalid),
        ("a(?:a|b){5000}c", Judged::Invalid, Judged::Invalid),
        (
            &*("a".repeat(4_000) + "!"),
            Judged::Invalid,
            Judged::Invalid,
        ),
        ("\\p{L}{0,100}b", Judged::Invalid, Judged::Valid),
    ] {
        let s = parse(&json!({"type": "string", "pattern": pattern}));
        assert_eq!(
            judge(&s, &short, &format!("{pattern:.30} on 41 bytes")),
            on_short
        );
        // On 1 MiB the verdict, or a refusal when the engine's slow path would cost more
        // than the budget.
        let verdict = judge(&s, &long, &format!("{pattern:.30} on 1 MiB"));
        assert!(
            verdict == on_long || matches!(verdict, Judged::OutOfWork(_)),
            "{pattern:.30} on 1 MiB: {verdict:?}"
        );
    }
    for pattern in ["(?:\\p{L}|\\p{N}){1,200}!", "(?:(?:a{1000}){1000}){1000}"] {
        let e = Schema::parse(&json!({"type": "string", "pattern": pattern}))
            .expect_err("too costly to match");
        assert!(
            e.violations.iter().any(|v| matches!(
                v.kind,
                ViolationKind::Pattern(PatternError::TooCostly { .. })
            )),
            "{pattern}: {e}"
        );
        assert!(e.to_string().contains("Limits::work_floor"), "{e}");
        println!("{pattern}: refused: {}", e.violations[0]);
    }
}

// ---------------------------------------------------------------------------------------------
// Property tests: arbitrary JSON, deep and wide, through every entry point
// ---------------------------------------------------------------------------------------------

fn proptest_cases() -> u32 {
    std::env::var("SCHEMALECT_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Keys that steer arbitrary objects into the schema vocabulary.
const KEYS: &[&str] = &[
    "type",
    "enum",
    "const",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "$ref",
    "$defs",
    "definitions",
    "default",
    "examples",
    "title",
    "description",
    "format",
    "additionalItems",
    "$id",
    "a",
    "b",
    "",
];

/// The keywords only the `full` subset reads, in every draft's spelling (drawn beside [`KEYS`]).
const FULL_ONLY_KEYS: &[&str] = &[
    "id",
    "$schema",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "if",
    "then",
    "else",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedProperties",
    "unevaluatedItems",
];

fn arb_scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        prop_oneof![
            Just("string"),
            Just("integer"),
            Just("number"),
            Just("object"),
            Just("array"),
            Just("null"),
            Just("boolean"),
            Just("#"),
            Just("#/$defs/a"),
            Just("#/properties/a"),
            Just("^a+$"),
            Just("(a+)+$"),
            Just("[\\d-]"),
            Just("\\p{L}"),
            Just("http://json-schema.org/draft-04/schema#"),
            Just("http://json-schema.org/draft-07/schema#"),
            Just("https://json-schema.org/draft/2019-09/schema"),
            Just("https://json-schema.org/draft/2020-12/schema"),
            Just("#a"),
            Just("a"),
            Just("http://example.com/root.json"),
            Just("urn:example:a"),
        ]
        .prop_map(|s| json!(s)),
        "\\PC{0,8}".prop_map(Value::String),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    arb_json_of(&[])
}

/// Arbitrary JSON whose objects take their member names from [`KEYS`] and `more`.
fn arb_json_of(more: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let names = if more.is_empty() {
        prop::sample::select(KEYS).boxed()
    } else {
        prop_oneof![prop::sample::select(KEYS), prop::sample::select(more)].boxed()
    };
    arb_scalar().prop_recursive(6, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((names.clone(), inner), 0..6).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// A value `depth` levels deep through one key or list (deeper than every limit), with an
/// arbitrary leaf, or `width` copies of an arbitrary value side by side.
fn arb_extreme() -> impl Strategy<Value = Value> {
    prop_oneof![
        (
            prop::sample::select(KEYS),
            0usize..3,
            60usize..3_000,
            arb_json()
        )
            .prop_map(|(key, how, depth, leaf)| {
                let mut v = leaf;
                for _ in 0..depth {
                    v = match how {
                        0 => one(key, v),
                        1 => Value::Array(vec![v]),
                        _ => one(key, Value::Array(vec![v])),
                    };
                }
                v
            }),
        (prop::sample::select(KEYS), 100usize..20_000, arb_json()).prop_map(
            |(key, width, item)| {
                if key.is_empty() {
                    Value::Array(vec![item; width])
                } else {
                    let m: Map<String, Value> = (0..width)
                        .map(|i| (format!("{key}{i}"), item.clone()))
                        .collect();
                    one(key, Value::Object(m))
                }
            }
        ),
    ]
}

fn arb_any() -> impl Strategy<Value = Value> {
    prop_oneof![4 => arb_json(), 1 => arb_extreme()]
}

/// Every entry point on one schema document and one instance; only the absence of panics,
/// and the agreement of entry points that must agree, is asserted.
fn exercise(schema: &Value, instance: &Value) {
    exercise_in(&both_subsets(), schema, instance);
}

/// [`exercise`] with the given parse options.
fn exercise_in(subsets: &[ParseOptions], schema: &Value, instance: &Value) {
    let text = serde_json::to_string(schema).expect("serialises");
    let tight = Limits::default()
        .with_max_depth(4)
        .with_max_nodes(6)
        .with_max_enum_values(4)
        .with_max_pattern_len(12);
    for options in subsets.iter().cloned() {
        let from_text = Schema::from_json_str(&text, &options);
        let parsed = Schema::parse_with(schema, &options);
        match (&from_text, &parsed) {
            (Ok(a), Ok(b)) => assert_eq!(a.len(), b.len(), "text and value parse alike"),
            (Err(Error::Json { .. }), _) => {} // deeper than serde_json's 128 levels
            (Err(Error::Subset(_)), Err(_)) => {}
            (a, b) => panic!("text and value disagree: {a:?} / {b:?}"),
        }
        if let Ok(small) = Schema::parse_with(schema, &options.with_limits(tight)) {
            let full = parsed
                .as_ref()
                .expect("what parses under tight limits parses under the defaults");
            assert_eq!(
                small.len(),
                full.len(),
                "a limit never drops part of a schema"
            );
        }
        let Ok(s) = parsed else { continue };
        let quick = s.is_valid(instance);
        assert_eq!(
            s.validate(instance).is_ok(),
            quick,
            "validate and is_valid agree"
        );
        for l in lower_everywhere(&s) {
            if let Ok(v) = l.accept(instance) {
                assert!(
                    s.is_valid(&v),
                    "{}: accepted what the schema rejects",
                    l.target()
                );
            }
            if !l.is_reshaped() {
                if let Ok(answer) = serde_json::to_string(instance) {
                    if serde_json::from_str::<Value>(&answer).is_ok() {
                        assert_eq!(
                            l.accept(answer.as_str()).is_ok(),
                            quick,
                            "{}: accept agrees with is_valid",
                            l.target()
                        );
                    }
                }
            }
            if let Ok(enc) = l.encode(instance) {
                let _ = l.lift(&enc);
            }
            let _ = serde_json::to_string(l.wire()).expect("the wire serialises");
        }
    }
    let _ = gemini_wire::struct_root(instance);
    let part = gemini_wire::function_call_part("f", instance);
    let _ = gemini_wire::replay_part(&part);
    let _ = gemini_wire::replay_part(instance);
    if let Ok(t) = serde_json::to_string(instance) {
        let _ = gemini_wire::function_response_part("f", &t);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: proptest_cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_json_never_panics(schema in arb_any(), instance in arb_any()) {
        exercise(&schema, &instance);
    }

    /// The `full` subset reads any JSON Schema of any draft, so its generator names every
    /// keyword it knows and the drafts' meta-schema URIs.
    #[test]
    fn arbitrary_json_never_panics_in_full(
        schema in arb_json_of(FULL_ONLY_KEYS),
        instance in arb_json_of(FULL_ONLY_KEYS),
    ) {
        exercise_in(&[ParseOptions::default().with_subset(Subset::Full)], &schema, &instance);
    }

    #[test]
    fn arbitrary_schema_text_never_panics(text in "\\PC{0,64}") {
        let full = ParseOptions::default().with_subset(Subset::Full);
        for options in both_subsets().into_iter().chain([full]) {
            if let Ok(s) = Schema::from_json_str(&text, &options) {
                lower_everywhere(&s);
            }
        }
        for l in lower_everywhere(&parse(&json!({"type": "string"}))) {
            let _ = l.accept(text.as_str());
        }
    }
}
