//! Work budgets: every public operation (parse, validate, lower, accept) counts its steps
//! against a budget proportional to its input, so that no input within the limits takes more
//! than a stated time per input byte (docs/security.md, "Work budget").
//!
//! A step is one unit of bounded work: a schema node parsed, rewritten or emitted; one schema
//! node evaluated on one instance value, with the members, items, branches and string bytes
//! that evaluation reads (validation's `evaluation_cost`); one answer value reshaped. The
//! budget of an operation is [`Limits::work_budget`] of its input's size in bytes (the floor
//! plus [`Limits::work_per_byte`] per byte).
//!
//! One budget per operation, shared by what the operation calls: `accept` validates, the
//! reshaping lens validates union branches, lowering lowers a widened schema; all of it counts
//! against the outer operation's budget, which a thread-local holds while the operation runs.
//! The hot loops (validation walks) count in a [`Meter`] of their own and settle with the
//! budget when they end or run out, so a step costs an add and a compare.
//!
//! Inputs given as a `serde_json::Value` are measured only when an operation would otherwise
//! run out: measuring costs a pass over the value, which most operations never need (their
//! work stays under the floor). The operation then runs again with the larger budget, so it
//! does at most the floor's work twice.

use crate::json::{Json, View};
use crate::limits::{Limits, Operation, WorkExceeded};
use serde_json::Value;
use std::cell::Cell;

/// The budget of the operation in progress on this thread, in cells: starting an operation
/// sets them (no allocation, which a validation of a small instance would feel).
struct State {
    /// True while an operation runs on this thread.
    active: Cell<bool>,
    operation: Cell<Operation>,
    per_byte: Cell<u64>,
    floor: Cell<u64>,
    /// Input bytes counted so far.
    bytes: Cell<u64>,
    /// `floor + per_byte × bytes`, saturating.
    limit: Cell<u64>,
    spent: Cell<u64>,
    /// Set when a spend went past the limit; sticky.
    exhausted: Cell<bool>,
}

thread_local! {
    static STATE: State = const {
        State {
            active: Cell::new(false),
            operation: Cell::new(Operation::Parse),
            per_byte: Cell::new(0),
            floor: Cell::new(0),
            bytes: Cell::new(0),
            limit: Cell::new(0),
            spent: Cell::new(0),
            exhausted: Cell::new(false),
        }
    };
}

impl State {
    fn spend(&self, n: u64) -> bool {
        let s = self.spent.get().saturating_add(n);
        self.spent.set(s);
        if s <= self.limit.get() && !self.exhausted.get() {
            return true;
        }
        self.exhausted.set(true);
        false
    }

    fn remaining(&self) -> u64 {
        if self.exhausted.get() {
            return 0;
        }
        self.limit.get().saturating_sub(self.spent.get())
    }

    fn start(&self, operation: Operation, limits: &Limits, bytes: u64) {
        self.active.set(true);
        self.operation.set(operation);
        self.per_byte.set(limits.work_per_byte);
        self.floor.set(limits.work_floor);
        self.bytes.set(bytes);
        self.limit.set(limits.work_budget(bytes));
        self.spent.set(0);
        self.exhausted.set(false);
    }

    /// Counts `bytes` more of input and starts the count again (the caller runs the operation
    /// again from the start).
    fn restart_with(&self, bytes: u64) {
        let total = self.bytes.get().saturating_add(bytes);
        self.bytes.set(total);
        self.limit.set(
            self.floor
                .get()
                .saturating_add(self.per_byte.get().saturating_mul(total)),
        );
        self.spent.set(0);
        self.exhausted.set(false);
    }
}

/// The budget of the operation in progress (a handle on this thread's budget).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget(());

impl Budget {
    /// Spends `n` steps; false once the budget is spent, and ever after.
    #[cfg(test)]
    pub(crate) fn spend(self, n: u64) -> bool {
        STATE.with(|s| s.spend(n))
    }

    /// True once a spend went past the budget.
    pub(crate) fn is_exhausted(self) -> bool {
        STATE.with(|s| s.exhausted.get())
    }

    /// What ran out, once something did.
    pub(crate) fn exceeded(self) -> Option<WorkExceeded> {
        STATE.with(|s| {
            s.exhausted.get().then(|| WorkExceeded {
                operation: s.operation.get(),
                budget: s.limit.get(),
                input_bytes: s.bytes.get(),
                per_byte: s.per_byte.get(),
                floor: s.floor.get(),
            })
        })
    }

    /// Steps spent so far: kept by an assessment, so that a later operation that repeats its
    /// work can start from where it ended (`Assessment::stronger_profile`); and for the corpus
    /// measurement in the tests.
    pub(crate) fn spent(self) -> u64 {
        STATE.with(|s| s.spent.get())
    }

    /// Runs `f`, with the steps it spent when the budget held out to its end: what a later
    /// reuse of its result charges again, so that the reuse runs out where making it again
    /// would (`lower::reshapes`, `dialect::batch`). `None` once the budget has run out, when
    /// the count may stop short.
    pub(crate) fn measured<R>(self, f: impl FnOnce() -> R) -> (R, Option<u64>) {
        let before = self.spent();
        let out = f();
        let steps = (!self.is_exhausted()).then(|| self.spent().saturating_sub(before));
        (out, steps)
    }
}

/// True while an operation runs on this thread.
#[inline(always)]
pub(crate) fn in_progress() -> bool {
    STATE.with(|s| s.active.get())
}

/// The budget of the operation in progress on this thread.
pub(crate) fn current() -> Option<Budget> {
    STATE.with(|s| s.active.get()).then_some(Budget(()))
}

/// Spends `n` steps of the operation in progress; false once its budget is spent. True when no
/// operation is in progress (a crate-internal call outside any public operation).
pub(crate) fn charge(n: u64) -> bool {
    STATE.with(|s| !s.active.get() || s.spend(n))
}

/// Ends the thread's operation when the operation that started it ends, however it ends.
struct Installed;

impl Drop for Installed {
    fn drop(&mut self) {
        STATE.with(|s| s.active.set(false));
    }
}

/// Runs `f` under the budget of the operation in progress, or, when none is, under a new
/// budget for `operation` on `bytes` bytes of input. When that new budget runs out and
/// `unmeasured` can measure more input (a `Value` not counted yet), the input is counted and
/// `f` runs again from the start under the larger budget. `f` reads the outcome from the
/// budget it is given ([`Budget::exceeded`]).
pub(crate) fn run<R>(
    operation: Operation,
    limits: &Limits,
    bytes: u64,
    unmeasured: Option<&dyn Fn() -> u64>,
    mut f: impl FnMut(Budget) -> R,
) -> R {
    let budget = Budget(());
    if in_progress() {
        return f(budget);
    }
    STATE.with(|s| s.start(operation, limits, bytes));
    let _installed = Installed;
    // One place calls `f`, so that it can be inlined here.
    let mut unmeasured = unmeasured;
    loop {
        let out = f(budget);
        match unmeasured.take() {
            Some(measure) if budget.is_exhausted() => {
                let more = measure();
                STATE.with(|s| s.restart_with(more));
            }
            _ => return out,
        }
    }
}

/// Most steps a [`Meter`] counts before it settles with the budget. What is charged to the
/// budget directly while a meter is live (a nested validation's own meter, a pattern's DFA
/// states when the `full` walk matches it) is seen at the next settlement, so each live meter
/// can overshoot the budget by at most this much; settling costs a thread-local access per
/// this many steps.
const METER_CHUNK: u64 = 1 << 16;

/// What a [`Meter`] counts for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// No operation is in progress: the meter never runs out.
    Outside,
    /// It settles with the operation in progress on this thread.
    Live,
    /// It stands alone for an operation that installed no budget ([`Meter::detached`]): it
    /// stops when its own allowance is spent.
    Detached,
    /// A detached meter that ran out: every spend fails.
    Spent,
}

/// A budget's counter for a hot loop: it counts in a field of its own and settles with the
/// budget when it runs out of what it was given and when it is dropped.
#[derive(Debug)]
pub(crate) struct Meter {
    mode: Cell<Mode>,
    /// Steps this meter was given and has not spent.
    left: Cell<u64>,
    /// Steps it was given in all (what it spent is `given - left`).
    given: Cell<u64>,
}

impl Meter {
    /// A meter on the operation in progress (none: it never runs out).
    pub(crate) fn new() -> Meter {
        let (mode, allowance) = STATE.with(|s| match s.active.get() {
            true => (Mode::Live, s.remaining().min(METER_CHUNK)),
            false => (Mode::Outside, u64::MAX),
        });
        Meter {
            mode: Cell::new(mode),
            left: Cell::new(allowance),
            given: Cell::new(allowance),
        }
    }

    /// A meter that stands alone, for an operation that would otherwise install a budget of
    /// `budget` steps on this thread, and whose work nothing but this meter counts (a
    /// validation walk outside the `full` subset, whose patterns' engines charge the walk's
    /// meter: see `Plan::detached_budget` in `crate::plan`). It allows at most one
    /// [`METER_CHUNK`] of that budget, and once that is spent every spend fails and
    /// [`Meter::ran_out`] says so: the caller then runs the operation again from the start
    /// under the installed budget.
    /// Below a chunk the two ways count the same steps against the same limit, so they give
    /// the same answer; the detached way skips the thread-local set-up, the settlements and
    /// the tear-down, about a tenth of a validation of a small answer. What it can waste is
    /// one chunk.
    ///
    /// `allowance` is [`Meter::detached_allowance`] of the budget, computed once by the
    /// caller (a validation computes it with its plan, so a call does not).
    #[inline(always)]
    pub(crate) fn detached(allowance: u64) -> Meter {
        Meter {
            mode: Cell::new(Mode::Detached),
            left: Cell::new(allowance),
            given: Cell::new(allowance),
        }
    }

    /// What a detached meter on a budget of `budget` steps may spend: the budget, at most one
    /// [`METER_CHUNK`].
    pub(crate) const fn detached_allowance(budget: u64) -> u64 {
        if budget < METER_CHUNK {
            budget
        } else {
            METER_CHUNK
        }
    }

    /// True once a detached meter ran out of its allowance.
    pub(crate) fn ran_out(&self) -> bool {
        self.mode.get() == Mode::Spent
    }

    /// Spends `n` steps; false once the operation's budget is spent.
    #[inline(always)]
    pub(crate) fn spend(&self, n: u64) -> bool {
        let left = self.left.get();
        if n <= left {
            self.left.set(left - n);
            return true;
        }
        self.settle(n)
    }

    /// Hands what this meter spent, and the `n` steps it could not pay, to the budget; true
    /// while the budget has steps left.
    #[cold]
    fn settle(&self, n: u64) -> bool {
        let spent = self.given.get() - self.left.get();
        match self.mode.get() {
            Mode::Live => {}
            Mode::Outside => {
                self.left.set(u64::MAX);
                self.given.set(u64::MAX);
                return true;
            }
            Mode::Detached | Mode::Spent => {
                self.mode.set(Mode::Spent);
                self.left.set(0);
                self.given.set(0);
                return false;
            }
        }
        STATE.with(|s| {
            let ok = s.spend(spent.saturating_add(n));
            let allowance = s.remaining().min(METER_CHUNK);
            self.left.set(allowance);
            self.given.set(allowance);
            ok
        })
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        if self.mode.get() == Mode::Live {
            let spent = self.given.get() - self.left.get();
            STATE.with(|s| s.spend(spent));
        }
    }
}

/// Steps one schema node costs to parse, and one node to rewrite, emit or reshape when
/// lowering: measured on the shared corpus at about 1 to 2 µs per node for either (pattern
/// compilation aside), so that a step of every operation costs about the same, 100 to 150 ns
/// (docs/security.md, "Work budget").
pub(crate) const NODE_STEPS: u64 = 16;

/// Bytes of compiled pattern program one step of parsing covers (compiling a pattern costs in
/// proportion to its program).
pub(crate) const COMPILED_BYTES_PER_STEP: u64 = 64;

/// Bytes of string one step covers: matching a pattern on the lazy DFA, counting code points
/// or checking a `format` reads a byte in about a nanosecond, a tenth to a fiftieth of a
/// node evaluation.
pub(crate) const STRING_BYTES_PER_STEP: u64 = 32;

/// What reading a string costs: its bytes, [`STRING_BYTES_PER_STEP`] to a step (a length
/// counted, a pattern or a `format` matched, a literal compared).
#[inline(always)]
pub(crate) fn string_cost(s: &str) -> u64 {
    s.len() as u64 / STRING_BYTES_PER_STEP
}

/// The steps a literal (`enum`, `const`) or `uniqueItems` comparison of `inst` costs: its
/// size (hashed or compared whole), nothing for a number, a boolean or null.
pub(crate) fn comparison_cost(inst: &Value) -> u64 {
    match inst {
        Value::String(s) => string_cost(s),
        Value::Array(_) | Value::Object(_) => value_bytes(inst) / STRING_BYTES_PER_STEP,
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

/// The size of `v`'s compact JSON text, from below: strings and names without their escapes,
/// every number as one byte. Iterative (a value may nest as deep as its builder made it). The
/// same for a `serde_json::Value` and a [`crate::json::Tree`]'s value.
pub(crate) fn value_bytes<'v, J: Json<'v>>(v: J) -> u64 {
    // Only containers are stacked: a scalar is counted where it is met, so a flat value
    // allocates nothing.
    fn scalar<'v, J: Json<'v>>(v: J) -> u64 {
        match v.view() {
            View::Null | View::Bool(true) => 4,
            View::Bool(false) => 5,
            View::Number(_) => 1,
            View::String(s) => s.len() as u64 + 2,
            View::Array(_) | View::Object(_) => 0,
        }
    }
    let mut n: u64 = scalar(v);
    let mut stack: Vec<J> = Vec::new();
    let mut next = Some(v);
    while let Some(v) = next.take().or_else(|| stack.pop()) {
        match v.view() {
            View::Array(items) => {
                let mut m = 2 + items.len().saturating_sub(1) as u64;
                for item in items {
                    m = m.saturating_add(scalar(item));
                    if item.nests() {
                        stack.push(item);
                    }
                }
                n = n.saturating_add(m);
            }
            View::Object(members) => {
                let mut m = 2 + members.len().saturating_sub(1) as u64;
                for (k, item) in members {
                    m = m
                        .saturating_add(k.len() as u64 + 3)
                        .saturating_add(scalar(item));
                    if item.nests() {
                        stack.push(item);
                    }
                }
                n = n.saturating_add(m);
            }
            _ => {}
        }
    }
    n
}

pub(crate) mod kept;

#[cfg(test)]
mod corpus;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn value_bytes_is_the_compact_text_size_from_below() {
        for v in [
            json!(null),
            json!(true),
            json!(false),
            json!("abc"),
            json!(7),
            json!([]),
            json!({}),
            json!([1, 2, 3]),
            json!({"a": [true, null, {"bc": "d"}], "e": {}}),
        ] {
            let text = serde_json::to_string(&v).unwrap_or_default();
            assert!(value_bytes(&v) <= text.len() as u64, "{text}");
        }
        let v = json!({"a": [true, null, {"bc": "d"}], "e": {}});
        let text = serde_json::to_string(&v).unwrap_or_default();
        assert_eq!(value_bytes(&v), text.len() as u64, "exact without numbers");
    }

    #[test]
    fn a_budget_runs_out_once_and_stays_out() {
        let limits = Limits::default().with_work_floor(10).with_work_per_byte(1);
        run(Operation::Validate, &limits, 5, None, |b| {
            assert!(b.spend(15));
            assert!(!b.spend(1));
            assert!(!b.spend(0), "sticky");
            let e = b.exceeded().unwrap_or_else(|| unreachable!());
            assert_eq!((e.budget, e.input_bytes), (15, 5));
            let text = e.to_string();
            assert!(
                text.starts_with("validation stopped after 15 steps"),
                "{text}"
            );
            assert!(text.contains("Limits::with_work_per_byte"), "{text}");
            STATE.with(|s| s.restart_with(10));
            assert!(b.spend(25) && !b.spend(1));
        });
        assert!(current().is_none());
    }

    #[test]
    fn meters_settle_with_the_operation_in_progress() {
        let limits = Limits::default().with_work_floor(100).with_work_per_byte(0);
        let runs = Cell::new(0);
        let outcome = run(Operation::Validate, &limits, 0, Some(&|| 1_000), |b| {
            runs.set(runs.get() + 1);
            let m = Meter::new();
            let mut ok = true;
            for _ in 0..150 {
                ok &= m.spend(1);
            }
            drop(m);
            (ok, b.exceeded())
        });
        // Per byte is 0: counting the input does not help, so the second run runs out too.
        assert_eq!(runs.get(), 2);
        assert!(!outcome.0 && outcome.1.is_some());
        assert!(current().is_none(), "cleared when the operation ends");
        // Outside any operation nothing runs out.
        let m = Meter::new();
        assert!((0..1_000).all(|_| m.spend(u64::MAX / 512)));
        assert!(charge(u64::MAX));
    }

    #[test]
    fn what_is_charged_beside_a_live_meter_is_seen_within_a_chunk() {
        let limits = Limits::default()
            .with_work_floor(4 * METER_CHUNK)
            .with_work_per_byte(0);
        run(Operation::Validate, &limits, 0, None, |b| {
            let m = Meter::new();
            // A pattern engine, say, spends the whole budget while the meter is live.
            assert!(charge(4 * METER_CHUNK));
            let mut paid = 0u64;
            while m.spend(1) {
                paid += 1;
                if paid > 4 * METER_CHUNK {
                    break;
                }
            }
            assert!(paid <= METER_CHUNK, "the meter overshot by {paid} steps");
            assert!(b.is_exhausted());
        });
    }

    #[test]
    fn nested_operations_share_the_outer_budget() {
        let limits = Limits::default().with_work_floor(10).with_work_per_byte(0);
        run(Operation::Accept, &limits, 0, None, |outer| {
            let inner = run(Operation::Validate, &Limits::default(), 0, None, |_| {
                charge(11)
            });
            assert!(!inner && outer.exceeded().map(|e| e.operation) == Some(Operation::Accept));
        });
    }
}
