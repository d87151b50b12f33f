//! Why a failed `anyOf`/`oneOf` failed, alternative by alternative (issue 19): the first
//! failure of each branch, where and which keyword, gathered the same way by both walks (the
//! subsets' walk in the parent module and the `full` subset's in [`super::full`]).
//!
//! A walk asks for reasons only when errors are recorded, walks each branch once more into a
//! [`FirstFailure`] and hands it to [`BranchReasons::add`]; [`BranchReasons::finish`] gives the
//! text appended to "matches none of the n alternatives". The text then goes into the error
//! list like any message, so it counts against the same error count and byte budget.

use super::{Path, Report, Step};
use crate::ir::Node;
use std::fmt::Write;

/// Alternatives whose reason a failed union names; the rest are counted.
const MAX_BRANCH_REASONS: usize = 8;

/// Characters of one alternative's reason, past which it is cut.
const MAX_BRANCH_REASON_CHARS: usize = 160;

/// The first failure of a union branch: where it failed, the keyword and what it said.
#[derive(Default)]
pub(super) struct FirstFailure(Option<String>);

impl FirstFailure {
    /// True once the first failure is recorded.
    pub(super) fn is_recorded(&self) -> bool {
        self.0.is_some()
    }

    /// Keeps the first failure only: later ones are not formatted at all.
    ///
    /// Written into one string as it is formed (the instance path from the walk's stack,
    /// not built as a [`crate::pointer::Pointer`] first): a `validate` of an answer that fails
    /// a union spends a large share of its time here, once per alternative. The text: "at",
    /// the instance path as a pointer displays it and a comma (none of it at the root), the
    /// keyword in backticks and a colon, and the message, cut after
    /// [`MAX_BRANCH_REASON_CHARS`] characters with an ellipsis.
    pub(super) fn record(
        &mut self,
        keyword: &'static str,
        path: &Path<'_>,
        message: impl FnOnce() -> String,
    ) {
        if self.0.is_some() {
            return;
        }
        let message = message();
        // A message of at most that many bytes has at most that many characters: only a
        // longer one is searched for where to cut.
        let cut = match message.len() > MAX_BRANCH_REASON_CHARS {
            true => message
                .char_indices()
                .nth(MAX_BRANCH_REASON_CHARS)
                .map(|(at, _)| at),
            false => None,
        };
        let kept = cut.and_then(|at| message.get(..at)).unwrap_or(&message);
        let mut text = String::with_capacity(kept.len() + keyword.len() + 32);
        if !matches!(path, Path::Root) {
            text.push_str("at ");
            write_path(&mut text, path);
            text.push_str(", ");
        }
        text.push('`');
        text.push_str(keyword);
        text.push_str("`: ");
        text.push_str(kept);
        if cut.is_some() {
            text.push('…');
        }
        self.0 = Some(text);
    }
}

/// Writes the JSON Pointer of `path` (not the root) as [`crate::pointer::Pointer`] displays
/// it: `/` before each member name, with `~` and `/` escaped as `~0` and `~1`, or index.
fn write_path(out: &mut String, path: &Path<'_>) {
    path.each_step(&mut |step| match step {
        Step::Key(k) => crate::pointer::push_token(out, k),
        Step::Index(i) => {
            let _ = write!(out, "/{i}");
        }
    });
}

impl Report for FirstFailure {
    const VERDICT_ONLY: bool = false;
    const KEPT: bool = false;

    fn enough(&self) -> bool {
        self.is_recorded()
    }

    fn record(
        &mut self,
        _: &Node,
        keyword: &'static str,
        path: &Path<'_>,
        message: impl FnOnce() -> String,
    ) {
        FirstFailure::record(self, keyword, path, message);
    }
}

/// The reasons of one failed union's alternatives, in the order they were tried, written
/// into the text [`BranchReasons::finish`] gives as they come.
#[derive(Default)]
pub(super) struct BranchReasons {
    /// " (0: …; 1: …" so far.
    text: String,
    reasons: usize,
    tried: usize,
}

impl BranchReasons {
    /// True while another alternative's reason would be kept: past [`MAX_BRANCH_REASONS`] the
    /// walk need not visit a branch again, it is only counted ([`BranchReasons::skip`]).
    pub(super) fn wants_more(&self) -> bool {
        self.reasons < MAX_BRANCH_REASONS
    }

    /// Counts an alternative whose reason is not kept.
    pub(super) fn skip(&mut self) {
        self.tried += 1;
    }

    /// Alternative `index`: its first failure, when it failed (a branch that passes, or fails
    /// without a recorded reason, is counted only).
    pub(super) fn add(&mut self, index: usize, passed: bool, first: FirstFailure) {
        self.tried += 1;
        if passed {
            return;
        }
        if let Some(why) = first.0 {
            // Room for this reason at once (the text grows by whole reasons, not by doubling
            // through each), with its separator and index.
            self.text.reserve(why.len() + 24);
            self.text
                .push_str(if self.reasons == 0 { " (" } else { "; " });
            let _ = write!(self.text, "{index}: ");
            self.text.push_str(&why);
            self.reasons += 1;
        }
    }

    /// " (0: …; 1: …; and n more)", or nothing when no alternative gave a reason.
    pub(super) fn finish(mut self) -> String {
        if self.reasons == 0 {
            return String::new();
        }
        let more = self.tried.saturating_sub(self.reasons);
        if more > 0 {
            let _ = write!(self.text, "; and {more} more");
        }
        self.text.push(')');
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_written_as_pointers_display_them() {
        let a = Path::Key(&Path::Root, "a/b~c");
        let b = Path::Index(&a, 12);
        let c = Path::Key(&b, "");
        let d = Path::Key(&c, "é~/~");
        for p in [&a, &b, &c, &d] {
            let mut text = String::new();
            write_path(&mut text, p);
            assert_eq!(text, p.to_pointer().to_string());
        }
    }

    #[test]
    fn a_reason_is_cut_after_its_character_limit() {
        let at = Path::Key(&Path::Root, "x");
        for (len, cut) in [
            (MAX_BRANCH_REASON_CHARS, false),
            (MAX_BRANCH_REASON_CHARS + 1, true),
        ] {
            let mut first = FirstFailure::default();
            first.record("enum", &at, || "é".repeat(len));
            let text = first.0.unwrap_or_default();
            let kept = "é".repeat(MAX_BRANCH_REASON_CHARS);
            let expected = match cut {
                true => format!("at /x, `enum`: {kept}…"),
                false => format!("at /x, `enum`: {kept}"),
            };
            assert_eq!(text, expected);
        }
    }
}
