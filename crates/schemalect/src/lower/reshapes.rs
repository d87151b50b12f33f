//! The reshapings made for the hints of a batch of assessments
//! ([`crate::Assessment::stronger_profiles`]), kept so that the targets that need the same one
//! share it.
//!
//! A hint lowers the schema reshaped for its target's needs ([`crate::dialect::reshape_needs`]).
//! The five OpenAI-family targets need the same reshaping, as do the three Claude routes and the
//! two Gemini `responseSchema` ones, so a `lint` of every target needs three reshapings of a
//! schema, not ten. The reshaping is the larger part of a hint's work (the lowering of what it
//! makes is the rest, and differs by target).

use crate::budget::{self, Budget};
use crate::dialect::Needs;
use crate::lens::reshape::{self, Reshaped};
use crate::schema::{Ir, Schema};
use std::sync::Arc;

/// Reshapings made so far, by schema and needs.
#[derive(Default)]
pub(super) struct Reshapes {
    made: Vec<Made>,
}

struct Made {
    /// The schema reshaped, held so that its address names it while it is kept here.
    ir: Arc<Ir>,
    needs: Needs,
    null_means_absent: bool,
    reshaped: Reshaped,
    /// The work budget's steps the reshaping spent: charged again on each reuse, so that a
    /// hint that reuses it runs out of work exactly where making it again would.
    steps: u64,
}

impl Reshapes {
    /// `schema` reshaped for `needs`, made under the budget `b` of the operation in progress,
    /// or reused and its steps charged to `b` again; `None` once `b` runs out. Only reshapings
    /// made within the budget are kept: their steps are then counted whole.
    pub(super) fn get(
        &mut self,
        schema: &Schema,
        needs: Needs,
        null_means_absent: bool,
        b: Budget,
    ) -> Option<&Reshaped> {
        let same = |m: &Made| {
            Arc::ptr_eq(&m.ir, &schema.ir)
                && m.needs == needs
                && m.null_means_absent == null_means_absent
        };
        let index = match self.made.iter().position(same) {
            Some(i) => {
                if !budget::charge(self.made.get(i)?.steps) {
                    return None;
                }
                i
            }
            None => {
                let (reshaped, steps) =
                    b.measured(|| reshape::reshape_with(schema, needs, null_means_absent));
                self.made.push(Made {
                    ir: Arc::clone(&schema.ir),
                    needs,
                    null_means_absent,
                    reshaped,
                    steps: steps?,
                });
                self.made.len().checked_sub(1)?
            }
        };
        self.made.get(index).map(|m| &m.reshaped)
    }
}
