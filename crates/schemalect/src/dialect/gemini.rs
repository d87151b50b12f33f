//! Gemini's structured-output dialects. Two are sent in `generateContent`'s `generationConfig`
//! with `responseMimeType: "application/json"` (required beside either schema field, GG2), on
//! the Gemini API and on Vertex AI (`vertex-gemini`, the same `responseSchema` lowering):
//!
//! - [`openapi`]: `responseSchema`, the OpenAPI-subset `Schema` proto. It has no
//!   `additionalProperties`, so every OBJECT is closed to its declared properties; `type` is a
//!   single value; `enum` holds strings only. It needs its own lowering (type unions are split
//!   into `anyOf` branches, null becomes `nullable`), but its keyword decisions are still listed
//!   in a capability table for the target matrix.
//! - [`json_schema`]: `responseJsonSchema`, the JSON-Schema dialect, sent through the generic
//!   emitter with open objects made explicit (a missing `additionalProperties` reads as closed).
//!
//! When nothing native keeps the widening contract, both fall back to the mime type alone,
//! whose decoder language is every JSON value, so the fallback is always sound.
//!
//! The third wire, the Interactions API ([`interactions`]), carries the schema in a
//! `response_format` entry instead, with its own (probed, smaller) subset.

mod interactions;
mod json_schema;
mod openapi;

pub use interactions::CAPABILITIES as INTERACTIONS_CAPABILITIES;
pub use interactions::FULL_ROWS as INTERACTIONS_FULL_ROWS;
pub use json_schema::CAPABILITIES as JSON_CAPABILITIES;
pub use json_schema::FULL_ROWS as JSON_FULL_ROWS;
pub use openapi::CAPABILITIES as OPENAPI_CAPABILITIES;
pub use openapi::VERTEX_CAPABILITIES;
pub use openapi::{FULL_ROWS as OPENAPI_FULL_ROWS, VERTEX_FULL_ROWS};

pub(crate) use interactions::lower as lower_interactions;
pub(crate) use json_schema::lower as lower_json;
pub(crate) use openapi::lower as lower_openapi;

use super::emit::{emit_for, JsonDialect};
use super::normalize::{normalize, Rewrites};
use super::{Outcome, Produce};
use crate::loss::{Loss, Mode};
use crate::schema::Schema;
use serde_json::{json, Value};

/// The mime type that turns on JSON output; both schema fields require it (GG2).
const JSON_MIME: &str = "application/json";

/// A native lowering: the schema in `field`, exact when nothing was lost.
fn native(produce: Produce, field: &str, schema: Value, losses: Vec<Loss>) -> Outcome {
    let wire = produce.request(|| {
        let mut config = serde_json::Map::new();
        config.insert("responseMimeType".into(), Value::from(JSON_MIME));
        config.insert(field.into(), schema);
        super::object([("generationConfig", Value::Object(config))])
    });
    Outcome::native(wire, losses)
}

/// The body both JSON-Schema wires share: `allOf` merged into its parent, then the generic
/// emitter in `dialect`. The schema to send with every loss, or why it cannot be sent (for
/// [`Produce::Verdict`], no schema: neither wire checks it).
fn emit_json_schema(
    schema: &Schema,
    dialect: JsonDialect,
    produce: Produce,
) -> Result<(Value, Vec<Loss>), Vec<Loss>> {
    let normalized = normalize(
        schema,
        Rewrites {
            flatten_all_of: true,
            distribute_unions: false,
        },
    );
    let emitted = emit_for(&normalized.schema, dialect, produce).map_err(|d| d.0)?;
    let mut losses = normalized.losses;
    losses.extend(emitted.losses);
    Ok((emitted.schema, losses))
}

/// The fallback: JSON output without a schema. Its decoder language is any JSON value, so it
/// cannot narrow whatever the schema says; `why` lists every node the schema field could not
/// carry.
fn json_only(produce: Produce, why: Vec<Loss>) -> Outcome {
    Outcome {
        mode: Mode::Json,
        wire: produce.request(|| json!({ "generationConfig": { "responseMimeType": JSON_MIME } })),
        losses: why,
    }
}

#[cfg(test)]
mod tests {
    use super::{
        INTERACTIONS_CAPABILITIES, JSON_CAPABILITIES, OPENAPI_CAPABILITIES, VERTEX_CAPABILITIES,
    };
    use crate::keywords::SUBSET;

    #[test]
    fn every_subset_keyword_has_exactly_one_sourced_row_in_each_table() {
        for caps in [
            &OPENAPI_CAPABILITIES,
            &JSON_CAPABILITIES,
            &INTERACTIONS_CAPABILITIES,
            &VERTEX_CAPABILITIES,
        ] {
            for k in SUBSET {
                let n = caps.rows.iter().filter(|r| r.keyword == k.name).count();
                assert_eq!(n, 1, "{:?}: {}", caps.target, k.name);
            }
            assert_eq!(caps.rows.len(), SUBSET.len(), "{:?}", caps.target);
            assert!(caps.rows.iter().all(|r| r.source.contains("https://")));
        }
    }
}
