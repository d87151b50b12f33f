//! Limits on untrusted input, in one place.
//!
//! Schemas come from users, tool registries and MCP servers; each limit turns what would be a
//! stack overflow, a hang or an out-of-memory into an error that says which limit was hit and how
//! to raise it. Defaults are set well above every schema of the shared real-world corpus
//! (7,616 schemas: at most 1,613 nodes, 22 levels of JSON nesting, 1,554 enum values, a
//! 1,327-character pattern) and well below what could hurt a gateway.
//!
//! The work budget ([`Limits::work_per_byte`], [`Limits::work_floor`]) bounds time the way the
//! others bound size: every operation counts its steps, and one that would take more than its
//! budget stops with [`Limit::Work`]. On the shared corpus no operation needs more than 17
//! steps per byte of its input nor more than 81,000 steps in all, so the defaults (64 per
//! byte, 4,000,000 at least) refuse nothing real (`budget::corpus` checks it).

/// Parse limits. `Limits::default()` is what the library and the CLI use unless told otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Deepest nesting of subschemas, and of JSON values inside `enum`, `const`, `default` and
    /// `examples`. Default 64.
    pub max_depth: usize,
    /// Most schema nodes in one document. Default 50,000.
    pub max_nodes: usize,
    /// Most values in one `enum`. Default 10,000.
    pub max_enum_values: usize,
    /// Longest `pattern`, in characters. Default 4,096 (the seed used 1,000; the corpus has a
    /// real 1,327-character pattern).
    pub max_pattern_len: usize,
    /// Work budget of every operation (parse, validate, lower, accept), in steps per byte of
    /// the operation's input: the schema text, and the instance or the answer. A step is one
    /// unit of bounded work (a schema node parsed, emitted or rewritten; one schema node
    /// evaluated on one instance value, plus the members, items and string bytes it reads; one
    /// value reshaped), so an operation's time is at most its budget times the cost of a step
    /// (docs/security.md). Default [`Limits::DEFAULT_WORK_PER_BYTE`].
    pub work_per_byte: u64,
    /// Steps every operation may take whatever the size of its input, so that small inputs
    /// with legitimate fan-out are not refused. Default [`Limits::DEFAULT_WORK_FLOOR`].
    pub work_floor: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 64,
            max_nodes: 50_000,
            max_enum_values: 10_000,
            max_pattern_len: 4_096,
            work_per_byte: Limits::DEFAULT_WORK_PER_BYTE,
            work_floor: Limits::DEFAULT_WORK_FLOOR,
        }
    }
}

impl Limits {
    /// Default of [`Limits::work_per_byte`].
    pub const DEFAULT_WORK_PER_BYTE: u64 = 64;
    /// Default of [`Limits::work_floor`].
    pub const DEFAULT_WORK_FLOOR: u64 = 4_000_000;

    /// The steps an operation on `bytes` bytes of input may take: the floor plus
    /// [`Limits::work_per_byte`] per byte (saturating).
    pub fn work_budget(&self, bytes: u64) -> u64 {
        self.work_floor
            .saturating_add(self.work_per_byte.saturating_mul(bytes))
    }

    /// Same limits with another work budget per byte of input.
    #[must_use]
    pub fn with_work_per_byte(mut self, n: u64) -> Self {
        self.work_per_byte = n;
        self
    }

    /// Same limits with another work floor.
    #[must_use]
    pub fn with_work_floor(mut self, n: u64) -> Self {
        self.work_floor = n;
        self
    }

    /// Same limits with another depth.
    #[must_use]
    pub fn with_max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// Same limits with another node budget.
    #[must_use]
    pub fn with_max_nodes(mut self, n: usize) -> Self {
        self.max_nodes = n;
        self
    }

    /// Same limits with another enum size.
    #[must_use]
    pub fn with_max_enum_values(mut self, n: usize) -> Self {
        self.max_enum_values = n;
        self
    }

    /// Same limits with another pattern length.
    #[must_use]
    pub fn with_max_pattern_len(mut self, n: usize) -> Self {
        self.max_pattern_len = n;
        self
    }
}

/// Which limit was hit, for error messages that say how to raise it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::max_depth`]
    Depth,
    /// [`Limits::max_nodes`]
    Nodes,
    /// [`Limits::max_enum_values`]
    EnumValues,
    /// [`Limits::max_pattern_len`]
    PatternLength,
    /// [`Limits::work_per_byte`] and [`Limits::work_floor`]: the operation's work budget.
    Work,
}

impl Limit {
    /// What the limit counts, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Limit::Depth => "nesting depth",
            Limit::Nodes => "number of schema nodes",
            Limit::EnumValues => "number of enum values",
            Limit::PatternLength => "pattern length in characters",
            Limit::Work => "work in steps",
        }
    }

    /// The `Limits` field and the CLI flag that raise it.
    pub fn knob(self) -> (&'static str, &'static str) {
        match self {
            Limit::Depth => ("Limits::max_depth", "--max-depth"),
            Limit::Nodes => ("Limits::max_nodes", "--max-nodes"),
            Limit::EnumValues => ("Limits::max_enum_values", "--max-enum-values"),
            Limit::PatternLength => ("Limits::max_pattern_len", "--max-pattern-len"),
            Limit::Work => ("Limits::work_per_byte", "--work-per-byte"),
        }
    }
}

/// The public operations that count their work, for the message of an exhausted budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// [`Schema::parse`](crate::Schema::parse) and the other parse entry points.
    Parse,
    /// [`Schema::validate`](crate::Schema::validate) and [`Schema::is_valid`](crate::Schema::is_valid).
    Validate,
    /// [`Schema::lower`](crate::Schema::lower).
    Lower,
    /// [`Lowering::accept`](crate::Lowering::accept), [`Lowering::encode`](crate::Lowering::encode)
    /// and [`Lowering::lift`](crate::Lowering::lift).
    Accept,
}

impl Operation {
    /// The operation in words ("parsing", …), for messages.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Parse => "parsing the schema",
            Operation::Validate => "validation",
            Operation::Lower => "lowering",
            Operation::Accept => "accepting the answer",
        }
    }

    /// What the operation's input is, for messages.
    fn input(self) -> &'static str {
        match self {
            Operation::Parse => "schema",
            Operation::Validate => "schema and instance",
            Operation::Lower => "schema",
            Operation::Accept => "schema and answer",
        }
    }
}

/// An operation ran out of its work budget ([`Limit::Work`]): what it was, and the numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} stopped after {budget} steps, its work budget ({per_byte} steps per byte of its {input_bytes} bytes of {} + {floor}); raise `Limits::work_per_byte` (`Limits::with_work_per_byte`, CLI: `--work-per-byte`) or `Limits::work_floor` if the input is trusted", .operation.name(), .operation.input())]
#[non_exhaustive]
pub struct WorkExceeded {
    /// Which operation.
    pub operation: Operation,
    /// The budget in steps, all of which were spent.
    pub budget: u64,
    /// The input's size in bytes, as counted (the JSON text, or a lower bound of the compact
    /// text of a value given as a `Value`).
    pub input_bytes: u64,
    /// [`Limits::work_per_byte`] in force.
    pub per_byte: u64,
    /// [`Limits::work_floor`] in force.
    pub floor: u64,
}
