//! Vocabularies (2019-09 on): a document whose `$schema` is a meta-schema the caller provided
//! gets the keywords of the vocabularies that meta-schema's `$vocabulary` lists, and no others.
//!
//! The keywords of a vocabulary left out are annotations there, as the specification says
//! (2020-12 core, section 8.1.2): `minimum` under a meta-schema without the validation
//! vocabulary asserts nothing. A vocabulary listed as required (`true`) that is not one of the
//! specification's cannot be honoured, so the document is refused; an optional one (`false`)
//! is ignored. The standard meta-schemas list every vocabulary, so a document that names one
//! of them is read with all keywords of its draft.

use crate::ir::Draft;
use serde_json::Value;

/// One vocabulary of the specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Vocabulary {
    Core,
    Applicator,
    Unevaluated,
    Validation,
    MetaData,
    /// `format` as an annotation (2020-12 `format-annotation`; 2019-09 `format` when `false`).
    FormatAnnotation,
    /// `format` as an assertion (2020-12 `format-assertion`; 2019-09 `format` when `true`).
    FormatAssertion,
    Content,
}

/// The vocabularies in effect for a document, as a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Vocabularies(u8);

impl Vocabularies {
    fn with(self, v: Vocabulary) -> Self {
        Vocabularies(self.0 | 1 << v as u8)
    }

    fn has(self, v: Vocabulary) -> bool {
        self.0 & 1 << v as u8 != 0
    }

    /// True when `keyword` (a keyword of the document's draft) applies here.
    pub(super) fn admits(self, keyword: &str) -> bool {
        match vocabulary_of(keyword) {
            Vocabulary::FormatAnnotation => {
                self.has(Vocabulary::FormatAnnotation) || self.has(Vocabulary::FormatAssertion)
            }
            // 2019-09 has `unevaluated*` in the applicator vocabulary.
            Vocabulary::Unevaluated => {
                self.has(Vocabulary::Unevaluated) || self.has(Vocabulary::Applicator)
            }
            v => self.has(v),
        }
    }

    /// True when the meta-schema asks for `format` to be asserted.
    pub(super) fn asserts_format(self) -> bool {
        self.has(Vocabulary::FormatAssertion)
    }
}

/// What a meta-schema's `$vocabulary` says: `None` when it has none (every keyword of the draft
/// applies), `Err(uri)` for a required vocabulary this implementation does not know.
pub(super) fn declared(meta: &Value, draft: Draft) -> Option<Result<Vocabularies, String>> {
    if draft < Draft::Draft2019_09 {
        return None;
    }
    let listed = meta.get("$vocabulary")?.as_object()?;
    let mut set = Vocabularies(0).with(Vocabulary::Core);
    for (uri, required) in listed {
        let required = required.as_bool().unwrap_or(true);
        match known(uri, required) {
            Some(v) => set = set.with(v),
            None if required => return Some(Err(uri.clone())),
            None => {}
        }
    }
    Some(Ok(set))
}

/// The vocabulary a URI names (for 2019-09 `format`, `required` decides annotation or assertion).
fn known(uri: &str, required: bool) -> Option<Vocabulary> {
    let (draft, name) = uri
        .strip_prefix("https://json-schema.org/draft/")?
        .split_once("/vocab/")?;
    let v = match (draft, name) {
        (_, "core") => Vocabulary::Core,
        (_, "applicator") => Vocabulary::Applicator,
        ("2020-12", "unevaluated") => Vocabulary::Unevaluated,
        (_, "validation") => Vocabulary::Validation,
        (_, "meta-data") => Vocabulary::MetaData,
        (_, "content") => Vocabulary::Content,
        ("2020-12", "format-annotation") => Vocabulary::FormatAnnotation,
        ("2020-12", "format-assertion") => Vocabulary::FormatAssertion,
        ("2019-09", "format") if required => Vocabulary::FormatAssertion,
        ("2019-09", "format") => Vocabulary::FormatAnnotation,
        _ => return None,
    };
    matches!(draft, "2019-09" | "2020-12").then_some(v)
}

/// The vocabulary that defines `keyword`; the core one for the `$` keywords and containers.
fn vocabulary_of(keyword: &str) -> Vocabulary {
    match keyword {
        "type" | "enum" | "const" | "multipleOf" | "maximum" | "exclusiveMaximum" | "minimum"
        | "exclusiveMinimum" | "maxLength" | "minLength" | "pattern" | "maxItems" | "minItems"
        | "uniqueItems" | "maxContains" | "minContains" | "maxProperties" | "minProperties"
        | "required" | "dependentRequired" => Vocabulary::Validation,
        "prefixItems"
        | "items"
        | "additionalItems"
        | "contains"
        | "additionalProperties"
        | "properties"
        | "patternProperties"
        | "dependentSchemas"
        | "propertyNames"
        | "if"
        | "then"
        | "else"
        | "allOf"
        | "anyOf"
        | "oneOf"
        | "not"
        | "dependencies" => Vocabulary::Applicator,
        "unevaluatedItems" | "unevaluatedProperties" => Vocabulary::Unevaluated,
        "title" | "description" | "default" | "deprecated" | "readOnly" | "writeOnly"
        | "examples" => Vocabulary::MetaData,
        "format" => Vocabulary::FormatAnnotation,
        "contentEncoding" | "contentMediaType" | "contentSchema" => Vocabulary::Content,
        _ => Vocabulary::Core,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_meta_schema_without_validation_turns_its_keywords_off() {
        let meta = json!({"$vocabulary": {
            "https://json-schema.org/draft/2020-12/vocab/applicator": true,
            "https://json-schema.org/draft/2020-12/vocab/core": true
        }});
        let Some(Ok(v)) = declared(&meta, Draft::Draft2020_12) else {
            panic!("a vocabulary set");
        };
        assert!(v.admits("properties") && v.admits("$ref") && v.admits("unevaluatedItems"));
        assert!(!v.admits("minimum") && !v.admits("type") && !v.admits("format"));
        assert!(!v.asserts_format());
    }

    #[test]
    fn unknown_vocabularies_are_refused_only_when_required() {
        let meta = |required: bool| {
            json!({"$vocabulary": {
                "https://json-schema.org/draft/2020-12/vocab/core": true,
                "http://localhost:1234/draft/2020-12/vocab/custom": required
            }})
        };
        assert!(matches!(
            declared(&meta(false), Draft::Draft2020_12),
            Some(Ok(_))
        ));
        assert_eq!(
            declared(&meta(true), Draft::Draft2020_12),
            Some(Err(
                "http://localhost:1234/draft/2020-12/vocab/custom".into()
            ))
        );
        // Before 2019-09 there are no vocabularies.
        assert_eq!(declared(&meta(true), Draft::Draft7), None);
    }

    #[test]
    fn format_assertion_is_a_vocabulary() {
        let meta = json!({"$vocabulary": {
            "https://json-schema.org/draft/2020-12/vocab/core": true,
            "https://json-schema.org/draft/2020-12/vocab/format-assertion": false
        }});
        let Some(Ok(v)) = declared(&meta, Draft::Draft2020_12) else {
            panic!("a vocabulary set");
        };
        assert!(v.admits("format") && v.asserts_format());
    }
}
