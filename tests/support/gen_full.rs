//! The widening proof in the `full` subset (`docs/subset.md`, "The full subset"): a generator
//! of JSON Schemas written in one of the five drafts, using the keywords only the `full`
//! subset reads (`patternProperties`, `propertyNames`, `minProperties`/`maxProperties`,
//! `dependentRequired`/`dependentSchemas` and draft 4-7 `dependencies`, `if`/`then`/`else`,
//! `contains`/`minContains`/`maxContains`, `unevaluatedProperties`/`unevaluatedItems`,
//! `prefixItems` with `items`, draft 4-2019-09 tuple `items` with `additionalItems`, decimal
//! `multipleOf`, `const`/`enum` of any value, boolean schemas, local `$ref` into
//! `$defs`/`definitions`), each only in the drafts that define it, and values aimed at them.
//!
//! Like [`crate::gen`] and [`crate::extended`], everything works on the schema's JSON, never on
//! the library's IR, and every strategy shrinks. Values are aimed, not exact: the schema is
//! rewritten into the 2020-12 ADR-126 spelling [`crate::gen::value`] knows (references
//! written out, tuples as `prefixItems`, pattern-keyed members as sample names, a branch of
//! `if`/`then`/`else` chosen, …), and the validators decide which of the values are valid.

use crate::gen::{maybe, object_of, part};
use crate::{extended, gen};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::{BoxedStrategy, Just};
use serde_json::{json, Map, Value};

/// The drafts of the `full` subset, oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Draft {
    /// Draft 4.
    D4,
    /// Draft 6.
    D6,
    /// Draft 7.
    D7,
    /// 2019-09.
    D2019,
    /// 2020-12.
    D2020,
}

impl Draft {
    /// Every draft.
    pub const ALL: [Draft; 5] = [Draft::D4, Draft::D6, Draft::D7, Draft::D2019, Draft::D2020];

    /// The meta-schema URI `$schema` names it by.
    pub fn uri(self) -> &'static str {
        match self {
            Draft::D4 => "http://json-schema.org/draft-04/schema#",
            Draft::D6 => "http://json-schema.org/draft-06/schema#",
            Draft::D7 => "http://json-schema.org/draft-07/schema#",
            Draft::D2019 => "https://json-schema.org/draft/2019-09/schema",
            Draft::D2020 => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    /// The draft a document declares (2020-12 without `$schema`, as both validators read it).
    pub fn of(schema: &Value) -> Draft {
        let uri = schema.get("$schema").and_then(Value::as_str).unwrap_or("");
        Draft::ALL
            .into_iter()
            .find(|d| d.uri().trim_end_matches('#') == uri.trim_end_matches('#'))
            .unwrap_or(Draft::D2020)
    }

    /// Where definitions live.
    fn container(self) -> &'static str {
        if self >= Draft::D2019 {
            "$defs"
        } else {
            "definitions"
        }
    }
}

/// Names of declared properties: some match the patterns of [`PATTERN_KEYS`].
const NAMES: &[&str] = &["a", "b", "x-a", "12", "c d"];

/// Patterns for `patternProperties`, each with names it matches (for value generation).
pub const PATTERN_KEYS: &[(&str, &[&str])] = &[
    ("^x-", &["x-a", "x-zz"]),
    ("^[0-9]+$", &["12", "7"]),
    ("b", &["b", "abc"]),
    ("^[a-z]$", &["a", "q"]),
];

/// `propertyNames` schemas.
fn property_names(d: Draft) -> BoxedStrategy<Value> {
    let mut list = vec![
        json!({"maxLength": 2}),
        json!({"pattern": "^[a-z0-9]+$"}),
        json!({"enum": ["a", "b", "k1", "12"]}),
    ];
    if d >= Draft::D6 {
        list.push(json!({"not": {"const": "zz"}}));
        list.push(json!(true));
    }
    select(list).boxed()
}

/// `{key: v}`.
fn one(key: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(key.to_owned(), v);
    Value::Object(m)
}

/// `Some` with probability `p` when the draft has the keyword (`present`), else never.
fn sometimes(present: bool, p: f64, s: BoxedStrategy<Value>) -> BoxedStrategy<Option<Value>> {
    if present {
        option::weighted(p, s).boxed()
    } else {
        Just(None).boxed()
    }
}

/// A lower or upper bound, spelled as the draft spells exclusiveness (a boolean beside
/// `minimum`/`maximum` in draft 4, a number of its own later).
fn bound(d: Draft, upper: bool, values: Vec<f64>) -> BoxedStrategy<Map<String, Value>> {
    (select(values), any::<bool>())
        .prop_map(move |(v, exclusive)| {
            let (plain, excl) = if upper {
                ("maximum", "exclusiveMaximum")
            } else {
                ("minimum", "exclusiveMinimum")
            };
            let mut m = Map::new();
            match (exclusive, d) {
                (false, _) => {
                    m.insert(plain.into(), json!(v));
                }
                (true, Draft::D4) => {
                    m.insert(plain.into(), json!(v));
                    m.insert(excl.into(), json!(true));
                }
                (true, _) => {
                    m.insert(excl.into(), json!(v));
                }
            }
            m
        })
        .boxed()
}

/// Divisors for `multipleOf`: integers and decimals (exact on the decimal spelling).
const DIVISORS: &[&str] = &["2", "3", "0.5", "0.25", "1.5", "0.1", "0.01", "2.5"];

fn number_schema(d: Draft, integer: bool) -> BoxedStrategy<Value> {
    let (lows, highs) = if integer {
        (vec![-5.0, 0.0, 2.0, 1.5], vec![0.0, 7.0, 30.0, 12.5])
    } else {
        (vec![-2.5, 0.0, 0.5, 3.0], vec![1.0, 10.75, 100.0])
    };
    (
        option::of(bound(d, false, lows)),
        option::of(bound(d, true, highs)),
        option::of(select(DIVISORS)),
    )
        .prop_map(move |(lo, hi, m)| {
            let mut out = Map::new();
            out.insert(
                "type".into(),
                json!(if integer { "integer" } else { "number" }),
            );
            out.extend(lo.unwrap_or_default());
            out.extend(hi.unwrap_or_default());
            if let Some(m) = m {
                let n: Value = serde_json::from_str(m).unwrap_or(json!(2));
                out.insert("multipleOf".into(), n);
            }
            Value::Object(out)
        })
        .boxed()
}

fn string_schema() -> BoxedStrategy<Value> {
    object_of(vec![
        part("type", Just(json!("string"))),
        maybe("minLength", (0u64..3).prop_map(Value::from)),
        maybe("maxLength", (1u64..8).prop_map(Value::from)),
        maybe("pattern", select(gen::PATTERNS).prop_map(Value::from)),
    ])
}

/// `enum` (and from draft 6 `const`) of any JSON values.
fn literal_schema(d: Draft) -> BoxedStrategy<Value> {
    let mut list = vec![
        json!({"enum": ["red", 1, null, true]}),
        json!({"enum": [[1, 2], {"k": "v"}, 1.5]}),
        json!({"enum": [0, false, "", {}]}),
        json!({"type": "number", "enum": [1, 2.5, "no"]}),
    ];
    if d >= Draft::D6 {
        list.extend([
            json!({"const": {"a": [1, {"b": null}]}}),
            json!({"const": [1, "x"]}),
            json!({"const": 2.0}),
            json!({"const": "fixed"}),
        ]);
    }
    select(list).boxed()
}

fn leaf(d: Draft) -> BoxedStrategy<Value> {
    let mut arms: Vec<(u32, BoxedStrategy<Value>)> = vec![
        (3, string_schema()),
        (2, number_schema(d, true)),
        (2, number_schema(d, false)),
        (1, Just(json!({"type": "boolean"})).boxed()),
        (1, Just(json!({"type": "null"})).boxed()),
        (2, literal_schema(d)),
        (
            1,
            select(vec![
                json!({"minProperties": 1}),
                json!({"maxProperties": 1}),
                json!({"multipleOf": 0.5}),
                json!({"minItems": 1}),
                json!({}),
            ])
            .boxed(),
        ),
    ];
    if d >= Draft::D6 {
        // Boolean schemas: rare, `false` rarer (it leaves no valid value where it applies).
        arms.push((
            1,
            select(vec![json!(true), json!(true), json!(false)]).boxed(),
        ));
    }
    proptest::strategy::Union::new_weighted(arms).boxed()
}

/// An object node with every object keyword of the draft, each optional.
fn object_schema(d: Draft, child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    let props = vec((select(NAMES), child.clone()), 0..3).prop_map(|ps| {
        ps.into_iter()
            .map(|(n, s)| (n.to_owned(), s))
            .collect::<Map<String, Value>>()
    });
    let additional = prop_oneof![
        3 => Just(None),
        1 => Just(Some(json!(true))),
        2 => Just(Some(json!(false))),
        1 => child.clone().prop_map(Some),
    ];
    let patterns = option::weighted(
        0.5,
        vec((select(PATTERN_KEYS), child.clone()), 1..3).prop_map(|ps| {
            ps.into_iter()
                .map(|((p, _), s)| (p.to_owned(), s))
                .collect::<Map<String, Value>>()
        }),
    );
    let dependencies: BoxedStrategy<Vec<(String, Value)>> = {
        let required = (select(NAMES), proptest::sample::subsequence(NAMES, 0..3))
            .prop_map(|(n, on)| (n, json!(on), true))
            .boxed();
        let schemas = (select(NAMES), child.clone())
            .prop_map(|(n, s)| (n, s, false))
            .boxed();
        option::weighted(0.3, prop_oneof![required, schemas])
            .prop_map(move |dep| {
                let Some((name, v, is_list)) = dep else {
                    return Vec::new();
                };
                let key = match (d >= Draft::D2019, is_list) {
                    (false, _) => "dependencies",
                    (true, true) => "dependentRequired",
                    (true, false) => "dependentSchemas",
                };
                // Draft 4 needs a non-empty list.
                let v = match (&v, d) {
                    (Value::Array(a), Draft::D4) if a.is_empty() => json!([name]),
                    _ => v,
                };
                vec![(key.to_owned(), one(name, v))]
            })
            .boxed()
    };
    let unevaluated = if d >= Draft::D2019 {
        option::weighted(0.2, prop_oneof![Just(json!(false)), child.clone()]).boxed()
    } else {
        Just(None).boxed()
    };
    let counts = (
        option::weighted(0.25, 0u64..3),
        option::weighted(0.25, 1u64..4),
    );
    (
        (props, vec(any::<bool>(), 3), additional, patterns),
        (
            option::weighted(0.2, property_names(d)),
            counts,
            dependencies,
            unevaluated,
            any::<bool>(),
        ),
    )
        .prop_map(
            move |((props, mask, ap, patterns), (names, (min, max), deps, uneval, typed))| {
                let mut out = Map::new();
                if typed {
                    out.insert("type".into(), json!("object"));
                }
                let required: Vec<Value> = props
                    .keys()
                    .zip(mask.iter())
                    .filter(|(_, m)| **m)
                    .map(|(n, _)| json!(n))
                    .collect();
                if !props.is_empty() {
                    out.insert("properties".into(), Value::Object(props));
                }
                if !required.is_empty() {
                    out.insert("required".into(), Value::Array(required));
                }
                if let Some(p) = patterns {
                    out.insert("patternProperties".into(), Value::Object(p));
                }
                if let Some(ap) = ap {
                    out.insert("additionalProperties".into(), ap);
                }
                if let Some(n) = names {
                    out.insert("propertyNames".into(), n);
                }
                if let Some(n) = min {
                    out.insert("minProperties".into(), json!(n));
                }
                if let Some(n) = max {
                    out.insert("maxProperties".into(), json!(n));
                }
                out.extend(deps);
                if let Some(u) = uneval {
                    out.insert("unevaluatedProperties".into(), u);
                }
                if out.is_empty() {
                    out.insert("type".into(), json!("object"));
                }
                Value::Object(out)
            },
        )
        .boxed()
}

/// An array node: `prefixItems` and `items` in 2020-12, `items` (a schema or a tuple) with
/// `additionalItems` before; `contains` from draft 6, its counts and `unevaluatedItems` from
/// 2019-09.
fn array_schema(d: Draft, child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    let tail = prop_oneof![
        2 => Just(None),
        2 => child.clone().prop_map(Some),
        1 => Just(Some(json!(false))),
    ];
    let items: BoxedStrategy<Vec<(String, Value)>> = (
        option::weighted(0.5, vec(child.clone(), 1..3)),
        tail,
        any::<bool>(),
    )
        .prop_map(move |(tuple, tail, plain_false)| {
            let mut out = Vec::new();
            match (tuple, d) {
                (Some(t), Draft::D2020) => {
                    out.push(("prefixItems".to_owned(), Value::Array(t)));
                    if let Some(tail) = tail {
                        out.push(("items".to_owned(), tail));
                    }
                }
                (Some(t), _) => {
                    out.push(("items".to_owned(), Value::Array(t)));
                    if let Some(tail) = tail {
                        out.push(("additionalItems".to_owned(), tail));
                    }
                }
                (None, _) => {
                    // `items: false` is a boolean schema (draft 6 on); draft 4 has only
                    // `additionalItems: false`, without a tuple it means nothing.
                    match tail {
                        Some(Value::Bool(false)) if d == Draft::D4 || plain_false => {}
                        Some(t) => out.push(("items".to_owned(), t)),
                        None => {}
                    }
                }
            }
            out
        })
        .boxed();
    (
        items,
        sometimes(d >= Draft::D6, 0.4, child.clone()),
        (
            option::weighted(0.3, 0u64..3),
            option::weighted(0.3, 1u64..3),
        ),
        (
            option::weighted(0.3, 0u64..3),
            option::weighted(0.3, 1u64..5),
            any::<bool>(),
        ),
        sometimes(
            d >= Draft::D2019,
            0.2,
            prop_oneof![Just(json!(false)), child].boxed(),
        ),
    )
        .prop_map(
            move |(items, contains, (min_c, max_c), (min, max, unique), uneval)| {
                let mut out = Map::new();
                out.insert("type".into(), json!("array"));
                out.extend(items);
                if let Some(c) = contains {
                    out.insert("contains".into(), c);
                    if d >= Draft::D2019 {
                        if let Some(n) = min_c {
                            out.insert("minContains".into(), json!(n));
                        }
                        if let Some(n) = max_c {
                            out.insert("maxContains".into(), json!(n));
                        }
                    }
                }
                if let Some(n) = min {
                    out.insert("minItems".into(), json!(n));
                }
                if let Some(n) = max {
                    out.insert("maxItems".into(), json!(n));
                }
                if unique && min.is_none() {
                    out.insert("uniqueItems".into(), json!(true));
                }
                if let Some(u) = uneval {
                    out.insert("unevaluatedItems".into(), u);
                }
                Value::Object(out)
            },
        )
        .boxed()
}

/// `if`/`then`/`else` (draft 7 on), each part optional but `if`.
fn conditional(child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (
        child.clone(),
        option::of(child.clone()),
        option::of(child),
        option::of(select(vec!["object", "string", "number"])),
    )
        .prop_map(|(i, t, e, ty)| {
            let mut m = Map::new();
            if let Some(ty) = ty {
                m.insert("type".into(), json!(ty));
            }
            m.insert("if".into(), i);
            if let Some(t) = t {
                m.insert("then".into(), t);
            }
            if let Some(e) = e {
                m.insert("else".into(), e);
            }
            Value::Object(m)
        })
        .boxed()
}

fn combinator(child: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop_oneof![
        (
            select(&["anyOf", "oneOf", "allOf"][..]),
            vec(child.clone(), 1..3)
        )
            .prop_map(|(kw, l)| one(kw, Value::Array(l))),
        (child.clone(), child).prop_map(|(s, n)| match s {
            Value::Object(mut m) if !m.contains_key("not") => {
                m.insert("not".into(), n);
                Value::Object(m)
            }
            s => json!({"allOf": [s, {"not": n}]}),
        }),
    ]
    .boxed()
}

/// Schemas of draft `d` nested up to `depth` applicators deep.
pub fn schema(d: Draft, depth: u32) -> BoxedStrategy<Value> {
    if depth == 0 {
        return leaf(d);
    }
    let child = schema(d, depth - 1);
    let mut arms: Vec<(u32, BoxedStrategy<Value>)> = vec![
        (3, leaf(d)),
        (5, object_schema(d, child.clone())),
        (3, array_schema(d, child.clone())),
        (2, combinator(child.clone())),
    ];
    if d >= Draft::D7 {
        arms.push((2, conditional(child)));
    }
    proptest::strategy::Union::new_weighted(arms).boxed()
}

/// How a property uses a definition: alone, with an annotation, or with an assertion beside
/// it (drafts 4 to 7 ignore it, 2019-09 on apply it: both validators follow the draft).
fn use_definition(d: Draft, name: &str, how: u8) -> Value {
    let r = json!({ "$ref": format!("#/{}/{name}", d.container()) });
    match how {
        0 => r,
        1 => {
            let mut r = r;
            r["description"] = json!("shared");
            r
        }
        2 => {
            let mut r = r;
            r["not"] = json!({"type": "null"});
            r
        }
        _ => json!({"type": "array", "items": r}),
    }
}

/// A root: an object whose properties use shared definitions, a recursive tree through `#`,
/// or a plain [`schema`]; then `$schema` naming the draft (2020-12 sometimes left implicit).
pub fn root_schema(depth: u32) -> BoxedStrategy<Value> {
    select(Draft::ALL.to_vec())
        .prop_flat_map(move |d| {
            let with_defs = (
                vec(schema(d, depth.saturating_sub(1)), 1..3),
                vec((select(NAMES), 0usize..2, 0u8..4), 1..3),
                object_schema(d, schema(d, 1)),
            )
                .prop_map(move |(defs, uses, base)| {
                    let mut m = match base {
                        Value::Object(m) => m,
                        _ => Map::new(),
                    };
                    let mut props = match m.remove("properties") {
                        Some(Value::Object(p)) => p,
                        _ => Map::new(),
                    };
                    for (name, which, how) in uses {
                        let which = which.min(defs.len() - 1);
                        props.insert(name.to_owned(), use_definition(d, &format!("d{which}"), how));
                    }
                    m.insert("properties".into(), Value::Object(props));
                    let defs: Map<String, Value> = defs
                        .into_iter()
                        .enumerate()
                        .map(|(i, s)| (format!("d{i}"), s))
                        .collect();
                    m.insert(d.container().into(), Value::Object(defs));
                    Value::Object(m)
                });
            let tree = (schema(d, 1), any::<bool>()).prop_map(move |(v, via_def)| {
                let target = if via_def {
                    format!("#/{}/node", d.container())
                } else {
                    "#".to_owned()
                };
                let node = json!({
                    "type": "object",
                    "properties": {"v": v, "kids": {"type": "array", "items": {"$ref": target}, "maxItems": 2}},
                    "required": ["v"]
                });
                if via_def {
                    let mut m = Map::new();
                    m.insert("$ref".into(), json!(target));
                    m.insert(d.container().into(), one("node", node));
                    Value::Object(m)
                } else {
                    node
                }
            });
            (
                prop_oneof![
                    4 => schema(d, depth),
                    2 => with_defs,
                    1 => tree,
                ],
                Just(d),
                any::<bool>(),
            )
        })
        .prop_map(|(s, d, implicit)| {
            // The oracle (the `jsonschema` crate, 0.61) lets `contains` evaluate items for
            // `unevaluatedItems` in 2019-09 too, where the specification (and the official
            // suite, which tests it in 2020-12 only) has only `items`, `additionalItems` and
            // `unevaluatedItems` do so: a 2019-09 schema with both has no oracle.
            let s = if d == Draft::D2019 && has_key(&s, "contains") {
                without_key(&s, "unevaluatedItems")
            } else {
                s
            };
            (s, d, implicit)
        })
        .prop_map(|(s, d, implicit)| match s {
            Value::Object(mut m) => {
                if !(d == Draft::D2020 && implicit) {
                    m.insert("$schema".into(), json!(d.uri()));
                }
                Value::Object(m)
            }
            // A boolean root: wrapped so that it can carry `$schema`.
            s => json!({"$schema": d.uri(), "allOf": [s]}),
        })
        .boxed()
}

/// True when some object in `s` has the member `key` (data included: a coarse test).
fn has_key(s: &Value, key: &str) -> bool {
    match s {
        Value::Object(m) => m.contains_key(key) || m.values().any(|v| has_key(v, key)),
        Value::Array(a) => a.iter().any(|v| has_key(v, key)),
        _ => false,
    }
}

/// `s` without the member `key` anywhere.
fn without_key(s: &Value, key: &str) -> Value {
    match s {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| *k != key)
                .map(|(k, v)| (k.clone(), without_key(v, key)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| without_key(v, key)).collect()),
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Values

/// Values aimed at a `full` schema of any draft: the schema in 2020-12 spelling, references
/// written out three levels deep, then [`approximate`]d for [`gen::value`].
pub fn value(schema: &Value) -> BoxedStrategy<Value> {
    let d = Draft::of(schema);
    let spelled = to_2020(schema, d);
    gen::value(&approximate(&extended::unroll(&spelled, 3)))
}

/// Keywords whose value is data, not a schema.
const DATA: &[&str] = &[
    "enum",
    "const",
    "default",
    "examples",
    "required",
    "dependentRequired",
    "$schema",
    "$id",
    "type",
];

/// `s` with the draft-specific spellings of `d` written as 2020-12 says them: tuple `items`
/// and `additionalItems` as `prefixItems` and `items`, draft 4's boolean exclusive bounds as
/// numbers, `dependencies` split into `dependentRequired` and `dependentSchemas`, and a `$ref`
/// with siblings alone in drafts 4 to 7 (they ignore its siblings). For value generation, and
/// for nothing else: the validators read the schema as written.
pub fn to_2020(s: &Value, d: Draft) -> Value {
    let Value::Object(m) = s else {
        return s.clone();
    };
    if d <= Draft::D7 {
        if let Some(r) = m.get("$ref") {
            // Definitions stay reachable for the reference.
            let mut only = Map::new();
            only.insert("$ref".into(), r.clone());
            for c in ["definitions", "$defs"] {
                if let Some(v) = m.get(c) {
                    only.insert(c.into(), to_2020(v, d));
                }
            }
            return Value::Object(only);
        }
    }
    let mut out = Map::new();
    let tuple = matches!(m.get("items"), Some(Value::Array(_)));
    for (k, v) in m {
        match (k.as_str(), v) {
            (k, _) if DATA.contains(&k) => {
                out.insert(k.to_owned(), v.clone());
            }
            ("items", Value::Array(list)) => {
                out.insert(
                    "prefixItems".into(),
                    Value::Array(list.iter().map(|c| to_2020(c, d)).collect()),
                );
            }
            ("additionalItems", _) if tuple => {
                out.insert("items".into(), to_2020(v, d));
            }
            ("additionalItems", _) => {}
            ("exclusiveMinimum" | "exclusiveMaximum", Value::Bool(b)) => {
                let plain = if k == "exclusiveMinimum" {
                    "minimum"
                } else {
                    "maximum"
                };
                if let (true, Some(n)) = (*b, m.get(plain)) {
                    out.insert(k.clone(), n.clone());
                }
            }
            ("dependencies", Value::Object(deps)) => {
                for (name, dep) in deps {
                    let (key, v) = match dep {
                        Value::Array(_) => ("dependentRequired", dep.clone()),
                        _ => ("dependentSchemas", to_2020(dep, d)),
                    };
                    let entry = out.entry(key).or_insert_with(|| json!({}));
                    entry[name] = v;
                }
            }
            (_, Value::Object(children))
                if matches!(
                    k.as_str(),
                    "properties"
                        | "patternProperties"
                        | "$defs"
                        | "definitions"
                        | "dependentSchemas"
                ) =>
            {
                out.insert(
                    k.clone(),
                    Value::Object(
                        children
                            .iter()
                            .map(|(n, c)| (n.clone(), to_2020(c, d)))
                            .collect(),
                    ),
                );
            }
            (_, Value::Array(list)) => {
                out.insert(
                    k.clone(),
                    Value::Array(list.iter().map(|c| to_2020(c, d)).collect()),
                );
            }
            (_, Value::Object(_)) => {
                out.insert(k.clone(), to_2020(v, d));
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    // Draft 4's exclusive flag moved the bound: the plain one goes.
    for (excl, plain) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if m.get(excl) == Some(&Value::Bool(true)) {
            out.remove(plain);
        }
    }
    Value::Object(out)
}

/// The multiples of a decimal `m` from `-6m` to `12m`, each written as its exact decimal
/// (`3 × 0.1` is `0.3`, not `0.30000000000000004`).
pub fn decimal_multiples(m: &serde_json::Number) -> Vec<Value> {
    let text = m.to_string();
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let Ok(units) = format!("{int}{frac}").parse::<i64>() else {
        return Vec::new();
    };
    let scale = frac.len();
    (-6i64..=12)
        .filter_map(|k| {
            let n = k * units;
            let digits = format!("{:0>width$}", n.unsigned_abs(), width = scale + 1);
            let (i, f) = digits.split_at(digits.len() - scale);
            let sign = if n < 0 { "-" } else { "" };
            let written = if scale == 0 {
                format!("{sign}{i}")
            } else {
                format!("{sign}{i}.{f}")
            };
            serde_json::from_str(&written).ok()
        })
        .collect()
}

/// A 2020-12 `full` schema rewritten into what [`gen::value`] aims at: names matching
/// `patternProperties` become declared properties, `if`/`then`/`else` an `anyOf` of its two
/// outcomes, `contains` a first tuple position, `unevaluated*` the additional schemas where
/// none is given, a decimal `multipleOf` the list of its small multiples. Aimed values are
/// then judged by the validators; nothing here needs to be exact.
pub fn approximate(s: &Value) -> Value {
    let Value::Object(m) = s else {
        return s.clone();
    };
    let mut out = Map::new();
    for (k, v) in m {
        let mapped = match v {
            _ if DATA.contains(&k.as_str()) => v.clone(),
            Value::Object(children)
                if matches!(
                    k.as_str(),
                    "properties" | "patternProperties" | "dependentSchemas"
                ) =>
            {
                Value::Object(
                    children
                        .iter()
                        .map(|(n, c)| (n.clone(), approximate(c)))
                        .collect(),
                )
            }
            Value::Object(_) => approximate(v),
            Value::Array(list) => Value::Array(list.iter().map(approximate).collect()),
            _ => v.clone(),
        };
        out.insert(k.clone(), mapped);
    }
    if let Some(Value::Object(patterns)) = out.remove("patternProperties") {
        let props = out
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        let mut props = props;
        for (p, sub) in patterns {
            let names = PATTERN_KEYS
                .iter()
                .find(|(q, _)| *q == p)
                .map_or(&[][..], |(_, n)| *n);
            for n in names {
                let entry = props.entry(n.to_string()).or_insert_with(|| json!({}));
                *entry = json!({"allOf": [entry.clone(), sub.clone()]});
            }
        }
        out.insert("properties".into(), Value::Object(props));
    }
    if let Some(i) = out.remove("if") {
        let then = out.remove("then").unwrap_or(json!({}));
        let els = out.remove("else").unwrap_or(json!({}));
        let outcome = json!({"anyOf": [{"allOf": [i, then]}, els]});
        let all = out.entry("allOf").or_insert_with(|| json!([]));
        if let Value::Array(a) = all {
            a.push(outcome);
        }
    }
    out.remove("then");
    out.remove("else");
    if let Some(c) = out.remove("contains") {
        if !out.contains_key("prefixItems") {
            let first = match out.get("items") {
                Some(items) => json!({"allOf": [items.clone(), c]}),
                None => c,
            };
            out.insert("prefixItems".into(), json!([first]));
        }
    }
    if let Some(u) = out.remove("unevaluatedProperties") {
        out.entry("additionalProperties").or_insert(u);
    }
    if let Some(u) = out.remove("unevaluatedItems") {
        out.entry("items").or_insert(u);
    }
    if let Some(Value::Number(n)) = out.get("multipleOf").cloned() {
        if n.as_u64().is_none() && !out.contains_key("enum") && !out.contains_key("const") {
            out.remove("multipleOf");
            let multiples = decimal_multiples(&n);
            if !multiples.is_empty() {
                out.insert("enum".into(), Value::Array(multiples));
            }
        }
    }
    for k in [
        "propertyNames",
        "minContains",
        "maxContains",
        "dependentSchemas",
        "dependentRequired",
    ] {
        out.remove(k);
    }
    Value::Object(out)
}
