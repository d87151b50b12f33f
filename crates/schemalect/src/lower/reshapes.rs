//! The reshapings made for the hints of a batch of assessments
//! ([`crate::Assessment::stronger_profiles`]), kept so that the targets that need the same one
//! share it.
//!
//! A hint lowers the schema reshaped for its target's needs ([`crate::dialect::reshape_needs`]).
//! The five OpenAI-family targets need the same reshaping, as do the three Claude routes and the
//! two Gemini `responseSchema` ones, so a `lint` of every target needs three reshapings of a
//! schema, not ten. The reshaping is the larger part of a hint's work (the lowering of what it
//! makes is the rest, and differs by target).

use crate::budget::kept::Kept;
use crate::budget::Budget;
use crate::dialect::Needs;
use crate::lens::reshape::{self, Reshaped};
use crate::schema::{Ir, Schema};

/// Reshapings made so far, by schema, needs and `null_means_absent`.
#[derive(Default)]
pub(super) struct Reshapes {
    made: Kept<Ir, (Needs, bool), Reshaped>,
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
        let key = (needs, null_means_absent);
        match self.made.find(&schema.ir, &key) {
            Some(i) => {
                let (reshaped, held) = self.made.reuse(i)?;
                held.then_some(reshaped)
            }
            None => {
                let (reshaped, steps) =
                    b.measured(|| reshape::reshape_with(schema, needs, null_means_absent));
                self.made.keep(&schema.ir, key, reshaped, steps?)
            }
        }
    }
}
