//! The keyword checks both walks share: `enum`/`const`, the string, number and array size
//! keywords, `uniqueItems`, `required` and the property counts.
//!
//! One place, so the two walks cannot drift apart in what a keyword means or in how its error
//! reads. Each check takes where its failures go as a [`Sink`]: the fast walk's sink is generic
//! over its error list (a verdict-only walk compiles without the code that builds messages),
//! the `full` walk's decides at run time. A check stops at its first failure when only the
//! verdict is wanted, and returns whether the instance passed.

use crate::ir::{literal_eq, Additional, ArrayRules, Node, NumberRules, StringRules};
use crate::value::{all_unique, code_points, is_multiple_of, JsonType, TypeSet};
use serde_json::{Map, Number, Value};
use std::cmp::Ordering;
use std::fmt::Write;

/// Where a check's failures go.
pub(super) trait Sink {
    /// True when only the verdict is wanted: the check stops at its first failure.
    fn verdict_only(&self) -> bool;

    /// Records a failure of `keyword` (nothing when only the verdict is wanted).
    fn fail(&mut self, keyword: &'static str, message: impl FnOnce() -> String);
}

/// Short for "the check fails; record why, and stop here when only a verdict is wanted".
macro_rules! fail {
    // A message already built as a `String` (no `format!` pass over it).
    ($sink:expr, $valid:ident, $kw:expr, text: $msg:expr) => {{
        $valid = false;
        if $sink.verdict_only() {
            return false;
        }
        $sink.fail($kw, || $msg);
    }};
    ($sink:expr, $valid:ident, $kw:expr, $($msg:tt)+) => {{
        $valid = false;
        if $sink.verdict_only() {
            return false;
        }
        $sink.fail($kw, || format!($($msg)+));
    }};
}

/// A short rendering of an instance value for messages: containers by their size, scalars cut
/// at 60 characters.
///
/// Written without `Value`'s `Display` (which runs serde_json's writer through a formatter
/// adapter, a call per piece): previews are most of what a failing `validate` formats.
pub(super) fn preview(v: &Value) -> String {
    let text = match v {
        Value::Object(_) => return "an object".into(),
        Value::Array(a) => return format!("an array of {} items", a.len()),
        Value::Null => return "null".into(),
        Value::Bool(b) => return b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => return preview_str(s),
    };
    cut_preview(text)
}

/// [`preview`] of a string value, without building the value.
pub(super) fn preview_str(s: &str) -> String {
    // A string serialises as JSON text, escaped as `Display` escapes it.
    cut_preview(serde_json::to_string(s).unwrap_or_default())
}

/// A preview's text cut after 60 characters.
fn cut_preview(text: String) -> String {
    // A text of at most 60 bytes has at most 60 characters: only a longer one is counted.
    if text.len() > 60 && text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// The message of a union none of whose `n` alternatives matched, with their `reasons`
/// (" (0: …; 1: …)", or nothing).
pub(super) fn none_matched(n: usize, reasons: &str) -> String {
    let mut text = String::with_capacity(40 + reasons.len());
    text.push_str("matches none of the ");
    push_count(&mut text, n);
    text.push_str(" alternatives");
    text.push_str(reasons);
    text
}

/// Appends `n` in decimal.
fn push_count(text: &mut String, n: usize) {
    let _ = write!(text, "{n}");
}

/// The message of a failed `type`: "expected string or null, found number".
pub(super) fn type_message(types: TypeSet, inst: &Value) -> String {
    let mut text = String::with_capacity(48);
    text.push_str("expected ");
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            text.push_str(" or ");
        }
        text.push_str(t.name());
    }
    text.push_str(", found ");
    text.push_str(JsonType::of(inst).name());
    text
}

/// `const` and `enum`.
#[inline]
pub(super) fn literals(node: &Node, inst: &Value, sink: &mut impl Sink) -> bool {
    let mut valid = true;
    if let Some(c) = &node.constant {
        if !literal_eq(c, inst) {
            fail!(
                sink,
                valid,
                "const",
                text: ["expected the constant ", &preview(c), ", found ", &preview(inst)].concat()
            );
        }
    }
    if let Some(e) = &node.enumeration {
        if !e.contains(inst) {
            fail!(
                sink,
                valid,
                "enum",
                text: {
                    let mut text = preview(inst);
                    text.push_str(" is not one of the ");
                    push_count(&mut text, e.values.len());
                    text.push_str(" allowed values");
                    text
                }
            );
        }
    }
    valid
}

/// True unless one of `node`'s own keywords that need no subschema rejects `v`: `type`,
/// `const`, the string and number keywords, the array sizes, and for an object its `required`
/// names and, where `additionalProperties` is `false`, its declared names. What they cannot
/// decide counts as admitted, as does a string whose pattern the work budget cannot pay for.
/// For rewrites that leave out the literals of an `enum` no value can meet
/// (`dialect::normalize`): keeping a value in doubt only widens. It reads a closed object as
/// closed, so it is for the subsets without `patternProperties` (a `full` schema is lowered
/// through its widening to the extended subset).
pub(crate) fn shallow_admits(node: &Node, v: &Value) -> bool {
    struct Verdict;
    impl Sink for Verdict {
        fn verdict_only(&self) -> bool {
            true
        }
        fn fail(&mut self, _: &'static str, _: impl FnOnce() -> String) {}
    }
    if node.types.is_some_and(|t| !super::admits(t, v))
        || node.constant.as_deref().is_some_and(|c| !literal_eq(c, v))
    {
        return false;
    }
    match v {
        Value::String(s) => node.string.as_deref().is_none_or(|rules| {
            let mut spent = false;
            let charge = |n| {
                let paid = crate::budget::charge(n);
                spent |= !paid;
                paid
            };
            string(rules, s, charge, &mut Verdict) || spent
        }),
        Value::Number(n) => node
            .number
            .as_deref()
            .is_none_or(|rules| number(rules, n, &mut Verdict)),
        Value::Array(items) => node
            .array
            .as_deref()
            .is_none_or(|rules| array_size(rules, items.len(), &mut Verdict)),
        Value::Object(map) => node.object.as_deref().is_none_or(|rules| {
            required(&rules.required, map, &mut Verdict)
                && (rules.additional != Additional::Forbidden
                    || map.keys().all(|k| rules.properties.contains(k)))
        }),
        _ => true,
    }
}

/// `minLength`, `maxLength` and `pattern`. What the pattern's engine costs beyond a pass over
/// the string is paid with `charge` (see [`crate::pattern::Pattern::is_match_charging`]).
#[inline]
pub(super) fn string(
    rules: &StringRules,
    s: &str,
    charge: impl FnMut(u64) -> bool,
    sink: &mut impl Sink,
) -> bool {
    let mut valid = true;
    // A code point takes one to four bytes: most strings are decided by their byte length.
    let bytes = s.len() as u64;
    let decided = rules.min_length.is_none_or(|m| bytes.div_ceil(4) >= m)
        && rules.max_length.is_none_or(|m| bytes <= m);
    if !decided {
        let len = code_points(s) as u64;
        if let Some(min) = rules.min_length.filter(|m| len < *m) {
            fail!(
                sink,
                valid,
                "minLength",
                "is {len} characters long, shorter than {min}"
            );
        }
        if let Some(max) = rules.max_length.filter(|m| len > *m) {
            fail!(
                sink,
                valid,
                "maxLength",
                "is {len} characters long, longer than {max}"
            );
        }
    }
    if let Some(p) = &rules.pattern {
        if !p.is_match_charging(s, charge) {
            fail!(
                sink,
                valid,
                "pattern",
                text: {
                    let mut text = preview_str(s);
                    text.push_str(" does not match the pattern ");
                    let _ = write!(text, "{:?}", p.as_str());
                    text
                }
            );
        }
    }
    valid
}

/// The numeric bounds and an integer `multipleOf`.
#[inline]
pub(super) fn number(rules: &NumberRules, n: &Number, sink: &mut impl Sink) -> bool {
    let mut valid = true;
    for (bound, inside) in [
        (&rules.lower, Ordering::Greater),
        (&rules.upper, Ordering::Less),
    ] {
        let Some(b) = bound else {
            continue;
        };
        // As `Bound::admits`, which decides the pairs `cmp_quick` leaves.
        let admitted = match cmp_quick(n, &b.value) {
            Some(Ordering::Equal) => !b.exclusive,
            Some(o) => o == inside,
            None => b.admits(n, inside),
        };
        if !admitted {
            let lower = inside == Ordering::Greater;
            let keyword = if lower {
                b.lower_keyword()
            } else {
                b.upper_keyword()
            };
            let relation = match (lower, b.exclusive) {
                (true, true) => "not greater than",
                (true, false) => "less than",
                (false, true) => "not less than",
                (false, false) => "greater than",
            };
            fail!(sink, valid, keyword, "{n} is {relation} {}", b.value);
        }
    }
    if let Some(m) = rules.multiple_of {
        if !is_multiple_of(n, m) {
            fail!(sink, valid, "multipleOf", "{n} is not a multiple of {m}");
        }
    }
    valid
}

/// `minItems` and `maxItems`.
#[inline]
pub(super) fn array_size(rules: &ArrayRules, len: usize, sink: &mut impl Sink) -> bool {
    let mut valid = true;
    let len = len as u64;
    if let Some(min) = rules.min_items.filter(|m| len < *m) {
        fail!(sink, valid, "minItems", "has {len} items, fewer than {min}");
    }
    if let Some(max) = rules.max_items.filter(|m| len > *m) {
        fail!(sink, valid, "maxItems", "has {len} items, more than {max}");
    }
    valid
}

/// `uniqueItems`.
#[inline]
pub(super) fn unique(rules: &ArrayRules, items: &[Value], sink: &mut impl Sink) -> bool {
    let mut valid = true;
    if rules.unique_items && !all_unique(items) {
        fail!(sink, valid, "uniqueItems", "has duplicate items");
    }
    valid
}

/// `required`: each name in `names` must be a member.
#[inline]
pub(super) fn required<'n>(
    names: impl IntoIterator<Item = &'n Box<str>>,
    map: &Map<String, Value>,
    sink: &mut impl Sink,
) -> bool {
    let mut valid = true;
    for name in names {
        if !map.contains_key(&**name) {
            fail!(
                sink,
                valid,
                "required",
                text: ["the required property `", name, "` is missing"].concat()
            );
        }
    }
    valid
}

/// `minProperties` and `maxProperties`.
pub(super) fn property_count(
    min: Option<u64>,
    max: Option<u64>,
    count: usize,
    sink: &mut impl Sink,
) -> bool {
    let mut valid = true;
    let count = count as u64;
    if let Some(min) = min.filter(|m| count < *m) {
        fail!(
            sink,
            valid,
            "minProperties",
            "has {count} properties, fewer than {min}"
        );
    }
    if let Some(max) = max.filter(|m| count > *m) {
        fail!(
            sink,
            valid,
            "maxProperties",
            "has {count} properties, more than {max}"
        );
    }
    valid
}

/// How two numbers compare, for the common pairs that need no exact 128-bit comparison: two
/// integers, two floats, or a float and an integer that a float holds exactly. `None` for the
/// others.
pub(super) fn cmp_quick(a: &Number, b: &Number) -> Option<Ordering> {
    /// Integers up to 2^53 in magnitude convert to a float exactly.
    const EXACT: i64 = 1 << 53;
    if a.is_f64() || b.is_f64() {
        let float = |n: &Number| match n.is_f64() {
            true => n.as_f64(),
            false => n
                .as_i64()
                .filter(|i| (-EXACT..=EXACT).contains(i))
                .map(|i| i as f64),
        };
        float(a)?.partial_cmp(&float(b)?)
    } else {
        Some(a.as_i64()?.cmp(&b.as_i64()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What the messages showed before previews were written directly: `Value`'s `Display`,
    /// cut after 60 characters.
    fn displayed(v: &Value) -> String {
        let text = v.to_string();
        match text.chars().count() > 60 {
            true => format!("{}...", text.chars().take(57).collect::<String>()),
            false => text,
        }
    }

    #[test]
    fn previews_of_scalars_read_as_their_json_text() {
        let long = "é\"\\\n\u{1}𝒳".repeat(20);
        for v in [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-12),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.5),
            json!(1e300),
            json!(-0.0),
            json!(""),
            json!("plain"),
            json!("quote \" backslash \\ tab \t nul \u{0} del \u{7f} é 𝒳 \u{2028}"),
            json!("a".repeat(60)),
            json!("a".repeat(59)),
            json!("é".repeat(58)),
            json!("é".repeat(59)),
            json!(long),
        ] {
            assert_eq!(preview(&v), displayed(&v), "{v}");
        }
        assert_eq!(preview(&json!({"a": 1})), "an object");
        assert_eq!(preview(&json!([1, 2])), "an array of 2 items");
    }

    #[test]
    fn type_messages_list_every_type_in_order() {
        for bits in 0u8..=0b111_1111 {
            let types = JsonType::ALL
                .iter()
                .enumerate()
                .filter(|(i, _)| bits & (1 << i) != 0)
                .fold(TypeSet::EMPTY, |set, (_, t)| set.with(*t));
            let names: Vec<&str> = types.iter().map(JsonType::name).collect();
            let expected = format!("expected {}, found string", names.join(" or "));
            assert_eq!(type_message(types, &json!("x")), expected);
        }
    }
}
