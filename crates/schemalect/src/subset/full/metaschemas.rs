//! The drafts' meta-schemas, bundled, so that a reference to one resolves offline (the official
//! suite's `definitions.json` and `ref.json` groups, and real schemas that describe schemas).
//! See `metaschemas/README.md` for where the documents come from.
//!
//! Only the `full` subset's reference resolution reaches this module, after the caller's own
//! resources: the documents are decoded once, the first time one is asked for.

use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The documents, as text (each names its URI in `$id`, or `id` in draft 4).
const TEXTS: [&str; 19] = [
    include_str!("metaschemas/draft4.json"),
    include_str!("metaschemas/draft6.json"),
    include_str!("metaschemas/draft7.json"),
    include_str!("metaschemas/draft2019-09/schema.json"),
    include_str!("metaschemas/draft2019-09/meta/core.json"),
    include_str!("metaschemas/draft2019-09/meta/applicator.json"),
    include_str!("metaschemas/draft2019-09/meta/validation.json"),
    include_str!("metaschemas/draft2019-09/meta/meta-data.json"),
    include_str!("metaschemas/draft2019-09/meta/format.json"),
    include_str!("metaschemas/draft2019-09/meta/content.json"),
    include_str!("metaschemas/draft2020-12/schema.json"),
    include_str!("metaschemas/draft2020-12/meta/core.json"),
    include_str!("metaschemas/draft2020-12/meta/applicator.json"),
    include_str!("metaschemas/draft2020-12/meta/unevaluated.json"),
    include_str!("metaschemas/draft2020-12/meta/validation.json"),
    include_str!("metaschemas/draft2020-12/meta/meta-data.json"),
    include_str!("metaschemas/draft2020-12/meta/format-annotation.json"),
    include_str!("metaschemas/draft2020-12/meta/format-assertion.json"),
    include_str!("metaschemas/draft2020-12/meta/content.json"),
];

/// URI (without a fragment) → document.
fn all() -> &'static BTreeMap<String, Value> {
    static ALL: OnceLock<BTreeMap<String, Value>> = OnceLock::new();
    ALL.get_or_init(|| {
        TEXTS
            .iter()
            .filter_map(|text| serde_json::from_str::<Value>(text).ok())
            .filter_map(|doc| {
                let id = doc.get("$id").or_else(|| doc.get("id"))?.as_str()?;
                Some((id.trim_end_matches('#').to_owned(), doc))
            })
            .collect()
    })
}

/// The bundled meta-schema at `uri` (a base URI, without its fragment), if there is one.
pub(super) fn get(uri: &str) -> Option<&'static Value> {
    all().get(uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_decodes_under_its_own_uri() {
        assert_eq!(all().len(), TEXTS.len());
        for uri in [
            "http://json-schema.org/draft-04/schema",
            "http://json-schema.org/draft-06/schema",
            "http://json-schema.org/draft-07/schema",
            "https://json-schema.org/draft/2019-09/schema",
            "https://json-schema.org/draft/2019-09/meta/applicator",
            "https://json-schema.org/draft/2020-12/schema",
            "https://json-schema.org/draft/2020-12/meta/unevaluated",
        ] {
            assert!(get(uri).is_some(), "{uri}");
        }
        assert!(get("https://json-schema.org/draft/2020-12/schema#").is_none());
    }
}
