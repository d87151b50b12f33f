//! The `schemars` feature: subset schemas derived from Rust types, lowered for every target and
//! profile, and answers taken back as typed values.
#![cfg(feature = "schemars")]

use schemalect::derive::{
    from_schemars, schema_for, schema_value_for, settings, value_from_schemars, DeriveProblemKind,
    TypedAcceptError,
};
use schemalect::{AcceptError, LowerOptions, Mode, Profile, Schema, Target, ViolationKind};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Debug;
use std::num::{NonZeroI64, NonZeroU16};

// ---------------------------------------------------------------------------------------------
// The derived types.

/// A postal address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Address {
    street: String,
    city: String,
    /// Absent in many countries.
    postcode: Option<String>,
}

/// A person, with optional and nested fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Person {
    name: String,
    age: Option<u8>,
    email: Option<String>,
    home: Address,
    work: Option<Address>,
    #[serde(default)]
    nicknames: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Strict {
    id: u32,
    note: Option<String>,
}

/// A unit enum: an `enum` of strings.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
enum Colour {
    Red,
    Green,
    Blue,
}

/// A unit enum whose variants have doc comments: a `oneOf` of `const`s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Priority {
    /// Whenever.
    Low,
    /// Today.
    High,
    Urgent,
}

/// Externally tagged (serde's default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Shape {
    Circle { radius: f64 },
    Square(f64),
    Pair(u8, String),
    Empty,
}

/// Internally tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    Click { x: i32, y: i32 },
    Key { code: u16, shift: bool },
    Address(Address),
    Idle,
}

/// Adjacently tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
enum Message {
    Text(String),
    Count(u64),
    Point { x: i8, y: i8 },
    Ping,
}

/// Untagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Scalar {
    Flag(bool),
    Number(i64),
    Text(String),
    Nothing,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Meters(f64);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct UserId(u64);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Pair(String, i32);

/// Vectors, maps with string keys, sets, tuples, arrays and newtypes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Collections {
    tags: Vec<String>,
    matrix: Vec<Vec<i16>>,
    counts: HashMap<String, u32>,
    people: BTreeMap<String, Address>,
    colours: BTreeSet<Colour>,
    pair: (u8, bool),
    rgb: [u8; 3],
    distance: Meters,
    owner: UserId,
    named: Pair,
    palette: Vec<Colour>,
    maybe: Option<Vec<Option<u8>>>,
    letter: char,
    boxed: Box<Address>,
}

/// Integers of every width, with the bounds schemars derives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Widths {
    u8: u8,
    u16: u16,
    u32: u32,
    u64: u64,
    u128: u128,
    usize: usize,
    i8: i8,
    i16: i16,
    i32: i32,
    i64: i64,
    i128: i128,
    isize: isize,
    nz_u16: NonZeroU16,
    nz_i64: NonZeroI64,
    f32: f32,
    f64: f64,
}

/// Everything together, with `serde(default)`, `flatten` and a free-form value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Everything {
    person: Person,
    #[serde(default = "default_priority")]
    priority: Priority,
    shapes: Vec<Shape>,
    events: Vec<Event>,
    message: Option<Message>,
    scalars: Vec<Scalar>,
    #[serde(flatten)]
    strict: Strict,
    /// Anything at all: `serde_json::Value`.
    extra: Value,
    #[deprecated]
    old: Option<bool>,
}

fn default_priority() -> Priority {
    Priority::Low
}

// ---------------------------------------------------------------------------------------------
// The samples.

fn address(city: &str) -> Address {
    Address {
        street: "1 Rue de Rivoli".into(),
        city: city.into(),
        postcode: Some("75001".into()),
    }
}

fn people() -> Vec<Person> {
    vec![
        Person {
            name: "Ada".into(),
            age: Some(36),
            email: None,
            home: address("London"),
            work: None,
            nicknames: vec![],
        },
        Person {
            name: "Grace".into(),
            age: None,
            email: Some("grace@example.com".into()),
            home: Address {
                street: "5th Avenue".into(),
                city: "New York".into(),
                postcode: None,
            },
            work: Some(address("Arlington")),
            nicknames: vec!["Amazing Grace".into()],
        },
    ]
}

fn collections() -> Vec<Collections> {
    let full = Collections {
        tags: vec!["a".into(), "b".into()],
        matrix: vec![vec![1, -2], vec![], vec![i16::MIN, i16::MAX]],
        counts: HashMap::from([("x".into(), 1), ("y".into(), u32::MAX)]),
        people: BTreeMap::from([("home".into(), address("Paris"))]),
        colours: BTreeSet::from([Colour::Red, Colour::Blue]),
        pair: (255, true),
        rgb: [0, 128, 255],
        distance: Meters(12.5),
        owner: UserId(u64::MAX),
        named: Pair("p".into(), -7),
        palette: vec![Colour::Green, Colour::Green],
        maybe: Some(vec![Some(1), None]),
        letter: 'é',
        boxed: Box::new(address("Rome")),
    };
    let empty = Collections {
        tags: vec![],
        matrix: vec![],
        counts: HashMap::new(),
        people: BTreeMap::new(),
        colours: BTreeSet::new(),
        pair: (0, false),
        rgb: [0, 0, 0],
        distance: Meters(0.0),
        owner: UserId(0),
        named: Pair(String::new(), 0),
        palette: vec![],
        maybe: None,
        letter: '💩',
        boxed: Box::new(address("")),
    };
    vec![full, empty]
}

fn widths() -> Vec<Widths> {
    let max = Widths {
        u8: u8::MAX,
        u16: u16::MAX,
        u32: u32::MAX,
        u64: u64::MAX,
        u128: u128::from(u64::MAX),
        usize: usize::MAX,
        i8: i8::MAX,
        i16: i16::MAX,
        i32: i32::MAX,
        i64: i64::MAX,
        i128: i128::from(i64::MAX),
        isize: isize::MAX,
        nz_u16: NonZeroU16::MAX,
        nz_i64: NonZeroI64::MAX,
        f32: 1.5,
        f64: f64::MAX,
    };
    let min = Widths {
        u8: 0,
        u16: 0,
        u32: 0,
        u64: 0,
        u128: 0,
        usize: 0,
        i8: i8::MIN,
        i16: i16::MIN,
        i32: i32::MIN,
        i64: i64::MIN,
        i128: i128::from(i64::MIN),
        isize: isize::MIN,
        nz_u16: NonZeroU16::MIN,
        nz_i64: NonZeroI64::MIN,
        f32: -0.25,
        f64: f64::MIN,
    };
    vec![max, min]
}

#[allow(deprecated)]
fn everything() -> Vec<Everything> {
    vec![
        Everything {
            person: people().swap_remove(1),
            priority: Priority::Urgent,
            shapes: vec![
                Shape::Circle { radius: 1.5 },
                Shape::Square(2.0),
                Shape::Pair(3, "three".into()),
                Shape::Empty,
            ],
            events: vec![
                Event::Click { x: -1, y: 2 },
                Event::Key {
                    code: 13,
                    shift: true,
                },
                Event::Address(address("Oslo")),
                Event::Idle,
            ],
            message: Some(Message::Point { x: -128, y: 127 }),
            scalars: vec![
                Scalar::Flag(false),
                Scalar::Number(-3),
                Scalar::Text("t".into()),
                Scalar::Nothing,
            ],
            strict: Strict {
                id: 7,
                note: Some("n".into()),
            },
            extra: json!({"any": [1, "two", null, {"deep": true}]}),
            old: Some(true),
        },
        Everything {
            person: people().swap_remove(0),
            priority: Priority::High,
            shapes: vec![],
            events: vec![],
            message: Some(Message::Ping),
            scalars: vec![],
            strict: Strict { id: 0, note: None },
            extra: Value::Null,
            old: None,
        },
        Everything {
            person: people().swap_remove(0),
            priority: Priority::Low,
            shapes: vec![],
            events: vec![],
            message: Some(Message::Text("hi".into())),
            scalars: vec![],
            strict: Strict { id: 1, note: None },
            extra: json!("text"),
            old: Some(false),
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// The check: lowered to every target under the widening contract, typed answers round-trip.

fn profiles() -> [LowerOptions; 2] {
    [
        LowerOptions::default(),
        LowerOptions::default().with_profile(Profile::Reshaping),
    ]
}

/// Derives `T`, checks every sample is valid against the derived schema, lowers for every
/// target and profile, and takes each sample back from its encoded form as text and as a
/// decoded value. Where the wire carries a JSON Schema that schemalect can read (Ollama's
/// `format` today), the encoded sample must be valid against it too.
fn round_trip<T>(samples: &[T])
where
    T: JsonSchema + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let name = std::any::type_name::<T>();
    let schema = schema_for::<T>().unwrap_or_else(|e| panic!("{e}"));
    let value = schema_value_for::<T>().unwrap_or_else(|e| panic!("{e}"));
    assert!(Schema::parse(&value).is_ok());
    for sample in samples {
        let v = serde_json::to_value(sample).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = schema.validate(&v) {
            panic!("{name}: a sample is invalid against the derived schema: {e}\n{v}\n{value:#}");
        }
        for target in Target::ALL {
            for options in profiles() {
                let plan = schema.lower(target, &options);
                let at = format!("{name} on {target} ({})", options.profile.name());
                assert!(plan.wire().is_object(), "{at}: wire is not an object");
                let encoded = plan
                    .encode(&v)
                    .unwrap_or_else(|e| panic!("{at}: encode: {e}"));
                if let Some(wire_schema) = wire_schema(target, plan.mode(), plan.wire()) {
                    let wire_schema = Schema::parse(wire_schema)
                        .unwrap_or_else(|e| panic!("{at}: wire schema unreadable: {e}"));
                    if let Err(e) = wire_schema.validate(&encoded) {
                        panic!("{at}: the wire narrows: {e}\n{encoded}\n{:#}", plan.wire());
                    }
                }
                let text = encoded.to_string();
                let back: T = plan
                    .accept_as(&text)
                    .unwrap_or_else(|e| panic!("{at}: text answer: {e}\n{text}"));
                assert_eq!(&back, sample, "{at}");
                let back: T = plan
                    .accept_as(&encoded)
                    .unwrap_or_else(|e| panic!("{at}: value answer: {e}"));
                assert_eq!(&back, sample, "{at}");
            }
        }
    }
}

/// The JSON Schema inside a native wire that schemalect itself can read. Only Ollama's
/// `format` is native today; the independent oracle for every dialect is the widening
/// property test of the workspace.
fn wire_schema(target: Target, mode: Mode, wire: &Value) -> Option<&Value> {
    match (target, mode) {
        (Target::Ollama, Mode::Exact | Mode::Widened) => {
            wire.get("format").filter(|f| f.is_object())
        }
        _ => None,
    }
}

#[test]
fn structs_with_optional_and_nested_fields() {
    round_trip(&people());
    round_trip(&[
        Strict { id: 1, note: None },
        Strict {
            id: u32::MAX,
            note: Some(String::new()),
        },
    ]);
}

#[test]
fn unit_enums() {
    round_trip(&[Colour::Red, Colour::Green, Colour::Blue]);
    round_trip(&[Priority::Low, Priority::High, Priority::Urgent]);
    round_trip(&[Some(Colour::Red), None]);
    round_trip(&[Some(Priority::Urgent), None]);
}

#[test]
fn tagged_and_untagged_enums() {
    round_trip(&[
        Shape::Circle { radius: 0.5 },
        Shape::Square(-1.0),
        Shape::Pair(0, String::new()),
        Shape::Empty,
    ]);
    round_trip(&[
        Event::Click { x: i32::MIN, y: 0 },
        Event::Key {
            code: u16::MAX,
            shift: false,
        },
        Event::Address(address("Kyiv")),
        Event::Idle,
    ]);
    round_trip(&[
        Message::Text("t".into()),
        Message::Count(u64::MAX),
        Message::Point { x: 0, y: -1 },
        Message::Ping,
    ]);
    round_trip(&[
        Scalar::Flag(true),
        Scalar::Number(i64::MIN),
        Scalar::Text("x".into()),
        Scalar::Nothing,
    ]);
}

#[test]
fn vectors_maps_sets_tuples_and_newtypes() {
    round_trip(&collections());
    round_trip(&[UserId(1)]);
    round_trip(&[Meters(-0.5)]);
    round_trip(&[vec![address("A"), address("B")], vec![]]);
    round_trip(&[
        HashMap::from([("k".to_owned(), vec![1u8, 2])]),
        HashMap::new(),
    ]);
    round_trip(&[Pair("x".into(), 1)]);
}

#[test]
fn integers_of_every_width() {
    round_trip(&widths());
    round_trip(&[u8::MIN, u8::MAX]);
    round_trip(&[i8::MIN, i8::MAX]);
    round_trip(&[u16::MAX]);
    round_trip(&[i16::MIN]);
    round_trip(&[u32::MAX]);
    round_trip(&[i32::MIN]);
    round_trip(&[u64::MAX]);
    round_trip(&[i64::MIN]);
}

#[test]
fn everything_together() {
    round_trip(&everything());
}

// ---------------------------------------------------------------------------------------------
// The mapping, keyword by keyword.

#[test]
fn integer_widths_keep_their_bounds_and_formats() {
    let v = schema_value_for::<Widths>().unwrap_or_else(|e| panic!("{e}"));
    let p = &v["properties"];
    assert_eq!(
        p["u8"],
        json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        p["i16"],
        json!({"type": "integer", "format": "int16", "minimum": -32768, "maximum": 32767})
    );
    assert_eq!(
        p["u64"],
        json!({"type": "integer", "format": "uint64", "minimum": 0})
    );
    assert_eq!(p["i32"], json!({"type": "integer", "format": "int32"}));
    assert_eq!(p["nz_u16"]["minimum"], 1);
    assert_eq!(p["nz_i64"]["not"], json!({"const": 0}));
    let schema = schema_for::<Widths>().unwrap_or_else(|e| panic!("{e}"));
    let mut over = serde_json::to_value(&widths()[0]).unwrap_or_else(|e| panic!("{e}"));
    over["u8"] = json!(256);
    assert!(!schema.is_valid(&over));
    over["u8"] = json!(255);
    over["nz_i64"] = json!(0);
    assert!(!schema.is_valid(&over));
}

#[test]
fn the_derived_schema_is_what_schemars_emits_less_what_the_subset_lacks() {
    let v = schema_value_for::<Person>().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(v["title"], "Person");
    assert_eq!(
        v["description"],
        "A person, with optional and nested fields."
    );
    assert_eq!(v["properties"]["age"]["type"], json!(["integer", "null"]));
    assert_eq!(v["properties"]["work"]["type"], json!(["object", "null"]));
    assert_eq!(v["properties"]["nicknames"]["default"], json!([]));
    assert_eq!(v["required"], json!(["name", "home"]));
    // Doc comments become descriptions.
    assert_eq!(
        v["properties"]["home"]["properties"]["postcode"]["description"],
        "Absent in many countries."
    );
    assert!(v.get("$defs").is_none());
}

#[test]
fn unit_enums_are_enums_or_one_of_consts() {
    let v = schema_value_for::<Colour>().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["enum"], json!(["red", "green", "blue"]));
    let v = schema_value_for::<Priority>().unwrap_or_else(|e| panic!("{e}"));
    let one_of = v["oneOf"].as_array().cloned().unwrap_or_default();
    assert_eq!(one_of.len(), 3);
    assert!(one_of
        .iter()
        .any(|b| b["const"] == "Low" && b["description"] == "Whenever."));
    let schema = schema_for::<Priority>().unwrap_or_else(|e| panic!("{e}"));
    assert!(schema.is_valid(&json!("Urgent")));
    assert!(!schema.is_valid(&json!("Medium")));
}

#[test]
fn deny_unknown_fields_closes_the_object() {
    let v = schema_value_for::<Strict>().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["additionalProperties"], false);
    let schema = schema_for::<Strict>().unwrap_or_else(|e| panic!("{e}"));
    assert!(!schema.is_valid(&json!({"id": 1, "other": 2})));
}

#[test]
fn sets_are_unique_items_and_maps_are_additional_properties() {
    let v = schema_value_for::<Collections>().unwrap_or_else(|e| panic!("{e}"));
    let p = &v["properties"];
    assert_eq!(p["colours"]["uniqueItems"], true);
    assert_eq!(p["counts"]["type"], "object");
    assert_eq!(p["counts"]["additionalProperties"]["format"], "uint32");
    assert_eq!(p["letter"]["minLength"], 1);
    assert_eq!(p["letter"]["maxLength"], 1);
    assert_eq!(p["pair"]["prefixItems"].as_array().map(Vec::len), Some(2));
    let schema = schema_for::<Collections>().unwrap_or_else(|e| panic!("{e}"));
    let mut dup = serde_json::to_value(&collections()[0]).unwrap_or_else(|e| panic!("{e}"));
    dup["colours"] = json!(["red", "red"]);
    assert!(!schema.is_valid(&dup));
}

#[test]
fn any_value_becomes_an_explicit_union_of_every_type() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Free {
        value: Value,
        /// Documented, still anything.
        documented: Value,
        list: Vec<Value>,
        object: serde_json::Map<String, Value>,
    }
    let all = json!(["null", "boolean", "object", "array", "number", "string"]);
    let v = schema_value_for::<Free>().unwrap_or_else(|e| panic!("{e}"));
    let p = &v["properties"];
    assert_eq!(p["value"], json!({"type": all}));
    assert_eq!(
        p["documented"],
        json!({"description": "Documented, still anything.", "type": all})
    );
    assert_eq!(p["list"]["items"], json!({"type": all}));
    assert_eq!(
        p["object"],
        json!({"type": "object", "additionalProperties": true})
    );
    let schema = schema_for::<Free>().unwrap_or_else(|e| panic!("{e}"));
    for any in [
        json!(null),
        json!(true),
        json!(1.5),
        json!("s"),
        json!([1]),
        json!({"a": {}}),
    ] {
        let instance =
            json!({"value": any, "documented": any, "list": [any], "object": {"k": any}});
        assert!(schema.is_valid(&instance), "{instance}");
    }
    // A root of any value.
    let v = schema_value_for::<Value>().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["type"], all);
}

#[test]
fn an_uninhabited_type_accepts_nothing() {
    #[derive(JsonSchema)]
    enum Never {}
    let schema = schema_for::<Never>().unwrap_or_else(|e| panic!("{e}"));
    for v in [json!(null), json!(0), json!(""), json!({}), json!([])] {
        assert!(!schema.is_valid(&v));
    }
}

#[test]
fn deprecated_read_only_and_write_only_are_dropped() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Flags {
        #[deprecated]
        a: u8,
        #[schemars(extend("readOnly" = true, "writeOnly" = false))]
        b: u8,
    }
    #[allow(deprecated)]
    let v = schema_value_for::<Flags>().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        v["properties"]["a"],
        json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255})
    );
    assert_eq!(v["properties"]["b"], v["properties"]["a"]);
}

#[test]
fn flattened_fields_are_required_once() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        id: u8,
    }
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Outer {
        id: u8,
        #[serde(flatten)]
        inner: Inner,
    }
    let v = schema_value_for::<Outer>().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["required"], json!(["id"]));
}

#[test]
fn output_of_a_generator_that_does_not_inline_is_inlined() {
    let generated = schemars::schema_for!(Everything);
    assert!(generated.as_value().get("$defs").is_some());
    let v = value_from_schemars(&generated, "Everything").unwrap_or_else(|e| panic!("{e}"));
    assert!(!v.to_string().contains("$ref"));
    assert!(v.get("$defs").is_none());
    let schema = from_schemars(&generated, "Everything").unwrap_or_else(|e| panic!("{e}"));
    let inlined = schema_for::<Everything>().unwrap_or_else(|e| panic!("{e}"));
    for sample in everything() {
        let v = serde_json::to_value(&sample).unwrap_or_else(|e| panic!("{e}"));
        assert!(schema.is_valid(&v));
        assert!(inlined.is_valid(&v));
    }
    let mut bad = serde_json::to_value(&everything()[0]).unwrap_or_else(|e| panic!("{e}"));
    bad["person"]["home"]["city"] = json!(3);
    assert!(!schema.is_valid(&bad));
    assert!(!inlined.is_valid(&bad));
}

#[test]
fn sibling_annotations_override_and_sibling_assertions_stay_beside_a_reference() {
    let generated: schemars::Schema = serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Name", "description": "field doc"},
            "b": {"$ref": "#/$defs/Name", "maxLength": 3},
            "c": {"$ref": "#/$defs/Open", "additionalProperties": false}
        },
        "$defs": {
            "Name": {"type": "string", "description": "type doc"},
            "Open": {"type": "object", "properties": {"x": {"type": "integer"}}}
        }
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let v = value_from_schemars(&generated, "Doc").unwrap_or_else(|e| panic!("{e}"));
    let p = &v["properties"];
    assert_eq!(
        p["a"],
        json!({"type": "string", "description": "field doc"})
    );
    assert_eq!(
        p["b"],
        json!({"maxLength": 3, "allOf": [{"type": "string", "description": "type doc"}]})
    );
    // Merging would let `additionalProperties` see `x`; beside it, `{"x": 1}` stays invalid.
    let schema = from_schemars(&generated, "Doc").unwrap_or_else(|e| panic!("{e}"));
    assert!(!schema.is_valid(&json!({"c": {"x": 1}})));
    assert!(schema.is_valid(&json!({"c": {}})));
}

// ---------------------------------------------------------------------------------------------
// What cannot be expressed.

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Forest {
    name: String,
    first: Tree,
    rest: Option<Tree>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Ping {
    pong: Option<Box<Pong>>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Pong {
    ping: Ping,
}

fn recursive_at(kind: &DeriveProblemKind) -> &str {
    match kind {
        DeriveProblemKind::Recursive { type_name } => type_name,
        other => panic!("not a recursion: {other:?}"),
    }
}

#[test]
fn a_recursive_type_is_an_error_naming_it_and_where() {
    let e = schema_for::<Tree>()
        .err()
        .unwrap_or_else(|| panic!("Tree derived"));
    assert!(e.type_name.ends_with("::Tree"), "{}", e.type_name);
    assert_eq!(e.problems.len(), 1, "{e}");
    assert_eq!(e.problems[0].pointer.as_str(), "/properties/children/items");
    assert!(recursive_at(&e.problems[0].kind).ends_with("::Tree"));
    let text = e.to_string();
    assert!(
        text.contains("Tree` cannot be expressed in the subset (1 problem)"),
        "{text}"
    );
    assert!(text.contains("at /properties/children/items: `"), "{text}");
    assert!(text.contains("is a recursive type"), "{text}");
}

#[test]
fn a_recursive_type_inside_another_is_named_by_its_schema_name() {
    let e = schema_for::<Forest>()
        .err()
        .unwrap_or_else(|| panic!("Forest derived"));
    assert!(e.type_name.ends_with("::Forest"));
    let at: Vec<&str> = e.problems.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(
        at,
        [
            "/properties/first/properties/children/items",
            "/properties/rest/properties/children/items"
        ],
        "{e}"
    );
    for p in &e.problems {
        assert_eq!(recursive_at(&p.kind), "Tree");
    }
    assert!(value_from_schemars(&schemars::schema_for!(Forest), "Forest").is_err());
}

#[test]
fn mutually_recursive_types_are_an_error() {
    let e = schema_for::<Ping>()
        .err()
        .unwrap_or_else(|| panic!("Ping derived"));
    assert_eq!(e.problems.len(), 1, "{e}");
    assert_eq!(
        e.problems[0].pointer.as_str(),
        "/properties/pong/properties/ping"
    );
    assert!(recursive_at(&e.problems[0].kind).ends_with("::Ping"));
    // Without inlining, schemars refers to `Pong` by name; it is recursive too.
    let e = value_from_schemars(&schemars::schema_for!(Ping), "Ping")
        .err()
        .unwrap_or_else(|| panic!("Ping mapped"));
    assert!(
        matches!(e.problems[0].kind, DeriveProblemKind::Recursive { .. }),
        "{e}"
    );
}

#[test]
fn maps_with_non_string_keys_are_an_error() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Scores {
        by_id: HashMap<u32, String>,
        by_delta: BTreeMap<i8, u8>,
        by_name: HashMap<String, u8>,
    }
    let e = schema_for::<Scores>()
        .err()
        .unwrap_or_else(|| panic!("Scores derived"));
    assert!(e.type_name.ends_with("::Scores"));
    assert_eq!(e.problems.len(), 2, "{e}");
    assert_eq!(e.problems[0].pointer.as_str(), "/properties/by_id");
    assert_eq!(
        e.problems[0].kind,
        DeriveProblemKind::MapKeys {
            patterns: vec![r"^\d+$".into()]
        }
    );
    assert_eq!(e.problems[1].pointer.as_str(), "/properties/by_delta");
    assert!(e.to_string().contains("use `String` keys"));
    // At the root too.
    let e = schema_for::<HashMap<u64, bool>>()
        .err()
        .unwrap_or_else(|| panic!("map derived"));
    assert_eq!(e.problems[0].pointer.as_str(), "");
    assert!(e.to_string().contains("at /: the keys of this map"));
}

#[test]
fn other_constructs_outside_the_subset_surface_the_parsers_violations() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    #[serde(tag = "kind")]
    enum Kind {
        A { a: u8 },
        B { b: u8 },
    }
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    #[serde(deny_unknown_fields)]
    struct Closed {
        id: u8,
        #[serde(flatten)]
        kind: Kind,
        #[schemars(extend("x-vendor" = 1))]
        tagged: u8,
        #[schemars(regex(pattern = r"^b(?=a)$"))]
        lookahead: String,
    }
    let e = schema_for::<Closed>()
        .err()
        .unwrap_or_else(|| panic!("Closed derived"));
    let found: Vec<(&str, &str)> = e
        .problems
        .iter()
        .map(|p| match &p.kind {
            DeriveProblemKind::Subset(v) => (p.pointer.as_str(), v.keyword.as_str()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(found.contains(&("", "unevaluatedProperties")), "{e}");
    assert!(found.contains(&("/properties/tagged", "x-vendor")), "{e}");
    assert!(found.contains(&("/properties/lookahead", "pattern")), "{e}");
    assert!(e.problems.iter().any(|p| matches!(
        &p.kind,
        DeriveProblemKind::Subset(v) if matches!(v.kind, ViolationKind::Unknown)
    )));
}

#[test]
fn a_reference_out_of_the_document_is_an_error() {
    let generated: schemars::Schema = serde_json::from_value(json!({
        "type": "object",
        "properties": {"a": {"$ref": "https://example.com/a.json"}, "b": {"$ref": "#/$defs/missing"}}
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let e = from_schemars(&generated, "Doc")
        .err()
        .unwrap_or_else(|| panic!("mapped"));
    assert_eq!(e.problems.len(), 2, "{e}");
    assert_eq!(
        e.problems[0].kind,
        DeriveProblemKind::Reference {
            reference: "https://example.com/a.json".into()
        }
    );
    assert_eq!(e.problems[1].pointer.as_str(), "/properties/b");
}

#[test]
fn custom_settings_reach_the_same_mapping() {
    let generated = settings()
        .with(|s| s.meta_schema = None)
        .into_generator()
        .into_root_schema_for::<Person>();
    let v = value_from_schemars(&generated, "Person").unwrap_or_else(|e| panic!("{e}"));
    assert!(v.get("$schema").is_none());
    let mut expected = schema_value_for::<Person>().unwrap_or_else(|e| panic!("{e}"));
    if let Some(o) = expected.as_object_mut() {
        o.remove("$schema");
    }
    assert_eq!(v, expected);
}

// ---------------------------------------------------------------------------------------------
// Typed answers.

#[test]
fn typed_answers_are_validated_before_deserialization() {
    let schema = schema_for::<Person>().unwrap_or_else(|e| panic!("{e}"));
    for target in Target::ALL {
        let plan = schema.lower(target, &LowerOptions::default());
        // Not JSON.
        match plan.accept_as::<Person>("{\"name\": ") {
            Err(TypedAcceptError::Accept(AcceptError::Decode { line: 1, .. })) => {}
            other => panic!("{target}: {other:?}"),
        }
        // JSON, invalid against the schema: every error, with where.
        let answer = json!({"name": "Ada", "age": 300, "home": {"street": "s"}});
        match plan.accept_as::<Person>(&answer) {
            Err(TypedAcceptError::Accept(AcceptError::Invalid(errors))) => {
                let at: Vec<&str> = errors
                    .errors
                    .iter()
                    .map(|e| e.instance_path.as_str())
                    .collect();
                assert!(at.contains(&"/age"), "{target}: {at:?}");
                assert!(at.contains(&"/home"), "{target}: {at:?}");
            }
            other => panic!("{target}: {other:?}"),
        }
    }
}

#[test]
fn a_valid_answer_that_does_not_fit_the_type_is_a_mismatch() {
    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Small {
        n: i32,
    }
    // schemars leaves the `int32` range as a format annotation.
    let schema = schema_for::<Small>().unwrap_or_else(|e| panic!("{e}"));
    let plan = schema.lower(Target::Ollama, &LowerOptions::default());
    match plan.accept_as::<Small>(r#"{"n": 4294967296}"#) {
        Err(TypedAcceptError::Mismatch {
            type_name, value, ..
        }) => {
            assert!(type_name.ends_with("::Small"));
            assert_eq!(value, json!({"n": 4294967296u64}));
        }
        other => panic!("{other:?}"),
    }
    // A type other than the one the schema was derived from.
    let plan = schema_for::<Strict>()
        .unwrap_or_else(|e| panic!("{e}"))
        .lower(Target::OpenAi, &LowerOptions::default());
    let e = plan
        .accept_as::<Address>(r#"{"id": 1}"#)
        .err()
        .unwrap_or_else(|| panic!("accepted"));
    assert!(
        e.to_string().contains("the schema and the type disagree"),
        "{e}"
    );
}

#[test]
fn json_mode_takes_typed_answers_without_a_schema() {
    for target in Target::ALL {
        let plan = schemalect::json_mode(target);
        let a: Address = plan
            .accept_as(r#"{"street": "s", "city": "c", "postcode": null}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.postcode, None);
    }
}

// ---------------------------------------------------------------------------------------------
// The `deny_unknown_fields` hint (issue 19).

/// A struct that serde leaves open, as a variant's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Dot {
    x: i32,
}

/// Internally tagged, open: each variant is an object that other variants' names could reach.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
enum OpenEvent {
    Key { code: u16 },
    Dot(Dot),
    Idle,
}

/// The same, closed by the attribute on the enum (its struct and unit variants) and on the
/// struct a variant carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
enum ClosedEvent {
    Key { code: u16 },
    Strict(Strict),
    Idle,
}

/// The enums as fields (a union at the root is a blocker of its own on some providers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Click {
    event: OpenEvent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Log {
    id: u32,
    event: Option<OpenEvent>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct ClosedClick {
    event: ClosedEvent,
}

/// The hints of a lowering: pointer and Rust type.
///
/// Where both profiles fall back the lowering keeps the conservative one's losses, in which
/// every open object blocks, the wrapping struct at the root too (it is named, correctly, and
/// left out here): the variants are what the reshaping profile needs closed.
fn hints(plan: &schemalect::Lowering) -> Vec<(String, String)> {
    for l in plan.losses() {
        if let (Some(schemalect::Hint::DenyUnknownFields { rust_type }), true) =
            (&l.hint, l.pointer.is_root())
        {
            assert!(["Click", "Log"].contains(&rust_type.as_str()), "{l}");
        }
    }
    plan.losses()
        .iter()
        .filter(|l| !l.pointer.is_root())
        .filter_map(|l| match &l.hint {
            Some(schemalect::Hint::DenyUnknownFields { rust_type }) => {
                Some((l.pointer.as_str().to_owned(), rust_type.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The three variants of `OpenEvent` under `one_of` are hinted: its struct and unit variants
/// by the enum's name, its newtype variant by the struct it wraps.
fn assert_variants_named(plan: &schemalect::Lowering, one_of: &str, target: Target) {
    let mut found = hints(plan);
    found.sort();
    let at = |i: usize| format!("{one_of}/{i}");
    assert_eq!(
        found,
        [
            (at(0), "OpenEvent".to_owned()),
            (at(1), "Dot".to_owned()),
            (at(2), "OpenEvent".to_owned()),
        ],
        "{target}: {:?}",
        plan.losses()
    );
}

#[test]
fn an_open_struct_that_blocks_is_named_with_the_attribute_that_closes_it() {
    for target in [Target::OpenAi, Target::Claude, Target::Gemini] {
        let plan = schemalect::for_type::<Click>(target).unwrap_or_else(|e| panic!("{e}"));
        assert!(plan.mode() >= Mode::Json, "{target}: {:?}", plan.losses());
        assert_variants_named(&plan, "/properties/event/oneOf", target);
        assert!(plan.hints().count() >= 3);
        let text = plan
            .losses()
            .iter()
            .find(|l| l.pointer.as_str() == "/properties/event/oneOf/1")
            .map(ToString::to_string)
            .unwrap_or_default();
        assert!(
            text.ends_with("(this object is the Rust type `Dot`: add `#[serde(deny_unknown_fields)]` to it so that its schema is closed)"),
            "{target}: {text}"
        );

        // Below a field and an `Option`, the enum's name and the struct's.
        let plan = schemalect::for_type::<Log>(target).unwrap_or_else(|e| panic!("{e}"));
        assert_variants_named(&plan, "/properties/event/anyOf/0/oneOf", target);

        // With the attribute: native, and nothing to hint.
        let plan = schemalect::for_type::<ClosedClick>(target).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            plan.mode() <= Mode::Widened,
            "{target}: {:?}",
            plan.losses()
        );
        assert_eq!(plan.hints().count(), 0, "{target}");
    }
    // A schema parsed from JSON names no Rust type, though the same object blocks.
    let value = schema_value_for::<Click>().unwrap_or_else(|e| panic!("{e}"));
    let parsed = Schema::parse(&value).unwrap_or_else(|e| panic!("{e}"));
    let options = LowerOptions::default().with_profile(Profile::Reshaping);
    let plan = parsed.lower(Target::OpenAi, &options);
    assert!(plan.mode() >= Mode::Json);
    assert_eq!(plan.hints().count(), 0);
}
