//! The one table of keywords: every keyword the ADR-126 subset knows, what it is, and the shape
//! its value must have. Keywords of JSON Schema that the subset leaves out are listed too, each
//! with the advice a user needs; anything else is an unknown keyword. Both the front end and the
//! documentation test read this table, so it cannot drift from `docs/subset.md`.

/// What a keyword does in the subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Constrains the instance directly.
    Assertion,
    /// Applies subschemas to the instance or its parts (its subschemas carry the assertions).
    Applicator,
    /// Informs only; never changes validity.
    Annotation,
    /// Holds definitions for references; asserts nothing itself (extended subset only).
    Container,
}

/// The shape a keyword's value must have to be inside the subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A type name, or a non-empty list of distinct type names.
    Types,
    /// A non-empty list of any JSON values.
    NonEmptyArray,
    /// Any JSON value.
    AnyValue,
    /// A list of JSON values.
    Array,
    /// A non-negative integer (`5.0` counts).
    NonNegativeInteger,
    /// A positive integer (`5.0` counts).
    PositiveInteger,
    /// A number.
    Number,
    /// An ECMA-262 regular expression the linear-time engine can run.
    Pattern,
    /// A boolean.
    Boolean,
    /// A string.
    String,
    /// A subschema (a non-empty object).
    Schema,
    /// A non-empty list of subschemas.
    SchemaList,
    /// An object whose members are subschemas.
    SchemaMap,
    /// A list of distinct strings.
    StringSet,
    /// `true`, `false` or a subschema.
    BoolOrSchema,
    /// A local reference: `#` followed by a JSON Pointer (extended subset only).
    Reference,
    /// Iglu's `self`: an object of strings `vendor`, `name`, `format`, `version`, at the root.
    IgluSelf,
}

impl Shape {
    /// How the shape reads in an error message.
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Types => "a type name or a non-empty list of distinct type names",
            Shape::NonEmptyArray => "a non-empty list",
            Shape::AnyValue => "any JSON value",
            Shape::Array => "a list",
            Shape::NonNegativeInteger => "a non-negative integer",
            Shape::PositiveInteger => "a positive integer",
            Shape::Number => "a number",
            Shape::Pattern => "an ECMA-262 regular expression string",
            Shape::Boolean => "a boolean",
            Shape::String => "a string",
            Shape::Schema => "a schema object",
            Shape::SchemaList => "a non-empty list of schema objects",
            Shape::SchemaMap => "an object whose values are schema objects",
            Shape::StringSet => "a list of distinct strings",
            Shape::BoolOrSchema => "true, false or a schema object",
            Shape::Reference => {
                "a local reference (`#` or `#/…`, a JSON Pointer into this document)"
            }
            Shape::IgluSelf => "Iglu self-describing metadata at the root: an object with the strings `vendor`, `name`, `format` and `version`",
        }
    }
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Keyword {
    /// The keyword as spelled in a schema.
    pub name: &'static str,
    /// What it does.
    pub role: Role,
    /// The shape its value must have.
    pub shape: Shape,
}

const fn kw(name: &'static str, role: Role, shape: Shape) -> Keyword {
    Keyword { name, role, shape }
}

/// Every keyword of the ADR-126 subset.
pub static SUBSET: &[Keyword] = &[
    kw("type", Role::Assertion, Shape::Types),
    kw("enum", Role::Assertion, Shape::NonEmptyArray),
    kw("const", Role::Assertion, Shape::AnyValue),
    kw("pattern", Role::Assertion, Shape::Pattern),
    kw("minLength", Role::Assertion, Shape::NonNegativeInteger),
    kw("maxLength", Role::Assertion, Shape::NonNegativeInteger),
    kw("minimum", Role::Assertion, Shape::Number),
    kw("maximum", Role::Assertion, Shape::Number),
    kw("exclusiveMinimum", Role::Assertion, Shape::Number),
    kw("exclusiveMaximum", Role::Assertion, Shape::Number),
    kw("multipleOf", Role::Assertion, Shape::PositiveInteger),
    kw("items", Role::Applicator, Shape::Schema),
    kw("prefixItems", Role::Applicator, Shape::SchemaList),
    kw("minItems", Role::Assertion, Shape::NonNegativeInteger),
    kw("maxItems", Role::Assertion, Shape::NonNegativeInteger),
    kw("uniqueItems", Role::Assertion, Shape::Boolean),
    kw("properties", Role::Applicator, Shape::SchemaMap),
    kw("required", Role::Assertion, Shape::StringSet),
    kw(
        "additionalProperties",
        Role::Applicator,
        Shape::BoolOrSchema,
    ),
    kw("oneOf", Role::Applicator, Shape::SchemaList),
    kw("anyOf", Role::Applicator, Shape::SchemaList),
    kw("allOf", Role::Applicator, Shape::SchemaList),
    kw("not", Role::Applicator, Shape::Schema),
    kw("description", Role::Annotation, Shape::String),
    kw("title", Role::Annotation, Shape::String),
    kw("default", Role::Annotation, Shape::AnyValue),
    kw("examples", Role::Annotation, Shape::Array),
    kw("format", Role::Annotation, Shape::String),
    kw("$schema", Role::Annotation, Shape::String),
    kw("$id", Role::Annotation, Shape::String),
];

/// The keywords the extended subset adds to [`SUBSET`]. Vendor keys (`x-…`) are annotations
/// there too, and a subschema may assert nothing (`{}`, `true`, annotations only: any value).
pub static EXTENDED: &[Keyword] = &[
    kw("$ref", Role::Applicator, Shape::Reference),
    kw("$defs", Role::Container, Shape::SchemaMap),
    kw("definitions", Role::Container, Shape::SchemaMap),
    kw("$comment", Role::Annotation, Shape::String),
    // Annotations of JSON Schema itself (never asserted), which generators emit often.
    kw("id", Role::Annotation, Shape::String),
    kw("readOnly", Role::Annotation, Shape::Boolean),
    kw("writeOnly", Role::Annotation, Shape::Boolean),
    kw("deprecated", Role::Annotation, Shape::Boolean),
    kw("contentEncoding", Role::Annotation, Shape::String),
    kw("contentMediaType", Role::Annotation, Shape::String),
    // Drafts 4 to 2019-09 tuples: `items` as a list with `additionalItems`, read as
    // `prefixItems` and `items` (the list form of `items` is accepted in the extended subset).
    kw("additionalItems", Role::Applicator, Shape::BoolOrSchema),
    // OpenAPI's single example (Schema Object), emitted by many generators; never asserted.
    kw("example", Role::Annotation, Shape::AnyValue),
    // Iglu self-describing schema metadata (Snowplow), at the root only.
    kw("self", Role::Annotation, Shape::IgluSelf),
];

/// Keywords of JSON Schema (any draft) that the subset leaves out, with the advice to give.
pub static OUTSIDE: &[(&str, &str)] = &[
    ("$ref", "references are outside the ADR-126 subset; inline the definition"),
    ("$defs", "definitions are outside the ADR-126 subset; inline them where they are used"),
    ("definitions", "definitions are outside the ADR-126 subset; inline them where they are used"),
    ("$anchor", "anchors are outside the ADR-126 subset; remove it"),
    ("$dynamicRef", "dynamic references are outside the ADR-126 subset; inline the definition"),
    ("$dynamicAnchor", "dynamic anchors are outside the ADR-126 subset; remove it"),
    ("$recursiveRef", "recursive references are outside the ADR-126 subset; inline the definition"),
    ("$recursiveAnchor", "recursive anchors are outside the ADR-126 subset; remove it"),
    ("$vocabulary", "vocabularies belong in meta-schemas, not in schemas for the subset; remove it"),
    ("$comment", "comments are outside the ADR-126 subset; move the text into `description`"),
    ("patternProperties", "pattern-keyed properties are outside the subset; use `additionalProperties` with a schema, or list the properties"),
    ("propertyNames", "`propertyNames` is outside the subset; remove it or list the properties"),
    ("dependentRequired", "conditional requirements are outside the subset; express the alternatives with `anyOf`"),
    ("dependentSchemas", "conditional schemas are outside the subset; express the alternatives with `anyOf`"),
    ("dependencies", "`dependencies` (draft 7 and older) is outside the subset; express the alternatives with `anyOf`"),
    ("if", "conditionals are outside the subset; express the alternatives with `anyOf`"),
    ("then", "conditionals are outside the subset; express the alternatives with `anyOf`"),
    ("else", "conditionals are outside the subset; express the alternatives with `anyOf`"),
    ("contains", "`contains` is outside the subset; remove it"),
    ("minContains", "`minContains` is outside the subset; remove it"),
    ("maxContains", "`maxContains` is outside the subset; remove it"),
    ("unevaluatedItems", "`unevaluatedItems` is outside the subset; use `items`"),
    ("unevaluatedProperties", "`unevaluatedProperties` is outside the subset; use `additionalProperties`"),
    ("additionalItems", "`additionalItems` (draft 2019-09 and older) is outside the subset; use `prefixItems` and `items`"),
    ("minProperties", "`minProperties` is outside the subset; list the properties in `required`"),
    ("maxProperties", "`maxProperties` is outside the subset; remove it"),
    ("contentEncoding", "content keywords are outside the subset; remove it"),
    ("contentMediaType", "content keywords are outside the subset; remove it"),
    ("contentSchema", "content keywords are outside the subset; remove it"),
    ("readOnly", "`readOnly` is not an annotation of the subset; remove it or say it in `description`"),
    ("writeOnly", "`writeOnly` is not an annotation of the subset; remove it or say it in `description`"),
    ("deprecated", "`deprecated` is not an annotation of the subset; remove it or say it in `description`"),
    ("id", "`id` (draft 4) is outside the subset; use `$id`"),
    ("nullable", "`nullable` is OpenAPI, not JSON Schema; use `\"type\": [\"…\", \"null\"]`"),
    ("discriminator", "`discriminator` is OpenAPI, not JSON Schema; remove it"),
    ("example", "`example` is OpenAPI, not JSON Schema; use `examples` (a list)"),
];

/// The ADR-126 row for a keyword, if it is one.
pub fn lookup(name: &str) -> Option<&'static Keyword> {
    SUBSET.iter().find(|k| k.name == name)
}

/// The row for a keyword under `subset`, if the subset has it.
pub fn lookup_in(name: &str, subset: Subset) -> Option<&'static Keyword> {
    match subset {
        Subset::Adr126 => lookup(name),
        // The `full` subset reads every keyword of its drafts (its own front end); of this
        // table it shares the extended rows.
        Subset::Extended | Subset::Full => {
            lookup(name).or_else(|| EXTENDED.iter().find(|k| k.name == name))
        }
    }
}

/// True for vendor extension keys (`x-…`), annotations in the extended subset.
pub fn is_vendor_key(name: &str) -> bool {
    name.starts_with("x-")
}

/// The advice for a known keyword that the subset leaves out.
pub fn outside_reason(name: &str) -> Option<&'static str> {
    OUTSIDE.iter().find(|(k, _)| *k == name).map(|(_, r)| *r)
}

use crate::ir::Subset;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_across_both_tables() {
        let mut names: Vec<&str> = SUBSET.iter().map(|k| k.name).collect();
        names.extend(EXTENDED.iter().map(|k| k.name));
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
        let mut names: Vec<&str> = SUBSET.iter().map(|k| k.name).collect();
        names.extend(OUTSIDE.iter().map(|(k, _)| *k));
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn subset_has_the_adr126_keywords() {
        assert_eq!(SUBSET.len(), 30);
        assert_eq!(
            SUBSET.iter().filter(|k| k.role == Role::Annotation).count(),
            7
        );
        assert!(lookup("$ref").is_none());
        assert!(outside_reason("$ref").is_some_and(|r| r.contains("inline")));
    }
}
