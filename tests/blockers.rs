//! Every fallback names all its blockers, and only blockers (issue 19: "the number of losses
//! equals the number of distinct blocking nodes"), judged without the code that lists them.
//!
//! The count is checked by editing the source, not by reading the dialects: a lowering that
//! falls back to `json` names blocking nodes by their source pointers. Replace every named node
//! with a small stand-in that every route sends natively and lower again:
//!
//! - **complete**: the edited schema must lower natively. A blocker the list left out is still
//!   in the edited schema and keeps it in the fallback.
//! - **each one blocks**: replacing all named nodes but one must still fall back, so no listed
//!   node is there without reason (checked in the conservative profile and the ADR-126 subset,
//!   for nodes outside definitions that share their place with no other named node, where the
//!   list has at most [`MINIMALITY_UP_TO`] outermost nodes: a few lowerings per fallback).
//!
//! The root is not replaced (the routes have rules of their own for it) but made strict in
//! place: every declared property required, no other allowed. Left out, as they must be:
//! fallbacks with a reason about the whole schema (no keyword: a size limit, or a second
//! reason of the route), a named root that is not an object with `properties`, and lowerings
//! the reshaping lens made native.
//!
//! Over the shared corpus (every target, both profiles, ADR-126 and extended subsets) when
//! `../shared/corpus` is present; a handful of hand-made schemas always.

use schemalect::{LowerOptions, Lowering, Mode, ParseOptions, Profile, Schema, Subset, Target};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Schemas of the shared corpus where the check disagrees today, each with why. The test fails
/// if any other schema disagrees, and if one of these stops disagreeing (then remove it).
const KNOWN: [(&str, &str); 2] = [
    (
        "Github_medium---o71266.json",
        "the root's `oneOf` branches are open objects reached through plain `$ref`s; the two named \
         ones lack names the third declares. Their stand-ins, closed objects under the typed \
         root, each declare a name of their own, which the third (open) does not: the edit \
         makes a blocker the source does not have",
    ),
    (
        "Github_medium---o71267.json",
        "as o71266 (the same schema family, one more branch)",
    ),
];

/// Lists with more outermost nodes than this are checked for completeness only.
const MINIMALITY_UP_TO: usize = 6;

/// A stand-in every route sends natively and exactly, distinct per replaced node (so that
/// replaced branches of one `oneOf` stay disjoint): a one-string `enum`, or, for a branch of
/// `anyOf`/`oneOf`/`allOf` (nested ones included) under a node with a `type`, a small closed
/// node of that type, so that the edit does not make the typed node unsatisfiable (under a
/// closed object it requires nothing, so it is not distinct there). A string
/// everywhere else ([`Untyped::String`]): an object stand-in would declare a property that
/// other schemas for the same place might not (which some routes must then refuse to close).
/// A fallback of the edit's own making would otherwise read as a blocker the list left out.
///
/// A branch whose union has no `type` of its own can still be conjoined, through `allOf` and
/// `$ref`, with a typed schema elsewhere that the pointer does not show (a definition's
/// `additionalProperties` applied to a property typed `["array", "object"]` beside it): there
/// the string makes the conjunction admit nothing. [`Untyped::Object`] gives such branches the
/// closed object instead; [`judge`] tries it when the string edit still falls back.
fn stand_in(source: &Value, pointer: &str, i: usize, untyped: Untyped) -> Value {
    let first_type = |v: Option<&Value>| -> Option<String> {
        match v?.get("type")? {
            Value::String(t) => Some(t.clone()),
            Value::Array(ts) => ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .map(str::to_owned),
            _ => None,
        }
    };
    // Up through the unions the node is a branch of, to the first node with a `type`.
    let mut around = None;
    let mut around_closed = false;
    let mut branch = false;
    let mut at = pointer;
    while let Some((node, key)) = at.rsplit_once('/').and_then(|(p, _)| p.rsplit_once('/')) {
        if !["anyOf", "oneOf", "allOf"].contains(&key) {
            break;
        }
        branch = true;
        around = first_type(source.pointer(node));
        if around.is_some() {
            around_closed = source.pointer(&format!("{node}/additionalProperties"))
                == Some(&Value::Bool(false));
            break;
        }
        at = node;
    }
    let name = format!("stand_in_{i}");
    match around.as_deref() {
        // Under a closed object a required name it does not declare would leave no object.
        Some("object") if around_closed => json!({
            "type": "object",
            "properties": {name: {"type": "string"}},
            "additionalProperties": false
        }),
        Some("object") => json!({
            "type": "object",
            "properties": {name.clone(): {"type": "string"}},
            "required": [name],
            "additionalProperties": false
        }),
        Some("array") => json!({"type": "array", "items": {"type": "string", "enum": [name]}}),
        Some(t @ ("integer" | "number" | "boolean" | "null")) => json!({"type": t}),
        _ if untyped == Untyped::Object && branch => json!({
            "type": "object",
            "properties": {name.clone(): {"type": "string"}},
            "required": [name],
            "additionalProperties": false
        }),
        _ => json!({"type": "string", "enum": [name]}),
    }
}

/// The stand-in for a union branch with no `type` around it (see [`stand_in`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Untyped {
    String,
    Object,
}

/// What one fallback showed.
enum Verdict {
    /// Not a fallback.
    Skipped,
    /// A fallback the check leaves out (a reason about the whole schema, or a blocker at the
    /// root).
    Unjudged,
    /// Complete, and every checked node blocks.
    Agrees,
    /// Something is wrong; the message says what.
    Disagrees(String),
}

fn lower(
    source: &Value,
    subset: Subset,
    target: Target,
    options: &LowerOptions,
) -> Option<Lowering> {
    let schema = Schema::parse_with(source, &ParseOptions::default().with_subset(subset)).ok()?;
    Some(schema.lower(target, options))
}

fn falls_back(l: &Lowering) -> bool {
    l.mode() >= Mode::Json && !l.is_reshaped()
}

/// The named nodes without those inside another named node (replacing the outer one replaces
/// them too), in document order.
fn outermost(pointers: &[String]) -> Vec<String> {
    let mut sorted: Vec<String> = pointers.to_vec();
    sorted.sort();
    sorted.dedup();
    let mut out: Vec<String> = Vec::new();
    for p in sorted {
        if !out.iter().any(|q| p.starts_with(&format!("{q}/"))) {
            out.push(p);
        }
    }
    out
}

/// `source` with the node at every pointer replaced by a [`stand_in`]; `None` when a pointer does
/// not name a node of the document (which is itself a finding).
fn replaced(source: &Value, pointers: &[&String], untyped: Untyped) -> Option<Value> {
    let mut edited = source.clone();
    for (i, p) in pointers.iter().enumerate() {
        *edited.pointer_mut(p)? = stand_in(source, p, i, untyped);
    }
    Some(edited)
}

/// Where a node applies in an instance: its pointer without the union branches it sits in
/// (`/anyOf/0/properties/a` and `/anyOf/1/properties/a` are the same place).
fn place(pointer: &str) -> String {
    let mut out = String::new();
    let mut segments = pointer.split('/').skip(1).peekable();
    while let Some(seg) = segments.next() {
        if ["anyOf", "oneOf", "allOf"].contains(&seg)
            && segments.peek().is_some_and(|n| n.parse::<usize>().is_ok())
        {
            segments.next();
            continue;
        }
        out.push('/');
        out.push_str(seg);
    }
    out
}

/// The root object with every declared property required and no other allowed; false when
/// the root is not an object schema with `properties`.
fn strict_in_place(source: &mut Value) -> bool {
    let Some(root) = source.as_object_mut() else {
        return false;
    };
    let Some(names) = root
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().map(Value::from).collect::<Vec<_>>())
    else {
        return false;
    };
    root.insert("required".into(), Value::Array(names));
    root.insert("additionalProperties".into(), Value::Bool(false));
    true
}

/// Whether a blocker at `p`, met only once the `outer` nodes were replaced, is of the edit's
/// own making on Gemini's responseSchema. Union siblings are distributed into the branches
/// there (`N ∧ (A ∨ B)` → `(N ∧ A) ∨ (N ∧ B)`), so a property `N/properties/k` is only ever
/// sent merged with each branch's own `properties/k`. While the branches stand, what the
/// route walks is that merge (a map closed to the branch's members, say); a stand-in declares
/// no `k`, so the edit sends `N/properties/k` alone for the first time. A branch fixed in
/// place (closed, its members kept) still merges into `k`, and were the merge itself blocked,
/// the first walk would have met it inside the branch. Only a `k` that a replaced branch of
/// `N` declares is covered: a property the branches leave alone was sent alone all along.
fn spread_from_replaced_branch(source: &Value, target: Target, outer: &[String], p: &str) -> bool {
    matches!(target, Target::Gemini | Target::VertexGemini)
        && p.rsplit_once("/properties/").is_some_and(|(node, k)| {
            !k.contains('/')
                && outer.iter().any(|q| {
                    q.strip_prefix(node).is_some_and(|rest| {
                        ["/anyOf/", "/oneOf/"].iter().any(|u| {
                            rest.strip_prefix(u)
                                .is_some_and(|i| i.parse::<usize>().is_ok())
                        })
                    }) && source.pointer(&format!("{q}/properties/{k}")).is_some()
                })
        })
}

fn judge(source: &Value, subset: Subset, target: Target, options: &LowerOptions) -> Verdict {
    let Some(first) = lower(source, subset, target, options) else {
        return Verdict::Skipped;
    };
    if !falls_back(&first) {
        return Verdict::Skipped;
    }
    if first.losses().iter().any(|l| l.keyword.is_empty()) {
        return Verdict::Unjudged;
    }
    let named: Vec<String> = first
        .losses()
        .iter()
        .map(|l| l.pointer.as_str().to_owned())
        .collect();
    // The root is not replaced (routes have rules of their own for it): it is made strict
    // in place instead, every declared property required and no other allowed, which is what
    // the routes that name the root most often need. A root still named after that is taken
    // as named for a reason this edit does not address; only the other nodes are judged then.
    let root_named = named.iter().any(|p| p.is_empty());
    let named: Vec<String> = named.into_iter().filter(|p| !p.is_empty()).collect();
    let outer = outermost(&named);
    let all: Vec<&String> = outer.iter().collect();
    // A node still named at a replaced place blocks through what the route merges into it
    // from around it (a parent's properties distributed into a branch): the list named it.
    let inside = |p: &str| {
        (root_named && p.is_empty())
            || outer
                .iter()
                .any(|q| p == q || p.starts_with(&format!("{q}/")))
    };
    // The string stand-in first, then the object one for union branches with no `type`
    // around them (see [`stand_in`]): the list is complete when either edit sends natively.
    // A blocker the list left out is outside every replaced node, so it stays in both edits.
    let mut first_missed = None;
    for untyped in [Untyped::String, Untyped::Object] {
        let Some(mut edited) = replaced(source, &all, untyped) else {
            return Verdict::Disagrees(format!("a blocker names no node of the source: {named:?}"));
        };
        if root_named && !strict_in_place(&mut edited) {
            return Verdict::Unjudged;
        }
        let Some(l) = lower(&edited, subset, target, options) else {
            // An edit out of the subset judges nothing; the string edit's finding stands.
            if first_missed.is_some() {
                break;
            }
            return Verdict::Skipped;
        };
        if !falls_back(&l) {
            first_missed = None;
            break;
        }
        let missed: Vec<String> = l
            .losses()
            .iter()
            .filter(|x| {
                x.keyword.is_empty()
                    || !(inside(x.pointer.as_str())
                        || spread_from_replaced_branch(source, target, &outer, x.pointer.as_str()))
            })
            .map(|x| format!("{} {}: {}", x.pointer, x.keyword, x.reason))
            .collect();
        // Making the root strict can make it admit nothing (a required property that
        // admits nothing): a reason of the edit's own making.
        if root_named
            && !missed.is_empty()
            && l.losses()
                .iter()
                .all(|x| inside(x.pointer.as_str()) || x.pointer.is_root())
            && missed.iter().all(|m| m.starts_with("/ "))
        {
            return Verdict::Unjudged;
        }
        if missed.is_empty() {
            return Verdict::Agrees;
        }
        first_missed.get_or_insert(missed);
    }
    if let Some(missed) = first_missed {
        return Verdict::Disagrees(format!(
            "incomplete: with every named node {outer:?} replaced it still falls back, for {missed:?}"
        ));
    }
    // In the reshaping profile a fallback names what keeps the conservative wire from being
    // sent, some of which the lens could reshape once the rest is fixed; and a node in a
    // definition stops mattering when the references to it are replaced. Minimality is judged
    // where neither applies.
    // Nor where a replaced node is at the same place as the kept one (branches of one union,
    // or the same property in two branches): routes that must close objects judge the schemas
    // for one place together, so each blocks only beside the other.
    let places: Vec<String> = outer.iter().map(|p| place(p)).collect();
    let checkable = |p: &str| {
        !p.starts_with("/definitions/")
            && !p.starts_with("/$defs/")
            && places.iter().filter(|q| **q == place(p)).count() == 1
    };
    // References make one node reachable at several places the pointer rule cannot see, so
    // minimality is judged in the ADR-126 subset only.
    if options.profile == Profile::Conservative
        && subset == Subset::Adr126
        && outer.len() > 1
        && outer.len() <= MINIMALITY_UP_TO
    {
        for kept in outer.iter().filter(|p| checkable(p)) {
            let others: Vec<&String> = outer.iter().filter(|p| *p != kept).collect();
            let Some(edited) = replaced(source, &others, Untyped::String) else {
                continue;
            };
            if let Some(l) = lower(&edited, subset, target, options) {
                if !falls_back(&l) {
                    return Verdict::Disagrees(format!(
                        "{kept} is named but does not block: with the others {others:?} replaced \
                         the lowering is {}",
                        l.mode().name()
                    ));
                }
            }
        }
    }
    Verdict::Agrees
}

fn options(profile: Profile) -> LowerOptions {
    LowerOptions::default().with_profile(profile)
}

#[test]
fn hand_made_fallbacks_name_every_blocker() {
    // Blockers on several nodes for the closed-object routes (two open objects, optional
    // properties) and a length bound; each route that falls back is judged by the edit check.
    let s = json!({
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "b": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "string"}}}},
            "c": {"type": "string", "minLength": 2},
            "d": {"type": "integer"}
        },
        "required": ["a", "b", "c", "d"],
        "additionalProperties": false
    });
    let mut judged = 0;
    for target in Target::ALL {
        for profile in [Profile::Conservative, Profile::Reshaping] {
            match judge(&s, Subset::Adr126, target, &options(profile)) {
                Verdict::Disagrees(e) => panic!("{target} {profile:?}: {e}"),
                Verdict::Agrees => judged += 1,
                Verdict::Skipped | Verdict::Unjudged => {}
            }
        }
    }
    assert!(
        judged > 0,
        "no route fell back on the hand-made schema: the test judged nothing"
    );
}

#[test]
fn the_edit_check_catches_a_list_that_leaves_one_out() {
    // The check itself: two blocking nodes, of which only one is replaced, must still fall
    // back (what the completeness branch reports).
    let s = json!({
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "b": {"type": "object", "properties": {"y": {"type": "integer"}}}
        },
        "required": ["a", "b"],
        "additionalProperties": false
    });
    let o = options(Profile::Conservative);
    let l = lower(&s, Subset::Adr126, Target::OpenAi, &o).expect("in the subset");
    assert!(falls_back(&l), "{:?}", l.losses());
    let one = "/properties/a".to_owned();
    let edited = replaced(&s, &[&one], Untyped::String).expect("a node");
    let l = lower(&edited, Subset::Adr126, Target::OpenAi, &o).expect("in the subset");
    assert!(
        falls_back(&l),
        "one blocker left must keep the fallback: {:?}",
        l.losses()
    );
}

#[test]
fn a_branch_conjoined_with_a_typed_property_elsewhere_gets_an_object_stand_in() {
    // The shape of jsonschemabench o60170: the root's `allOf` joins a definition whose
    // `additionalProperties` is a union with a recursive branch (the one blocker) and one
    // declaring `g` as an array or object, so `g` must satisfy both. The branch's union has no
    // `type`, so the string stand-in makes `g` admit nothing: a fallback of the edit's own.
    // (Ollama fell back on it too, until a recursive reference with siblings was sent alone.)
    let s = json!({
        "type": "object",
        "definitions": {
            "graph": {"properties": {"g": {"type": ["array", "object"]}}},
            "common": {
                "additionalProperties": {"anyOf": [{"$ref": "#/definitions/common"}]},
                "properties": {"id": {"type": "string"}}
            }
        },
        "allOf": [{"$ref": "#/definitions/graph"}, {"$ref": "#/definitions/common"}]
    });
    let branch = "/definitions/common/additionalProperties/anyOf/0".to_owned();
    let o = options(Profile::Conservative);
    // Ollama's grammar sends the recursive branch's reference alone, without what the merge
    // put beside it (`g`'s types): a loss at the branch, no fallback.
    let l = lower(&s, Subset::Extended, Target::Ollama, &o).expect("in the subset");
    assert!(!falls_back(&l), "ollama: {:?}", l.losses());
    let named: Vec<(&str, &str)> = l
        .losses()
        .iter()
        .map(|x| (x.pointer.as_str(), x.keyword.as_ref()))
        .collect();
    assert_eq!(named, [(branch.as_str(), "$ref")], "ollama");
    let target = Target::GeminiJson;
    let l = lower(&s, Subset::Extended, target, &o).expect("in the subset");
    assert!(falls_back(&l), "{target}: {:?}", l.losses());
    let named: Vec<&str> = l.losses().iter().map(|x| x.pointer.as_str()).collect();
    assert_eq!(named, [branch.as_str()], "{target}");
    let edited = replaced(&s, &[&branch], Untyped::String).expect("a node");
    let l = lower(&edited, Subset::Extended, target, &o).expect("in the subset");
    let after: Vec<&str> = l.losses().iter().map(|x| x.pointer.as_str()).collect();
    assert_eq!(after, ["/definitions/graph/properties/g"], "{target}");
    match judge(&s, Subset::Extended, target, &o) {
        Verdict::Agrees => {}
        Verdict::Disagrees(e) => panic!("{target}: {e}"),
        Verdict::Skipped | Verdict::Unjudged => panic!("{target}: not judged"),
    }
}

#[test]
fn a_property_spread_into_replaced_branches_is_not_a_missed_blocker() {
    // The shape of jsonschemabench o75099: `crs` declares `properties` as a bare map, and
    // each `oneOf` branch closes that map to its own members. Gemini's responseSchema merges
    // `crs`'s properties into each branch; the branches block (open beside the root's other
    // schemas for the place), the merged maps do not.
    let crs = json!({
        "type": "object",
        "required": ["type", "properties"],
        "additionalProperties": false,
        "properties": {"type": {"type": "string"}, "properties": {"type": "object"}},
        "oneOf": [
            {"properties": {
                "type": {"enum": ["name"]},
                "properties": {"required": ["name"], "additionalProperties": false,
                               "properties": {"name": {"type": "string"}}}
            }},
            {"properties": {
                "type": {"enum": ["link"]},
                "properties": {"required": ["href"], "additionalProperties": false,
                               "properties": {"href": {"type": "string"}}}
            }}
        ]
    });
    // The reference is percent-encoded (`%63` is `c`), so the declared fragment does not
    // follow it and `crs`'s branches stay open: with a plain pointer the names are all
    // declared at `crs`, the branches close, and nothing falls back.
    let s = json!({
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"type": "string"}, "crs": {"$ref": "#/definitions/%63rs"}},
        "oneOf": [{"required": ["c"], "properties": {"type": {"enum": ["Point"]}, "c": {"type": "number"}}}],
        "definitions": {"crs": crs}
    });
    let o = options(Profile::Conservative);
    let branches = [
        "/definitions/crs/oneOf/0".to_owned(),
        "/definitions/crs/oneOf/1".to_owned(),
    ];
    let l = lower(&s, Subset::Extended, Target::Gemini, &o).expect("in the subset");
    let named: Vec<&str> = l.losses().iter().map(|x| x.pointer.as_str()).collect();
    assert_eq!(named, [branches[0].as_str(), branches[1].as_str()]);
    // The stand-ins declare no `properties` member, so the map is sent alone and blocks...
    let edited = replaced(&s, &[&branches[0], &branches[1]], Untyped::String).expect("nodes");
    let l = lower(&edited, Subset::Extended, Target::Gemini, &o).expect("in the subset");
    let after: Vec<&str> = l.losses().iter().map(|x| x.pointer.as_str()).collect();
    assert_eq!(after, ["/definitions/crs/properties/properties"]);
    // ...while the branches fixed in place (closed, their members kept) send natively: the
    // map was never a blocker of its own.
    let mut fixed = s.clone();
    for b in &branches {
        fixed
            .pointer_mut(b)
            .and_then(Value::as_object_mut)
            .expect("a branch")
            .insert("additionalProperties".into(), Value::Bool(false));
    }
    let l = lower(&fixed, Subset::Extended, Target::Gemini, &o).expect("in the subset");
    assert!(!falls_back(&l), "{:?}", l.losses());
    match judge(&s, Subset::Extended, Target::Gemini, &o) {
        Verdict::Agrees => {}
        Verdict::Disagrees(e) => panic!("{e}"),
        Verdict::Skipped | Verdict::Unjudged => panic!("not judged"),
    } // With the reference a plain pointer, nothing blocks.
    let mut plain = s.clone();
    plain["properties"]["crs"]["$ref"] = json!("#/definitions/crs");
    let l = lower(&plain, Subset::Extended, Target::Gemini, &o).expect("in the subset");
    assert!(!falls_back(&l), "{:?}", l.losses());
}

#[test]
fn the_spread_exemption_covers_only_what_a_replaced_branch_declares() {
    // `k` is declared by the replaced branches, `m` by none of them (a bare map that blocks on
    // its own: a list without it is incomplete), and other routes do not distribute at all.
    let s = json!({
        "type": "object",
        "properties": {"m": {"type": "object"}, "k": {"type": "object"}},
        "oneOf": [
            {"properties": {"k": {"properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}}},
            {"properties": {"k": {"properties": {"b": {"type": "string"}}, "required": ["b"], "additionalProperties": false}}}
        ]
    });
    let outer = ["/oneOf/0".to_owned(), "/oneOf/1".to_owned()];
    assert!(spread_from_replaced_branch(
        &s,
        Target::Gemini,
        &outer,
        "/properties/k"
    ));
    assert!(spread_from_replaced_branch(
        &s,
        Target::VertexGemini,
        &outer,
        "/properties/k"
    ));
    assert!(!spread_from_replaced_branch(
        &s,
        Target::Gemini,
        &outer,
        "/properties/m"
    ));
    assert!(!spread_from_replaced_branch(
        &s,
        Target::Gemini,
        &outer,
        "/properties/k/properties/a"
    ));
    assert!(!spread_from_replaced_branch(
        &s,
        Target::Gemini,
        &outer[..0],
        "/properties/k"
    ));
    assert!(!spread_from_replaced_branch(
        &s,
        Target::OpenAi,
        &outer,
        "/properties/k"
    ));
    // And `m` does block once the branches are replaced, so the exemption is what decides.
    let edited = replaced(&s, &[&outer[0], &outer[1]], Untyped::String).expect("nodes");
    let o = options(Profile::Conservative);
    let l = lower(&edited, Subset::Extended, Target::Gemini, &o).expect("in the subset");
    assert!(
        l.losses()
            .iter()
            .any(|x| x.pointer.as_str() == "/properties/m"),
        "{:?}",
        l.losses()
    );
}

#[test]
fn shared_corpus_fallbacks_name_every_blocker() {
    let Some(files) = support::jsonschemabench_files() else {
        return;
    };
    let mut judged: BTreeMap<(&'static str, Target), usize> = BTreeMap::new();
    let mut unjudged: BTreeMap<(&'static str, Target), usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let source = &doc["schema"];
        for subset in [Subset::Adr126, Subset::Extended] {
            if Schema::parse_with(source, &ParseOptions::default().with_subset(subset)).is_err() {
                continue;
            }
            for target in Target::ALL {
                for profile in [Profile::Conservative, Profile::Reshaping] {
                    match judge(source, subset, target, &options(profile)) {
                        Verdict::Agrees => *judged.entry((subset.name(), target)).or_default() += 1,
                        Verdict::Disagrees(e) => {
                            failures.push(format!("{name} {subset:?} {target} {profile:?}: {e}"))
                        }
                        Verdict::Unjudged => {
                            *unjudged.entry((subset.name(), target)).or_default() += 1
                        }
                        Verdict::Skipped => {}
                    }
                }
            }
        }
    }
    for ((subset, target), n) in &judged {
        let left = unjudged.get(&(*subset, *target)).copied().unwrap_or(0);
        println!(
            "{subset} {target}: {n} fallbacks with every blocker named; {left} not judged (a reason about the whole schema, or a root without properties)"
        );
    }
    let known = |f: &str| KNOWN.iter().any(|(k, _)| f.starts_with(&format!("{k} ")));
    let (expected, unexpected): (Vec<&String>, Vec<&String>) =
        failures.iter().partition(|f| known(f));
    println!(
        "{} fallbacks of the {} known schemas disagree, as expected",
        expected.len(),
        KNOWN.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} fallbacks disagree with the edit check:\n{}",
        unexpected.len(),
        unexpected
            .iter()
            .take(30)
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for (k, why) in KNOWN {
        assert!(
            expected.iter().any(|f| f.starts_with(&format!("{k} "))),
            "{k} agrees now ({why}): take it out of KNOWN"
        );
    }
}
