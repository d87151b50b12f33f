//! The lens of a reshaping lowering: how a source value becomes the value the provider is asked
//! for (`encode`), and how the provider's answer becomes a source value again (`lift`).
//!
//! Strict decoders need closed objects, every property required and an object root; real
//! schemas rarely are shaped like that. The reshaping profile sends a reshaped schema instead
//! (see [`reshape`]) and records here how each reshaping is undone:
//!
//! - an optional property `p: T` becomes a required `p: T | null`; `null` means absent. When `T`
//!   itself admits `null`, that would be ambiguous, so the present value is wrapped as
//!   `{"value": …}` and `null` still means absent; or, with `null_means_absent`, `T` is sent
//!   as it is and `null` lifts to absent (an explicit `null` in the source is sent as absence
//!   is: see [`Absent::NullIsAbsence`]);
//! - a map becomes a list of `{"key", "value"}` entries;
//! - a node that admits arbitrary objects becomes a string holding JSON text;
//! - a non-object root is wrapped as `{"value": …}`;
//! - a union whose branches are reshaped is lifted by trying each branch, and is only reshaped
//!   when no answer can be read two ways: every two branches are provably disjoint, or lift
//!   every answer both accept alike (branches that differ only in which members they
//!   require), and the union's own keywords beside it admit what the reshaped branches send
//!   (no `type: object` beside a branch sent as JSON text, no `const` or `enum`, no rules for
//!   a type only the encodings have).
//!
//! `lift(encode(x)) == x` for every source-valid `x` in the declared fragment, except that with
//! `null_means_absent` an explicit `null` on an optional nullable property lifts to absence:
//! there `lift(encode(x))` is `x` without those members (and equals `x` when it has none); and
//! that a value equal to an `enum` or `const` literal part of which is sent as JSON text is
//! sent written as the literal is, integral numbers as integers, so it comes back equal as
//! JSON Schema compares values (`[0.0]` as `[0]`).
//! Where the source compares values whole (under `enum`, `const` or `uniqueItems`) that would
//! change a valid value into an invalid one, so there the wrapper is sent as without
//! `null_means_absent`.
//! `encode_for_wire` (what `Lowering::encode` calls) refuses (an error) any other value: one
//! outside the declared fragment (a member the source does not declare where it declares
//! properties, which a closed wire object cannot carry) or invalid against the source has no
//! encoding the wire accepts, and `encode` never hands one out. Lift only
//! reshapes; it never repairs (no clamping, no truncation, no guessing): an answer that does not
//! have the requested shape is an error, and validation against the source decides the rest.

pub(crate) mod reshape;

use crate::ir::NodeId;
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::value::{deeper_than, json_eq};
use serde_json::{Map, Value};

/// The member name of the root envelope and of the wrapper for optional nullable values.
pub(crate) const VALUE: &str = "value";
/// The member names of a map entry.
pub(crate) const KEY: &str = "key";

/// How a value is reshaped. `Identity` leaves it unchanged.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Lens {
    #[default]
    Identity,
    /// The root wrapped as `{"value": …}`.
    Envelope(Box<Lens>),
    /// Objects and arrays whose parts are reshaped.
    Shape(Box<ShapeLens>),
    /// A map sent as `[{"key": k, "value": v}, …]`; the lens applies to each value.
    Entries(Box<Lens>),
    /// Any value sent as a string of JSON text.
    Opaque,
    /// A union whose branches are reshaped.
    Union(Box<UnionLens>),
}

/// Reshaped parts of objects and arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ShapeLens {
    /// Properties whose value or presence is reshaped.
    pub props: Vec<PropLens>,
    /// `prefixItems` lenses, by position.
    pub prefix: Vec<Lens>,
    /// The `items` lens.
    pub items: Lens,
}

/// One reshaped property.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PropLens {
    pub name: Box<str>,
    pub lens: Lens,
    pub absent: Absent,
}

/// How an optional property's absence is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Absent {
    /// The property is required in the source; no change.
    Required,
    /// Absent is sent as `null` (the property's schema does not admit `null`).
    Null,
    /// Absent is sent as `null` and a present value as `{"value": v}` (the schema admits `null`).
    Wrapped,
    /// The schema admits `null`, and `null` is taken to mean absent (`null_means_absent`): absent
    /// and an explicit `null` are both sent as `null`, and `null` lifts to absent. Exact for
    /// callers that read both alike (serde reads a missing `Option` field and `null` as `None`).
    NullIsAbsence,
}

/// A union of reshaped branches.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct UnionLens {
    pub branches: Vec<Branch>,
    /// Made with `null_means_absent`: a value may read back without its explicit `null`
    /// members, so encoding checks which branch that value belongs to.
    pub null_is_absence: bool,
}

/// One branch: where it is in the source and in the wire schema, and its lens.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Branch {
    pub source: NodeId,
    pub wire: NodeId,
    pub lens: Lens,
}

/// Why a value could not be reshaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LensError {
    pub pointer: Pointer,
    pub message: String,
}

/// Values deeper than this are not reshaped (JSON text from providers is at most 128 deep).
pub(crate) const MAX_DEPTH: usize = 256;

/// The schemas a lens works between: the (normalised) source and the reshaped wire schema as
/// the providers read it ([`reshape::Reshaped::read`]).
#[derive(Clone, Copy)]
pub(crate) struct Sides<'a> {
    pub source: &'a Schema,
    pub wire: &'a Schema,
}

/// One step of the operation's work budget per value reshaped; an error once it is spent (the
/// operation reports the budget, not this message).
fn out_of_work(at: &Pointer) -> Result<(), LensError> {
    if crate::budget::charge(1) {
        Ok(())
    } else {
        Err(err(at, "the work budget is spent"))
    }
}

/// A copy of a value the lens leaves as it is, charged by its size: unions lift each branch,
/// so one answer value can be copied once per branch.
fn copied(v: &Value, at: &Pointer) -> Result<Value, LensError> {
    let steps = crate::budget::value_bytes(v) / crate::budget::STRING_BYTES_PER_STEP;
    if crate::budget::charge(steps) {
        Ok(v.clone())
    } else {
        Err(err(at, "the work budget is spent"))
    }
}

/// `x` with every integral float written as an integer (`0.0` as `0`, `-0.0` as `0`), when
/// it holds one: the same value as JSON Schema compares values, written the one way a
/// literal's JSON text is. A float beyond the `i64` range stays as it is. `x` is no deeper than
/// [`MAX_DEPTH`] (`encode` checked it).
pub(crate) fn integers_written(x: &Value) -> Option<Value> {
    /// The integer an integral float inside the `i64` range is (so the cast is exact).
    fn integral(n: &serde_json::Number) -> Option<i64> {
        let f = n.as_f64().filter(|_| n.is_f64())?;
        (f.fract() == 0.0 && f.abs() < 9.0e18).then_some(f as i64)
    }
    fn holds_one(x: &Value) -> bool {
        match x {
            Value::Number(n) => integral(n).is_some(),
            Value::Array(items) => items.iter().any(holds_one),
            Value::Object(map) => map.values().any(holds_one),
            _ => false,
        }
    }
    fn written(x: &Value) -> Value {
        match x {
            Value::Number(n) => integral(n).map_or_else(|| x.clone(), Value::from),
            Value::Array(items) => Value::Array(items.iter().map(written).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), written(v))).collect())
            }
            _ => x.clone(),
        }
    }
    holds_one(x).then(|| written(x))
}

fn err(at: &Pointer, message: impl Into<String>) -> LensError {
    LensError {
        pointer: at.clone(),
        message: message.into(),
    }
}

impl Lens {
    pub fn is_identity(&self) -> bool {
        matches!(self, Lens::Identity)
    }

    /// Source value → wire value.
    pub fn encode(&self, x: &Value, sides: Sides<'_>) -> Result<Value, LensError> {
        if deeper_than(x, MAX_DEPTH) {
            return Err(err(
                &Pointer::root(),
                "the value nests too deeply to reshape",
            ));
        }
        self.enc(x, sides, &Pointer::root())
    }

    /// [`Lens::encode`] of a value for the wire: refused when the wire schema rejects the
    /// encoding. (Reshaping itself encodes literals before the wire exists, with plain
    /// `encode`.)
    pub fn encode_for_wire(&self, x: &Value, sides: Sides<'_>) -> Result<Value, LensError> {
        let encoded = self.encode(x, sides)?;
        // A value outside the declared fragment (a member the source does not declare where it
        // declares properties) has no encoding the closed wire accepts; neither has a value the
        // source rejects. Refuse it rather than hand out a request the wire rejects.
        // The wire is read as the providers read it, `oneOf` as `anyOf` (`Reshaped::read`).
        match sides.wire.validate(&encoded) {
            Ok(()) => Ok(encoded),
            Err(errors) => {
                // A literal sent as JSON text is written with its integral numbers as
                // integers (`reshape`'s `encode_literals`): a value equal to it that writes
                // one as `0.0` is sent written the same way, and comes back as `0`.
                if let Some(same) = integers_written(x) {
                    if let Ok(e) = self.encode(&same, sides) {
                        if sides.wire.is_valid(&e) {
                            return Ok(e);
                        }
                    }
                }
                let first = errors.errors.first();
                Err(err(
                    &Pointer::root(),
                    format!(
                        "the value has no encoding the reshaped request accepts (at `{}` of the encoding: {}): it is outside the declared fragment (a member the source does not declare where it declares properties) or invalid against the source",
                        first.map_or("", |e| e.instance_path.as_str()),
                        first.map_or("", |e| e.message.as_str()),
                    ),
                ))
            }
        }
    }

    /// Wire value → source value.
    pub fn lift(&self, w: &Value, sides: Sides<'_>) -> Result<Value, LensError> {
        if deeper_than(w, MAX_DEPTH) {
            return Err(err(
                &Pointer::root(),
                "the answer nests too deeply to reshape",
            ));
        }
        self.lft(w, sides, &Pointer::root())
    }

    fn enc(&self, x: &Value, sides: Sides<'_>, at: &Pointer) -> Result<Value, LensError> {
        out_of_work(at)?;
        Ok(match self {
            Lens::Identity => copied(x, at)?,
            Lens::Envelope(inner) => {
                let mut m = Map::new();
                m.insert(VALUE.into(), inner.enc(x, sides, &at.join(VALUE))?);
                Value::Object(m)
            }
            Lens::Shape(shape) => shape.enc(x, sides, at)?,
            Lens::Entries(inner) => match x {
                Value::Object(map) => {
                    let mut list = Vec::with_capacity(map.len());
                    for (k, v) in map {
                        let mut e = Map::new();
                        e.insert(KEY.into(), Value::String(k.clone()));
                        e.insert(VALUE.into(), inner.enc(v, sides, &at.join(k))?);
                        list.push(Value::Object(e));
                    }
                    Value::Array(list)
                }
                other => other.clone(),
            },
            Lens::Opaque => Value::String(copied(x, at)?.to_string()),
            Lens::Union(u) => {
                let branch = |x: &Value| {
                    (u.branches.iter()).position(|b| sides.source.is_valid_at(b.source, x))
                };
                let Some((i, b)) = branch(x).and_then(|i| Some((i, u.branches.get(i)?))) else {
                    return Ok(x.clone());
                };
                let e = b.lens.enc(x, sides, at)?;
                if !u.null_is_absence {
                    return Ok(e);
                }
                // With `null_means_absent` an explicit `null` is sent as absence is, so `x`
                // reads back without that member, and that value may belong to an earlier
                // branch (one that forbids the member): it is then sent as that branch sends
                // it, so that `x` and what it reads back as are sent alike.
                let lifted = match b.lens.lft(&e, sides, at) {
                    Ok(lifted) if !json_eq(&lifted, x) => lifted,
                    _ => return Ok(e),
                };
                match branch(&lifted)
                    .filter(|j| *j != i)
                    .and_then(|j| u.branches.get(j))
                {
                    Some(other) => other.lens.enc(&lifted, sides, at)?,
                    None => e,
                }
            }
        })
    }

    fn lft(&self, w: &Value, sides: Sides<'_>, at: &Pointer) -> Result<Value, LensError> {
        out_of_work(at)?;
        Ok(match self {
            Lens::Identity => copied(w, at)?,
            Lens::Envelope(inner) => match w {
                Value::Object(m) if m.len() == 1 => match m.get(VALUE) {
                    Some(v) => inner.lft(v, sides, &at.join(VALUE))?,
                    None => {
                        return Err(err(at, "expected an object with the single member `value`"))
                    }
                },
                _ => return Err(err(at, "expected an object with the single member `value`")),
            },
            Lens::Shape(shape) => shape.lft(w, sides, at)?,
            Lens::Entries(inner) => match w {
                Value::Array(list) => {
                    let mut map = Map::new();
                    for (i, e) in list.iter().enumerate() {
                        let here = at.index(i);
                        let (Some(Value::String(k)), Some(v), 2) =
                            (e.get(KEY), e.get(VALUE), e.as_object().map_or(0, Map::len))
                        else {
                            return Err(err(
                                &here,
                                "expected a map entry `{\"key\": string, \"value\": …}`",
                            ));
                        };
                        if map.contains_key(k) {
                            return Err(err(&here, format!("the key `{k}` appears twice")));
                        }
                        map.insert(k.clone(), inner.lft(v, sides, &here.join(VALUE))?);
                    }
                    Value::Object(map)
                }
                other => other.clone(),
            },
            Lens::Opaque => match w {
                Value::String(text) => serde_json::from_str(text).map_err(|e| {
                    err(
                        at,
                        format!(
                            "expected a string of JSON text: {}",
                            crate::json_message(&e)
                        ),
                    )
                })?,
                _ => return Err(err(at, "expected a string of JSON text")),
            },
            Lens::Union(u) => {
                let mut found: Option<Value> = None;
                for b in &u.branches {
                    if !sides.wire.is_valid_at(b.wire, w) {
                        continue;
                    }
                    let Ok(lifted) = b.lens.lft(w, sides, at) else {
                        continue;
                    };
                    if !sides.source.is_valid_at(b.source, &lifted) {
                        continue;
                    }
                    match &found {
                        Some(f) if !json_eq(f, &lifted) => {
                            return Err(err(
                                at,
                                "the answer matches several alternatives that read it differently",
                            ));
                        }
                        Some(_) => {}
                        None => found = Some(lifted),
                    }
                }
                // No branch reads it: leave it as it is and let validation say what is wrong.
                found.unwrap_or_else(|| w.clone())
            }
        })
    }
}

impl ShapeLens {
    /// The lens of member `name`, when it is reshaped.
    pub(crate) fn prop(&self, name: &str) -> Option<&PropLens> {
        self.props.iter().find(|p| &*p.name == name)
    }

    fn enc(&self, x: &Value, sides: Sides<'_>, at: &Pointer) -> Result<Value, LensError> {
        Ok(match x {
            Value::Object(map) => {
                let mut out = Map::new();
                for (k, v) in map {
                    let here = at.join(k);
                    let enc = match self.prop(k) {
                        // An explicit `null` is sent as absence is: the lens is not asked.
                        Some(p) if p.absent == Absent::NullIsAbsence && v.is_null() => Value::Null,
                        Some(p) => {
                            let inner = p.lens.enc(v, sides, &here)?;
                            if p.absent == Absent::Wrapped {
                                let mut m = Map::new();
                                m.insert(VALUE.into(), inner);
                                Value::Object(m)
                            } else {
                                inner
                            }
                        }
                        None => v.clone(),
                    };
                    out.insert(k.clone(), enc);
                }
                for p in &self.props {
                    if p.absent != Absent::Required && !out.contains_key(&*p.name) {
                        out.insert(p.name.to_string(), Value::Null);
                    }
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                Value::Array(self.items_with(items, at, |l, v, here| l.enc(v, sides, here))?)
            }
            other => other.clone(),
        })
    }

    fn lft(&self, w: &Value, sides: Sides<'_>, at: &Pointer) -> Result<Value, LensError> {
        Ok(match w {
            Value::Object(map) => {
                let mut out = Map::new();
                for (k, v) in map {
                    let here = at.join(k);
                    match self.prop(k) {
                        Some(p) => match (p.absent, v) {
                            (
                                Absent::Null | Absent::Wrapped | Absent::NullIsAbsence,
                                Value::Null,
                            ) => {}
                            (Absent::Wrapped, Value::Object(m))
                                if m.len() == 1 && m.contains_key(VALUE) =>
                            {
                                let inner = m.get(VALUE).unwrap_or(&Value::Null);
                                out.insert(k.clone(), p.lens.lft(inner, sides, &here.join(VALUE))?);
                            }
                            (Absent::Wrapped, _) => {
                                return Err(err(&here, "expected null (absent) or an object with the single member `value`"));
                            }
                            _ => {
                                out.insert(k.clone(), p.lens.lft(v, sides, &here)?);
                            }
                        },
                        None => {
                            out.insert(k.clone(), v.clone());
                        }
                    }
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                Value::Array(self.items_with(items, at, |l, v, here| l.lft(v, sides, here))?)
            }
            other => other.clone(),
        })
    }

    fn items_with(
        &self,
        items: &[Value],
        at: &Pointer,
        f: impl Fn(&Lens, &Value, &Pointer) -> Result<Value, LensError>,
    ) -> Result<Vec<Value>, LensError> {
        items
            .iter()
            .enumerate()
            .map(|(i, v)| f(self.prefix.get(i).unwrap_or(&self.items), v, &at.index(i)))
            .collect()
    }
}

#[cfg(test)]
mod tests;
