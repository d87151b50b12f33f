//! First-seen deduplication that stays cheap at both ends: lowerings deduplicate enum values
//! and union branches on every request, and most lists hold a handful of items (a scan beats
//! hashing them), while a hostile or generated schema holds thousands (a scan per item would be
//! quadratic).

use std::collections::HashSet;
use std::hash::Hash;

/// Up to this many items, membership is a scan of the list.
const SCAN: usize = 16;

/// Items in the order first met, without repeats.
pub(crate) struct Distinct<T> {
    items: Vec<T>,
    /// Built once the list outgrows [`SCAN`].
    index: Option<HashSet<T>>,
}

impl<T: Copy + Eq + Hash> Distinct<T> {
    pub(crate) fn new() -> Self {
        Distinct {
            items: Vec::new(),
            index: None,
        }
    }

    /// Adds `x` unless it was met before; true when it was new.
    pub(crate) fn insert(&mut self, x: T) -> bool {
        let new = match &mut self.index {
            Some(set) => set.insert(x),
            None if self.items.len() < SCAN => !self.items.contains(&x),
            None => self
                .index
                .insert(self.items.iter().copied().collect())
                .insert(x),
        };
        if new {
            self.items.push(x);
        }
        new
    }

    /// The items, in the order first met.
    pub(crate) fn into_vec(self) -> Vec<T> {
        self.items
    }
}

impl<T: Copy + Eq + Hash> FromIterator<T> for Distinct<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut d = Distinct::new();
        for x in iter {
            d.insert(x);
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::Distinct;

    #[test]
    fn keeps_first_seen_order_below_and_above_the_scan_limit() {
        for n in [3usize, 16, 17, 200] {
            let input: Vec<usize> = (0..n).chain((0..n).rev()).chain([0, n / 2]).collect();
            let d: Distinct<usize> = input.iter().copied().collect();
            assert_eq!(d.into_vec(), (0..n).collect::<Vec<_>>(), "n = {n}");
        }
        let mut d = Distinct::new();
        assert!(d.insert("a") && !d.insert("a") && d.insert("b"));
    }
}
