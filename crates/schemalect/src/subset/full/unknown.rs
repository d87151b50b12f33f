//! Which keywords each draft defines, and the keyword an unknown name is a near miss of.

use crate::ir::Draft;

/// Keywords of every draft from 4 on, with the first draft that has each and the last (when a
/// later draft dropped or renamed it).
const KEYWORDS: &[(&str, Draft, Option<Draft>)] = &[
    ("$schema", Draft::Draft4, None),
    ("id", Draft::Draft4, Some(Draft::Draft4)),
    ("$id", Draft::Draft6, None),
    ("$ref", Draft::Draft4, None),
    ("$comment", Draft::Draft7, None),
    ("$defs", Draft::Draft2019_09, None),
    // Not a keyword after draft 7, but still where most schemas keep their definitions; read
    // as a container in every draft so references into it resolve.
    ("definitions", Draft::Draft4, None),
    ("$anchor", Draft::Draft2019_09, None),
    (
        "$recursiveRef",
        Draft::Draft2019_09,
        Some(Draft::Draft2019_09),
    ),
    (
        "$recursiveAnchor",
        Draft::Draft2019_09,
        Some(Draft::Draft2019_09),
    ),
    ("$dynamicRef", Draft::Draft2020_12, None),
    ("$dynamicAnchor", Draft::Draft2020_12, None),
    ("$vocabulary", Draft::Draft2019_09, None),
    ("title", Draft::Draft4, None),
    ("description", Draft::Draft4, None),
    ("default", Draft::Draft4, None),
    ("examples", Draft::Draft6, None),
    ("readOnly", Draft::Draft7, None),
    ("writeOnly", Draft::Draft7, None),
    ("deprecated", Draft::Draft2019_09, None),
    ("format", Draft::Draft4, None),
    ("contentEncoding", Draft::Draft7, None),
    ("contentMediaType", Draft::Draft7, None),
    ("contentSchema", Draft::Draft2019_09, None),
    ("type", Draft::Draft4, None),
    ("enum", Draft::Draft4, None),
    ("const", Draft::Draft6, None),
    ("multipleOf", Draft::Draft4, None),
    ("maximum", Draft::Draft4, None),
    ("exclusiveMaximum", Draft::Draft4, None),
    ("minimum", Draft::Draft4, None),
    ("exclusiveMinimum", Draft::Draft4, None),
    ("maxLength", Draft::Draft4, None),
    ("minLength", Draft::Draft4, None),
    ("pattern", Draft::Draft4, None),
    ("items", Draft::Draft4, None),
    ("additionalItems", Draft::Draft4, Some(Draft::Draft2019_09)),
    ("prefixItems", Draft::Draft2020_12, None),
    ("maxItems", Draft::Draft4, None),
    ("minItems", Draft::Draft4, None),
    ("uniqueItems", Draft::Draft4, None),
    ("contains", Draft::Draft6, None),
    ("maxContains", Draft::Draft2019_09, None),
    ("minContains", Draft::Draft2019_09, None),
    ("maxProperties", Draft::Draft4, None),
    ("minProperties", Draft::Draft4, None),
    ("required", Draft::Draft4, None),
    ("properties", Draft::Draft4, None),
    ("patternProperties", Draft::Draft4, None),
    ("additionalProperties", Draft::Draft4, None),
    ("propertyNames", Draft::Draft6, None),
    // Split into `dependentRequired` and `dependentSchemas` in 2019-09, but kept in every
    // draft: a document that declares 2019-09 or later and writes `dependencies` means it
    // (the suite's optional `dependencies-compatibility` tests), and nothing else reads it.
    ("dependencies", Draft::Draft4, None),
    ("dependentRequired", Draft::Draft2019_09, None),
    ("dependentSchemas", Draft::Draft2019_09, None),
    ("allOf", Draft::Draft4, None),
    ("anyOf", Draft::Draft4, None),
    ("oneOf", Draft::Draft4, None),
    ("not", Draft::Draft4, None),
    ("if", Draft::Draft7, None),
    ("then", Draft::Draft7, None),
    ("else", Draft::Draft7, None),
    ("unevaluatedProperties", Draft::Draft2019_09, None),
    ("unevaluatedItems", Draft::Draft2019_09, None),
];

/// True when `name` is a keyword of `draft`.
pub(super) fn known(draft: Draft, name: &str) -> bool {
    KEYWORDS
        .iter()
        .any(|(k, from, until)| *k == name && *from <= draft && until.is_none_or(|u| draft <= u))
}

/// The keyword of `draft` that `name` is a near miss of: the same letters in another case
/// (`readonly`), an edit or two away (`decription`, `minlength`), or a prefix of at least three
/// letters of exactly one keyword (`addit`), or a short spelling of another schema language
/// (`min` for `minimum`).
pub(super) fn suggest(draft: Draft, name: &str) -> Option<&'static str> {
    let candidates = || {
        KEYWORDS
            .iter()
            .filter(move |(_, from, until)| *from <= draft && until.is_none_or(|u| draft <= u))
            .map(|(k, _, _)| *k)
    };
    let lower = name.to_ascii_lowercase();
    // Short spellings other schema languages use.
    for (alias, k) in [("min", "minimum"), ("max", "maximum"), ("regex", "pattern")] {
        if lower == alias && known(draft, k) {
            return Some(k);
        }
    }
    if let Some(k) = candidates().find(|k| k.to_ascii_lowercase() == lower) {
        return Some(k);
    }
    let trimmed = lower.trim_start_matches(['_', '$']);
    if let Some(k) =
        candidates().find(|k| k.to_ascii_lowercase().trim_start_matches('$') == trimmed)
    {
        return Some(k);
    }
    if name.chars().count() >= 4 {
        let limit = if name.chars().count() >= 7 { 2 } else { 1 };
        let mut best: Option<(usize, &'static str)> = None;
        for k in candidates() {
            let d = distance(&lower, &k.to_ascii_lowercase());
            if d <= limit && best.is_none_or(|(b, _)| d < b) {
                best = Some((d, k));
            }
        }
        if let Some((_, k)) = best {
            return Some(k);
        }
    }
    if name.len() >= 3 {
        let mut prefixed = candidates().filter(|k| k.to_ascii_lowercase().starts_with(&lower));
        if let (Some(k), None) = (prefixed.next(), prefixed.next()) {
            return Some(k);
        }
    }
    None
}

/// Levenshtein distance, over characters (names are short: quadratic is fine).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let cost = usize::from(ca != *cb);
            let v = (prev + cost)
                .min(above.saturating_add(1))
                .min(left.saturating_add(1));
            prev = above;
            if let Some(slot) = row.get_mut(j + 1) {
                *slot = v;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_name_the_keyword_meant() {
        let d = Draft::Draft2020_12;
        assert_eq!(suggest(d, "readonly"), Some("readOnly"));
        assert_eq!(suggest(d, "decription"), Some("description"));
        assert_eq!(suggest(d, "minlength"), Some("minLength"));
        assert_eq!(suggest(d, "_format"), Some("format"));
        assert_eq!(suggest(d, "javaType"), None);
        assert_eq!(suggest(d, "min"), Some("minimum"));
        assert_eq!(suggest(d, "unrelated"), None);
        assert_eq!(suggest(d, "additionalProp"), Some("additionalProperties"));
    }

    #[test]
    fn keywords_follow_the_draft() {
        assert!(known(Draft::Draft4, "id"));
        assert!(!known(Draft::Draft7, "id"));
        assert!(known(Draft::Draft7, "dependencies"));
        assert!(known(Draft::Draft2020_12, "dependencies"));
        assert!(!known(Draft::Draft2020_12, "additionalItems"));
        assert!(known(Draft::Draft2019_09, "$recursiveRef"));
        assert!(!known(Draft::Draft6, "if"));
    }
}
