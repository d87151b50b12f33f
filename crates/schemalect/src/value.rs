//! JSON value semantics of JSON Schema 2020-12, shared by the validator and the lowerings.
//!
//! Numbers compare by mathematical value (`1 == 1.0`, `5.0` is an integer), objects compare
//! without regard to member order, and `{}` differs from `[]`. Equality is iterative and hashing
//! is depth-capped, so a hostile instance nested 100,000 levels deep cannot exhaust the stack.

use serde_json::{Number, Value};
use std::cmp::Ordering;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The JSON type of an instance, as named by the `type` keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JsonType {
    /// `null`
    Null,
    /// `true` / `false`
    Boolean,
    /// an object
    Object,
    /// an array
    Array,
    /// any number
    Number,
    /// a number with a zero fractional part (`5.0` included)
    Integer,
    /// a string
    String,
}

impl JsonType {
    /// Every type, in the order the `type` keyword's documentation lists them.
    pub const ALL: [JsonType; 7] = [
        JsonType::Null,
        JsonType::Boolean,
        JsonType::Object,
        JsonType::Array,
        JsonType::Number,
        JsonType::Integer,
        JsonType::String,
    ];

    /// The keyword spelling (`"integer"`, …).
    pub fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
            JsonType::String => "string",
        }
    }

    /// Parses a keyword spelling.
    pub fn from_name(name: &str) -> Option<JsonType> {
        JsonType::ALL.into_iter().find(|t| t.name() == name)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The most specific type of a value (`Integer` for integral numbers).
    pub fn of(value: &Value) -> JsonType {
        match value {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Object(_) => JsonType::Object,
            Value::Array(_) => JsonType::Array,
            Value::String(_) => JsonType::String,
            Value::Number(n) if is_integer(n) => JsonType::Integer,
            Value::Number(_) => JsonType::Number,
        }
    }
}

/// A set of JSON types. `integer` is a subtype of `number`: a set holding `number` admits every
/// integer too, and [`TypeSet::admits`] accounts for that.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TypeSet(u8);

impl TypeSet {
    /// No type at all.
    pub const EMPTY: TypeSet = TypeSet(0);
    /// Every JSON value.
    pub const ANY: TypeSet = TypeSet(0b111_1111);

    /// The set with one type.
    pub fn of(t: JsonType) -> TypeSet {
        TypeSet(t.bit())
    }

    /// This set with `t` added.
    #[must_use]
    pub fn with(self, t: JsonType) -> TypeSet {
        TypeSet(self.0 | t.bit())
    }

    /// The set without the members of `other` (literally: removing `number` keeps `integer`
    /// if it is a member and not in `other`).
    #[must_use]
    pub fn without_all(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 & !other.0)
    }

    /// True when `t` is a member (literally; see [`TypeSet::admits`] for the subtype rule).
    pub fn contains(self, t: JsonType) -> bool {
        self.0 & t.bit() != 0
    }

    /// True when a value of type `t` satisfies this set (`integer` values satisfy `number`).
    pub fn admits(self, t: JsonType) -> bool {
        self.contains(t) || (t == JsonType::Integer && self.contains(JsonType::Number))
    }

    /// True when the value's type satisfies this set.
    pub fn admits_value(self, v: &Value) -> bool {
        self.admits(JsonType::of(v))
    }

    /// Intersection, respecting `integer ⊂ number`.
    #[must_use]
    pub fn intersect(self, other: TypeSet) -> TypeSet {
        let mut out = TypeSet(self.0 & other.0);
        let int_via_number = (self.contains(JsonType::Integer) && other.contains(JsonType::Number))
            || (other.contains(JsonType::Integer) && self.contains(JsonType::Number));
        if int_via_number {
            out = out.with(JsonType::Integer);
        }
        out.normalized()
    }

    /// Union.
    #[must_use]
    pub fn union(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0).normalized()
    }

    /// Drops `integer` when `number` is present (it adds nothing).
    #[must_use]
    pub fn normalized(self) -> TypeSet {
        if self.contains(JsonType::Number) {
            TypeSet(self.0 & !JsonType::Integer.bit())
        } else {
            self
        }
    }

    /// True for the empty set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when every JSON value is admitted.
    pub fn is_any(self) -> bool {
        self.normalized() == TypeSet::ANY.normalized()
    }

    /// The members, in [`JsonType::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = JsonType> {
        JsonType::ALL.into_iter().filter(move |t| self.contains(*t))
    }

    /// Number of members.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
}

impl std::fmt::Debug for TypeSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.iter().map(JsonType::name))
            .finish()
    }
}

/// A JSON number as an exact integer or a float, for exact comparison across representations.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

pub(crate) fn num(n: &Number) -> Num {
    if let Some(u) = n.as_u64() {
        Num::Int(i128::from(u))
    } else if let Some(i) = n.as_i64() {
        Num::Int(i128::from(i))
    } else {
        Num::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// 2^127 as an f64: floats at or beyond this magnitude do not fit an i128.
const I128_LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;

fn float_to_i128(f: f64) -> Option<i128> {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < I128_LIMIT {
        // Exact: `f` is integral and within range.
        Some(f as i128)
    } else {
        None
    }
}

fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f >= I128_LIMIT {
        return Some(Ordering::Less);
    }
    if f <= -I128_LIMIT {
        return Some(Ordering::Greater);
    }
    let floor = f.floor();
    // `floor` is integral and in range, so the cast is exact.
    let fl = floor as i128;
    match i.cmp(&fl) {
        Ordering::Equal if f > floor => Some(Ordering::Less),
        other => Some(other),
    }
}

/// Exact comparison of two JSON numbers, whatever their representation.
pub fn cmp_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    cmp_num(num(a), num(b))
}

pub(crate) fn cmp_num(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Int(x), Num::Float(y)) => cmp_int_float(x, y),
        (Num::Float(x), Num::Int(y)) => cmp_int_float(y, x).map(Ordering::reverse),
    }
}

/// True when the number has no fractional part (`5.0` is an integer in 2020-12).
pub fn is_integer(n: &Number) -> bool {
    match num(n) {
        Num::Int(_) => true,
        Num::Float(f) => f.is_finite() && f.fract() == 0.0,
    }
}

/// The number as an exact non-negative integer, if it is one (`3.0` → 3).
pub fn as_exact_u64(n: &Number) -> Option<u64> {
    match num(n) {
        Num::Int(i) => u64::try_from(i).ok(),
        Num::Float(f) => float_to_i128(f).and_then(|i| u64::try_from(i).ok()),
    }
}

/// `base^e mod m` by squaring, for a modulus below 2^64 (so that no product overflows).
pub(crate) fn pow_mod(base: u64, mut e: u64, m: u128) -> u128 {
    let mut result = 1 % m;
    let mut base = u128::from(base) % m;
    while e > 0 {
        if e & 1 == 1 {
            result = result * base % m;
        }
        base = base * base % m;
        e >>= 1;
    }
    result
}

/// True when the number is an integer multiple of the positive integer `m`.
pub fn is_multiple_of(n: &Number, m: u64) -> bool {
    if m == 0 {
        return false;
    }
    let m128 = i128::from(m);
    match num(n) {
        Num::Int(i) => i % m128 == 0,
        Num::Float(f) => {
            if !f.is_finite() || f.fract() != 0.0 {
                return false;
            }
            if let Some(i) = float_to_i128(f) {
                return i % m128 == 0;
            }
            // |f| ≥ 2^127: f = mantissa · 2^exp exactly; reduce both factors modulo m.
            let bits = f.abs().to_bits();
            let exp = ((bits >> 52) & 0x7ff) as i64 - 1075;
            let mantissa = u128::from((bits & ((1 << 52) - 1)) | (1 << 52));
            let m = u128::from(m);
            (mantissa % m) * pow_mod(2, exp.max(0) as u64, m) % m == 0
        }
    }
}

/// Number of Unicode code points, the unit of `minLength`/`maxLength`.
pub fn code_points(s: &str) -> usize {
    s.chars().count()
}

/// JSON Schema equality: numbers by value, objects by members regardless of order.
/// Iterative, so any nesting depth is safe.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    let mut stack: Vec<(&Value, &Value)> = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Null, Value::Null) => {}
            (Value::Bool(x), Value::Bool(y)) if x == y => {}
            (Value::String(x), Value::String(y)) if x == y => {}
            (Value::Number(x), Value::Number(y)) if cmp_numbers(x, y) == Some(Ordering::Equal) => {}
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                stack.extend(x.iter().zip(y.iter()));
            }
            (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return false,
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// Levels below which [`json_hash`] stops looking; deeper values hash alike and are told apart
/// by [`json_eq`]. Keeps hashing bounded in stack and consistent with [`json_eq`]. It is the
/// nesting limit of JSON text (serde_json), so any value read from text hashes in full: with a
/// shallower cut, values that differ only below it shared one bucket, and `uniqueItems` and
/// `enum` compared them pairwise (quadratic in a hostile answer).
const HASH_DEPTH: usize = 128;

/// A hash consistent with [`json_eq`]: equal values hash equally (`1` and `1.0` included).
pub fn json_hash(v: &Value) -> u64 {
    let mut h = DefaultHasher::new();
    hash_into(v, &mut h, 0);
    h.finish()
}

fn hash_into(v: &Value, h: &mut DefaultHasher, depth: usize) {
    if depth >= HASH_DEPTH {
        0xdeu8.hash(h);
        return;
    }
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, *b).hash(h),
        Value::String(s) => (2u8, s).hash(h),
        Value::Number(n) => match num(n) {
            Num::Int(i) => (3u8, i).hash(h),
            Num::Float(f) => match float_to_i128(f) {
                Some(i) => (3u8, i).hash(h),
                None => (4u8, f.to_bits()).hash(h),
            },
        },
        Value::Array(items) => {
            (5u8, items.len()).hash(h);
            for item in items {
                hash_into(item, h, depth + 1);
            }
        }
        Value::Object(map) => {
            (6u8, map.len()).hash(h);
            // Member order must not matter: combine per-member hashes commutatively.
            let mut acc = 0u64;
            for (k, item) in map {
                let mut eh = DefaultHasher::new();
                k.hash(&mut eh);
                hash_into(item, &mut eh, depth + 1);
                acc = acc.wrapping_add(eh.finish());
            }
            acc.hash(h);
        }
    }
}

/// True when the value nests (arrays and objects) deeper than `max` levels. Iterative; stops
/// as soon as the answer is known. Only containers are stacked (a scalar adds no level), so a
/// value without nested containers allocates nothing.
pub fn deeper_than(v: &Value, max: usize) -> bool {
    nests_deeper_than(v, max)
}

/// [`deeper_than`] for a `Value` or a [`crate::json::Tree`]'s value.
pub(crate) fn nests_deeper_than<'v, J: crate::json::Json<'v>>(v: J, max: usize) -> bool {
    use crate::json::View;
    let mut stack: Vec<(J, usize)> = Vec::new();
    let mut next = Some((v, 0));
    while let Some((v, d)) = next.take().or_else(|| stack.pop()) {
        match v.view() {
            View::Array(items) if d < max => {
                stack.extend(items.filter(|c| c.nests()).map(|c| (c, d + 1)))
            }
            View::Object(members) if d < max => {
                stack.extend(members.filter(|(_, c)| c.nests()).map(|(_, c)| (c, d + 1)))
            }
            View::Array(_) | View::Object(_) => return true,
            _ => {}
        }
    }
    false
}

/// True when all items are distinct under [`json_eq`]. Near-linear: hashes first, compares
/// only within a hash bucket.
pub fn all_unique(items: &[Value]) -> bool {
    if items.len() < 2 {
        return true;
    }
    if items.len() <= 8 {
        for (i, a) in items.iter().enumerate() {
            if items.iter().skip(i + 1).any(|b| json_eq(a, b)) {
                return false;
            }
        }
        return true;
    }
    let mut keyed: Vec<(u64, &Value)> = items.iter().map(|v| (json_hash(v), v)).collect();
    keyed.sort_unstable_by_key(|(h, _)| *h);
    let mut start = 0;
    while start < keyed.len() {
        let hash = keyed.get(start).map_or(0, |(h, _)| *h);
        let end = keyed
            .iter()
            .skip(start)
            .position(|(h, _)| *h != hash)
            .map_or(keyed.len(), |p| start + p);
        let bucket = keyed.get(start..end).unwrap_or_default();
        for (i, (_, a)) in bucket.iter().enumerate() {
            if bucket.iter().skip(i + 1).any(|(_, b)| json_eq(a, b)) {
                return false;
            }
        }
        start = end;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn n(v: Value) -> Number {
        match v {
            Value::Number(n) => n,
            _ => panic!("not a number"),
        }
    }

    #[test]
    fn integers_include_integral_floats() {
        assert!(is_integer(&n(json!(5.0))));
        assert!(is_integer(&n(json!(-3))));
        assert!(!is_integer(&n(json!(5.5))));
        assert!(is_integer(&n(json!(1e300))));
    }

    #[test]
    fn numbers_compare_exactly_across_representations() {
        assert_eq!(
            cmp_numbers(&n(json!(1)), &n(json!(1.0))),
            Some(Ordering::Equal)
        );
        assert_eq!(
            cmp_numbers(&n(json!(u64::MAX)), &n(json!(18446744073709551616.0))),
            Some(Ordering::Less)
        );
        assert_eq!(
            cmp_numbers(&n(json!(2)), &n(json!(2.5))),
            Some(Ordering::Less)
        );
        assert_eq!(
            cmp_numbers(&n(json!(-2)), &n(json!(-2.5))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            cmp_numbers(&n(json!(-3)), &n(json!(-2.5))),
            Some(Ordering::Less)
        );
        assert_eq!(
            cmp_numbers(&n(json!(i64::MIN)), &n(json!(1e300))),
            Some(Ordering::Less)
        );
    }

    #[test]
    fn multiple_of_is_exact() {
        assert!(is_multiple_of(&n(json!(10)), 5));
        assert!(is_multiple_of(&n(json!(10.0)), 5));
        assert!(!is_multiple_of(&n(json!(10.5)), 5));
        assert!(!is_multiple_of(&n(json!(7)), 2));
        assert!(is_multiple_of(&n(json!(-8)), 2));
        // 2^200 is a multiple of 2 and of 4 but not of 3.
        let big = n(json!(1.606_938_044_258_990_3e60));
        assert!(is_multiple_of(&big, 4));
        assert!(!is_multiple_of(&big, 3));
        // 1e308 as a double is an integer ≡ 1 (mod 5) and divisible by 1024.
        assert!(!is_multiple_of(&n(json!(1e308)), 5));
        assert!(is_multiple_of(&n(json!(1e308)), 1024));
    }

    #[test]
    fn equality_follows_the_spec() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(
            &json!({"a": [1, 2], "b": null}),
            &json!({"b": null, "a": [1.0, 2]})
        ));
        assert!(!json_eq(&json!({}), &json!([])));
        assert!(!json_eq(&json!(false), &json!(0)));
        assert!(!json_eq(&json!([1, 2]), &json!([2, 1])));
    }

    #[test]
    fn hash_agrees_with_equality() {
        assert_eq!(json_hash(&json!(1)), json_hash(&json!(1.0)));
        assert_eq!(
            json_hash(&json!({"a": 1, "b": 2})),
            json_hash(&json!({"b": 2.0, "a": 1}))
        );
        assert_ne!(json_hash(&json!({})), json_hash(&json!([])));
    }

    #[test]
    fn unique_items_large_and_small() {
        assert!(!all_unique(&[json!(1), json!(1.0)]));
        let many: Vec<Value> = (0..10_000).map(|i| json!({"k": i})).collect();
        assert!(all_unique(&many));
        let mut dup = many.clone();
        dup.push(json!({"k": 9_999.0}));
        assert!(!all_unique(&dup));
    }

    #[test]
    fn deeper_than_counts_every_container_as_a_level() {
        for (v, levels) in [
            (json!(1), 0usize),
            (json!([]), 1),
            (json!({}), 1),
            (json!([1, "a", null]), 1),
            (json!([[1]]), 2),
            (json!({"a": [{}], "b": 2}), 3),
            (json!([1, [2, [3, {"x": []}]], {}]), 5),
        ] {
            if let Some(fewer) = levels.checked_sub(1) {
                assert!(deeper_than(&v, fewer), "{v} is deeper than {fewer}");
            }
            assert!(!deeper_than(&v, levels), "{v} is not deeper than {levels}");
        }
    }

    #[test]
    fn deep_values_are_safe() {
        let mut v = json!(0);
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        assert!(deeper_than(&v, 1000));
        assert!(json_eq(&v, &v));
        let _ = json_hash(&v);
        // Dismantle iteratively: serde_json's own drop is recursive.
        let mut cur = v;
        while let Value::Array(mut a) = cur {
            cur = a.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn typesets() {
        let num = TypeSet::of(JsonType::Number);
        assert!(num.admits(JsonType::Integer));
        let int = TypeSet::of(JsonType::Integer);
        assert_eq!(num.intersect(int), int);
        assert!(!int.admits(JsonType::Number));
        assert!(TypeSet::ANY.is_any());
    }
}
