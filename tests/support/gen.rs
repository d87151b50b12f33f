//! Generators for the widening property test: in-subset schemas, and values driven by a
//! schema's JSON (never by the library's IR), aimed at the schema so that most of them are
//! valid, plus deterministic near-miss mutations of valid values for the negative checks.
//!
//! Everything is a proptest strategy built from combinators that shrink (optional keywords
//! shrink to absent, unions to their first alternative, lists to fewer items), so a failure
//! reduces to a small schema and value.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::{BoxedStrategy, Just, Union};
use serde_json::{json, Map, Value};

/// Patterns for `pattern`: anchored and not, with alternation at the top level (where
/// `^a|b$` means "starts with a or ends with b", not "a or b"), shorthand classes, repetition,
/// and look-aheads right after the leading `^` (which no route is sent).
pub const PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "^a|b$",
    "ab",
    "^ab",
    "b$",
    "[0-9]{2}",
    "^\\d{3}$",
    "^(x|yz)*$",
    "^[A-Z][a-z]{0,3}$",
    "colou?r",
    "^.{2,4}$",
    "^\\w+$",
    "^(?!ab)[a-z]+$",
    // `[A-Za-z0-9_]`, not `\\w`: the `jsonschema` crate runs a pattern with look-around on
    // `fancy-regex`, whose `\\w` is Unicode; ECMA-262's (and schemalect's) is ASCII.
    "^(?=.*[0-9])(?!.*z)[A-Za-z0-9_]{2,}",
    "^(?!\\s*$)",
];

/// Property names, including ones that need escaping in pointers or look like keywords.
pub const NAMES: &[&str] = &["a", "b", "id", "type", "x/y", "ünï", "c d", "properties"];

/// Keys for members that no `properties` declares (maps, open objects without properties).
const EXTRA_KEYS: &[&str] = &["k1", "k2", "zz", "", "é", "a"];

const FORMATS: &[&str] = &["date-time", "email", "uuid", "uri", "date"];

/// Characters for generated strings: ASCII, Latin-1, CJK and an astral character (lengths
/// count code points).
const ALPHABET: &[char] = &['a', 'b', 'z', 'A', 'Q', '0', '7', ' ', '-', 'é', '日', '😀'];

/// One optional member of a generated schema object (`None`: left out).
pub(crate) type Part = BoxedStrategy<Option<(String, Value)>>;

/// The member `key`, always present.
pub(crate) fn part(key: &'static str, s: impl Strategy<Value = Value> + 'static) -> Part {
    s.prop_map(move |v| Some((key.to_owned(), v))).boxed()
}

/// The member `key`, present or not.
pub(crate) fn maybe(key: &'static str, s: impl Strategy<Value = Value> + 'static) -> Part {
    option::of(s)
        .prop_map(move |o| o.map(|v| (key.to_owned(), v)))
        .boxed()
}

/// An object of the members `parts` draws.
pub(crate) fn object_of(parts: Vec<Part>) -> BoxedStrategy<Value> {
    parts
        .prop_map(|ps| Value::Object(ps.into_iter().flatten().collect()))
        .boxed()
}

fn values(list: Vec<Value>) -> BoxedStrategy<Value> {
    select(list).boxed()
}

/// Merges the members of `b` into `a` (objects only; `b` wins).
fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (a, _) => a,
    }
}

fn annotations() -> Vec<Part> {
    vec![
        maybe("description", Just(json!("A field."))),
        maybe("title", Just(json!("T"))),
        maybe(
            "default",
            values(vec![json!(null), json!("d"), json!(0), json!({"d": 1})]),
        ),
        maybe("examples", values(vec![json!([]), json!(["e", 1])])),
    ]
}

fn lower_bound(lo: Vec<Value>) -> Part {
    (any::<bool>(), select(lo))
        .prop_map(|(ex, v)| Some((if ex { "exclusiveMinimum" } else { "minimum" }.into(), v)))
        .boxed()
}

fn upper_bound(hi: Vec<Value>) -> Part {
    (any::<bool>(), select(hi))
        .prop_map(|(ex, v)| Some((if ex { "exclusiveMaximum" } else { "maximum" }.into(), v)))
        .boxed()
}

fn optional(p: Part) -> Part {
    prop_oneof![Just(None), p].boxed()
}

fn string_schema() -> BoxedStrategy<Value> {
    let mut parts = vec![
        part("type", Just(json!("string"))),
        maybe("minLength", (0u64..4).prop_map(Value::from)),
        maybe("maxLength", (1u64..12).prop_map(Value::from)),
        maybe("pattern", select(PATTERNS).prop_map(Value::from)),
        maybe("format", select(FORMATS).prop_map(Value::from)),
    ];
    parts.extend(annotations());
    object_of(parts)
}

fn integer_schema() -> BoxedStrategy<Value> {
    let mut parts = vec![
        part("type", Just(json!("integer"))),
        optional(lower_bound(vec![json!(-5), json!(0), json!(2), json!(1.5)])),
        optional(upper_bound(vec![
            json!(0),
            json!(7),
            json!(30),
            json!(12.5),
        ])),
        maybe("multipleOf", (1u64..6).prop_map(Value::from)),
    ];
    parts.extend(annotations());
    object_of(parts)
}

fn number_schema() -> BoxedStrategy<Value> {
    let mut parts = vec![
        part("type", Just(json!("number"))),
        optional(lower_bound(vec![
            json!(-2.5),
            json!(0),
            json!(0.5),
            json!(3),
        ])),
        optional(upper_bound(vec![json!(1), json!(10.75), json!(100)])),
        maybe("multipleOf", (1u64..4).prop_map(Value::from)),
    ];
    parts.extend(annotations());
    object_of(parts)
}

fn enum_schema() -> BoxedStrategy<Value> {
    prop_oneof![
        values(vec![
            json!({"enum": ["red", "green", "blue"]}),
            json!({"type": "string", "enum": ["red", "green"]}),
            json!({"enum": [1, 2, 3]}),
            json!({"enum": ["a", 1, null, true]}),
            json!({"enum": [1.5, "x"]}),
            json!({"enum": [[1, 2], {"k": "v"}, "s"]}),
            json!({"enum": [null]}),
            json!({"enum": [0, false, ""]}),
            json!({"type": ["string", "null"], "enum": ["on", "off", null]}),
            json!({"type": "integer", "enum": [1, 2, "no"]}),
        ]),
        values(vec![
            json!({"const": "fixed"}),
            json!({"const": 0}),
            json!({"const": null}),
            json!({"const": true}),
            json!({"const": {"a": 1}}),
            json!({"const": [1, "x"]}),
            json!({"const": 2.5}),
            json!({"type": "string", "const": "s"}),
        ]),
    ]
    .boxed()
}

/// Nodes without `type`: they constrain one type and admit every other.
fn typeless_leaf() -> BoxedStrategy<Value> {
    values(vec![
        json!({"minimum": 3}),
        json!({"exclusiveMaximum": 0}),
        json!({"maxLength": 3}),
        json!({"pattern": "^a"}),
        json!({"multipleOf": 3}),
        json!({"minItems": 1}),
        json!({"required": ["a"]}),
        json!({"uniqueItems": true}),
        json!({"not": {"type": "null"}}),
        json!({"minLength": 1, "description": "non-empty when a string"}),
    ])
}

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => string_schema(),
        2 => integer_schema(),
        2 => number_schema(),
        1 => Just(json!({"type": "boolean"})),
        1 => Just(json!({"type": "null"})),
        2 => enum_schema(),
        1 => typeless_leaf(),
    ]
    .boxed()
}

fn properties(child: BoxedStrategy<Value>) -> BoxedStrategy<Map<String, Value>> {
    vec((select(NAMES), child), 0..4)
        .prop_map(|ps| ps.into_iter().map(|(n, s)| (n.to_owned(), s)).collect())
        .boxed()
}

/// An object node: `properties`, a subset of them `required`, and `additionalProperties`
/// absent, `true`, `false` or a schema. `typed` adds `"type": "object"`.
fn object_schema(child: BoxedStrategy<Value>, typed: bool) -> BoxedStrategy<Value> {
    let ap = prop_oneof![
        3 => Just(None),
        1 => Just(Some(json!(true))),
        2 => Just(Some(json!(false))),
        1 => child.clone().prop_map(Some),
    ];
    (properties(child), vec(any::<bool>(), 4), ap, any::<bool>())
        .prop_map(move |(props, mask, ap, require_unknown)| {
            let mut out = Map::new();
            if typed {
                out.insert("type".into(), json!("object"));
            }
            let required: Vec<Value> = props
                .keys()
                .zip(mask.iter().chain(std::iter::repeat(&false)))
                .filter(|(_, m)| **m)
                .map(|(n, _)| json!(n))
                .collect();
            if !props.is_empty() || !typed {
                out.insert("properties".into(), Value::Object(props));
            }
            if !required.is_empty() {
                out.insert("required".into(), Value::Array(required));
            } else if require_unknown && typed && ap == Some(json!(true)) {
                // A required member that no `properties` declares, on an open object.
                out.insert("required".into(), json!(["zz"]));
            }
            if let Some(ap) = ap {
                out.insert("additionalProperties".into(), ap);
            }
            Value::Object(out)
        })
        .boxed()
}

fn map_schema(child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (child, option::of(0u64..3))
        .prop_map(|(s, min)| {
            let mut m = json!({"type": "object", "additionalProperties": s});
            if min == Some(1) {
                m["description"] = json!("a map");
            }
            m
        })
        .boxed()
}

fn array_schema(child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    object_of(vec![
        part("type", Just(json!("array"))),
        maybe("items", child.clone()),
        maybe("prefixItems", vec(child, 1..3).prop_map(Value::Array)),
        maybe("minItems", (0u64..3).prop_map(Value::from)),
        maybe("maxItems", (1u64..5).prop_map(Value::from)),
        maybe("uniqueItems", Just(json!(true))),
    ])
}

/// Adds `null` to a schema: to its `type` when it has one, else as an `anyOf` branch.
fn nullable(s: Value) -> Value {
    let Value::Object(mut m) = s else { return s };
    match m.get("type").cloned() {
        Some(Value::String(t)) if t != "null" => {
            m.insert("type".into(), json!([t, "null"]));
            if let Some(Value::Array(e)) = m.get_mut("enum") {
                e.push(Value::Null);
            }
            Value::Object(m)
        }
        _ => json!({"anyOf": [Value::Object(m), {"type": "null"}]}),
    }
}

fn union_schema(child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    let base = prop_oneof![
        3 => Just(None),
        1 => object_schema(child.clone(), true).prop_map(Some),
        1 => Just(Some(json!({"type": "object"}))),
        1 => string_schema().prop_map(Some),
        1 => Just(Some(json!({"type": ["string", "integer", "null"]}))),
    ];
    (select(&["anyOf", "oneOf"][..]), vec(child, 1..4), base)
        .prop_map(|(kw, branches, base)| {
            let mut m = match base {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            m.insert(kw.into(), Value::Array(branches));
            Value::Object(m)
        })
        .boxed()
}

fn all_of_schema(child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    let member = prop_oneof![
        3 => object_schema(child.clone(), false),
        1 => child.clone(),
    ];
    (vec(member, 1..3), object_schema(child, true), 0u8..4)
        .prop_map(|(members, parent, shape)| {
            let mut m = match (shape, parent) {
                (0, _) => Map::new(),
                (1, _) => json!({"type": "object"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
                (_, Value::Object(p)) => p,
                _ => Map::new(),
            };
            m.insert("allOf".into(), Value::Array(members));
            Value::Object(m)
        })
        .boxed()
}

fn not_schema(child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (child, leaf())
        .prop_map(|(s, n)| match s {
            Value::Object(mut m) if !m.contains_key("not") => {
                m.insert("not".into(), n);
                Value::Object(m)
            }
            s => json!({"allOf": [s, {"not": n}]}),
        })
        .boxed()
}

fn multi_type_schema() -> BoxedStrategy<Value> {
    prop_oneof![
        (string_schema(), integer_schema()).prop_map(|(a, b)| {
            let mut m = merge(a, b);
            m["type"] = json!(["string", "integer"]);
            m
        }),
        (number_schema(), Just(json!({"minItems": 1, "maxItems": 3}))).prop_map(|(a, b)| {
            let mut m = merge(a, b);
            m["type"] = json!(["number", "array", "boolean"]);
            m
        }),
    ]
    .boxed()
}

fn typeless_applicator(child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop_oneof![
        child.clone().prop_map(|s| json!({"items": s})),
        object_schema(child.clone(), false),
        vec(child, 1..3).prop_map(|l| json!({"prefixItems": l})),
    ]
    .boxed()
}

/// In-subset schemas (nearly always: check with `Schema::parse`), nested up to `depth` levels
/// of applicators.
pub fn schema(depth: u32) -> BoxedStrategy<Value> {
    if depth == 0 {
        return leaf();
    }
    let child = schema(depth - 1);
    prop_oneof![
        4 => leaf(),
        4 => object_schema(child.clone(), true),
        2 => map_schema(child.clone()),
        3 => array_schema(child.clone()),
        2 => child.clone().prop_map(nullable),
        3 => union_schema(child.clone()),
        2 => all_of_schema(child.clone()),
        1 => not_schema(child.clone()),
        1 => multi_type_schema(),
        1 => typeless_applicator(child),
    ]
    .boxed()
}

/// A root schema: [`schema`] with root annotations (`$schema`, `$id`, `title`, ...).
pub fn root_schema(depth: u32) -> BoxedStrategy<Value> {
    (
        schema(depth),
        option::of(Just("https://json-schema.org/draft/2020-12/schema")),
        option::of(Just("https://example.com/s.json")),
    )
        .prop_map(|(s, meta, id)| match s {
            Value::Object(mut m) => {
                if let Some(meta) = meta {
                    m.insert("$schema".into(), json!(meta));
                }
                if let Some(id) = id {
                    m.insert("$id".into(), json!(id));
                }
                Value::Object(m)
            }
            s => s,
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------------
// Values

/// JSON types as generation buckets: `number` is `INT | FRAC`.
const NULL: u8 = 1;
const BOOL: u8 = 2;
const OBJ: u8 = 4;
const ARR: u8 = 8;
const INT: u8 = 16;
const FRAC: u8 = 32;
const STR: u8 = 64;
const ALL: u8 = 127;

fn type_bits(name: &str) -> u8 {
    match name {
        "null" => NULL,
        "boolean" => BOOL,
        "object" => OBJ,
        "array" => ARR,
        "integer" => INT,
        "number" => INT | FRAC,
        "string" => STR,
        _ => 0,
    }
}

fn bits_of(v: &Value) -> u8 {
    match v {
        Value::Null => NULL,
        Value::Bool(_) => BOOL,
        Value::Object(_) => OBJ,
        Value::Array(_) => ARR,
        Value::Number(n) => {
            if n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                INT
            } else {
                FRAC
            }
        }
        Value::String(_) => STR,
    }
}

fn schema_type_bits(m: &Map<String, Value>) -> u8 {
    match m.get("type") {
        Some(Value::String(t)) => type_bits(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(type_bits)
            .fold(0, |a, b| a | b),
        _ => ALL,
    }
}

/// JSON equality as JSON Schema defines it (`1 == 1.0`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(p), Some(q)) => p == q,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Unconstrained JSON values (small).
pub fn any_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-20i64..20).prop_map(Value::from),
        Just(json!(0.5)),
        vec(select(ALPHABET), 0..4).prop_map(|c| Value::from(String::from_iter(c))),
    ];
    prop_oneof![
        4 => leaf.clone(),
        1 => vec(leaf.clone(), 0..3).prop_map(Value::Array),
        1 => vec((select(EXTRA_KEYS), leaf), 0..3).prop_map(|kv| {
            Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
        }),
    ]
    .boxed()
}

/// Values aimed at `schema`: most are valid; keep those the validator accepts.
pub fn value(schema: &Value) -> BoxedStrategy<Value> {
    values_of(vec![schema.clone()], 0)
}

/// Values aimed at the conjunction of `conj`. Unions pick a branch (lazily, so only chosen
/// branches are built); `allOf` members join the conjunction.
fn values_of(conj: Vec<Value>, depth: u32) -> BoxedStrategy<Value> {
    if depth > 24 {
        return any_value();
    }
    let mut flat: Vec<Map<String, Value>> = Vec::new();
    let mut queue = conj;
    while let Some(s) = queue.pop() {
        let Value::Object(mut m) = s else { continue };
        if let Some(Value::Array(members)) = m.remove("allOf") {
            queue.extend(members);
        }
        for kw in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = m.get(kw).cloned() {
                if branches.is_empty() {
                    continue;
                }
                m.remove(kw);
                let mut others: Vec<Value> = flat.into_iter().map(Value::Object).collect();
                others.extend(queue);
                others.push(Value::Object(m));
                let n = branches.len();
                return (0..n)
                    .prop_flat_map(move |i| {
                        let mut c = others.clone();
                        c.push(branches[i].clone());
                        values_of(c, depth)
                    })
                    .boxed();
            }
        }
        flat.push(m);
    }
    flat_values(flat, depth)
}

fn numbers(flat: &[Map<String, Value>], key: &str) -> Vec<f64> {
    flat.iter().filter_map(|m| m.get(key)?.as_f64()).collect()
}

fn counts(flat: &[Map<String, Value>], key: &str) -> Vec<u64> {
    flat.iter().filter_map(|m| m.get(key)?.as_u64()).collect()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn flat_values(flat: Vec<Map<String, Value>>, depth: u32) -> BoxedStrategy<Value> {
    let mut types = flat.iter().fold(ALL, |t, m| t & schema_type_bits(m));
    for m in &flat {
        if let Some(Value::Object(n)) = m.get("not") {
            if n.keys().all(|k| k == "type" || k == "description") && n.contains_key("type") {
                types &= !schema_type_bits(n);
            }
        }
    }
    // Literals first: `const` and `enum` decide the value.
    let mut literal_sets: Vec<Vec<Value>> = Vec::new();
    for m in &flat {
        if let Some(c) = m.get("const") {
            literal_sets.push(vec![c.clone()]);
        }
        if let Some(Value::Array(e)) = m.get("enum") {
            literal_sets.push(e.clone());
        }
    }
    if let Some(first) = literal_sets.first() {
        let fits: Vec<Value> = first
            .iter()
            .filter(|v| {
                bits_of(v) & types != 0
                    && literal_sets.iter().all(|s| s.iter().any(|w| json_eq(v, w)))
            })
            .cloned()
            .collect();
        return values(if fits.is_empty() { first.clone() } else { fits });
    }
    let multiple = counts(&flat, "multipleOf").into_iter().fold(1u64, |l, m| {
        if m == 0 {
            l
        } else {
            l / gcd(l, m) * m
        }
    });
    if multiple > 1 {
        types &= !FRAC;
    }
    let mut arms: Vec<(u32, BoxedStrategy<Value>)> = Vec::new();
    if types & NULL != 0 {
        arms.push((1, Just(Value::Null).boxed()));
    }
    if types & BOOL != 0 {
        arms.push((1, any::<bool>().prop_map(Value::from).boxed()));
    }
    if types & (INT | FRAC) != 0 {
        let bounds = Bounds::of(&flat);
        if types & INT != 0 {
            arms.push((2, bounds.integers(multiple)));
        }
        if types & FRAC != 0 {
            arms.push((2, bounds.fractions()));
        }
    }
    if types & STR != 0 {
        arms.push((3, strings(&flat)));
    }
    if types & ARR != 0 {
        arms.push((2, arrays(&flat, depth)));
    }
    if types & OBJ != 0 {
        arms.push((3, objects(&flat, depth)));
    }
    if arms.is_empty() {
        return any_value();
    }
    Union::new_weighted(arms).boxed()
}

struct Bounds {
    lo: Option<(f64, bool)>,
    hi: Option<(f64, bool)>,
}

impl Bounds {
    fn of(flat: &[Map<String, Value>]) -> Bounds {
        let mut lo: Option<(f64, bool)> = None;
        let mut hi: Option<(f64, bool)> = None;
        for (v, ex) in numbers(flat, "minimum")
            .into_iter()
            .map(|v| (v, false))
            .chain(
                numbers(flat, "exclusiveMinimum")
                    .into_iter()
                    .map(|v| (v, true)),
            )
        {
            if lo.is_none_or(|(l, lex)| v > l || (v == l && ex && !lex)) {
                lo = Some((v, ex));
            }
        }
        for (v, ex) in numbers(flat, "maximum")
            .into_iter()
            .map(|v| (v, false))
            .chain(
                numbers(flat, "exclusiveMaximum")
                    .into_iter()
                    .map(|v| (v, true)),
            )
        {
            if hi.is_none_or(|(h, hex)| v < h || (v == h && ex && !hex)) {
                hi = Some((v, ex));
            }
        }
        Bounds { lo, hi }
    }

    fn range(&self) -> (f64, f64) {
        match (self.lo, self.hi) {
            (Some((l, _)), Some((h, _))) => (l, h),
            (Some((l, _)), None) => (l, l + 60.0),
            (None, Some((h, _))) => (h - 60.0, h),
            (None, None) => (-50.0, 50.0),
        }
    }

    fn integers(&self, multiple: u64) -> BoxedStrategy<Value> {
        let (l, h) = self.range();
        let lo = match self.lo {
            Some((v, true)) if v.fract() == 0.0 => v as i64 + 1,
            _ => l.ceil() as i64,
        };
        let hi = match self.hi {
            Some((v, true)) if v.fract() == 0.0 => v as i64 - 1,
            _ => h.floor() as i64,
        };
        let m = multiple.max(1) as i64;
        let (klo, khi) = (
            lo.div_euclid(m) + i64::from(lo.rem_euclid(m) != 0),
            hi.div_euclid(m),
        );
        if klo > khi {
            return Just(json!(lo)).boxed();
        }
        // Now and then an integer written with a fraction part (`4.0`): still an integer.
        (klo..=khi, 0u8..8)
            .prop_map(move |(k, f)| {
                if f == 0 {
                    json!((k * m) as f64)
                } else {
                    json!(k * m)
                }
            })
            .boxed()
    }

    fn fractions(&self) -> BoxedStrategy<Value> {
        let (l, h) = self.range();
        (0u32..=64)
            .prop_map(move |i| {
                let v = l + (h - l) * f64::from(i) / 64.0;
                let v = if v.fract() == 0.0 { v + 0.25 } else { v };
                json!(v)
            })
            .boxed()
    }
}

/// `^X$` → `X` for generation (proptest's regex generator has no anchors, nor look-aheads:
/// those after the `^` only constrain, so the core is what follows them, and some strings
/// generated from it fail them).
fn pattern_core(p: &str) -> &str {
    let mut p = p.strip_prefix('^').unwrap_or(p);
    while p.starts_with("(?=") || p.starts_with("(?!") {
        match p.find(')') {
            Some(end) => p = p.get(end + 1..).unwrap_or(""),
            None => break,
        }
    }
    match p.strip_suffix('$') {
        Some(q) if !q.ends_with('\\') => q,
        _ => p,
    }
}

fn noise() -> BoxedStrategy<String> {
    vec(select(ALPHABET), 1..3)
        .prop_map(String::from_iter)
        .boxed()
}

fn strings(flat: &[Map<String, Value>]) -> BoxedStrategy<Value> {
    let min = counts(flat, "minLength").into_iter().max().unwrap_or(0) as usize;
    let max = counts(flat, "maxLength")
        .into_iter()
        .min()
        .map_or(min + 8, |m| m as usize);
    let pattern = flat
        .iter()
        .find_map(|m| m.get("pattern").and_then(Value::as_str).map(str::to_owned));
    if let Some(p) = pattern {
        if let Ok(core) = proptest::string::string_regex(pattern_core(&p)) {
            // Unanchored sides take extra characters, and now and then anchored ones do too:
            // under search semantics `^a|b$` accepts "a…" and "…b".
            let pre = p.starts_with('^');
            let post = p.ends_with('$') && !p.ends_with("\\$");
            let side =
                move |anchored: bool| option::weighted(if anchored { 0.2 } else { 0.5 }, noise());
            return (side(pre), core, side(post))
                .prop_map(|(a, c, b)| {
                    Value::from(format!(
                        "{}{c}{}",
                        a.unwrap_or_default(),
                        b.unwrap_or_default()
                    ))
                })
                .boxed();
        }
    }
    if min > max {
        return Just(Value::from("x".repeat(min))).boxed();
    }
    vec(select(ALPHABET), min..=max.min(min + 12))
        .prop_map(|c| Value::from(String::from_iter(c)))
        .boxed()
}

fn arrays(flat: &[Map<String, Value>], depth: u32) -> BoxedStrategy<Value> {
    let min = counts(flat, "minItems").into_iter().max().unwrap_or(0) as usize;
    let max = counts(flat, "maxItems")
        .into_iter()
        .min()
        .map_or(min + 3, |m| m as usize)
        .min(min + 4);
    let unique = flat
        .iter()
        .any(|m| m.get("uniqueItems") == Some(&Value::Bool(true)));
    let prefix_len = flat
        .iter()
        .filter_map(|m| m.get("prefixItems").and_then(Value::as_array).map(Vec::len))
        .max()
        .unwrap_or(0);
    // The schemas that apply at each position: each member's `prefixItems` entry there, else
    // its `items`.
    let at = |i: usize| -> Vec<Value> {
        flat.iter()
            .filter_map(|m| match m.get("prefixItems").and_then(Value::as_array) {
                Some(p) if i < p.len() => Some(p[i].clone()),
                _ => m.get("items").cloned(),
            })
            .collect()
    };
    let positions: Vec<Vec<Value>> = (0..=prefix_len).map(at).collect();
    if min > max {
        return Just(json!([])).boxed();
    }
    (min..=max)
        .prop_flat_map(move |n| {
            let elems: Vec<BoxedStrategy<Value>> = (0..n)
                .map(|i| {
                    let conj = positions[i.min(prefix_len)].clone();
                    if conj.is_empty() {
                        any_value()
                    } else {
                        values_of(conj, depth + 1)
                    }
                })
                .collect();
            elems.prop_map(move |mut items| {
                if unique {
                    let mut seen: Vec<Value> = Vec::new();
                    items.retain(|v| {
                        let fresh = !seen.iter().any(|s| json_eq(s, v));
                        seen.push(v.clone());
                        fresh
                    });
                }
                Value::Array(items)
            })
        })
        .boxed()
}

fn objects(flat: &[Map<String, Value>], depth: u32) -> BoxedStrategy<Value> {
    let mut declared: Vec<(String, Vec<Value>)> = Vec::new();
    let mut any_declared = false;
    for m in flat {
        if let Some(Value::Object(p)) = m.get("properties") {
            any_declared = true;
            for (name, s) in p {
                match declared.iter_mut().find(|(n, _)| n == name) {
                    Some((_, list)) => list.push(s.clone()),
                    None => declared.push((name.clone(), vec![s.clone()])),
                }
            }
        }
    }
    let required: Vec<String> = flat
        .iter()
        .filter_map(|m| m.get("required").and_then(Value::as_array))
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let extra: Vec<Value> = flat
        .iter()
        .filter_map(|m| {
            m.get("additionalProperties")
                .filter(|a| a.is_object())
                .cloned()
        })
        .collect();
    let closed = flat
        .iter()
        .any(|m| m.get("additionalProperties") == Some(&Value::Bool(false)));
    let extra_value = move |extra: &Vec<Value>| {
        if extra.is_empty() {
            any_value()
        } else {
            values_of(extra.clone(), depth + 1)
        }
    };
    let mut members: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    if !any_declared && !closed {
        // Up to two members no `properties` declares (a map's entries, an open object's).
        for _ in 0..2 {
            members.push(
                option::of((select(EXTRA_KEYS), extra_value(&extra)))
                    .prop_map(|o| o.map(|(k, v)| (k.to_owned(), v)))
                    .boxed(),
            );
        }
    }
    for (name, schemas) in &declared {
        let s = values_of(schemas.clone(), depth + 1);
        let name = name.clone();
        if required.contains(&name) {
            members.push(s.prop_map(move |v| Some((name.clone(), v))).boxed());
        } else {
            members.push(
                option::of(s)
                    .prop_map(move |o| o.map(|v| (name.clone(), v)))
                    .boxed(),
            );
        }
    }
    for name in required
        .iter()
        .filter(|r| !declared.iter().any(|(n, _)| n == *r))
    {
        let name = name.clone();
        members.push(
            extra_value(&extra)
                .prop_map(move |v| Some((name.clone(), v)))
                .boxed(),
        );
    }
    members
        .prop_map(|kv| Value::Object(kv.into_iter().flatten().collect()))
        .boxed()
}

/// Near misses of `x`: small deterministic edits (a number moved by one or a half, a character
/// added or removed, a member removed, an item added or removed, a value swapped for another
/// type), at the top and one level down. For checking that an `Exact` lowering rejects what
/// the source rejects.
pub fn mutations(x: &Value) -> Vec<Value> {
    let mut out = mutate_here(x);
    match x {
        Value::Object(m) => {
            for (k, v) in m.iter().take(4) {
                for w in mutate_here(v).into_iter().take(4) {
                    let mut c = m.clone();
                    c.insert(k.clone(), w);
                    out.push(Value::Object(c));
                }
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate().take(3) {
                for w in mutate_here(v).into_iter().take(4) {
                    let mut c = a.clone();
                    c[i] = w;
                    out.push(Value::Array(c));
                }
            }
        }
        _ => {}
    }
    out.retain(|y| y != x);
    out
}

fn mutate_here(x: &Value) -> Vec<Value> {
    let mut out = vec![json!(null), json!("s"), json!(1)];
    match x {
        Value::Bool(b) => out.push(json!(!b)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.extend([json!(i + 1), json!(i - 1), json!(-i), json!(i as f64 + 0.5)]);
            } else if let Some(f) = n.as_f64() {
                out.extend([json!(f + 1.0), json!(f - 1.0), json!(-f), json!(f.floor())]);
            }
        }
        Value::String(s) => {
            let mut chars: Vec<char> = s.chars().collect();
            out.push(Value::from(format!("{s}x")));
            out.push(Value::from(format!("Z{s}")));
            chars.pop();
            out.push(Value::from(String::from_iter(chars)));
            out.push(json!(""));
        }
        Value::Array(a) => {
            let mut c = a.clone();
            c.pop();
            out.push(Value::Array(c));
            if let Some(first) = a.first() {
                let mut c = a.clone();
                c.push(first.clone());
                out.push(Value::Array(c));
            }
            out.push(json!([]));
        }
        Value::Object(m) => {
            for k in m.keys().take(3) {
                let mut c = m.clone();
                c.remove(k);
                out.push(Value::Object(c));
            }
            out.push(json!({}));
        }
        Value::Null => out.push(json!(false)),
    }
    out
}
