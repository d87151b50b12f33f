//! Fixtures of the benches (`benches/speed.rs`, `benches/memory.rs`): schemas with instances,
//! built the same way for every bench so that the speed and memory figures speak about the same
//! inputs.
//!
//! - [`corpus_examples`]: the representative schema of `corpus/examples` with its instances;
//! - [`jsonschemabench_sample`]: a deterministic sample of the in-subset schemas of
//!   `../shared/corpus/jsonschemabench` with their labelled instances (`None`, after a printed
//!   notice, when the shared corpus is absent);
//! - [`stress_properties`], [`stress_nesting`], [`stress_enum`], [`stress_any_of`]: generated
//!   schemas at the sizes the issue names, and at every size the scaling benches sweep;
//! - [`items_schema`] and [`items_instance`]: one small schema and arrays of any length, for
//!   validation time against instance size.
//!
//! Everything is generated without randomness: two runs measure the same work.

use schemalect::{Schema, Target};
use serde_json::{json, Map, Value};
use std::fs;
use std::path::Path;

/// One instance of a case, with the text a provider would send and the expected verdict.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The decoded instance.
    pub value: Value,
    /// Its compact JSON text (what [`schemalect::Lowering::accept`] decodes).
    pub text: String,
    /// The verdict of the corpus label or of the generator.
    pub valid: bool,
}

/// One schema with its instances.
#[derive(Clone, Debug)]
pub struct Case {
    /// Where the schema came from (a file name or a generator).
    pub name: String,
    /// The schema.
    pub value: Value,
    /// Its compact JSON text: the input of the floor (one parse and one serialisation).
    pub text: String,
    /// Valid and invalid instances.
    pub instances: Vec<Instance>,
}

/// A named set of cases, measured together (one criterion benchmark iterates over all of them).
#[derive(Clone, Debug)]
pub struct Fixture {
    /// The benchmark name (letters, digits and `-` only, so criterion keeps it as written).
    pub name: String,
    /// The cases.
    pub cases: Vec<Case>,
}

impl Fixture {
    /// Number of instances over all cases.
    pub fn instance_count(&self) -> usize {
        self.cases.iter().map(|c| c.instances.len()).sum()
    }
}

fn instance(value: Value, valid: bool) -> Instance {
    Instance {
        text: value.to_string(),
        value,
        valid,
    }
}

fn case(name: &str, value: Value, instances: Vec<Instance>) -> Case {
    Case {
        name: name.to_owned(),
        text: value.to_string(),
        value,
        instances,
    }
}

fn fixture(name: &str, cases: Vec<Case>) -> Fixture {
    Fixture {
        name: name.to_owned(),
        cases,
    }
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("bench fixture {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bench fixture {}: {e}", path.display()))
}

/// The invoice of `corpus/examples` with its valid and invalid instance: the schema the README
/// and the CLI documentation use, a typical structured-output request.
pub fn corpus_examples() -> Fixture {
    let dir = crate::workspace_root().join("corpus").join("examples");
    let schema = read_json(&dir.join("invoice.schema.json"));
    let instances = vec![
        instance(read_json(&dir.join("invoice.json")), true),
        instance(read_json(&dir.join("invoice.invalid.json")), false),
    ];
    fixture("invoice", vec![case("invoice", schema, instances)])
}

/// Up to `max` in-subset schemas of `../shared/corpus/jsonschemabench` that have instances,
/// taken from every 16th file in name order (the sources are interleaved in that order: BFCL,
/// GitHub of every difficulty, Glaive, JSON-mode-eval, Kubernetes, Snowplow, …). The same files
/// every run. `None` after a printed notice when the shared corpus is absent.
pub fn jsonschemabench_sample(max: usize) -> Option<Fixture> {
    let dir = crate::shared_corpus()?.join("jsonschemabench");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files.iter().step_by(16) {
        if cases.len() >= max {
            break;
        }
        let doc = read_json(path);
        let schema = &doc["schema"];
        if Schema::parse(schema).is_err() || crate::oracle::compile(schema).is_err() {
            continue;
        }
        let instances: Vec<Instance> = doc["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| Some(instance(t["data"].clone(), t["valid"].as_bool()?)))
            .collect();
        if instances.is_empty() {
            continue;
        }
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        cases.push(case(name, schema.clone(), instances));
    }
    Some(fixture("jsb-sample", cases))
}

/// The schema and two values (valid, invalid) of property `i` of [`stress_properties`]: six
/// kinds in turn, each with a keyword the validator checks and most dialects carry.
fn property(i: usize) -> (Value, Value, Value) {
    match i % 6 {
        0 => (
            json!({"type": "string", "maxLength": 64}),
            json!(format!("value {i}")),
            json!(i),
        ),
        1 => (
            json!({"type": "integer", "minimum": 0, "maximum": 1_000_000}),
            json!(i),
            json!(-1),
        ),
        2 => (
            json!({"type": "number", "description": "a measurement"}),
            json!(i as f64 + 0.5),
            json!("x"),
        ),
        3 => (json!({"type": "boolean"}), json!(i % 2 == 0), json!("true")),
        4 => (
            json!({"type": "string", "enum": ["red", "green", "blue"]}),
            json!("green"),
            json!("mauve"),
        ),
        _ => (
            json!({"type": "array", "items": {"type": "string"}, "maxItems": 8}),
            json!(["a", "b"]),
            json!([1]),
        ),
    }
}

/// A closed object of `n` properties of six kinds, every other one required, with three
/// instances: every property set (valid), only the required ones (valid), and every property
/// set with one in a hundred (at least one) wrong (invalid).
pub fn stress_properties_case(n: usize) -> Case {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut full = Map::new();
    let mut minimal = Map::new();
    let mut wrong = Map::new();
    for i in 0..n {
        let name = format!("p{i:05}");
        let (schema, good, bad) = property(i);
        properties.insert(name.clone(), schema);
        if i % 2 == 0 {
            required.push(json!(name));
            minimal.insert(name.clone(), good.clone());
        }
        full.insert(name.clone(), good.clone());
        wrong.insert(name, if i % 100 == 1 { bad } else { good });
    }
    let schema = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    });
    let instances = vec![
        instance(Value::Object(full), true),
        instance(Value::Object(minimal), true),
        instance(Value::Object(wrong), n < 2),
    ];
    case(&format!("properties-{n}"), schema, instances)
}

/// [`stress_properties_case`] as a fixture.
pub fn stress_properties(n: usize) -> Fixture {
    fixture(&format!("props-{n}"), vec![stress_properties_case(n)])
}

/// Objects nested `depth` levels deep (each with a name, a number and the next level under
/// `child`), with the fully nested value (valid) and the same with a wrong type at the deepest
/// level (invalid).
pub fn stress_nesting(depth: usize) -> Fixture {
    let mut schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string", "minLength": 1}, "n": {"type": "integer"}},
        "required": ["name"],
        "additionalProperties": false
    });
    let mut good = json!({"name": "leaf", "n": 0});
    let mut bad = json!({"name": "leaf", "n": "zero"});
    for level in 1..depth {
        schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "n": {"type": "integer"},
                "child": schema
            },
            "required": ["name", "child"],
            "additionalProperties": false
        });
        good = json!({"name": format!("level {level}"), "n": level, "child": good});
        bad = json!({"name": format!("level {level}"), "n": level, "child": bad});
    }
    let instances = vec![instance(good, true), instance(bad, false)];
    fixture(
        &format!("nest-{depth}"),
        vec![case(&format!("nesting-{depth}"), schema, instances)],
    )
}

/// One required property whose value is one of `n` strings, with the first, the middle and
/// the last value (valid) and a value outside the enum (invalid).
pub fn stress_enum(n: usize) -> Fixture {
    let values: Vec<Value> = (0..n).map(|i| json!(format!("code-{i:05}"))).collect();
    let schema = json!({
        "type": "object",
        "properties": {"code": {"type": "string", "enum": values}},
        "required": ["code"],
        "additionalProperties": false
    });
    let pick = |i: usize| json!({"code": format!("code-{i:05}")});
    let instances = vec![
        instance(pick(0), true),
        instance(pick(n / 2), true),
        instance(pick(n.saturating_sub(1)), true),
        instance(json!({"code": "none"}), false),
    ];
    fixture(
        &format!("enum-{n}"),
        vec![case(&format!("enum-{n}"), schema, instances)],
    )
}

/// A required property that is one of `n` closed object branches told apart by a `const`
/// `kind`, with a value of the first and of the last branch (valid) and a value of no branch
/// (invalid): the validator tries every branch before it can answer.
pub fn stress_any_of(n: usize) -> Fixture {
    let branches: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "type": "object",
                "properties": {
                    "kind": {"const": format!("kind-{i}")},
                    format!("v{i}"): {"type": "integer", "minimum": 0}
                },
                "required": ["kind"],
                "additionalProperties": false
            })
        })
        .collect();
    let schema = json!({
        "type": "object",
        "properties": {"event": {"anyOf": branches}},
        "required": ["event"],
        "additionalProperties": false
    });
    let last = n.saturating_sub(1);
    let instances = vec![
        instance(json!({"event": {"kind": "kind-0", "v0": 1}}), true),
        instance(
            json!({"event": {"kind": format!("kind-{last}"), format!("v{last}"): 2}}),
            true,
        ),
        instance(json!({"event": {"kind": "none"}}), false),
    ];
    fixture(
        &format!("anyof-{n}"),
        vec![case(&format!("any-of-{n}"), schema, instances)],
    )
}

/// An array of small closed objects: the schema of the instance-size sweep.
pub fn items_schema() -> Value {
    json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "id": {"type": "integer", "minimum": 0},
                "name": {"type": "string", "minLength": 1, "maxLength": 64},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 4}
            },
            "required": ["id", "name"],
            "additionalProperties": false
        }
    })
}

/// A valid instance of [`items_schema`] with `n` items.
pub fn items_instance(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"id": i, "name": format!("item {i}"), "tags": ["a", "b"]}))
            .collect(),
    )
}

/// The fixtures of the speed and memory benches, in report order: the corpus example, the
/// JSONSchemaBench sample (when the shared corpus is present) and the four stress schemas at
/// the sizes.
pub fn fixtures() -> Vec<Fixture> {
    let mut all = vec![corpus_examples()];
    all.extend(jsonschemabench_sample(64));
    all.push(stress_properties(1_000));
    all.push(stress_nesting(10));
    all.push(stress_enum(1_000));
    all.push(stress_any_of(100));
    all
}

/// The targets, with the names used in benchmark ids.
pub fn targets() -> impl Iterator<Item = (Target, &'static str)> {
    Target::ALL.into_iter().map(|t| (t, t.name()))
}
