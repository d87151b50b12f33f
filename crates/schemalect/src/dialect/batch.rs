//! Strict schemas shared by the assessments of one batch ([`crate::Schema::assess_all`],
//! [`crate::Assessment::stronger_profiles`]).
//!
//! OpenAI's and Claude's strict schemas are built even for a verdict, because their limits are
//! checked on what is sent (`closed::census`, OpenAI's shared first keys). Several targets
//! build the same one: the OpenAI Chat Completions and Responses routes share their table, and
//! so do the three Claude routes. Inside a batch, the verdict of a strict emission (its losses,
//! or why it cannot be sent) is made once per schema and table and reused; a reuse charges the
//! work budget again with the steps the emission spent, so each assessment runs out of work
//! where it would alone. A request ([`Produce::Request`]) is always built in full.
//!
//! The batch is this thread's, like the work budget (`crate::budget`): an assessment runs on
//! one thread, and nothing here crosses threads.

use super::caps::Row;
use super::emit::Degrade;
use super::Produce;
use crate::budget::{self, kept::Kept};
use crate::loss::Loss;
use crate::schema::{Ir, Schema};
use serde_json::{Map, Value};
use std::cell::RefCell;

/// Which strict emission: the dialect's, and what it reads of its capability table (the rows,
/// and whether recursive references are sent).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Strict {
    /// The dialect (`"openai"`, `"claude"`).
    pub dialect: &'static str,
    pub rows: &'static [Row],
    pub references: bool,
}

impl PartialEq for Strict {
    fn eq(&self, other: &Strict) -> bool {
        self.dialect == other.dialect
            && std::ptr::eq(self.rows, other.rows)
            && self.references == other.references
    }
}

/// A strict emission's verdict.
type Verdict = Result<Vec<Loss>, Degrade>;

thread_local! {
    static BATCH: RefCell<Option<Kept<Ir, Strict, Verdict>>> = const { RefCell::new(None) };
}

/// Runs `f` as one batch: the strict emissions of its verdicts are made once per schema and
/// table. Inside a batch already, `f` joins it.
pub(crate) fn run<R>(f: impl FnOnce() -> R) -> R {
    let joined = BATCH.with(|b| match b.try_borrow_mut() {
        Ok(mut b) if b.is_none() => {
            *b = Some(Kept::default());
            false
        }
        _ => true,
    });
    if joined {
        return f();
    }
    /// Ends the batch however `f` ends.
    struct End;
    impl Drop for End {
        fn drop(&mut self) {
            BATCH.with(|b| {
                if let Ok(mut b) = b.try_borrow_mut() {
                    *b = None;
                }
            });
        }
    }
    let _end = End;
    f()
}

/// What the batch holds for a schema and table.
enum Look {
    /// No batch is running.
    Outside,
    Missing,
    /// Kept, its steps charged again.
    Found(Verdict),
}

/// The strict schema of `schema` as `from` emits it (`make`). For a verdict inside a batch,
/// made once per schema and table: a reuse gives its losses (or its blockers) with an empty
/// schema, which a verdict never reads, and charges its steps to the budget again. Only
/// emissions made within the budget are kept, so their steps are counted whole.
pub(crate) fn strict(
    schema: &Schema,
    from: Strict,
    produce: Produce,
    make: impl FnOnce() -> Result<(Value, Vec<Loss>), Degrade>,
) -> Result<(Value, Vec<Loss>), Degrade> {
    let Some(budget) = budget::current().filter(|_| produce == Produce::Verdict) else {
        return make();
    };
    let look = BATCH.with(|b| match b.try_borrow().as_deref() {
        Ok(Some(kept)) => match kept.find(&schema.ir, &from) {
            // Past the budget, the lowering's outcome is the budget's error, whatever this is.
            Some(i) => kept
                .reuse(i)
                .map_or(Look::Missing, |(verdict, _)| Look::Found(verdict.clone())),
            None => Look::Missing,
        },
        _ => Look::Outside,
    });
    match look {
        Look::Outside => make(),
        Look::Found(verdict) => verdict.map(|losses| (Value::Object(Map::new()), losses)),
        Look::Missing => {
            let (out, steps) = budget.measured(make);
            if let Some(steps) = steps {
                let verdict = match &out {
                    Ok((_, losses)) => Ok(losses.clone()),
                    Err(d) => Err(d.clone()),
                };
                BATCH.with(|b| {
                    if let Ok(Some(kept)) = b.try_borrow_mut().as_deref_mut() {
                        kept.keep(&schema.ir, from, verdict, steps);
                    }
                });
            }
            out
        }
    }
}
