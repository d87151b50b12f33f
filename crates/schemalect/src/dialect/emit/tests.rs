//! The emitter's discarding walk against its full walk.

use super::*;
use crate::options::{LowerOptions, Profile};
use crate::target::Target;
use crate::{ParseOptions, Subset};
use std::cell::Cell;
use std::path::Path;

thread_local! {
    /// On while a test lowers schemas to compare every emission with its discarding walk.
    static CHECK: Cell<bool> = const { Cell::new(false) };
}

/// With [`CHECK`] on, walks the schema again discarding from the first node (building no
/// wire, as after a first blocker) and asserts that it decides as the full walk did: the same
/// blockers in the same order, or, where the full walk succeeds, the same losses.
pub(super) fn check_discarding_walk(
    schema: &Schema,
    dialect: JsonDialect,
    full: &Result<Emitted, Degrade>,
) {
    if !CHECK.with(Cell::get) {
        return;
    }
    let discarding = walk(schema, dialect, true);
    let on = (
        dialect.caps.map(|c| c.target),
        dialect.closure,
        dialect.types,
    );
    match (full, &discarding) {
        (Err(a), Err(b)) => assert_eq!(a.0, b.0, "blockers differ: {on:?}"),
        (Ok(a), Ok(b)) => assert_eq!(a.losses, b.losses, "losses differ: {on:?}"),
        (Ok(_), Err(b)) => panic!("only the discarding walk blocks ({on:?}), with {:?}", b.0),
        (Err(a), Ok(_)) => panic!("only the full walk blocks ({on:?}), with {:?}", a.0),
    }
    assert_eq!(
        blockers(schema, dialect).0,
        full.as_ref().err().map(|d| d.0.clone()).unwrap_or_default()
    );
}

/// Lowers `value` parsed in `subset` to every target under both profiles, each emission
/// checked; `false` when the schema is outside the subset.
fn lower_checked(value: &serde_json::Value, subset: Subset) -> bool {
    let Ok(schema) = Schema::parse_with(value, &ParseOptions::default().with_subset(subset)) else {
        return false;
    };
    CHECK.with(|c| c.set(true));
    for target in Target::ALL {
        for profile in Profile::ALL {
            let options = LowerOptions::default()
                .with_profile(profile)
                .with_groq_strict(true);
            schema.lower(target, &options);
        }
    }
    CHECK.with(|c| c.set(false));
    true
}

/// Schemas whose emissions read what an earlier keyword of the same node wrote (`const` after
/// `enum`, the lengths after `pattern`, `oneOf` after `anyOf`) or forget blockers (under
/// `not`), each with blockers elsewhere so that the fallbacks name several.
fn readings() -> Vec<serde_json::Value> {
    use serde_json::json;
    let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    vec![
        json!({"type": "object", "properties": {
            "e": {"enum": [1, 2, [3]], "const": 1},
            "f": {"enum": ["x"], "const": "x"},
            "o": open,
        }, "additionalProperties": false}),
        json!({"type": "object", "properties": {
            "s": {"type": "string", "pattern": "^a+$", "minLength": 2, "maxLength": 9},
            "t": {"type": ["string", "null"], "pattern": "ab", "minLength": 1},
            "u": {"type": ["string", "integer"], "minLength": 1, "minimum": 0.5},
            "o": open,
        }, "required": ["s"], "additionalProperties": false}),
        json!({"type": "object", "properties": {
            "x": {
                "anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}],
                "oneOf": [{"type": "string", "minLength": 1}, {"type": "number", "maximum": 4}]
            },
            "y": {"oneOf": [{"type": "string", "pattern": "^a"}, open]},
            "z": {"oneOf": [{"const": 1}, {"const": 2}]},
        }, "additionalProperties": false}),
        json!({"type": "object", "properties": {
            "n": {"not": {"type": "object", "properties": {"p": open}}},
            "m": {"not": {"type": "string", "maxLength": 2}},
            "k": {"type": "array", "minItems": 2},
            "o": open,
        }, "required": ["n", "m"], "additionalProperties": false}),
        json!({"type": "object", "properties": {
            "list": {"type": "array", "prefixItems": [open, {"type": "integer"}], "items": open},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}], "minItems": 3},
            "both": {"type": ["object", "array"], "properties": {"q": open}, "items": {}},
            "deep": {"type": "object", "properties": {"d": open}, "additionalProperties": open},
        }}),
    ]
}

#[test]
fn discarding_walk_decides_as_the_full_one() {
    for value in readings() {
        for subset in [Subset::Adr126, Subset::Extended, Subset::Full] {
            lower_checked(&value, subset);
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let golden = root.join("corpus/golden");
    let mut cases: Vec<_> = std::fs::read_dir(&golden)
        .unwrap_or_else(|e| panic!("{}: {e}", golden.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    cases.sort();
    let mut lowered = 0;
    for dir in &cases {
        let Ok(text) = std::fs::read_to_string(dir.join("schema.json")) else {
            continue;
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let subset = std::fs::read_to_string(dir.join("case.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|c| c.get("subset")?.as_str().and_then(Subset::from_name))
            .unwrap_or_default();
        assert!(
            lower_checked(&value, subset),
            "{}: outside its subset",
            dir.display()
        );
        lowered += 1;
    }
    assert!(lowered > 50, "only {lowered} golden cases");
    // One JSONSchemaBench schema in 40 of the shared corpus, when present, in every subset.
    let bench = root.join("../shared/corpus/jsonschemabench");
    let Ok(entries) = std::fs::read_dir(&bench) else {
        eprintln!("{} is absent: golden cases only", bench.display());
        return;
    };
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    for path in files.iter().step_by(40) {
        let Some(doc) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        else {
            continue;
        };
        for subset in [Subset::Adr126, Subset::Extended, Subset::Full] {
            lower_checked(&doc["schema"], subset);
        }
    }
}

/// The optional properties a blocker names, read off `required` by a scan, a merge or a hash
/// depending on the object's width and order, against a plain count over the lists.
#[test]
fn optional_names_are_the_same_however_required_is_read() {
    use crate::ir::{NodeId, Properties};
    let expected = |names: &[String], required: &[&str]| -> Option<String> {
        let optional: Vec<&String> = names
            .iter()
            .filter(|n| !required.contains(&n.as_str()))
            .collect();
        if optional.is_empty() {
            return None;
        }
        let mut shown: Vec<String> = optional.iter().take(8).map(|n| format!("`{n}`")).collect();
        if optional.len() > 8 {
            shown.push(format!("{} more", optional.len() - 8));
        }
        let verb = if optional.len() == 1 { "is" } else { "are" };
        Some(format!("{} {verb}", shown.join(", ")))
    };
    for width in [1, 3, 16, 17, 40, 300] {
        let names: Vec<String> = (0..width).map(|i| format!("p{i}")).collect();
        let all: Vec<&str> = names.iter().map(String::as_str).collect();
        let every_other: Vec<&str> = all.iter().copied().step_by(2).collect();
        let mut reversed = all.clone();
        reversed.reverse();
        let mut with_unknown = every_other.clone();
        with_unknown.push("undeclared");
        let mut doubled = all.clone();
        doubled.push(all[0]);
        let mut all_but_last_twice = all[..width - 1].to_vec();
        all_but_last_twice.push(all[0]);
        let lists: [&[&str]; 8] = [
            &[],
            &all,
            &every_other,
            &reversed,
            &with_unknown,
            &doubled,
            &all_but_last_twice,
            &all[1..],
        ];
        for required in lists {
            let rules = ObjectRules {
                properties: Properties::new(
                    names
                        .iter()
                        .enumerate()
                        .map(|(i, n)| (n.as_str().into(), NodeId(i as u32)))
                        .collect(),
                ),
                required: required.iter().map(|r| (*r).into()).collect(),
                additional: Additional::Forbidden,
            };
            let mut written = String::new();
            let said = write_optional_names(&rules, &mut written).then_some(written);
            let want = expected(&names, required);
            assert_eq!(said, want, "{width} properties, required {required:?}");
            assert_eq!(every_property_required(&rules), want.is_none());
        }
    }
}
