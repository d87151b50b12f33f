//! Results kept within a batch for reuse, each with the work budget's steps it cost.
//!
//! Two batches share work this way: the hints of several assessments share their reshapings
//! (`lower::reshapes`), and the assessments of one schema share their strict emissions
//! (`dialect::batch`). Both keep a result by what it was made from (a schema's shared IR,
//! compared by address and held, so that the address cannot be reused while it is kept) and a
//! key, and both charge a reuse the steps the result cost ([`super::Budget::measured`]), so
//! that an operation that reuses it runs out of work exactly where making it again would.
//! A batch holds a few results per schema, so the look-up is a scan.

use std::sync::Arc;

/// Results made from an `O` for a `K`.
pub(crate) struct Kept<O, K, V> {
    made: Vec<Made<O, K, V>>,
}

struct Made<O, K, V> {
    /// What the result was made from, held so that its address names it while kept.
    from: Arc<O>,
    key: K,
    value: V,
    /// The work budget's steps making it spent.
    steps: u64,
}

impl<O, K, V> Default for Kept<O, K, V> {
    fn default() -> Self {
        Kept { made: Vec::new() }
    }
}

impl<O, K: PartialEq, V> Kept<O, K, V> {
    /// Where the result made from `from` for `key` is kept.
    pub(crate) fn find(&self, from: &Arc<O>, key: &K) -> Option<usize> {
        self.made
            .iter()
            .position(|m| Arc::ptr_eq(&m.from, from) && m.key == *key)
    }

    /// The result at `i` ([`Kept::find`]), its steps charged to the budget of the operation in
    /// progress again, and whether the budget held out.
    pub(crate) fn reuse(&self, i: usize) -> Option<(&V, bool)> {
        let m = self.made.get(i)?;
        Some((&m.value, super::charge(m.steps)))
    }

    /// Keeps `value`, made from `from` for `key` in `steps` (counted whole: only a result made
    /// within the budget is kept), and gives it back.
    pub(crate) fn keep(&mut self, from: &Arc<O>, key: K, value: V, steps: u64) -> Option<&V> {
        self.made.push(Made {
            from: Arc::clone(from),
            key,
            value,
            steps,
        });
        self.made.last().map(|m| &m.value)
    }
}
