//! Where the JSON is in a model's answer text. Models asked for "JSON only" still wrap it in a
//! Markdown code fence (```` ```json … ``` ````) or put a sentence before it; peers strip both.
//! This reads the text as JSON first; only when that fails does it look for a fenced block,
//! then for the span from the first `{` or `[` to the last `}` or `]`. It never repairs the
//! JSON itself, and validation against the source schema still decides.

use serde_json::Value;

/// The JSON value in `text`, or the decoder's error on the text as it is (what the caller
/// reports: line and column then point into the answer it has).
pub(crate) fn decode(text: &str) -> Result<Value, serde_json::Error> {
    let whole = match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    for candidate in [fenced(text), spanned(text)].into_iter().flatten() {
        if let Ok(v) = serde_json::from_str::<Value>(candidate) {
            return Ok(v);
        }
    }
    Err(whole)
}

/// The body of the first Markdown code fence (three or more backticks, an optional info string
/// such as `json`), up to its closing fence or the end of the text.
fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = text.get(start..)?;
    let ticks = after.len() - after.trim_start_matches('`').len();
    let rest = after.get(ticks..)?;
    // The info string runs to the end of the opening line.
    let body = match rest.find('\n') {
        Some(nl) => rest.get(nl + 1..)?,
        None => rest,
    };
    let fence = after.get(..ticks)?;
    let end = body.find(fence).unwrap_or(body.len());
    body.get(..end)
}

/// From the first `{` or `[` to the last `}` or `]`: the value after leading prose (and before
/// trailing prose).
fn spanned(text: &str) -> Option<&str> {
    let start = text.find(['{', '['])?;
    let end = text.rfind(['}', ']'])?;
    (end >= start).then(|| text.get(start..=end)).flatten()
}

#[cfg(test)]
mod tests {
    use super::decode;
    use serde_json::json;

    #[test]
    fn plain_json_is_read_as_it_is() {
        assert_eq!(decode(" {\"a\": 1} ").unwrap(), json!({"a": 1}));
        assert_eq!(decode("\"```\"").unwrap(), json!("```"));
    }

    #[test]
    fn fences_and_prose_are_stripped() {
        let cases = [
            "```json\n{\"a\": 1}\n```",
            "```\n{\"a\": 1}\n```\n",
            "Here is the JSON:\n\n```json\n{\"a\": 1}\n```\nAnything else?",
            "````json\n{\"a\": 1}\n````",
            "Sure! {\"a\": 1}",
            "The answer is {\"a\": 1}.",
            "```json\n{\"a\": 1}",
        ];
        for text in cases {
            assert_eq!(decode(text).unwrap(), json!({"a": 1}), "{text:?}");
        }
        assert_eq!(decode("Result: [1, 2]").unwrap(), json!([1, 2]));
    }

    #[test]
    fn what_is_not_json_reports_the_text_as_given() {
        for text in [
            "",
            "no json here",
            "```json\n{\"a\": \n```",
            "} {",
            "{\"a\": 1",
        ] {
            let e = decode(text).unwrap_err();
            let direct = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
            assert_eq!(
                (e.line(), e.column()),
                (direct.line(), direct.column()),
                "{text:?}"
            );
        }
    }
}
