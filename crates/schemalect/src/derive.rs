//! Schemas derived from Rust types with [`schemars`], and typed answers (feature `schemars`).
//!
//! Most Rust users do not write JSON Schema by hand: they derive it. [`schema_for`] asks
//! schemars 1.x for the schema of `T` (draft 2020-12, subschemas inlined: see [`settings`]),
//! maps what derivation emits into the ADR-126 subset wherever the meaning stays the same, and
//! parses the result with [`Schema::parse`]. Whatever cannot be expressed is a [`DeriveError`]
//! naming the Rust type and the JSON Pointer of every problem; nothing is silently dropped.
//! [`AcceptTyped::accept_as`] takes a provider's answer back as a `T`: decoded, un-reshaped and
//! validated against the source schema first, then deserialized.
//!
//! ```
//! use schemalect::derive::{schema_for, AcceptTyped};
//! use schemalect::{LowerOptions, Target};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! /// A city the model names.
//! #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
//! struct City {
//!     name: String,
//!     /// Inhabitants, if known.
//!     population: Option<u32>,
//! }
//!
//! let schema = schema_for::<City>()?;
//! for target in Target::ALL {
//!     let plan = schema.lower(target, &LowerOptions::default());
//!     let city: City = plan.accept_as(r#"{"name": "Lyon", "population": 522250}"#)?;
//!     assert_eq!(city, City { name: "Lyon".into(), population: Some(522_250) });
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The mapping
//!
//! Meaning-preserving: every JSON value the schemars schema accepts is accepted by the mapped
//! schema and nothing else is.
//!
//! | schemars emits (Rust construct) | subset form |
//! |---|---|
//! | `$schema`, `title`, `description` (doc comments), `default` (`#[serde(default)]`), `examples`, `format` (`uint8`, `int32`, `double`, `ipv4`, …) | kept as annotations |
//! | `minimum`/`maximum` of integer widths (`u8`: 0..=255, `i16`, `NonZero*`, `#[schemars(range)]`) | kept: they are assertions |
//! | `Option<T>`: `type: [T, "null"]`, `anyOf: [T, {type: null}]`, `enum: [.., null]` | kept (already in the subset) |
//! | unit enums: `enum` of strings, or `oneOf` of `const`s when variants have doc comments | kept |
//! | externally, internally, adjacently tagged enums (`oneOf`), untagged enums (`anyOf`) | kept |
//! | structs: `properties`, `required`; `deny_unknown_fields`: `additionalProperties: false` | kept; a name repeated in `required` (from `#[serde(flatten)]`) is listed once |
//! | maps with string keys (`HashMap<String, T>`, `BTreeMap`): `additionalProperties: {T}` | kept |
//! | sets: `uniqueItems: true`; tuples: `prefixItems` + `minItems`/`maxItems`; `char`: `minLength`/`maxLength` 1 | kept |
//! | `true` or `{}` (`serde_json::Value`), or a schema of annotations only | `type: ["null", "boolean", "object", "array", "number", "string"]`: every JSON value has one of these types, so it accepts exactly what `true` accepts, and it is an assertion the subset requires |
//! | `false` (an uninhabited type) | `not: {type: [all six]}`: accepts nothing, like `false` |
//! | `additionalProperties: {}` | `additionalProperties: true` |
//! | `readOnly`, `writeOnly`, `deprecated` (booleans) | dropped: annotations that never change validity and are not in the subset |
//! | `$ref` to a non-recursive definition (generators that do not inline, e.g. `schemars::schema_for!`) | inlined; sibling annotations override the definition's, sibling assertions are kept beside it under `allOf` |
//! | `$defs` | removed once every reference is inlined (unused definitions never change validity) |
//! | `$ref` to a recursive type (`struct Tree { kids: Vec<Tree> }`) | error [`DeriveProblemKind::Recursive`], naming the type |
//! | `patternProperties` (maps with non-string keys: `HashMap<u32, T>`, `BTreeMap<i8, T>`) | error [`DeriveProblemKind::MapKeys`] |
//! | a `$ref` that does not point into the document | error [`DeriveProblemKind::Reference`] |
//! | anything else outside the subset (`unevaluatedProperties`, `x-…` keys from `#[schemars(extend)]`, a `pattern` the linear-time engine cannot run, …) | error [`DeriveProblemKind::Subset`], from [`Schema::parse`] |
//!
//! schemars bounds only the 8- and 16-bit integers (and the lower bound of unsigned ones);
//! `int32`, `int64`, `uint32`, … stay annotations, as schemars emits them. An answer that fits
//! the schema but not the Rust type (`4294967296` for an `i32`) is reported by
//! [`AcceptTyped::accept_as`] as [`TypedAcceptError::Mismatch`].
//!
//! Derive with the deserialize contract (the default of [`settings`]): answers are deserialized,
//! so the schema must describe what `T`'s `Deserialize` accepts.

use crate::error::{Violation, ViolationKind};
use crate::keywords::{self, Role};
use crate::limits::{Limit, Limits};
use crate::lower::{AcceptError, Answer, LowerOptions, Lowering, Profile, Target};
use crate::pointer::Pointer;
use crate::Schema;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// The schemars crate schemalect maps from, for a crate that does not depend on schemars
/// itself: derive through this path, and tell the derive macro where it is with
/// `#[schemars(crate = "…")]` (the macro's expansion names the crate by path).
///
/// ```
/// use schemalect::derive::schemars::JsonSchema;
///
/// #[derive(JsonSchema)]
/// #[schemars(crate = "schemalect::derive::schemars")]
/// struct Point {
///     x: i32,
///     y: i32,
/// }
///
/// let schema = schemalect::derive::schema_for::<Point>()?;
/// assert!(schema.is_valid(&serde_json::json!({"x": 1, "y": 2})));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use schemars;

/// The six JSON types: a `type` list of all of them accepts every JSON value.
const ANY_TYPE: [&str; 6] = ["null", "boolean", "object", "array", "number", "string"];

/// Annotations schemars emits that the subset does not know; they never change validity.
const DROPPED: [&str; 3] = ["readOnly", "writeOnly", "deprecated"];

/// The generator settings [`schema_for`] uses: draft 2020-12, subschemas inlined (the subset
/// has no references), the deserialize contract. Add transforms to them and pass the result of
/// your generator to [`from_schemars`].
pub fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true)
}

/// The subset schema of `T`: derived by schemars with [`settings`], mapped, and parsed.
///
/// # Errors
/// A [`DeriveError`] naming `T` and listing every problem: recursive types, maps with
/// non-string keys, and anything else outside the subset.
pub fn schema_for<T: JsonSchema + ?Sized>() -> Result<Schema, DeriveError> {
    derive::<T>().map(|(_, schema)| schema)
}

/// The subset schema of `T` as JSON: what [`schema_for`] parses. Useful to store, diff or print
/// the schema, or to put it into a prompt.
///
/// # Errors
/// As [`schema_for`]: the value is returned only if it is inside the subset.
pub fn schema_value_for<T: JsonSchema + ?Sized>() -> Result<Value, DeriveError> {
    derive::<T>().map(|(value, _)| value)
}

/// Maps a schema produced by your own schemars generator (other settings, transforms) and
/// parses it. `type_name` names the type in errors. References to non-recursive definitions are
/// inlined, so the output of `schemars::schema_for!` (which does not inline) is accepted too.
///
/// # Errors
/// As [`schema_for`].
pub fn from_schemars(generated: &schemars::Schema, type_name: &str) -> Result<Schema, DeriveError> {
    map(generated, type_name).map(|(_, schema)| schema)
}

/// As [`from_schemars`], returning the mapped schema as JSON.
///
/// # Errors
/// As [`schema_for`].
pub fn value_from_schemars(
    generated: &schemars::Schema,
    type_name: &str,
) -> Result<Value, DeriveError> {
    map(generated, type_name).map(|(value, _)| value)
}

/// The typed entry: the schema of `T`, lowered for `target` with the options a typed caller
/// wants, the [`Profile::Reshaping`] profile and [`LowerOptions::null_means_absent`]
/// (answers always come back through [`Lowering::accept_as`], which undoes the reshaping, and
/// serde reads a missing `Option` field and `null` alike).
///
/// For ordinary Rust types (structs of scalars, `Option`, unit enums, `Vec`, nested structs,
/// `HashMap<String, _>`) the request fragment is strict `json_schema` on OpenAI, a strict tool
/// on Claude and a `responseSchema` on Gemini. A struct that stays open to unknown fields where
/// a union could see them (an internally tagged enum with data, without
/// `#[serde(deny_unknown_fields)]`) cannot be closed without narrowing: the plan then falls
/// back, and its losses say why. Each such loss carries a
/// [`Hint::DenyUnknownFields`](crate::Hint::DenyUnknownFields) naming the Rust type the object
/// comes from (the struct, or the enum whose variant it is), shown after the reason and listed
/// by [`Lowering::hints`]: add the attribute to that type and the object is sent closed.
///
/// ```
/// use schemalect::{for_type, Hint, Mode, Target};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// #[serde(tag = "kind")]
/// enum Shape {
///     Circle { radius: f64 },
///     Square { side: f64 },
/// }
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Drawing {
///     shape: Shape,
/// }
///
/// let plan = for_type::<Drawing>(Target::OpenAi)?;
/// assert_eq!(plan.mode(), Mode::Json);
/// // The variants, at `/properties/shape/oneOf/0` and `…/1`, are `Shape`'s.
/// let shape = |h: &Hint| matches!(h, Hint::DenyUnknownFields { rust_type } if rust_type == "Shape");
/// assert_eq!(plan.hints().filter(|h| shape(h)).count(), 2);
/// assert!(plan.losses().iter().any(|l| l.to_string().ends_with(
///     "(this object is the Rust type `Shape`: add `#[serde(deny_unknown_fields)]` to it so that its schema is closed)"
/// )));
///
/// #[derive(Deserialize, JsonSchema)]
/// #[serde(tag = "kind", deny_unknown_fields)]
/// enum ClosedShape {
///     Circle { radius: f64 },
///     Square { side: f64 },
/// }
///
/// #[derive(Deserialize, JsonSchema)]
/// struct ClosedDrawing {
///     shape: ClosedShape,
/// }
///
/// let plan = for_type::<ClosedDrawing>(Target::OpenAi)?;
/// assert!(plan.mode() <= Mode::Widened);
/// assert_eq!(plan.hints().count(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// ```
/// use schemalect::{for_type, Mode, Target};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use std::collections::HashMap;
///
/// #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
/// struct Ticket {
///     title: String,
///     priority: Option<u8>,
///     labels: Vec<String>,
///     fields: HashMap<String, String>,
/// }
///
/// let plan = for_type::<Ticket>(Target::OpenAi)?;
/// assert!(plan.mode() <= Mode::Widened);
/// assert_eq!(plan.wire()["response_format"]["json_schema"]["strict"], true);
/// // ... merge `plan.wire()` into the request body, call the provider ...
/// let answer = r#"{"title": "Crash", "priority": null, "labels": [], "fields": [{"key": "os", "value": "linux"}]}"#;
/// let ticket: Ticket = plan.accept_as(answer)?;
/// assert_eq!(ticket.priority, None);
/// assert_eq!(ticket.fields["os"], "linux");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`schema_for`].
pub fn for_type<T: JsonSchema + ?Sized>(target: Target) -> Result<Lowering, DeriveError> {
    for_type_with::<T>(target, &LowerOptions::default())
}

/// [`for_type`] with options (a name, a description, Groq strictness, …). The profile is
/// always [`Profile::Reshaping`]; `null_means_absent` defaults to on.
///
/// # Errors
/// As [`schema_for`].
pub fn for_type_with<T: JsonSchema + ?Sized>(
    target: Target,
    options: &LowerOptions,
) -> Result<Lowering, DeriveError> {
    let schema = schema_for::<T>()?;
    Ok(schema.lower(target, &typed_options(options)))
}

/// The options of the typed entry: `options` with the reshaping profile, and `null` taken to
/// mean absent unless the caller said otherwise.
pub(crate) fn typed_options(options: &LowerOptions) -> LowerOptions {
    let mut options = options.clone().with_profile(Profile::Reshaping);
    options.null_means_absent = Some(options.null_means_absent.unwrap_or(true));
    options
}

pub(crate) fn derive<T: JsonSchema + ?Sized>() -> Result<(Value, Schema), DeriveError> {
    let generated = settings().into_generator().into_root_schema_for::<T>();
    // The same type generated without inlining: its `$defs` name the types the inlined
    // schema's objects come from (see `rust_types`).
    let plain = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    map_named(
        &generated,
        std::any::type_name::<T>(),
        Some((plain.as_value(), &T::schema_name())),
    )
}

/// Why a Rust type's schema cannot be expressed in the subset: every problem found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub struct DeriveError {
    /// The Rust type whose schema was derived (`std::any::type_name`), or the name given to
    /// [`from_schemars`].
    pub type_name: String,
    /// The problems, those of the mapping first, then those [`Schema::parse`] found.
    pub problems: Vec<DeriveProblem>,
}

impl fmt::Display for DeriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "the schema of `{}` cannot be expressed in the subset ({n} problem{})",
            self.type_name,
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            write!(f, "\n  {p}")?;
        }
        Ok(())
    }
}

/// One problem of a derived schema.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct DeriveProblem {
    /// The schema object, as a JSON Pointer into the derived schema (the value
    /// [`schema_value_for`] would return).
    pub pointer: Pointer,
    /// What is wrong.
    pub kind: DeriveProblemKind,
}

impl fmt::Display for DeriveProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.pointer, self.kind)
    }
}

/// The kinds of problem.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DeriveProblemKind {
    /// A recursive type: its schema refers to itself, and the subset has no references.
    Recursive {
        /// The recursive type: the derived type itself, or schemars' name for it.
        type_name: String,
    },
    /// Property names restricted by patterns, which is how schemars describes a map whose keys
    /// are not strings; the subset cannot restrict property names.
    MapKeys {
        /// The key patterns.
        patterns: Vec<String>,
    },
    /// A reference that does not point into the generated document.
    Reference {
        /// The reference as written.
        reference: String,
    },
    /// The mapped schema is outside the subset here (from [`Schema::parse`]).
    Subset(Violation),
}

impl fmt::Display for DeriveProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeriveProblemKind::Recursive { type_name } => write!(
                f,
                "`{type_name}` is a recursive type (it contains itself), so its schema cannot be inlined here, and the subset has no references: bound the nesting with a type that does not contain itself"
            ),
            DeriveProblemKind::MapKeys { patterns } => {
                f.write_str("the keys of this map are restricted by the pattern")?;
                if patterns.len() != 1 {
                    f.write_str("s")?;
                }
                for (i, p) in patterns.iter().enumerate() {
                    write!(f, "{}`{p}`", if i == 0 { " " } else { ", " })?;
                }
                f.write_str(" (a map whose keys are not strings, such as `HashMap<u32, _>`); the subset cannot restrict property names: use `String` keys, or a list of key-value pairs")
            }
            DeriveProblemKind::Reference { reference } => write!(
                f,
                "the reference `{reference}` does not point into the generated schema, so it cannot be inlined; the subset has no references"
            ),
            DeriveProblemKind::Subset(v) => {
                if v.keyword.is_empty() {
                    write!(f, "{}", v.kind)
                } else {
                    write!(f, "`{}`: {}", v.keyword, v.kind)
                }
            }
        }
    }
}

/// Maps `generated` and parses the result; the Rust types of its objects are read from
/// `generated` itself, its root named `type_name` (see [`map_named`]).
fn map(generated: &schemars::Schema, type_name: &str) -> Result<(Value, Schema), DeriveError> {
    map_named(generated, type_name, None)
}

/// Maps `generated` and parses the result. `plain` is the same type's schema with references
/// to `$defs` (not inlined) and the name of the root type, for [`rust_types`]; without it,
/// `generated` is read for them, under `type_name`.
fn map_named(
    generated: &schemars::Schema,
    type_name: &str,
    plain: Option<(&Value, &str)>,
) -> Result<(Value, Schema), DeriveError> {
    // schemars serializes keywords in a readable order (`$schema`, `title`, `description`,
    // `type`, … first), which is also the order providers see; the value it holds is in
    // insertion order. Serializing a `Value` cannot fail, but keep the held value if it did.
    let generated =
        serde_json::to_value(generated).unwrap_or_else(|_| generated.as_value().clone());
    let mut mapper = Mapper {
        document: &generated,
        type_name,
        limits: Limits::default(),
        budget: Limits::default().max_nodes,
        cyclic: HashMap::new(),
        problems: Vec::new(),
        handled: Vec::new(),
    };
    let mut out = generated.clone();
    if let Value::Object(root) = &mut out {
        // Definitions are only the targets of references, which are inlined (or reported).
        root.retain(|k, _| k != "$defs" && k != "definitions");
    }
    mapper.subschema(&mut out, &Pointer::root(), 0);
    match Schema::parse(&out) {
        Ok(mut schema) if mapper.problems.is_empty() => {
            // serde reads a missing `Option` field and `null` alike.
            schema.from_serde = true;
            let (plain, root) = plain.unwrap_or((&generated, type_name));
            schema.rust_types = Some(std::sync::Arc::new(rust_types(plain, &out, root)));
            Ok((out, schema))
        }
        Ok(_) => Err(mapper.into_error(Vec::new())),
        Err(e) => Err(mapper.into_error(e.violations)),
    }
}

struct Mapper<'a> {
    /// The generated document, where references are resolved.
    document: &'a Value,
    type_name: &'a str,
    limits: Limits,
    /// Schema objects that may still be inlined from definitions before the node limit.
    budget: usize,
    /// Whether the definition at a pointer refers to itself, memoised.
    cyclic: HashMap<String, bool>,
    problems: Vec<DeriveProblem>,
    /// Places and keywords already reported, so that the parser's view of them is not repeated.
    handled: Vec<(Pointer, &'static str)>,
}

impl Mapper<'_> {
    fn problem(&mut self, at: &Pointer, keyword: &'static str, kind: DeriveProblemKind) {
        self.problems.push(DeriveProblem {
            pointer: at.clone(),
            kind,
        });
        self.handled.push((at.clone(), keyword));
    }

    fn into_error(self, violations: Vec<Violation>) -> DeriveError {
        let mut problems = self.problems;
        for v in violations {
            let covered = self.handled.iter().any(|(at, keyword)| {
                *at == v.pointer
                    && (v.keyword == *keyword || matches!(v.kind, ViolationKind::AssertsNothing))
            });
            if !covered {
                problems.push(DeriveProblem {
                    pointer: v.pointer.clone(),
                    kind: DeriveProblemKind::Subset(v),
                });
            }
        }
        DeriveError {
            type_name: self.type_name.to_owned(),
            problems,
        }
    }

    /// Maps the subschema `v` at `at` in place.
    fn subschema(&mut self, v: &mut Value, at: &Pointer, depth: usize) {
        // Past the depth limit the parser reports the schema; descending further would only
        // risk the stack.
        if depth > self.limits.max_depth {
            return;
        }
        let inlined = match v {
            Value::Bool(true) => Some(any_value()),
            Value::Bool(false) => Some(no_value()),
            Value::Object(obj) if obj.contains_key("$ref") => match self.reference(obj, at) {
                Some(target) => Some(target),
                None => return,
            },
            Value::Object(obj) => {
                self.object(obj, at, depth);
                None
            }
            // Not a schema: the parser says so.
            _ => None,
        };
        if let Some(new) = inlined {
            *v = new;
            if v.get("$ref").is_some() || !v.is_object() {
                // A definition that is itself a reference: resolve it in turn (the target is
                // not cyclic, so the chain ends).
                self.subschema(v, at, depth + 1);
            } else if let Value::Object(obj) = v {
                self.object(obj, at, depth);
            }
        }
    }

    fn object(&mut self, obj: &mut Map<String, Value>, at: &Pointer, depth: usize) {
        obj.retain(|k, v| !(DROPPED.contains(&k.as_str()) && v.is_boolean()));

        if let Some(Value::Object(patterns)) = obj.get("patternProperties") {
            let patterns = patterns.keys().cloned().collect();
            self.problem(
                at,
                "patternProperties",
                DeriveProblemKind::MapKeys { patterns },
            );
        }

        if let Some(Value::Array(required)) = obj.get_mut("required") {
            let mut seen = HashSet::new();
            required.retain(|name| match name.as_str() {
                Some(s) => seen.insert(s.to_owned()),
                None => true,
            });
        }

        for key in ["items", "not"] {
            if let Some(sub) = obj.get_mut(key) {
                self.subschema(sub, &at.join(key), depth + 1);
            }
        }
        if let Some(sub) = obj.get_mut("additionalProperties") {
            match sub {
                Value::Object(o) if o.is_empty() => *sub = Value::Bool(true),
                // `true`/`false` here are keyword values, not subschemas.
                Value::Object(_) => {
                    self.subschema(sub, &at.join("additionalProperties"), depth + 1)
                }
                _ => {}
            }
        }
        if let Some(Value::Object(properties)) = obj.get_mut("properties") {
            let base = at.join("properties");
            for (name, sub) in properties.iter_mut() {
                self.subschema(sub, &base.join(name), depth + 1);
            }
        }
        for key in ["prefixItems", "allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(list)) = obj.get_mut(key) {
                let base = at.join(key);
                for (i, sub) in list.iter_mut().enumerate() {
                    self.subschema(sub, &base.index(i), depth + 1);
                }
            }
        }

        if obj.keys().all(|k| is_annotation(k)) {
            obj.insert("type".to_owned(), any_type());
        }
    }

    /// The schema that replaces the reference object `site`, or `None` when the reference is
    /// reported (recursive, dangling) or left for the parser (not a string).
    fn reference(&mut self, site: &Map<String, Value>, at: &Pointer) -> Option<Value> {
        let reference = site.get("$ref").and_then(Value::as_str)?;
        let Some(pointer) = local_pointer(reference) else {
            self.problem(
                at,
                "$ref",
                DeriveProblemKind::Reference {
                    reference: reference.to_owned(),
                },
            );
            return None;
        };
        if pointer.is_empty() {
            // The root, referred to from inside itself.
            let type_name = self.type_name.to_owned();
            self.problem(at, "$ref", DeriveProblemKind::Recursive { type_name });
            return None;
        }
        let Some(target) = self.document.pointer(&pointer) else {
            self.problem(
                at,
                "$ref",
                DeriveProblemKind::Reference {
                    reference: reference.to_owned(),
                },
            );
            return None;
        };
        if self.is_cyclic(&pointer) {
            self.problem(
                at,
                "$ref",
                DeriveProblemKind::Recursive {
                    type_name: definition_name(&pointer),
                },
            );
            return None;
        }
        let size = count_objects(target);
        if size > self.budget {
            let max = self.limits.max_nodes;
            self.problems.push(DeriveProblem {
                pointer: at.clone(),
                kind: DeriveProblemKind::Subset(Violation::new(
                    at,
                    "$ref",
                    ViolationKind::Limit {
                        limit: Limit::Nodes,
                        max,
                    },
                )),
            });
            self.handled.push((at.clone(), "$ref"));
            return None;
        }
        self.budget -= size;
        Some(inline(site, target))
    }

    /// True when the definition at `pointer` refers to itself, directly or through others.
    fn is_cyclic(&mut self, pointer: &str) -> bool {
        if let Some(&known) = self.cyclic.get(pointer) {
            return known;
        }
        let mut seen: HashSet<String> = HashSet::new();
        let mut stack = self
            .document
            .pointer(pointer)
            .map(references_in)
            .unwrap_or_default();
        let mut cyclic = false;
        while let Some(next) = stack.pop() {
            if next == pointer {
                cyclic = true;
                break;
            }
            // A reference to the root is reported where it stands; it is not followed.
            if next.is_empty() || !seen.insert(next.clone()) {
                continue;
            }
            if let Some(target) = self.document.pointer(&next) {
                stack.extend(references_in(target));
            }
        }
        self.cyclic.insert(pointer.to_owned(), cyclic);
        cyclic
    }
}

/// The Rust type each object of the mapped schema `mapped` comes from, by pointer, for the
/// hint a lowering gives where an open struct blocks a strict mode
/// ([`crate::lower::Hint::DenyUnknownFields`]): the root is `root`; an object that `plain` (the
/// same type's schema with references, as schemars writes it without inlining) reaches through
/// `$ref: "#/$defs/Name"` is `Name`; the variants of an enum (its `oneOf`/`anyOf` branches, and
/// their members for externally and adjacently tagged ones) are the enum's, which is where
/// serde takes `deny_unknown_fields` for them.
///
/// `plain` and `mapped` are walked side by side. They differ where inlining changed the shape:
/// an `Option` of a struct is `anyOf: [{$ref}, {type: null}]` in one and a `type` list in the
/// other, and a reference with assertions beside it is inlined under `allOf`; both are
/// followed. A definition is taken as the object at the same place only when that object
/// declares every property the definition declares; anywhere else the walk stops, so an object
/// is left unnamed (no hint) rather than named wrongly. A type that schemars always inlines
/// (`#[schemars(inline)]`) has no definition, and its objects are named after the type around
/// them only when they are enum variants.
fn rust_types(plain: &Value, mapped: &Value, root: &str) -> HashMap<Pointer, String> {
    let mut namer = Namer {
        document: plain,
        names: HashMap::new(),
        budget: Limits::default().max_nodes,
        max_depth: Limits::default().max_depth,
    };
    namer.names.insert(Pointer::root(), root.to_owned());
    namer.variants(plain, mapped, &Pointer::root(), root);
    namer.walk(plain, mapped, &Pointer::root(), 0, &mut Vec::new());
    namer.names
}

struct Namer<'a> {
    /// The schema with references, where they are resolved.
    document: &'a Value,
    names: HashMap<Pointer, String>,
    /// Schema objects still to visit: a definition is walked once per place that refers to
    /// it, so this bounds the walk as the node limit bounds inlining.
    budget: usize,
    max_depth: usize,
}

/// The keywords whose values are one subschema, and those whose values are lists of them.
const ONE_SUBSCHEMA: [&str; 3] = ["items", "additionalProperties", "not"];
const SUBSCHEMA_LISTS: [&str; 4] = ["prefixItems", "allOf", "anyOf", "oneOf"];

impl Namer<'_> {
    /// Names the objects below `plain` (at `at` in `mapped`), following references into their
    /// definitions. `chain` holds the definitions being walked, so a cycle ends.
    fn walk(
        &mut self,
        plain: &Value,
        mapped: &Value,
        at: &Pointer,
        depth: usize,
        chain: &mut Vec<String>,
    ) {
        let (Value::Object(p), Value::Object(m)) = (plain, mapped) else {
            return;
        };
        if depth > self.max_depth || self.budget == 0 {
            return;
        }
        self.budget -= 1;
        if let Some(pointer) = p
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(local_pointer)
        {
            let document = self.document;
            let Some(target) = document.pointer(&pointer) else {
                return;
            };
            if pointer.is_empty() || chain.contains(&pointer) {
                return;
            }
            // Annotations beside the reference are merged into the definition's object;
            // assertions put it under `allOf`, last.
            let (at, mapped) = match (declares_all(target, mapped), m.get("allOf")) {
                (true, _) => (at.clone(), mapped),
                (false, Some(Value::Array(list))) => match list.last() {
                    Some(last) if declares_all(target, last) => {
                        (at.join("allOf").index(list.len() - 1), last)
                    }
                    _ => return,
                },
                (false, _) => return,
            };
            let name = definition_name(&pointer);
            self.names.insert(at.clone(), name.clone());
            self.variants(target, mapped, &at, &name);
            chain.push(pointer);
            self.walk(target, mapped, &at, depth + 1, chain);
            chain.pop();
            return;
        }
        if let Some(Value::Object(props)) = p.get("properties") {
            let base = at.join("properties");
            for (name, sub) in props {
                if let Some(twin) = m.get("properties").and_then(|q| q.get(name)) {
                    self.walk(sub, twin, &base.join(name), depth + 1, chain);
                }
            }
        }
        for key in ONE_SUBSCHEMA {
            if let (Some(sub), Some(twin)) = (p.get(key), m.get(key)) {
                self.walk(sub, twin, &at.join(key), depth + 1, chain);
            }
        }
        for key in SUBSCHEMA_LISTS {
            let Some(Value::Array(list)) = p.get(key) else {
                continue;
            };
            match m.get(key) {
                Some(Value::Array(twins)) => {
                    let base = at.join(key);
                    for (i, (sub, twin)) in list.iter().zip(twins).enumerate() {
                        self.walk(sub, twin, &base.index(i), depth + 1, chain);
                    }
                }
                // `Option<T>`: `anyOf: [T, {type: null}]` here, T with `null` added to its
                // `type` there.
                None if key == "anyOf" => {
                    if let Some(value) = non_null_of_option(list) {
                        self.walk(value, mapped, at, depth + 1, chain);
                    }
                }
                _ => {}
            }
        }
    }

    /// Names the variants of the enum `plain` (at `at`, `mapped` there) after it, where the
    /// mapped schema has them in the same place: the object branches of its `oneOf`/`anyOf`,
    /// and the objects one property below them (the content of an externally or adjacently
    /// tagged variant). Variants that refer to a type of their own are named by [`Namer::walk`]
    /// afterwards, which replaces these names.
    fn variants(&mut self, plain: &Value, mapped: &Value, at: &Pointer, name: &str) {
        for key in ["oneOf", "anyOf"] {
            let (Some(Value::Array(list)), Some(Value::Array(twins))) =
                (plain.get(key), mapped.get(key))
            else {
                continue;
            };
            let base = at.join(key);
            for (i, (branch, twin)) in list.iter().zip(twins).enumerate() {
                if !is_struct_like(branch) || !is_struct_like(twin) {
                    continue;
                }
                let here = base.index(i);
                self.names.insert(here.clone(), name.to_owned());
                let (Some(Value::Object(props)), Some(Value::Object(twin_props))) =
                    (branch.get("properties"), twin.get("properties"))
                else {
                    continue;
                };
                for (prop, sub) in props {
                    if let Some(twin) = twin_props.get(prop) {
                        if is_struct_like(sub) && is_struct_like(twin) {
                            let inner = here.join("properties").join(prop);
                            self.names.insert(inner, name.to_owned());
                        }
                    }
                }
            }
        }
    }
}

/// An object schema written in place (not a reference) that declares properties: a struct or
/// a struct variant.
fn is_struct_like(v: &Value) -> bool {
    v.get("$ref").is_none() && v.get("properties").is_some_and(Value::is_object)
}

/// True when `mapped` declares every property the definition `target` declares.
fn declares_all(target: &Value, mapped: &Value) -> bool {
    match target.get("properties").and_then(Value::as_object) {
        None => true,
        Some(props) => mapped
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|have| props.keys().all(|k| have.contains_key(k))),
    }
}

/// The value branch of schemars' `Option<T>`: `anyOf` of two, one of them `{type: null}`.
fn non_null_of_option(list: &[Value]) -> Option<&Value> {
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    match list {
        [a, b] if is_null(b) => Some(a),
        [a, b] if is_null(a) => Some(b),
        _ => None,
    }
}

/// `{"type": [all six]}`: accepts every JSON value, as `true` and `{}` do.
fn any_type() -> Value {
    Value::Array(ANY_TYPE.iter().map(|t| Value::from(*t)).collect())
}

fn any_value() -> Value {
    let mut obj = Map::new();
    obj.insert("type".to_owned(), any_type());
    Value::Object(obj)
}

/// `{"not": {"type": [all six]}}`: accepts nothing, as `false` does.
fn no_value() -> Value {
    let mut obj = Map::new();
    obj.insert("not".to_owned(), any_value());
    Value::Object(obj)
}

fn is_annotation(keyword: &str) -> bool {
    keywords::lookup(keyword).is_some_and(|k| k.role == Role::Annotation)
        || DROPPED.contains(&keyword)
}

/// The definition that replaces the reference object `site`. With annotations only beside
/// `$ref`, they override the definition's (a field's doc comment over the type's); any other
/// sibling keeps its own meaning next to the definition under `allOf`, as `$ref` applies in
/// 2020-12 (merging them could let `additionalProperties` see the definition's `properties`).
fn inline(site: &Map<String, Value>, target: &Value) -> Value {
    let target = match target {
        Value::Bool(true) => any_value(),
        Value::Bool(false) => no_value(),
        other => other.clone(),
    };
    let siblings = site.iter().filter(|(k, _)| k.as_str() != "$ref");
    if site
        .keys()
        .all(|k| k.as_str() == "$ref" || is_annotation(k))
    {
        return match target {
            Value::Object(mut obj) => {
                for (k, v) in siblings {
                    obj.insert(k.clone(), v.clone());
                }
                Value::Object(obj)
            }
            // Not a schema: the parser reports it.
            other => other,
        };
    }
    let mut out: Map<String, Value> = siblings.map(|(k, v)| (k.clone(), v.clone())).collect();
    match out.get_mut("allOf") {
        Some(Value::Array(list)) => list.push(target),
        // A malformed `allOf` is reported by the parser, which rejects the whole schema.
        Some(_) => {}
        None => {
            out.insert("allOf".to_owned(), Value::Array(vec![target]));
        }
    }
    Value::Object(out)
}

/// The JSON Pointer of a same-document reference (`#…`), percent-decoded; `None` otherwise.
fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    let decoded = percent_decode(fragment)?;
    (decoded.is_empty() || decoded.starts_with('/')).then_some(decoded)
}

fn percent_decode(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = tail.get(..2)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            rest = tail.get(2..)?;
        } else {
            out.push(b);
            rest = tail;
        }
    }
    String::from_utf8(out).ok()
}

/// The last token of a definition's pointer, unescaped: schemars' name for the type.
fn definition_name(pointer: &str) -> String {
    pointer
        .rsplit('/')
        .next()
        .unwrap_or(pointer)
        .replace("~1", "/")
        .replace("~0", "~")
}

/// Every same-document reference inside `value`, as pointers (iterative: no recursion).
fn references_in(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(obj) => {
                if let Some(p) = obj
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(local_pointer)
                {
                    out.push(p);
                }
                stack.extend(obj.values());
            }
            Value::Array(list) => stack.extend(list.iter()),
            _ => {}
        }
    }
    out
}

/// How many objects `value` holds (an upper bound on the schema nodes it adds when inlined).
fn count_objects(value: &Value) -> usize {
    let mut n = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(obj) => {
                n = n.saturating_add(1);
                stack.extend(obj.values());
            }
            Value::Array(list) => stack.extend(list.iter()),
            _ => {}
        }
    }
    n
}

/// Typed answers: [`Lowering::accept`], then deserialization into `T`.
///
/// An extension trait so that the typed path needs no change to [`Lowering`] and exists only
/// with the `schemars` feature (which brings `serde`).
pub trait AcceptTyped {
    /// Decodes the provider's answer, undoes any reshaping, validates it against the source
    /// schema, then deserializes it into `T`.
    ///
    /// # Errors
    /// [`TypedAcceptError::Accept`] when the answer is not JSON, not in the requested shape, or
    /// invalid against the source schema; [`TypedAcceptError::Mismatch`] when it is valid but
    /// does not deserialize into `T`, which means the schema and the type disagree.
    fn accept_as<'a, T: DeserializeOwned>(
        &self,
        answer: impl Into<Answer<'a>>,
    ) -> Result<T, TypedAcceptError>;
}

impl AcceptTyped for Lowering {
    fn accept_as<'a, T: DeserializeOwned>(
        &self,
        answer: impl Into<Answer<'a>>,
    ) -> Result<T, TypedAcceptError> {
        Lowering::accept_as(self, answer)
    }
}

impl Lowering {
    /// Decodes the provider's answer, undoes any reshaping, validates it against the source
    /// schema, then deserializes it into `T` (feature `schemars`; also available through
    /// [`AcceptTyped`]).
    ///
    /// # Errors
    /// [`TypedAcceptError::Accept`] when the answer is not JSON, not in the requested shape, or
    /// invalid against the source schema; [`TypedAcceptError::Mismatch`] when it is valid but
    /// does not deserialize into `T`, which means the schema and the type disagree.
    pub fn accept_as<'a, T: DeserializeOwned>(
        &self,
        answer: impl Into<Answer<'a>>,
    ) -> Result<T, TypedAcceptError> {
        let value = self.accept(answer)?;
        typed(value)
    }
}

/// Deserializes a validated value into `T`.
pub(crate) fn typed<T: DeserializeOwned>(value: Value) -> Result<T, TypedAcceptError> {
    // Deserialize from a borrow so that the value can be returned with the error.
    match <T as serde::Deserialize>::deserialize(&value) {
        Ok(t) => Ok(t),
        Err(source) => Err(TypedAcceptError::Mismatch {
            type_name: std::any::type_name::<T>(),
            value,
            source,
        }),
    }
}

/// Why an answer was not taken back as a `T`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TypedAcceptError {
    /// The answer was not accepted: not JSON, not the requested shape, or invalid against the
    /// source schema. The model's answer is at fault.
    #[error(transparent)]
    Accept(#[from] AcceptError),
    /// The answer is valid against the source schema but does not deserialize into the type:
    /// the schema and the type disagree (a hand-written `JsonSchema` impl, a schema derived
    /// from another type, or a range schemars leaves as a `format` annotation).
    #[error("the answer is valid against the schema but does not deserialize into `{type_name}` (the schema and the type disagree): {source}")]
    Mismatch {
        /// The Rust type asked for.
        type_name: &'static str,
        /// The validated answer.
        value: Value,
        /// serde's error.
        source: serde_json::Error,
    },
}
