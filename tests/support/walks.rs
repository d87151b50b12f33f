//! The two validation walks side by side: the subsets' walk (over the validation plan) and the
//! `full` subset's are two implementations of one semantics, so on a schema both subsets take
//! each is the other's oracle (`tests/conformance.rs` on the corpora, `tests/widening.rs` on
//! generated schemas).

use schemalect::Schema;
use serde_json::Value;

/// One error as the comparison sees it: instance path, schema path, keyword and message.
pub type Seen = (String, String, &'static str, String);

/// `validate`'s errors (`None` when valid), a failed `anyOf`/`oneOf`'s message cut before its
/// reasons: the subsets' walk gives reasons only for the alternatives a tagged union's tag
/// leaves, the `full` walk for all (the count of alternatives must still agree).
pub fn errors(s: &Schema, data: &Value) -> Option<Vec<Seen>> {
    let errors = s.validate(data).err()?.errors;
    Some(
        errors
            .into_iter()
            .map(|e| {
                let message = match e.keyword {
                    "anyOf" | "oneOf" => e.message.split(" (").next().unwrap_or("").to_string(),
                    _ => e.message,
                };
                (
                    e.instance_path.to_string(),
                    e.schema_path.to_string(),
                    e.keyword,
                    message,
                )
            })
            .collect(),
    )
}

/// Where the walks on `a` (a subset's schema) and `b` (the same source in `full`) differ on
/// `data`, if they do: their verdicts or their errors.
pub fn difference(a: &Schema, b: &Schema, data: &Value) -> Option<String> {
    let (ea, eb) = (errors(a, data), errors(b, data));
    let (va, vb) = (a.is_valid(data), b.is_valid(data));
    (ea != eb || va != vb)
        .then(|| format!("{data}:\n  subsets: valid {va}, {ea:?}\n  full:    valid {vb}, {eb:?}"))
}
