//! Why a failed `anyOf`/`oneOf` failed, alternative by alternative (issue 19): the first
//! failure of each branch, where and which keyword, gathered the same way by both walks (the
//! subsets' walk in the parent module and the `full` subset's in [`super::full`]).
//!
//! A walk asks for reasons only when errors are recorded, walks each branch once more into a
//! [`FirstFailure`] and hands it to [`BranchReasons::add`]; [`BranchReasons::finish`] gives the
//! text appended to "matches none of the n alternatives". The text then goes into the error
//! list like any message, so it counts against the same error count and byte budget.

use super::{Path, Report};
use crate::ir::Node;

/// Alternatives whose reason a failed union names; the rest are counted.
const MAX_BRANCH_REASONS: usize = 8;

/// Characters of one alternative's reason, past which it is cut.
const MAX_BRANCH_REASON_CHARS: usize = 160;

/// The first failure of a union branch: where it failed, the keyword and what it said.
#[derive(Default)]
pub(super) struct FirstFailure(Option<String>);

impl FirstFailure {
    /// Keeps the first failure only: later ones are not formatted at all.
    pub(super) fn record(
        &mut self,
        keyword: &'static str,
        path: &Path<'_>,
        message: impl FnOnce() -> String,
    ) {
        if self.0.is_some() {
            return;
        }
        let at = path.to_pointer();
        let mut text = message();
        if let Some((cut, _)) = text.char_indices().nth(MAX_BRANCH_REASON_CHARS) {
            text.truncate(cut);
            text.push('…');
        }
        self.0 = Some(match at.is_root() {
            true => format!("`{keyword}`: {text}"),
            false => format!("at {at}, `{keyword}`: {text}"),
        });
    }
}

impl Report for FirstFailure {
    const VERDICT_ONLY: bool = false;

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

/// The reasons of one failed union's alternatives, in the order they were tried.
#[derive(Default)]
pub(super) struct BranchReasons {
    reasons: Vec<String>,
    tried: usize,
}

impl BranchReasons {
    /// True while another alternative's reason would be kept: past [`MAX_BRANCH_REASONS`] the
    /// walk need not visit a branch again, it is only counted ([`BranchReasons::skip`]).
    pub(super) fn wants_more(&self) -> bool {
        self.reasons.len() < MAX_BRANCH_REASONS
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
            self.reasons.push(format!("{index}: {why}"));
        }
    }

    /// " (0: …; 1: …; and n more)", or nothing when no alternative gave a reason.
    pub(super) fn finish(self) -> String {
        if self.reasons.is_empty() {
            return String::new();
        }
        let more = self.tried.saturating_sub(self.reasons.len());
        let tail = match more {
            0 => String::new(),
            n => format!("; and {n} more"),
        };
        format!(" ({}{tail})", self.reasons.join("; "))
    }
}
