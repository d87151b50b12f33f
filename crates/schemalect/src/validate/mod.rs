//! The authoritative check: JSON Schema 2020-12 semantics for every subset keyword.
//!
//! One walk serves both entry points. `is_valid` passes no error list and stops at the first
//! failure; `validate` passes one and keeps going, so every error is reported. The walk is
//! generic over where failures go, so the verdict-only walk is compiled without the code that
//! builds errors. Instance paths are a linked list on the stack and become pointers only when
//! an error is recorded, so the valid path allocates nothing. What the walk reads of a node
//! comes first from the schema's [`plan::Plan`], a compact copy laid out for validation.
//! Recursion follows the schema, whose depth the front end bounds.

use crate::budget::{self, Budget, Meter};
use crate::error::{ValidationError, ValidationErrors};
use crate::ir::{Additional, Node, NodeId, ObjectRules};
use crate::limits::Operation;
use crate::plan::discriminate::{self, Tag, Tags};
use crate::plan::MAX_EVAL_DEPTH;
use crate::plan::{self, Members, Plan};
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::value::{is_integer, JsonType, TypeSet};
pub(crate) use checks::shallow_admits;
use checks::Sink;
use reasons::{BranchReasons, FirstFailure};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

mod checks;
mod full;
mod reasons;

impl Schema {
    /// True when `instance` satisfies the schema. Stops at the first failure. False when
    /// validation runs out of its work budget ([`Limits::work_per_byte`](crate::Limits)).
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.is_valid_from(self.root(), instance)
    }

    /// True when `instance` satisfies the subschema `id` of this schema.
    #[inline]
    pub(crate) fn is_valid_at(&self, id: NodeId, instance: &Value) -> bool {
        self.is_valid_from(id, instance)
    }

    /// [`Schema::is_valid_at`], inlined into `is_valid` (a call more is a tenth of what the
    /// set-up of a detached walk costs). Kept small: what most calls run (a walk on a
    /// detached meter) is here, the rest is in [`Schema::is_valid_metered`].
    ///
    /// A plan that may not run detached has an allowance of 0, which is not tested for here:
    /// every way through a verdict-only visit of the first node spends at least one step
    /// before it can answer "valid" (`Walk::node_inner`: the type check's step, or the
    /// visit's step paid with what the node reads), so on 0 steps the walk runs out at once
    /// and the metered walk answers, as if the test had sent it there.
    #[inline(always)]
    fn is_valid_from(&self, id: NodeId, instance: &Value) -> bool {
        let plan = self.plan();
        if !budget::in_progress() {
            let walk = Walk::new(self, plan, Meter::detached(plan.detached_budget), None);
            let valid = walk.node(id, instance, &Path::Root, &mut Verdict) && !walk.exceeded.get();
            if !walk.meter.ran_out() {
                return valid;
            }
        }
        self.is_valid_metered(id, instance)
    }

    /// [`Schema::is_valid_at`] under the installed budget: inside an operation in progress,
    /// for a `full` schema, and for a walk that ran out of its detached meter. Not inlined:
    /// its set-up would widen the frame of the detached walk's caller.
    #[inline(never)]
    fn is_valid_metered(&self, id: NodeId, instance: &Value) -> bool {
        self.metered(instance, |budget| {
            let valid = if let Some(full) = self.full_ir() {
                full::FullWalk::new(self, full).run(id, instance, None)
            } else {
                let walk = Walk::new(self, self.plan(), Meter::new(), None);
                walk.node(id, instance, &Path::Root, &mut Verdict) && !walk.exceeded.get()
            };
            valid && !budget.is_exhausted()
        })
    }

    /// The schema's validation plan, built on first use.
    ///
    /// The plan also says whether a validation can run without the thread's budget
    /// installed, and with how many steps ([`Plan::detached_budget`]): when the schema is not
    /// `full` (whose walk has more than its meter to count), the walk's meter counts all its
    /// work, what its patterns' engines cost included. The limits and the source size it
    /// reads are set when the schema is made (`Schema::with_source`, before the parser hands
    /// the schema out), so they cannot change after the first validation.
    #[inline(always)]
    fn plan(&self) -> &Plan {
        self.ir.plan.get_or_init(|| {
            let budget = self.limits().work_budget(self.source_bytes());
            Plan::build(
                &self.ir.nodes,
                self.ir.root,
                self.full_ir().is_none().then_some(budget),
            )
        })
    }

    /// Runs a validation of `instance` under the schema's work budget (or the budget of the
    /// operation in progress). The instance is measured only if the budget without it runs
    /// out; the validation then runs again (see [`crate::budget::run`]).
    fn metered<R>(&self, instance: &Value, f: impl FnMut(Budget) -> R) -> R {
        budget::run(
            Operation::Validate,
            self.limits(),
            self.source_bytes(),
            Some(&|| budget::value_bytes(instance)),
            f,
        )
    }

    /// Every way `instance` fails the schema, or `Ok(())`. At most 1,000 errors (and 1 MiB of
    /// error text) are recorded; past that, a last error with an empty keyword says that more
    /// were omitted. When validation runs out of its work budget, the instance is not
    /// accepted, and the last error says so ([`ValidationError::is_work_limit`]).
    pub fn validate(&self, instance: &Value) -> Result<(), ValidationErrors> {
        let plan = self.plan();
        if plan.detached_budget != 0 && !budget::in_progress() {
            let mut errors = Vec::new();
            let notes = Notes::default();
            let walk = Walk::new(
                self,
                plan,
                Meter::detached(plan.detached_budget),
                Some(&notes),
            );
            let valid = walk.node(self.root(), instance, &Path::Root, &mut errors);
            if !walk.meter.ran_out() {
                return walk.outcome(valid, errors);
            }
        }
        self.metered(instance, |budget| {
            let mut errors = Vec::new();
            let (valid, stopped) = if let Some(full) = self.full_ir() {
                let walk = full::FullWalk::new(self, full);
                let valid = walk.run(self.root(), instance, Some(&mut errors));
                full::drop_repeats(&mut errors);
                (valid, walk.work.stopped())
            } else {
                let notes = Notes::default();
                let walk = Walk::new(self, self.plan(), Meter::new(), Some(&notes));
                let valid = walk.node(self.root(), instance, &Path::Root, &mut errors);
                (walk.settle(valid, &mut errors), notes.stopped.take())
            };
            if let Some(e) = budget.exceeded() {
                let (instance_path, schema_path) = stopped.unwrap_or_default();
                errors.push(ValidationError {
                    instance_path,
                    schema_path,
                    keyword: ValidationError::WORK,
                    message: e.to_string(),
                });
            }
            outcome(valid, errors)
        })
    }
}

/// The result of `validate` from a walk's verdict and the errors it recorded.
fn outcome(valid: bool, errors: Vec<ValidationError>) -> Result<(), ValidationErrors> {
    match (valid && errors.is_empty(), errors.is_empty()) {
        (true, _) => Ok(()),
        (false, false) => Err(ValidationErrors { errors }),
        (false, true) => Err(ValidationErrors {
            errors: vec![ValidationError {
                instance_path: Pointer::root(),
                schema_path: Pointer::root(),
                keyword: "",
                message: "the instance fails the schema".into(),
            }],
        }),
    }
}

/// An instance location, built on the stack as the walk descends.
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// Calls `f` with each step from the root down, allocating nothing: an error's path is
    /// written once per error, and a vector of its steps was an allocation (and a regrowth or
    /// two) per error. Recursive, as deep as the path: the walk that made the path recursed
    /// as deep, with larger frames.
    fn each_step(&self, f: &mut impl FnMut(Step<'a>)) {
        match *self {
            Path::Root => {}
            Path::Key(parent, k) => {
                parent.each_step(f);
                f(Step::Key(k));
            }
            Path::Index(parent, i) => {
                parent.each_step(f);
                f(Step::Index(i));
            }
        }
    }

    fn to_pointer(&self) -> Pointer {
        let mut p = Pointer::root();
        self.each_step(&mut |s| {
            p = match s {
                Step::Key(k) => p.join(k),
                Step::Index(i) => p.index(i),
            }
        });
        p
    }
}

/// One step of a [`Path`].
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The branches of a union to try, with their positions (see `Walk::branches`).
enum Branches<'b> {
    All(std::iter::Enumerate<std::iter::Copied<std::slice::Iter<'b, NodeId>>>),
    Picked {
        list: &'b [NodeId],
        picked: std::slice::Iter<'b, u32>,
    },
}

impl Iterator for Branches<'_> {
    type Item = (usize, NodeId);

    fn next(&mut self) -> Option<(usize, NodeId)> {
        match self {
            Branches::All(all) => all.next(),
            Branches::Picked { list, picked } => picked.find_map(|i| {
                let i = *i as usize;
                list.get(i).map(|s| (i, *s))
            }),
        }
    }
}

struct Walk<'s, 'n> {
    schema: &'s Schema,
    plan: &'s Plan,
    /// Current recursion depth. Without references it is bounded by the schema's nesting;
    /// with recursive references it follows the instance, so it is capped. Counted only when
    /// the plan finds a chain of subschemas as long as the cap.
    depth: Cell<usize>,
    /// Set when the cap was hit anywhere, even under `not`: the verdict is then "invalid".
    exceeded: Cell<bool>,
    /// Verdicts of `$ref` targets per instance value (by address; the instance is borrowed for
    /// the whole walk), with whether their errors were recorded already. References are the
    /// only shared nodes: without this, a DAG of them (`a: anyOf[b, b]`, `b: anyOf[c, c]`, …)
    /// is unfolded into a tree of 2^n paths. Made on the first reference: most schemas have
    /// none, and a map costs a random seed.
    shared: RefCell<Option<Shared>>,
    /// The walk's share of the operation's work budget: each evaluation of a node on a value
    /// spends [`evaluation_cost`] steps.
    meter: Meter,
    /// What only a walk that reports errors keeps (`validate`); `None` for `is_valid`, whose
    /// frame is then a few words smaller and has nothing to drop but the meter.
    notes: Option<&'n Notes>,
}

/// The state of a walk that reports errors beyond its verdict, kept by the caller and lent to
/// the walk: none of it is read on the way of a valid instance.
#[derive(Default)]
struct Notes {
    /// Where the budget ran out: the instance path and the schema node, for the `$work` error.
    stopped: RefCell<Option<(Pointer, Pointer)>>,
    /// Set while the branches of a failed union are walked for their reasons: a union failing
    /// inside one is reported by its count only, so nested unions cost one more walk each, not
    /// one per level of nesting.
    explaining: Cell<bool>,
}

/// The `full` subset's walk's share of the operation's work budget: each evaluation of a node
/// on a value spends [`evaluation_cost`] steps, and the first evaluation the budget
/// cannot pay for is remembered, for the error.
pub(crate) struct Work {
    meter: Meter,
    /// Where the budget ran out: the instance path and the schema node.
    stopped: RefCell<Option<(Pointer, Pointer)>>,
}

impl Work {
    pub(crate) fn new(meter: Meter) -> Work {
        Work {
            meter,
            stopped: RefCell::new(None),
        }
    }

    /// Spends what evaluating `node` on `inst` costs, plus `extra` steps; false (and the place
    /// remembered) once the budget is spent.
    #[inline(always)]
    fn spend(&self, node: &Node, inst: &Value, path: &Path<'_>, extra: u64) -> bool {
        self.meter
            .spend(evaluation_cost(node, inst).saturating_add(extra))
            || stop(&self.stopped, node, path)
    }

    /// Spends `n` steps of bookkeeping; false once the budget is spent.
    #[inline(always)]
    fn spend_steps(&self, n: u64) -> bool {
        self.meter.spend(n)
    }

    /// Where the budget ran out, if it did in this walk.
    fn stopped(&self) -> Option<(Pointer, Pointer)> {
        self.stopped.borrow().clone()
    }
}

/// The steps one evaluation of `node` on `inst` costs, before the subschemas it applies (each
/// of which is charged on its own): one, plus the branches of its unions and `allOf` (tried
/// or skipped, each costs a visit), plus what it reads of the value: members and `required`
/// names for an object, items for an array, string bytes for a string, and the whole value
/// when a literal (`enum`, `const`) or `uniqueItems` compares it.
#[inline(always)]
pub(crate) fn evaluation_cost(node: &Node, inst: &Value) -> u64 {
    let branches = node.all_of.len() + node.any_of.len() + node.one_of.len();
    let own = match inst {
        // A pattern's lazy DFA pass is in this; the states it builds and an NFA fallback
        // are charged by the pattern engine as they happen.
        Value::String(s) => budget::string_cost(s),
        Value::Array(items) => {
            let mut n = items.len() as u64;
            let compared = node.constant.is_some()
                || node.enumeration.is_some()
                || node.array.as_ref().is_some_and(|a| a.unique_items);
            if compared {
                n = n.saturating_add(budget::value_bytes(inst) / budget::STRING_BYTES_PER_STEP);
            }
            n
        }
        Value::Object(map) => {
            let mut n =
                map.len() as u64 + node.object.as_ref().map_or(0, |o| o.required.len() as u64);
            if node.constant.is_some() || node.enumeration.is_some() {
                n = n.saturating_add(budget::value_bytes(inst) / budget::STRING_BYTES_PER_STEP);
            }
            n
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    };
    1 + branches as u64 + own
}

/// Remembers in `stopped` where the budget ran out, unless a place is there already; false.
#[cold]
fn stop(stopped: &RefCell<Option<(Pointer, Pointer)>>, node: &Node, path: &Path<'_>) -> bool {
    let mut stopped = stopped.borrow_mut();
    if stopped.is_none() {
        *stopped = Some((path.to_pointer(), node.pointer.clone()));
    }
    false
}

/// Per `$ref` target and instance address: the verdict, and whether its errors were recorded.
type Shared = HashMap<(NodeId, usize), (bool, bool)>;

/// When only `required` is to be checked, a pass over the members beats a lookup per name
/// up to this many members per name (a lookup hashes the name with SipHash).
const SCAN_PER_REQUIRED: usize = 4;

/// Most errors one `validate` call records.
pub(crate) const MAX_ERRORS: usize = 1_000;
/// Most bytes of instance paths and messages one `validate` call records (past the first
/// error). Each error carries its full instance path, so without a budget one long member name
/// above many failing items multiplies: a 3 MiB answer could ask for a terabyte.
pub(crate) const MAX_ERROR_BYTES: usize = 1 << 20;

/// Where a walk's failures go. Generic, so that the verdict-only walk is compiled without the
/// code that builds errors.
trait Report {
    /// True when only the verdict is wanted: the walk stops at the first failure.
    const VERDICT_ONLY: bool;

    /// True when what is recorded here is the walk's error list (`validate`'s result). Only
    /// then does a reference's evaluation count as reported, so that a repeat visit of it
    /// need not record its errors again: what a union's alternative recorded for its reason
    /// ([`FirstFailure`]) is not in the list.
    const KEPT: bool;

    /// True when the walk may stop at its next failure: always when only the verdict is
    /// wanted, never for the error list, and for a union alternative's reason once its first
    /// failure is recorded (nothing after it is kept, so nothing after it need be walked).
    #[inline(always)]
    fn enough(&self) -> bool {
        Self::VERDICT_ONLY
    }

    /// Records a failure (nothing when only the verdict is wanted).
    fn record(
        &mut self,
        node: &Node,
        keyword: &'static str,
        path: &Path<'_>,
        message: impl FnOnce() -> String,
    );

    /// Where the next failure would go, for [`Report::record_before`]: the error list's
    /// length, 0 for the others (only the list keeps an order to change, see [`Report::KEPT`]).
    #[inline(always)]
    fn mark(&self) -> usize {
        0
    }

    /// Runs `f`, which records into this report, as if it had run when the report was at
    /// `mark`: what it records goes before what was recorded since, under the same limits.
    fn record_before(&mut self, _mark: usize, f: impl FnOnce(&mut Self)) {
        f(self);
    }
}

/// No error list: `is_valid`, and the branches of unions and `not`, whose errors are not kept.
struct Verdict;

impl Report for Verdict {
    const VERDICT_ONLY: bool = true;
    const KEPT: bool = false;

    fn record(&mut self, _: &Node, _: &'static str, _: &Path<'_>, _: impl FnOnce() -> String) {}
}

/// Past [`MAX_ERRORS`] or [`MAX_ERROR_BYTES`], one last error says that the rest were omitted;
/// the verdict is unchanged.
impl Report for Vec<ValidationError> {
    const VERDICT_ONLY: bool = false;
    const KEPT: bool = true;

    fn record(
        &mut self,
        node: &Node,
        keyword: &'static str,
        path: &Path<'_>,
        message: impl FnOnce() -> String,
    ) {
        push_within_limits(self, || ValidationError {
            instance_path: path.to_pointer(),
            schema_path: node.pointer.join(keyword),
            keyword,
            message: message(),
        });
    }

    #[inline(always)]
    fn mark(&self) -> usize {
        self.len()
    }

    /// The errors recorded since `mark` are set aside while `f` records, then put back
    /// through the limits, as if recorded after: those the limits leave out are the ones
    /// that recording in that order would have left out. If the limits' own last error is
    /// among them, the list reached its limits then, and reaches them again before it (with
    /// more errors in front): a last error is put back in its place.
    fn record_before(&mut self, mark: usize, f: impl FnOnce(&mut Self)) {
        let since = self.split_off(mark.min(self.len()));
        f(self);
        for e in since {
            if !push_within_limits(self, || e) {
                break;
            }
        }
    }
}

/// Pushes the error `make` builds unless the list is at its limits: past [`MAX_ERRORS`] or
/// [`MAX_ERROR_BYTES`], one last error says that the rest were omitted. False when the error
/// was left out.
fn push_within_limits(
    list: &mut Vec<ValidationError>,
    make: impl FnOnce() -> ValidationError,
) -> bool {
    if list.last().is_some_and(|e| e.keyword.is_empty()) {
        return false; // already truncated
    }
    let full = list.len() >= MAX_ERRORS
        || list
            .iter()
            .map(|e| e.instance_path.text_len() + e.message.len())
            .sum::<usize>()
            >= MAX_ERROR_BYTES;
    if full {
        list.push(ValidationError {
            instance_path: Pointer::root(),
            schema_path: Pointer::root(),
            keyword: "",
            message: format!("further errors omitted: validation records at most {MAX_ERRORS} errors and {MAX_ERROR_BYTES} bytes of error text"),
        });
        return false;
    }
    list.push(make());
    true
}

/// The error of a walk stopped by [`MAX_EVAL_DEPTH`], where it stopped.
#[cold]
fn depth_message() -> String {
    format!("the instance nests deeper than the validation limit of {MAX_EVAL_DEPTH} levels")
}

/// Says at the root that a walk stopped (`message`, after `prefix`), unless the error where it
/// stopped is listed (it is not where that error was recorded under a `not` or a union, whose
/// errors are not kept), so that the list always names why the walk stopped.
fn note_stop(errors: &mut Vec<ValidationError>, message: String, prefix: &str) {
    if !errors.iter().any(|e| e.message == message) {
        errors.push(ValidationError {
            instance_path: Pointer::root(),
            schema_path: Pointer::root(),
            keyword: "$ref",
            message: format!("{prefix}{message}"),
        });
    }
}

/// Short for "record the failure, and stop here when only a verdict is wanted".
macro_rules! fail {
    // A message already built as a `String` (no `format!` pass over it).
    ($errors:expr, $valid:ident, $node:expr, $kw:expr, $path:expr, text: $msg:expr) => {{
        $valid = false;
        if $errors.enough() {
            return false;
        }
        $errors.record($node, $kw, $path, || $msg);
    }};
    ($errors:expr, $valid:ident, $node:expr, $kw:expr, $path:expr, $($msg:tt)+) => {{
        $valid = false;
        if $errors.enough() {
            return false;
        }
        $errors.record($node, $kw, $path, || format!($($msg)+));
    }};
}

/// A node and an instance location as a [`Sink`] for the shared checks, recording into `R`.
struct At<'a, 'p, R> {
    errors: &'a mut R,
    node: &'a Node,
    path: &'a Path<'p>,
}

impl<R: Report> Sink for At<'_, '_, R> {
    #[inline(always)]
    fn verdict_only(&self) -> bool {
        self.errors.enough()
    }

    fn fail(&mut self, keyword: &'static str, message: impl FnOnce() -> String) {
        self.errors.record(self.node, keyword, self.path, message);
    }
}

impl<'s, 'n> Walk<'s, 'n> {
    #[inline(always)]
    fn new(schema: &'s Schema, plan: &'s Plan, meter: Meter, notes: Option<&'n Notes>) -> Self {
        Walk {
            schema,
            plan,
            depth: Cell::new(0),
            exceeded: Cell::new(false),
            shared: RefCell::new(None),
            meter,
            notes,
        }
    }

    /// Spends `n` steps at `node` on the value at `path`; false (and the place remembered,
    /// when the walk keeps notes) once the budget is spent.
    #[inline(always)]
    fn spend_at(&self, n: u64, node: &Node, path: &Path<'_>) -> bool {
        self.meter.spend(n) || self.stop(node, path)
    }

    /// The budget ran out at `node` on the value at `path`: remembered for `validate`'s
    /// error; false.
    #[cold]
    fn stop(&self, node: &Node, path: &Path<'_>) -> bool {
        match self.notes {
            Some(notes) => stop(&notes.stopped, node, path),
            None => false,
        }
    }

    /// The verdict of a walk that recorded into `errors`: when the recursion cap was hit
    /// under `not` or a union, whose errors are not kept, an error says so (the instance is
    /// not accepted either way).
    fn settle(&self, valid: bool, errors: &mut Vec<ValidationError>) -> bool {
        if self.exceeded.get() {
            note_stop(errors, depth_message(), "validation stopped: ");
        }
        valid && !self.exceeded.get()
    }

    /// `validate`'s result of a detached walk (one that stayed within its meter).
    fn outcome(
        &self,
        valid: bool,
        mut errors: Vec<ValidationError>,
    ) -> Result<(), ValidationErrors> {
        let valid = self.settle(valid, &mut errors);
        outcome(valid, errors)
    }

    #[inline(always)]
    fn node<R: Report>(&self, id: NodeId, inst: &Value, path: &Path<'_>, errors: &mut R) -> bool {
        // One step for the visit itself (its type check); what the node's keywords read of the
        // value (string bytes, items, members, a literal comparison, branches) is charged where
        // they read it, in `node_inner`, so a visit that reads nothing more costs one step. A
        // verdict-only walk pays the visit's step in `node_inner` with what the node reads,
        // in one charge (the same steps: see there).
        if !R::VERDICT_ONLY && !self.meter.spend(1) {
            return self.stop(self.schema.node(id), path);
        }
        if self.plan.shallow {
            return self.node_inner(id, inst, path, errors);
        }
        let depth = self.depth.get();
        if depth >= MAX_EVAL_DEPTH {
            if R::VERDICT_ONLY && !self.meter.spend(1) {
                return self.stop(self.schema.node(id), path);
            }
            self.exceeded.set(true);
            let node = self.schema.node(id);
            errors.record(node, "$ref", path, depth_message);
            return false;
        }
        self.depth.set(depth + 1);
        let valid = self.node_inner(id, inst, path, errors);
        self.depth.set(depth);
        valid
    }

    /// [`Walk::node`], without the call for the commonest subschema, one that says no more than
    /// `type`, when the instance has the type (the only case in which it passes).
    #[inline(always)]
    fn visit<R: Report>(&self, id: NodeId, inst: &Value, path: &Path<'_>, errors: &mut R) -> bool {
        let brief = self.plan.brief(id);
        if brief.has == 0
            && admits(brief.types, inst)
            && (self.plan.shallow || self.depth.get() < MAX_EVAL_DEPTH)
        {
            return true;
        }
        self.node(id, inst, path, errors)
    }

    /// Why each alternative of a failed union rejects `inst`, as " (0: …; 1: …)": the first
    /// failure of each, for at most eight of the branches `inst` could match (a tagged union's
    /// tag leaves out the others). Asked for only when errors are recorded; each branch is
    /// walked once more, within the work budget. Gathered by [`reasons`], which the `full`
    /// subset's walk shares.
    fn branch_reasons(
        &self,
        id: NodeId,
        list: &[NodeId],
        tag_of: fn(&Tags, NodeId) -> Option<&Tag>,
        inst: &Value,
        path: &Path<'_>,
    ) -> String {
        let Some(notes) = self.notes else {
            return String::new();
        };
        if notes.explaining.replace(true) {
            return String::new();
        }
        let mut reasons = BranchReasons::default();
        for (i, b) in self.branches(id, list, tag_of, inst) {
            if !reasons.wants_more() {
                reasons.skip();
                continue;
            }
            let mut first = FirstFailure::default();
            let passed = self.visit(b, inst, path, &mut first);
            reasons.add(i, passed, first);
        }
        notes.explaining.set(false);
        reasons.finish()
    }

    /// The branches of a union `inst` can match, with their positions: every branch, or for a
    /// wide tagged union only those its tag selects (the others certainly fail).
    fn branches<'b>(
        &self,
        id: NodeId,
        list: &'b [NodeId],
        tag_of: fn(&Tags, NodeId) -> Option<&Tag>,
        inst: &Value,
    ) -> Branches<'b>
    where
        's: 'b,
    {
        if list.len() >= discriminate::MIN_BRANCHES {
            let tags: &'s Tags = self
                .schema
                .ir
                .tags
                .get_or_init(|| Tags::build(&self.schema.ir.nodes));
            if let Some(tag) = tag_of(tags, id) {
                return Branches::Picked {
                    list,
                    picked: tag.candidates(inst).iter(),
                };
            }
        }
        Branches::All(list.iter().copied().enumerate())
    }

    /// Pays for evaluating `node` on `inst` once its type is checked: what its literals
    /// compare (and then checks them, into `valid`) and `read`, what the keywords of the
    /// value's type read of it; false when the budget ran out (the walk then stops).
    ///
    /// A verdict-only walk also pays the visit's step here, and all of it at once: no child is
    /// visited between these charges and only the type check can return before them (it pays
    /// the step itself), so the steps are the same as one charge each, and so is the verdict:
    /// whichever charge would have run out, the walk answers "invalid". A walk that reports
    /// errors charges them one by one, so that a literal's error recorded before the budget
    /// runs out on the read is still reported.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn pay<R: Report>(
        &self,
        brief: plan::Brief,
        node: &Node,
        inst: &Value,
        read: u64,
        path: &Path<'_>,
        errors: &mut R,
        valid: &mut bool,
    ) -> bool {
        let literals = brief.has & plan::LITERALS != 0;
        let compared = if literals {
            budget::comparison_cost(inst)
        } else {
            0
        };
        if R::VERDICT_ONLY {
            if !self.spend_at(compared.saturating_add(read).saturating_add(1), node, path) {
                return false;
            }
        } else if literals && !self.spend_at(compared, node, path) {
            return false;
        }
        if literals {
            *valid &= checks::literals(node, inst, &mut At { errors, node, path });
        }
        R::VERDICT_ONLY || read == 0 || self.spend_at(read, node, path)
    }

    fn node_inner<R: Report>(
        &self,
        id: NodeId,
        inst: &Value,
        path: &Path<'_>,
        errors: &mut R,
    ) -> bool {
        let brief = self.plan.brief(id);
        let node = self.schema.node(id);
        let mut valid = true;

        if !admits(brief.types, inst) {
            if R::VERDICT_ONLY {
                // The visit's step (see below), then the verdict.
                let _ = self.spend_at(1, node, path);
                return false;
            }
            fail!(
                errors,
                valid,
                node,
                "type",
                path,
                text: checks::type_message(brief.types, inst)
            );
        }
        if brief.has == 0 {
            return if R::VERDICT_ONLY {
                self.spend_at(1, node, path)
            } else {
                valid
            };
        }
        // Each arm pays for what the keywords of the value's type read of it (and the literals
        // for their comparison) before they run.
        match inst {
            Value::String(s) if brief.has & plan::STRING != 0 => {
                if !self.pay(
                    brief,
                    node,
                    inst,
                    budget::string_cost(s),
                    path,
                    errors,
                    &mut valid,
                ) {
                    return false;
                }
                valid &= self.string(node, s, path, errors);
            }
            Value::Number(n) if brief.has & plan::NUMBER != 0 => {
                if !self.pay(brief, node, inst, 0, path, errors, &mut valid) {
                    return false;
                }
                valid &= self.number(node, n, path, errors);
            }
            Value::Array(items) if brief.has & plan::ARRAY != 0 => {
                let unique = node.array.as_ref().is_some_and(|a| a.unique_items);
                let compared = if unique {
                    budget::comparison_cost(inst)
                } else {
                    0
                };
                let read = (items.len() as u64).saturating_add(compared);
                if !self.pay(brief, node, inst, read, path, errors, &mut valid) {
                    return false;
                }
                valid &= self.array(node, items, path, errors);
            }
            Value::Object(map) if brief.has & plan::OBJECT != 0 => {
                let members = self.plan.members(brief);
                let read = members.map_or(0, |m| map.len().saturating_add(m.required) as u64);
                if !self.pay(brief, node, inst, read, path, errors, &mut valid) {
                    return false;
                }
                if let Some(members) = members {
                    valid &= self.object(node, members, map, path, errors);
                }
                if let Some(counts) = node.property_counts.as_deref() {
                    valid &= checks::property_count(
                        counts.min,
                        counts.max,
                        map.len(),
                        &mut At { errors, node, path },
                    );
                }
            }
            _ => {
                if !self.pay(brief, node, inst, 0, path, errors, &mut valid) {
                    return false;
                }
            }
        }
        if !valid && errors.enough() {
            return false;
        }
        if brief.has & plan::APPLICATORS == 0 {
            return valid;
        }
        // Every branch costs a visit, even one the fast path of `visit` settles.
        let branches = node.all_of.len() + node.any_of.len() + node.one_of.len();
        if !self.spend_at(branches as u64, node, path) {
            return false;
        }

        for sub in &node.all_of {
            if !self.visit(*sub, inst, path, errors) {
                valid = false;
                if errors.enough() {
                    return false;
                }
            }
        }
        if !node.any_of.is_empty()
            && !self
                .branches(id, &node.any_of, Tags::any_of, inst)
                .any(|(_, s)| self.visit(s, inst, path, &mut Verdict))
        {
            fail!(
                errors,
                valid,
                node,
                "anyOf",
                path,
                text: checks::none_matched(
                    node.any_of.len(),
                    &self.branch_reasons(id, &node.any_of, Tags::any_of, inst, path)
                )
            );
        }
        if !node.one_of.is_empty() {
            let mut matched = self
                .branches(id, &node.one_of, Tags::one_of, inst)
                .filter(|(_, s)| self.visit(*s, inst, path, &mut Verdict))
                .map(|(i, _)| i);
            let (first, second) = (matched.next(), matched.next());
            if first.is_none() || second.is_some() {
                fail!(
                    errors,
                    valid,
                    node,
                    "oneOf",
                    path,
                    text: match (first, second) {
                        (Some(a), Some(b)) =>
                            format!("matches more than one alternative (at least {a} and {b})"),
                        _ => checks::none_matched(
                            node.one_of.len(),
                            &self.branch_reasons(id, &node.one_of, Tags::one_of, inst, path)
                        ),
                    }
                );
            }
        }
        if let Some(not) = node.not {
            if self.visit(not, inst, path, &mut Verdict) {
                fail!(
                    errors,
                    valid,
                    node,
                    "not",
                    path,
                    "matches the schema under `not`"
                );
            }
        }
        if let Some(target) = node.reference {
            if !self.shared(target, inst, path, errors) {
                valid = false;
            }
        }
        valid
    }

    /// A `$ref` target, evaluated once per instance value (and once more if its errors are
    /// wanted in the error list after an evaluation that did not record into it: a
    /// verdict-only one, or one for a union alternative's reason). The errors of a repeat
    /// visit would be the same instance path, schema path and message again, so nothing is
    /// lost.
    fn shared<R: Report>(
        &self,
        target: NodeId,
        inst: &Value,
        path: &Path<'_>,
        errors: &mut R,
    ) -> bool {
        let key = (target, std::ptr::from_ref(inst) as usize);
        let known = self
            .shared
            .borrow()
            .as_ref()
            .and_then(|m| m.get(&key).copied());
        if let Some((valid, reported)) = known {
            // Walked again only for errors not had yet: the list's when they are not in it,
            // a reason's when it has none (its walk stops at that first failure).
            if valid || R::VERDICT_ONLY || errors.enough() || (R::KEPT && reported) {
                return valid;
            }
        }
        let valid = self.node(target, inst, path, errors);
        let reported = R::KEPT || known.is_some_and(|(_, r)| r);
        self.shared
            .borrow_mut()
            .get_or_insert_with(HashMap::new)
            .insert(key, (valid, reported));
        valid
    }

    fn string<R: Report>(&self, node: &Node, s: &str, path: &Path<'_>, errors: &mut R) -> bool {
        match &node.string {
            Some(rules) => checks::string(
                rules,
                s,
                |n| self.meter.spend(n),
                &mut At { errors, node, path },
            ),
            None => true,
        }
    }

    fn number<R: Report>(
        &self,
        node: &Node,
        n: &serde_json::Number,
        path: &Path<'_>,
        errors: &mut R,
    ) -> bool {
        match &node.number {
            Some(rules) => checks::number(rules, n, &mut At { errors, node, path }),
            None => true,
        }
    }

    fn array<R: Report>(
        &self,
        node: &Node,
        items: &[Value],
        path: &Path<'_>,
        errors: &mut R,
    ) -> bool {
        let Some(rules) = &node.array else {
            return true;
        };
        let mut valid = checks::array_size(rules, items.len(), &mut At { errors, node, path });
        if !valid && errors.enough() {
            return false;
        }
        for (i, item) in items.iter().enumerate() {
            let sub = match rules.prefix_items.get(i) {
                Some(id) => Some(*id),
                None => rules.items,
            };
            let Some(sub) = sub else {
                break;
            };
            if !self.visit(sub, item, &Path::Index(path, i), errors) {
                valid = false;
                if errors.enough() {
                    return false;
                }
            }
        }
        valid &= checks::unique(rules, items, &mut At { errors, node, path });
        valid
    }

    #[inline(always)]
    fn object<R: Report>(
        &self,
        node: &Node,
        members: &Members,
        map: &Map<String, Value>,
        path: &Path<'_>,
        errors: &mut R,
    ) -> bool {
        if R::VERDICT_ONLY && (members.visits || map.len() <= SCAN_PER_REQUIRED * members.required)
        {
            return self.object_verdict(members, map, path);
        }
        let Some(rules) = &node.object else {
            return true;
        };
        let short = map.len() < members.required;
        if R::KEPT && members.visits && !short {
            // The error list names a missing member before a failing one. Whether one is
            // missing is counted in the pass that visits the members, and its errors are
            // then recorded before theirs: one pass instead of two.
            let mark = errors.mark();
            let (mut valid, present) = self.visit_members(node, rules, members, map, path, errors);
            if present < members.required {
                errors.record_before(mark, |errors| {
                    valid &= checks::required(&rules.required, map, &mut At { errors, node, path });
                });
            }
            return valid;
        }
        let mut valid = true;
        // Which names are missing is looked up (hashing each) only when one is: counting the
        // required members present is a pass of word compares.
        let missing = short || required_present(members, map) < members.required;
        if missing {
            valid &= checks::required(&rules.required, map, &mut At { errors, node, path });
            if !valid && errors.enough() {
                return false;
            }
        }
        if members.visits {
            valid &= self
                .visit_members(node, rules, members, map, path, errors)
                .0;
        }
        valid
    }

    /// Visits the members of `map` (one pass): its verdict, and how many of the members the
    /// node requires. A walk that may stop at its first failure stops there (the count is
    /// then short).
    fn visit_members<R: Report>(
        &self,
        node: &Node,
        rules: &ObjectRules,
        members: &Members,
        map: &Map<String, Value>,
        path: &Path<'_>,
        errors: &mut R,
    ) -> (bool, usize) {
        let mut valid = true;
        let mut present = 0;
        for (key, member, entry) in members.resolve(map) {
            present += usize::from(entry.is_some_and(|e| e.required));
            let sub = match entry.and_then(|e| e.node) {
                Some(id) => Some(id),
                None => match rules.additional {
                    Additional::Schema(id) => Some(id),
                    Additional::Forbidden => {
                        valid = false;
                        if errors.enough() {
                            return (false, present);
                        }
                        errors.record(node, "additionalProperties", path, || {
                            ["the property `", key, "` is not allowed"].concat()
                        });
                        None
                    }
                    Additional::Unspecified | Additional::Allowed => None,
                },
            };
            if let Some(sub) = sub {
                if !self.visit(sub, member, &Path::Key(path, key), errors) {
                    valid = false;
                    if errors.enough() {
                        return (false, present);
                    }
                }
            }
        }
        (valid, present)
    }

    /// The verdict of the object keywords in one pass over the members: each member's entry
    /// gives its subschema and whether it is required, so `required` costs a count instead of
    /// a lookup per name. Only the verdict: the errors, in their order, come from `object`.
    #[inline(always)]
    fn object_verdict(&self, members: &Members, map: &Map<String, Value>, path: &Path<'_>) -> bool {
        if map.len() < members.required {
            return false;
        }
        let mut required = 0;
        for (key, member, entry) in members.resolve(map) {
            required += usize::from(entry.is_some_and(|e| e.required));
            let sub = match entry.and_then(|e| e.node) {
                Some(id) => id,
                None => match members.additional {
                    Additional::Schema(id) => id,
                    Additional::Forbidden => return false,
                    Additional::Unspecified | Additional::Allowed => continue,
                },
            };
            if !self.visit(sub, member, &Path::Key(path, key), &mut Verdict) {
                return false;
            }
        }
        required == members.required
    }
}

/// How many of an object's members the node requires (each name once: member names are
/// unique).
fn required_present(members: &Members, map: &Map<String, Value>) -> usize {
    members
        .resolve(map)
        .filter(|(_, _, entry)| entry.is_some_and(|e| e.required))
        .count()
}

/// True when the value's type satisfies `types`. Whether a number is integral is only asked when
/// the set has `integer` without `number`. Inlined: it is the first check of every visit, and
/// a call costs more than the check.
#[inline(always)]
fn admits(types: TypeSet, v: &Value) -> bool {
    let t = match v {
        Value::Null => JsonType::Null,
        Value::Bool(_) => JsonType::Boolean,
        Value::String(_) => JsonType::String,
        Value::Array(_) => JsonType::Array,
        Value::Object(_) => JsonType::Object,
        Value::Number(n) => {
            return types.contains(JsonType::Number)
                || (types.contains(JsonType::Integer) && is_integer(n));
        }
    };
    types.contains(t)
}

#[cfg(test)]
mod tests;
