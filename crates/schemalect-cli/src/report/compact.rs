//! Compact JSON written straight into a byte buffer, byte-identical to `serde_json::to_writer`.
//!
//! `lower --format json` writes megabytes of lines, almost all of it strings (keys, pointers,
//! descriptions). serde_json escapes a string by looking every byte up in a table, one at a
//! time, and reaches every node of a `Value` through the serde dispatch; here a string is
//! scanned eight bytes at a time for the few bytes JSON must escape, a clean run is copied at
//! once, and a `Value` is walked directly. The output is the same, byte for byte, as
//! serde_json's compact serializer (the tests hold it to serde_json as the oracle).

use crate::wordscan::{below, equal, first_where};
use serde_json::Value;

/// Whether `b` needs escaping in a JSON string: a control byte below 0x20, `"` or `\`.
fn escapes(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The index in `bytes` of the first byte at or after `from` that needs escaping, eight bytes
/// at a time.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    first_where(
        bytes,
        from,
        |w| below(w, 0x20) | equal(w, b'"') | equal(w, b'\\'),
        escapes,
    )
}

/// A lowercase hexadecimal digit of `n` (below 16), as serde_json writes them.
const fn hex(n: u8) -> u8 {
    if n < 10 {
        b'0' + n
    } else {
        b'a' + (n - 10)
    }
}

/// Appends the escape of `b`, a byte [`escapes`] accepts: the short forms JSON has for
/// `"`, `\`, backspace, form feed, line feed, carriage return and tab, `\u00XX` (lowercase)
/// for every other control byte, as serde_json writes them.
fn push_escape(out: &mut Vec<u8>, b: u8) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0C => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', hex(b >> 4), hex(b & 0xF)]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

/// Appends `s` as a JSON string, quoted and escaped as serde_json's compact serializer does:
/// `"` and `\`, and the control bytes below 0x20; nothing else (not `/`, not DEL, not
/// non-ASCII text, which JSON carries as it is).
///
/// A string with nothing to escape, nearly every one, is one scan and one copy, kept apart
/// from the escaping loop so that the common case stays small and cheap to call.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    match next_escape(bytes, 0) {
        None => {
            out.reserve(bytes.len() + 2);
            out.push(b'"');
            out.extend_from_slice(bytes);
            out.push(b'"');
        }
        Some(first) => write_escaped(out, bytes, first),
    }
}

/// [`write_str`] for a string whose first byte to escape is at `first`: clean runs copied
/// whole, each escape written as serde_json writes it. An escape never falls inside a
/// multi-byte character, since every byte of those is 0x80 or above.
#[cold]
#[inline(never)]
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8], first: usize) {
    out.reserve(bytes.len() + 8);
    out.push(b'"');
    let mut start = 0;
    let mut next = Some(first);
    while let Some(i) = next {
        if let (Some(run), Some(&b)) = (bytes.get(start..i), bytes.get(i)) {
            out.extend_from_slice(run);
            push_escape(out, b);
        }
        start = i + 1;
        // Always forward (`next_escape` answers at or after `start`), so this ends.
        next = next_escape(bytes, start).filter(|&j| j >= start);
    }
    if let Some(run) = bytes.get(start..) {
        out.extend_from_slice(run);
    }
    out.push(b'"');
}

/// A container of [`write_value`]'s walk that is still open: what is left of it.
enum Open<'a> {
    Array(std::slice::Iter<'a, Value>),
    Object(serde_json::map::Iter<'a>),
}

/// Appends `v` as compact JSON, byte-identical to `serde_json::to_writer`: object members in
/// the map's order (insertion order, with serde_json's `preserve_order`), no whitespace.
///
/// The walk keeps its open arrays and objects on a heap stack rather than recursing, so no
/// depth of nesting can overflow the thread's stack (serde_json's own serializer recurses).
/// Numbers, rare in a wire, are left to serde_json, so they are spelt exactly as it spells
/// them.
pub fn write_value(out: &mut Vec<u8>, v: &Value) {
    let mut open: Vec<Open<'_>> = Vec::new();
    let mut next = Some(v);
    loop {
        if let Some(v) = next.take() {
            match v {
                Value::Null => out.extend_from_slice(b"null"),
                Value::Bool(true) => out.extend_from_slice(b"true"),
                Value::Bool(false) => out.extend_from_slice(b"false"),
                Value::Number(n) => write_number(out, n),
                Value::String(s) => write_str(out, s),
                Value::Array(items) => {
                    out.push(b'[');
                    let mut items = items.iter();
                    match items.next() {
                        Some(first) => {
                            open.push(Open::Array(items));
                            next = Some(first);
                        }
                        None => out.push(b']'),
                    }
                }
                Value::Object(members) => {
                    out.push(b'{');
                    let mut members = members.iter();
                    match members.next() {
                        Some((key, first)) => {
                            write_str(out, key);
                            out.push(b':');
                            open.push(Open::Object(members));
                            next = Some(first);
                        }
                        None => out.push(b'}'),
                    }
                }
            }
            continue;
        }
        // The value just written is complete: go on with the innermost open container.
        match open.last_mut() {
            None => return,
            Some(Open::Array(items)) => match items.next() {
                Some(item) => {
                    out.push(b',');
                    next = Some(item);
                }
                None => {
                    out.push(b']');
                    open.pop();
                }
            },
            Some(Open::Object(members)) => match members.next() {
                Some((key, member)) => {
                    out.push(b',');
                    write_str(out, key);
                    out.push(b':');
                    next = Some(member);
                }
                None => {
                    out.push(b'}');
                    open.pop();
                }
            },
        }
    }
}

/// Appends a number (a `Number`, a count such as a line's group, or an optional one, `null`
/// when absent) exactly as serde_json spells it, by asking serde_json: numbers are a few per line, and its spelling is the
/// contract.
pub fn write_number(out: &mut Vec<u8>, n: &impl serde::Serialize) {
    // Writing into a `Vec` cannot fail, and a number always serialises (a `Number` is never
    // NaN or infinite); were it ever to fail, the number would be missing rather than the line
    // cut.
    let _ = serde_json::to_writer(&mut *out, n);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn str_oracle(s: &str) -> Vec<u8> {
        serde_json::to_vec(s).expect("a string serialises")
    }

    fn str_ours(s: &str) -> Vec<u8> {
        let mut out = Vec::new();
        write_str(&mut out, s);
        out
    }

    fn value_ours(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write_value(&mut out, v);
        out
    }

    fn value_oracle(v: &Value) -> Vec<u8> {
        serde_json::to_vec(v).expect("a value serialises")
    }

    #[test]
    fn every_escape_class() {
        let cases: &[(&str, &str)] = &[
            ("", r#""""#),
            ("\"", r#""\"""#),
            ("\\", r#""\\""#),
            ("\u{8}", r#""\b""#),
            ("\u{c}", r#""\f""#),
            ("\n", r#""\n""#),
            ("\r", r#""\r""#),
            ("\t", r#""\t""#),
            ("\u{0}", r#""\u0000""#),
            ("\u{1f}", r#""\u001f""#),
            ("\u{1b}", r#""\u001b""#),
            ("\u{b}", r#""\u000b""#),
            ("/", r#""/""#),
            ("\u{7f}", "\"\u{7f}\""),
            ("é€😀", "\"é€😀\""),
            ("\u{2028}", "\"\u{2028}\""),
        ];
        for (s, want) in cases {
            assert_eq!(str_ours(s), want.as_bytes(), "{s:?}");
            assert_eq!(str_ours(s), str_oracle(s), "{s:?}");
        }
    }

    #[test]
    fn every_byte_below_0x80() {
        for b in 0u8..0x80 {
            let s = String::from(char::from(b));
            assert_eq!(str_ours(&s), str_oracle(&s), "byte {b:#04x}");
            let s = format!("abcdefgh{s}ijklmnop{s}");
            assert_eq!(str_ours(&s), str_oracle(&s), "byte {b:#04x} in {s:?}");
        }
    }

    #[test]
    fn an_escape_at_every_offset() {
        for len in 0..40 {
            for at in 0..18.min(len) {
                for special in ['"', '\\', '\n', '\u{1}', '\u{1f}', 'é'] {
                    let mut s: String = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEF"
                        .chars()
                        .take(len)
                        .collect();
                    s.replace_range(at..=at, &special.to_string());
                    assert_eq!(str_ours(&s), str_oracle(&s), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn two_escapes_at_every_pair_of_offsets() {
        // After an escape the scan starts again mid-string, where the last chunk re-read
        // overlaps bytes already written: those must neither show nor hide an escape.
        for len in 2..26 {
            for a in 0..len {
                for b in a + 1..len {
                    for (x, y) in [('\n', '"'), ('\u{0}', '\u{1f}'), ('\\', '\\')] {
                        let s: String = (0..len)
                            .map(|i| match i {
                                _ if i == a => x,
                                _ if i == b => y,
                                _ => ' ',
                            })
                            .collect();
                        assert_eq!(str_ours(&s), str_oracle(&s), "{s:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn bytes_just_around_the_escaped_ones() {
        // The borrow of one lane must not hide or invent an escape in the next.
        for pair in [
            "\u{1f} ", " \u{1f}", "\u{0}!", "!\u{0}", "\"#", "#\"", "!\"", "[\\", "\\]",
        ] {
            for pad in 0..9 {
                let s = format!("{}{pair}{}", "x".repeat(pad), "y".repeat(9 - pad));
                assert_eq!(str_ours(&s), str_oracle(&s), "{s:?}");
            }
        }
        let all: String = (0u8..0x80).map(char::from).chain(['é', '😀']).collect();
        assert_eq!(str_ours(&all), str_oracle(&all));
    }

    #[test]
    fn usize_as_serde_json() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u32::MAX as usize, usize::MAX] {
            let mut out = Vec::new();
            write_number(&mut out, &n);
            assert_eq!(out, serde_json::to_vec(&n).expect("a number serialises"));
        }
    }

    #[test]
    fn values_as_serde_json() {
        let cases = [
            json!(null),
            json!(true),
            json!(false),
            json!({}),
            json!([]),
            json!([[], {}, [[]], {"": {}}]),
            json!({"b": 1, "a": [1, -2, 3.5], "c\n": {"d": null, "e": "f\"g"}}),
            json!([
                0,
                -0.0,
                0.1,
                1e300,
                -1e-300,
                u64::MAX,
                i64::MIN,
                1.0,
                2.5e-7
            ]),
            json!({"type": "object", "properties": {"x": {"type": "string", "enum": ["a/b", "\u{7f}"]}}}),
        ];
        for v in &cases {
            assert_eq!(value_ours(v), value_oracle(v), "{v}");
        }
    }

    /// A value nested `depth` arrays and objects deep, built without recursion.
    fn nested(depth: usize) -> Value {
        let mut v = json!("leaf");
        for i in 0..depth {
            v = if i % 2 == 0 {
                Value::Array(vec![json!(i), v])
            } else {
                let mut m = serde_json::Map::new();
                m.insert(format!("k{i}"), v);
                Value::Object(m)
            };
        }
        v
    }

    /// Takes `v` apart without recursion (dropping a deep value recurses once per level).
    fn dismantle(v: Value) {
        let mut pending = vec![v];
        while let Some(v) = pending.pop() {
            match v {
                Value::Array(items) => pending.extend(items),
                Value::Object(members) => pending.extend(members.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        // On the test's own (small) stack, where serde_json's recursion would overflow: the
        // walk keeps its open containers on the heap.
        let v = nested(100_000);
        let ours = value_ours(&v);
        assert!(ours.starts_with(b"{\"k99999\":[99998,{\"k99997\":[99996,"));
        assert!(ours.ends_with(b"]}]}"));
        // serde_json as the oracle, on a thread with room for its recursion.
        let oracle = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(1 << 30)
                .spawn_scoped(s, || value_oracle(&v))
                .expect("a thread")
                .join()
                .expect("serde_json serialises")
        });
        assert!(ours == oracle, "not as serde_json");
        dismantle(v);
    }

    /// Strings with everything that matters to escaping: every control byte, the two escaped
    /// printable bytes, their neighbours, `/`, DEL and multi-byte characters, in runs long
    /// enough to cross chunk boundaries at every offset.
    fn tricky_string() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            (0u32..0x20).prop_map(|c| char::from_u32(c).map(String::from).unwrap_or_default()),
            Just("\"".to_owned()),
            Just("\\".to_owned()),
            Just("/".to_owned()),
            Just("\u{7f}".to_owned()),
            Just("!#[]".to_owned()),
            Just("é€😀\u{2028}".to_owned()),
            "[a-z]{0,9}",
            any::<char>().prop_map(String::from),
        ];
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    fn number() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            Just(Value::from(u64::MAX)),
            Just(Value::from(i64::MIN)),
            Just(Value::from(1e300)),
            Just(Value::from(-0.0)),
            Just(Value::from(0.1)),
            any::<f64>().prop_map(Value::from), // NaN and infinities become `null`
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            number(),
            tricky_string().prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 128, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec((tricky_string(), inner), 0..8)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn strings_as_serde_json(s in tricky_string()) {
            prop_assert_eq!(str_ours(&s), str_oracle(&s));
        }

        #[test]
        fn any_string_as_serde_json(s in any::<String>()) {
            prop_assert_eq!(str_ours(&s), str_oracle(&s));
        }

        #[test]
        fn nested_values_as_serde_json(v in value()) {
            prop_assert_eq!(value_ours(&v), value_oracle(&v));
        }
    }
}
