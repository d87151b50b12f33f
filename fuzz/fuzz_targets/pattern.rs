//! Pattern NUL haystack: compile, match, render; the canonical and portable renderings mean the
//! same as the source on the haystack.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schemalect::pattern::Pattern;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((pattern, haystack)) = common::split(data) else {
        return;
    };
    let Ok(p) = Pattern::compile(pattern, 4096) else {
        return;
    };
    let verdict = p.is_match(haystack);
    let _ = p.features();
    for (how, text) in [
        ("canonical", p.to_ecma_string()),
        ("portable", p.portable()),
    ] {
        let again = Pattern::compile(&text, usize::MAX).unwrap_or_else(|e| {
            panic!("the {how} rendering {text:?} of {pattern:?} does not compile: {e}")
        });
        assert_eq!(
            again.is_match(haystack),
            verdict,
            "the {how} rendering {text:?} of {pattern:?} disagrees on {haystack:?}"
        );
    }
});
