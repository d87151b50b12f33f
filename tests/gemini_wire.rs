//! `schemalect::gemini_wire`: Struct roots of Gemini function-call and function-response parts.
//!
//! Every assertion is on the serialized JSON text, because a decoded map hides the difference
//! between `{}` and `[]` that Gemini rejects with HTTP 400.

use proptest::prelude::*;
use schemalect::gemini_wire::{
    function_call_part, function_call_part_with_report, function_response_part,
    function_response_part_with_report, replay_part, struct_root, ArgsReport, Found, RootEncoding,
};
use serde_json::{json, Map, Value};

fn text(value: &Value) -> String {
    serde_json::to_string(value).expect("a serde_json::Value always serializes")
}

fn map_text(map: Map<String, Value>) -> String {
    text(&Value::Object(map))
}

/// The first character of the value of the first member `"name":` in compact JSON `text`,
/// which for a part built here is the Struct root (`{` when right, `[` when regressed).
fn root_opening(text: &str, name: &str) -> Option<char> {
    let needle = format!("\"{name}\":");
    let at = text.find(&needle)?;
    text.get(at + needle.len()..)?.chars().next()
}

fn assert_root_is_object(part_text: &str, name: &str) {
    assert_eq!(
        root_opening(part_text, name),
        Some('{'),
        "`{name}` is not an object in {part_text}"
    );
}

/// `[[[...0...]]]` nested `depth` levels, as text.
fn nested_lists(depth: usize) -> String {
    format!("{}0{}", "[".repeat(depth), "]".repeat(depth))
}

/// `{"a":{"a":...0...}}` nested `depth` levels, as text.
fn nested_objects(depth: usize) -> String {
    format!("{}0{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

fn fallback(found: Found) -> RootEncoding {
    RootEncoding::Fallback { found }
}

fn report(from_text: bool, encoding: RootEncoding) -> ArgsReport {
    ArgsReport {
        from_text,
        encoding,
    }
}

// ---------------------------------------------------------------------------------------------
// Positive controls: the checks below must be able to see a regression.

#[test]
fn control_naive_encoding_is_caught() {
    // What a client that forgets the Struct rule sends; the checker must flag it.
    let naive = text(&json!({"functionCall": {"name": "f", "args": []}}));
    assert!(naive.contains(r#""args":[]"#));
    assert_eq!(root_opening(&naive, "args"), Some('['));
    let naive = text(&json!({"functionResponse": {"name": "f", "response": [1, 2]}}));
    assert_eq!(root_opening(&naive, "response"), Some('['));
}

#[test]
fn control_decoded_maps_hide_the_difference() {
    // Why the tests compare text: `{}` and `[]` are both "empty" once decoded loosely.
    let object = json!({});
    let list = json!([]);
    assert_eq!(object.as_object().map(Map::len), Some(0));
    assert_eq!(list.as_array().map(Vec::len), Some(0));
    assert_ne!(text(&object), text(&list));
}

#[test]
fn control_checker_reads_the_root_not_a_nested_list() {
    let part = text(&function_call_part("f", &json!([[1], []])));
    assert_eq!(
        part,
        r#"{"functionCall":{"name":"f","args":{"0":[1],"1":[]}}}"#
    );
    assert_root_is_object(&part, "args");
}

// ---------------------------------------------------------------------------------------------
// struct_root

#[test]
fn struct_root_keeps_an_object_and_its_member_order() {
    let value = json!({"zeta": 1, "alpha": [2], "mid": {"y": null, "x": []}});
    assert_eq!(
        map_text(struct_root(&value)),
        r#"{"zeta":1,"alpha":[2],"mid":{"y":null,"x":[]}}"#
    );
}

#[test]
fn struct_root_of_an_empty_object_is_an_empty_object() {
    assert_eq!(map_text(struct_root(&json!({}))), "{}");
}

#[test]
fn struct_root_keeps_a_numeric_key_object_as_given() {
    let value: Value = serde_json::from_str(r#"{"1":"b","0":"a","10":"c"}"#).unwrap();
    assert_eq!(
        map_text(struct_root(&value)),
        r#"{"1":"b","0":"a","10":"c"}"#
    );
}

#[test]
fn struct_root_rekeys_a_list_at_the_root() {
    assert_eq!(
        map_text(struct_root(&json!(["a", 2, null, true]))),
        r#"{"0":"a","1":2,"2":null,"3":true}"#
    );
}

#[test]
fn struct_root_of_an_empty_list_is_an_empty_object() {
    assert_eq!(map_text(struct_root(&json!([]))), "{}");
}

#[test]
fn struct_root_leaves_nested_lists_alone() {
    let value = json!([[1, [2]], {"x": [], "y": [{}]}, []]);
    assert_eq!(
        map_text(struct_root(&value)),
        r#"{"0":[1,[2]],"1":{"x":[],"y":[{}]},"2":[]}"#
    );
    let value = json!({"items": [], "matrix": [[], [1]]});
    assert_eq!(
        map_text(struct_root(&value)),
        r#"{"items":[],"matrix":[[],[1]]}"#
    );
}

#[test]
fn struct_root_of_a_scalar_is_empty() {
    for scalar in [
        json!(null),
        json!(true),
        json!(0),
        json!(-2.5),
        json!("[1]"),
    ] {
        assert_eq!(map_text(struct_root(&scalar)), "{}", "{scalar}");
    }
}

#[test]
fn struct_root_of_a_large_list() {
    let items: Vec<Value> = (0..100_000).map(|i| json!(i)).collect();
    let root = struct_root(&Value::Array(items));
    assert_eq!(root.len(), 100_000);
    let out = map_text(root);
    assert!(out.starts_with(r#"{"0":0,"1":1,"2":2,"#));
    assert!(out.ends_with(r#","99998":99998,"99999":99999}"#));
}

#[test]
fn struct_root_of_deeply_nested_values() {
    let lists: Value = serde_json::from_str(&nested_lists(100)).unwrap();
    let out = map_text(struct_root(&lists));
    assert_eq!(out, format!(r#"{{"0":{}}}"#, nested_lists(99)));

    let objects: Value = serde_json::from_str(&nested_objects(100)).unwrap();
    assert_eq!(map_text(struct_root(&objects)), nested_objects(100));
}

// ---------------------------------------------------------------------------------------------
// function_call_part

#[test]
fn call_part_shape_and_member_order() {
    let part = function_call_part("get_weather", &json!({"city": "Paris", "unit": "C"}));
    assert_eq!(
        text(&part),
        r#"{"functionCall":{"name":"get_weather","args":{"city":"Paris","unit":"C"}}}"#
    );
}

#[test]
fn call_part_keeps_the_name_verbatim() {
    let part = function_call_part("ns.tool-\"x\"/é", &json!({}));
    assert_eq!(
        text(&part),
        r#"{"functionCall":{"name":"ns.tool-\"x\"/é","args":{}}}"#
    );
}

#[test]
fn call_part_empty_object_args() {
    let (part, r) = function_call_part_with_report("f", &json!({}));
    let out = text(&part);
    assert!(out.contains(r#""args":{}"#), "{out}");
    assert_eq!(r, report(false, RootEncoding::Object));
}

#[test]
fn call_part_empty_list_args_become_an_empty_object() {
    let (part, r) = function_call_part_with_report("f", &json!([]));
    let out = text(&part);
    assert!(out.contains(r#""args":{}"#), "{out}");
    assert!(!out.contains(r#""args":[]"#), "{out}");
    assert_eq!(r, report(false, RootEncoding::ListAsNumericKeys { len: 0 }));
}

#[test]
fn call_part_list_args_become_numeric_keys() {
    let (part, r) = function_call_part_with_report("f", &json!(["x", {"y": 1}]));
    assert_eq!(
        text(&part),
        r#"{"functionCall":{"name":"f","args":{"0":"x","1":{"y":1}}}}"#
    );
    assert_eq!(r, report(false, RootEncoding::ListAsNumericKeys { len: 2 }));
}

#[test]
fn call_part_keeps_a_numeric_key_object() {
    let args: Value = serde_json::from_str(r#"{"0":"a","1":[]}"#).unwrap();
    let (part, r) = function_call_part_with_report("f", &args);
    assert_eq!(
        text(&part),
        r#"{"functionCall":{"name":"f","args":{"0":"a","1":[]}}}"#
    );
    assert_eq!(r, report(false, RootEncoding::Object));
}

#[test]
fn call_part_leaves_nested_lists_alone() {
    let part = function_call_part("f", &json!({"ids": [], "pairs": [[1, 2]]}));
    assert_eq!(
        text(&part),
        r#"{"functionCall":{"name":"f","args":{"ids":[],"pairs":[[1,2]]}}}"#
    );
}

#[test]
fn call_part_decodes_json_text_args() {
    let (part, r) = function_call_part_with_report("f", &json!(r#"{"b":1,"a":[]}"#));
    assert_eq!(
        text(&part),
        r#"{"functionCall":{"name":"f","args":{"b":1,"a":[]}}}"#
    );
    assert_eq!(r, report(true, RootEncoding::Object));
}

#[test]
fn call_part_decodes_json_text_with_surrounding_whitespace() {
    let (part, r) = function_call_part_with_report("f", &json!(" \n\t{\"a\": 1}\r\n "));
    assert_eq!(
        text(&part),
        r#"{"functionCall":{"name":"f","args":{"a":1}}}"#
    );
    assert_eq!(r, report(true, RootEncoding::Object));
}

#[test]
fn call_part_decodes_list_text_to_numeric_keys() {
    let (part, r) = function_call_part_with_report("f", &json!("[]"));
    assert!(text(&part).contains(r#""args":{}"#));
    assert_eq!(r, report(true, RootEncoding::ListAsNumericKeys { len: 0 }));

    let (part, r) = function_call_part_with_report("f", &json!(r#"[true,[null]]"#));
    assert_eq!(
        text(&part),
        r#"{"functionCall":{"name":"f","args":{"0":true,"1":[null]}}}"#
    );
    assert_eq!(r, report(true, RootEncoding::ListAsNumericKeys { len: 2 }));
}

#[test]
fn call_part_null_args_fall_back_to_empty() {
    let (part, r) = function_call_part_with_report("f", &Value::Null);
    assert_eq!(text(&part), r#"{"functionCall":{"name":"f","args":{}}}"#);
    assert_eq!(r, report(false, fallback(Found::Null)));
    assert!(r.is_fallback());
}

#[test]
fn call_part_scalar_args_fall_back_to_empty() {
    for (args, found) in [
        (json!(true), Found::Boolean),
        (json!(false), Found::Boolean),
        (json!(42), Found::Number),
        (json!(-0.5), Found::Number),
    ] {
        let (part, r) = function_call_part_with_report("f", &args);
        assert_eq!(text(&part), r#"{"functionCall":{"name":"f","args":{}}}"#);
        assert_eq!(r, report(false, fallback(found)), "{args}");
    }
}

#[test]
fn call_part_text_of_a_scalar_falls_back_to_empty() {
    for (args, found) in [
        ("null", Found::Null),
        ("true", Found::Boolean),
        (" 42 ", Found::Number),
        (r#""plain""#, Found::String),
    ] {
        let (part, r) = function_call_part_with_report("f", &json!(args));
        assert_eq!(text(&part), r#"{"functionCall":{"name":"f","args":{}}}"#);
        assert_eq!(r, report(true, fallback(found)), "{args}");
    }
}

#[test]
fn call_part_decodes_text_once_only() {
    // JSON encoded twice: the first decoding yields a string, which is not decoded again.
    let twice = serde_json::to_string(r#"{"a":1}"#).unwrap();
    assert_eq!(twice, r#""{\"a\":1}""#);
    let (part, r) = function_call_part_with_report("f", &json!(twice));
    assert_eq!(text(&part), r#"{"functionCall":{"name":"f","args":{}}}"#);
    assert_eq!(r, report(true, fallback(Found::String)));
}

#[test]
fn call_part_empty_text_falls_back_to_empty() {
    for blank in ["", "   ", "\n\t"] {
        let (part, r) = function_call_part_with_report("f", &json!(blank));
        assert_eq!(text(&part), r#"{"functionCall":{"name":"f","args":{}}}"#);
        assert_eq!(r, report(true, fallback(Found::EmptyText)), "{blank:?}");
    }
}

#[test]
fn call_part_invalid_json_text_falls_back_to_empty() {
    for invalid in ["{", "{\"a\":}", "not json", "{} {}", "[1,]", "NaN", "1e400"] {
        let (part, r) = function_call_part_with_report("f", &json!(invalid));
        assert_eq!(text(&part), r#"{"functionCall":{"name":"f","args":{}}}"#);
        assert_eq!(r, report(true, fallback(Found::InvalidJson)), "{invalid:?}");
    }
}

#[test]
fn call_part_plain_function_agrees_with_the_report() {
    for args in [
        json!({}),
        json!({"a": 1}),
        json!([]),
        json!([1, [2]]),
        json!(null),
        json!(7),
        json!(""),
        json!("[1]"),
        json!("{"),
    ] {
        let (with_report, _) = function_call_part_with_report("f", &args);
        assert_eq!(text(&function_call_part("f", &args)), text(&with_report));
    }
}

#[test]
fn call_part_deeply_nested_args() {
    // 100 levels is realistic and within serde_json's parser limit (128).
    let args: Value = serde_json::from_str(&nested_objects(100)).unwrap();
    let out = text(&function_call_part("f", &args));
    assert_eq!(
        out,
        format!(
            r#"{{"functionCall":{{"name":"f","args":{}}}}}"#,
            nested_objects(100)
        )
    );

    let (part, r) = function_call_part_with_report("f", &json!(nested_lists(100)));
    assert_eq!(
        text(&part),
        format!(
            r#"{{"functionCall":{{"name":"f","args":{{"0":{}}}}}}}"#,
            nested_lists(99)
        )
    );
    assert_eq!(r, report(true, RootEncoding::ListAsNumericKeys { len: 1 }));
}

#[test]
fn call_part_text_nested_beyond_the_parser_limit_falls_back() {
    let (part, r) = function_call_part_with_report("f", &json!(nested_lists(10_000)));
    assert_eq!(text(&part), r#"{"functionCall":{"name":"f","args":{}}}"#);
    assert_eq!(r, report(true, fallback(Found::InvalidJson)));
}

#[test]
fn call_part_large_args() {
    let items: Vec<String> = (0..50_000).map(|i| format!("item-{i}")).collect();
    let args_text = serde_json::to_string(&items).unwrap();
    let (part, r) = function_call_part_with_report("f", &json!(args_text));
    assert_eq!(
        r,
        report(true, RootEncoding::ListAsNumericKeys { len: 50_000 })
    );
    let out = text(&part);
    assert!(out.starts_with(r#"{"functionCall":{"name":"f","args":{"0":"item-0","1":"item-1","#));
    assert!(out.ends_with(r#""49999":"item-49999"}}}"#));

    let mut object = Map::new();
    for i in (0..50_000).rev() {
        object.insert(format!("k{i}"), json!(i));
    }
    let out = text(&function_call_part("f", &Value::Object(object)));
    assert!(out.starts_with(r#"{"functionCall":{"name":"f","args":{"k49999":49999,"#));
    assert!(out.ends_with(r#""k0":0}}}"#));
}

// ---------------------------------------------------------------------------------------------
// function_response_part

#[test]
fn response_part_object_result_keeps_member_order() {
    let (part, e) = function_response_part_with_report("f", r#"{"z":1,"a":{"y":[],"b":2}}"#);
    assert_eq!(
        text(&part),
        r#"{"functionResponse":{"name":"f","response":{"z":1,"a":{"y":[],"b":2}}}}"#
    );
    assert_eq!(e, RootEncoding::Object);
}

#[test]
fn response_part_empty_object_result() {
    let out = text(&function_response_part("f", "{}"));
    assert_eq!(out, r#"{"functionResponse":{"name":"f","response":{}}}"#);
}

#[test]
fn response_part_numeric_key_object_result_stays() {
    let out = text(&function_response_part("f", r#"{"0":"a","1":"b"}"#));
    assert_eq!(
        out,
        r#"{"functionResponse":{"name":"f","response":{"0":"a","1":"b"}}}"#
    );
}

#[test]
fn response_part_list_result_becomes_numeric_keys() {
    let (part, e) = function_response_part_with_report("f", r#"[{"id":1},[2,3],[]]"#);
    assert_eq!(
        text(&part),
        r#"{"functionResponse":{"name":"f","response":{"0":{"id":1},"1":[2,3],"2":[]}}}"#
    );
    assert_eq!(e, RootEncoding::ListAsNumericKeys { len: 3 });

    let (part, e) = function_response_part_with_report("f", "[]");
    let out = text(&part);
    assert!(out.contains(r#""response":{}"#), "{out}");
    assert!(!out.contains(r#""response":[]"#), "{out}");
    assert_eq!(e, RootEncoding::ListAsNumericKeys { len: 0 });
}

#[test]
fn response_part_scalar_result_is_wrapped_as_original_text() {
    for (result, found, expected) in [
        ("42", Found::Number, r#"{"result":"42"}"#),
        (" 4.50 ", Found::Number, r#"{"result":" 4.50 "}"#),
        ("true", Found::Boolean, r#"{"result":"true"}"#),
        ("null", Found::Null, r#"{"result":"null"}"#),
        (r#""done""#, Found::String, r#"{"result":"\"done\""}"#),
    ] {
        let (part, e) = function_response_part_with_report("f", result);
        assert_eq!(
            text(&part),
            format!(r#"{{"functionResponse":{{"name":"f","response":{expected}}}}}"#),
            "{result:?}"
        );
        assert_eq!(e, fallback(found), "{result:?}");
    }
}

#[test]
fn response_part_invalid_json_is_wrapped_as_original_text() {
    for result in ["It is 18 °C in Paris.", "{\"a\":", "[1,2", "Error: \"x\"\n"] {
        let (part, e) = function_response_part_with_report("f", result);
        let expected = json!({"functionResponse": {"name": "f", "response": {"result": result}}});
        assert_eq!(text(&part), text(&expected), "{result:?}");
        assert_eq!(e, fallback(Found::InvalidJson), "{result:?}");
    }
}

#[test]
fn response_part_empty_text_is_wrapped() {
    let (part, e) = function_response_part_with_report("f", "");
    assert_eq!(
        text(&part),
        r#"{"functionResponse":{"name":"f","response":{"result":""}}}"#
    );
    assert_eq!(e, fallback(Found::EmptyText));
}

#[test]
fn response_part_accepts_surrounding_whitespace() {
    let out = text(&function_response_part("f", "\n  [1]\t\r\n"));
    assert_eq!(
        out,
        r#"{"functionResponse":{"name":"f","response":{"0":1}}}"#
    );
}

#[test]
fn response_part_deeply_nested_results() {
    let out = text(&function_response_part("f", &nested_objects(100)));
    assert_eq!(
        out,
        format!(
            r#"{{"functionResponse":{{"name":"f","response":{}}}}}"#,
            nested_objects(100)
        )
    );
    // Beyond serde_json's limit the text cannot be decoded; it is still delivered, as text.
    let deep = nested_lists(10_000);
    let (part, e) = function_response_part_with_report("f", &deep);
    assert_eq!(e, fallback(Found::InvalidJson));
    assert_eq!(
        text(&part),
        format!(r#"{{"functionResponse":{{"name":"f","response":{{"result":"{deep}"}}}}}}"#)
    );
}

#[test]
fn response_part_large_list_result() {
    let items: Vec<Value> = (0..100_000).map(|i| json!({"n": i})).collect();
    let result = serde_json::to_string(&items).unwrap();
    let (part, e) = function_response_part_with_report("f", &result);
    assert_eq!(e, RootEncoding::ListAsNumericKeys { len: 100_000 });
    let out = text(&part);
    assert!(out.starts_with(r#"{"functionResponse":{"name":"f","response":{"0":{"n":0},"#));
    assert!(out.ends_with(r#","99999":{"n":99999}}}}"#));
}

// ---------------------------------------------------------------------------------------------
// replay_part

/// A model turn as a client might have stored it: signatures before and after the call, the
/// empty `args` serialized as a list by a dynamic-language store.
const STORED_MODEL_TURN: &str = r#"[
    {"text": "Let me check.", "thought": true, "thoughtSignature": "c2lnLTE="},
    {"thoughtSignature": "c2lnLTI=", "functionCall": {"name": "list_files", "args": []}},
    {"functionCall": {"id": "call-2", "name": "read", "args": ["a.txt", {"mode": "r"}]}, "thoughtSignature": "c2lnLTM="},
    {"functionCall": {"name": "noop"}},
    {"text": "Done."}
]"#;

#[test]
fn replay_round_trip_keeps_signatures_and_order() {
    let stored: Value = serde_json::from_str(STORED_MODEL_TURN).unwrap();
    let parts = stored.as_array().unwrap();
    let replayed: Vec<String> = parts.iter().map(|p| text(&replay_part(p))).collect();
    assert_eq!(
        replayed,
        [
            r#"{"text":"Let me check.","thought":true,"thoughtSignature":"c2lnLTE="}"#,
            r#"{"thoughtSignature":"c2lnLTI=","functionCall":{"name":"list_files","args":{}}}"#,
            r#"{"functionCall":{"id":"call-2","name":"read","args":{"0":"a.txt","1":{"mode":"r"}}},"thoughtSignature":"c2lnLTM="}"#,
            r#"{"functionCall":{"name":"noop"}}"#,
            r#"{"text":"Done."}"#,
        ]
    );
    // Store again, reload, replay again: nothing changes any more.
    for once in &replayed {
        let reloaded: Value = serde_json::from_str(once).unwrap();
        assert_eq!(&text(&replay_part(&reloaded)), once);
    }
}

#[test]
fn replay_does_not_modify_its_input() {
    let stored: Value = serde_json::from_str(STORED_MODEL_TURN).unwrap();
    let before = text(&stored);
    for part in stored.as_array().unwrap() {
        let _ = replay_part(part);
    }
    assert_eq!(text(&stored), before);
    assert!(before.contains(r#""args":[]"#));
}

#[test]
fn replay_returns_text_and_thought_parts_unchanged() {
    for part in [
        r#"{"text":"hi"}"#,
        r#"{"thought":true,"text":"thinking","thoughtSignature":"AAA="}"#,
        r#"{"inlineData":{"mimeType":"image/png","data":"iVBO"}}"#,
        r#"{"text":"[]","args":[],"response":[]}"#,
        r#"{}"#,
    ] {
        let value: Value = serde_json::from_str(part).unwrap();
        assert_eq!(text(&replay_part(&value)), part);
    }
}

#[test]
fn replay_returns_non_object_parts_unchanged() {
    for part in [
        json!(null),
        json!("text"),
        json!([{"functionCall": {"args": []}}]),
        json!(3),
    ] {
        assert_eq!(text(&replay_part(&part)), text(&part));
    }
}

#[test]
fn replay_keeps_a_function_call_that_is_not_an_object() {
    for part in [
        r#"{"functionCall":null,"thoughtSignature":"x"}"#,
        r#"{"functionCall":[{"name":"f","args":[]}]}"#,
        r#"{"functionCall":"f()"}"#,
        r#"{"functionResponse":[]}"#,
    ] {
        let value: Value = serde_json::from_str(part).unwrap();
        assert_eq!(text(&replay_part(&value)), part);
    }
}

#[test]
fn replay_does_not_invent_missing_roots() {
    for part in [
        r#"{"functionCall":{"name":"f"},"thoughtSignature":"x"}"#,
        r#"{"functionResponse":{"name":"f","id":"1"}}"#,
    ] {
        let value: Value = serde_json::from_str(part).unwrap();
        assert_eq!(text(&replay_part(&value)), part);
    }
}

#[test]
fn replay_keeps_an_object_response_and_its_order() {
    let part = r#"{"functionResponse":{"id":"c1","name":"f","response":{"z":[],"a":{"0":1}},"willContinue":false}}"#;
    let value: Value = serde_json::from_str(part).unwrap();
    assert_eq!(text(&replay_part(&value)), part);
}

#[test]
fn replay_rekeys_a_list_response() {
    let value: Value =
        serde_json::from_str(r#"{"functionResponse":{"response":[[1],{"b":[]}],"name":"f"}}"#)
            .unwrap();
    assert_eq!(
        text(&replay_part(&value)),
        r#"{"functionResponse":{"response":{"0":[1],"1":{"b":[]}},"name":"f"}}"#
    );
}

#[test]
fn replay_encodes_text_and_scalar_roots_like_the_builders() {
    let cases = [
        (
            json!({"functionCall": {"name": "f", "args": "{\"a\":[]}"}}),
            r#"{"functionCall":{"name":"f","args":{"a":[]}}}"#,
        ),
        (
            json!({"functionCall": {"name": "f", "args": "[1]"}}),
            r#"{"functionCall":{"name":"f","args":{"0":1}}}"#,
        ),
        (
            json!({"functionCall": {"name": "f", "args": null}}),
            r#"{"functionCall":{"name":"f","args":{}}}"#,
        ),
        (
            json!({"functionCall": {"name": "f", "args": 5}}),
            r#"{"functionCall":{"name":"f","args":{}}}"#,
        ),
        (
            json!({"functionResponse": {"name": "f", "response": "[true]"}}),
            r#"{"functionResponse":{"name":"f","response":{"0":true}}}"#,
        ),
        (
            json!({"functionResponse": {"name": "f", "response": "sunny"}}),
            r#"{"functionResponse":{"name":"f","response":{"result":"sunny"}}}"#,
        ),
        (
            json!({"functionResponse": {"name": "f", "response": 42}}),
            r#"{"functionResponse":{"name":"f","response":{"result":42}}}"#,
        ),
        (
            json!({"functionResponse": {"name": "f", "response": null}}),
            r#"{"functionResponse":{"name":"f","response":{"result":null}}}"#,
        ),
    ];
    for (part, expected) in cases {
        assert_eq!(text(&replay_part(&part)), expected, "{part}");
    }
}

#[test]
fn replay_handles_snake_case_spellings_and_keeps_them() {
    let part = r#"{"thought_signature":"c2ln","function_call":{"name":"f","args":[]}}"#;
    let value: Value = serde_json::from_str(part).unwrap();
    assert_eq!(
        text(&replay_part(&value)),
        r#"{"thought_signature":"c2ln","function_call":{"name":"f","args":{}}}"#
    );
    let part = r#"{"function_response":{"name":"f","response":["x"]}}"#;
    let value: Value = serde_json::from_str(part).unwrap();
    assert_eq!(
        text(&replay_part(&value)),
        r#"{"function_response":{"name":"f","response":{"0":"x"}}}"#
    );
}

#[test]
fn replay_of_built_parts_is_the_identity() {
    for args in [
        json!([]),
        json!({"a": [1]}),
        json!("[2]"),
        json!(null),
        json!("{"),
    ] {
        let built = function_call_part("f", &args);
        assert_eq!(text(&replay_part(&built)), text(&built));
    }
    for result in ["[]", "{\"a\":1}", "42", "oops", ""] {
        let built = function_response_part("f", result);
        assert_eq!(text(&replay_part(&built)), text(&built));
    }
}

#[test]
fn replay_deeply_nested_part() {
    let part = format!(
        r#"{{"functionCall":{{"name":"f","args":{}}},"thoughtSignature":"s"}}"#,
        nested_lists(100)
    );
    let value: Value = serde_json::from_str(&part).unwrap();
    assert_eq!(
        text(&replay_part(&value)),
        format!(
            r#"{{"functionCall":{{"name":"f","args":{{"0":{}}}}},"thoughtSignature":"s"}}"#,
            nested_lists(99)
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Properties: whatever the input, the two roots serialize as objects.

fn shallow_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z0-9 \\[\\]{}\":,]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z0-9]{0,3}", inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn prop_call_args_are_always_an_object(args in shallow_json()) {
        let part = text(&function_call_part("f", &args));
        prop_assert!(part.starts_with(r#"{"functionCall":{"name":"f","args":{"#), "{}", part);
        // The JSON text form of the same arguments gives the same part.
        if args.is_array() || args.is_object() {
            let from_text = text(&function_call_part("f", &Value::String(text(&args))));
            prop_assert_eq!(from_text, part);
        }
    }

    #[test]
    fn prop_response_is_always_an_object(result in any::<String>()) {
        let part = text(&function_response_part("f", &result));
        let prefix = r#"{"functionResponse":{"name":"f","response":{"#;
        prop_assert!(part.starts_with(prefix), "{}", part);
    }

    #[test]
    fn prop_response_from_value_text_is_always_an_object(value in shallow_json()) {
        let part = text(&function_response_part("f", &text(&value)));
        let prefix = r#"{"functionResponse":{"name":"f","response":{"#;
        prop_assert!(part.starts_with(prefix), "{}", part);
    }

    #[test]
    fn prop_replay_is_idempotent(root in shallow_json(), signature_first in any::<bool>()) {
        let mut part = Map::new();
        if signature_first {
            part.insert("thoughtSignature".into(), json!("sig"));
        }
        part.insert("functionCall".into(), json!({"name": "f", "args": root.clone()}));
        if !signature_first {
            part.insert("thoughtSignature".into(), json!("sig"));
        }
        let part = Value::Object(part);
        let once = replay_part(&part);
        prop_assert_eq!(text(&replay_part(&once)), text(&once));
        prop_assert_eq!(root_opening(&text(&once), "args"), Some('{'));
        let response = json!({"functionResponse": {"name": "f", "response": root}});
        let once = replay_part(&response);
        prop_assert_eq!(text(&replay_part(&once)), text(&once));
        prop_assert_eq!(root_opening(&text(&once), "response"), Some('{'));
    }
}
