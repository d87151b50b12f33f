//! Typed errors. Each names where (a JSON Pointer), what (the keyword) and why, and a failing
//! check lists every problem it found, not just the first.

use crate::limits::{Limit, WorkExceeded};
use crate::pattern::PatternError;
use crate::pointer::Pointer;
use std::fmt;

/// Why a schema is outside the subset: every violation found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct SubsetError {
    /// The violations, in document order.
    pub violations: Vec<Violation>,
}

impl fmt::Display for SubsetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.violations.len();
        write!(
            f,
            "schema is outside the subset ({n} violation{})",
            if n == 1 { "" } else { "s" }
        )?;
        for v in &self.violations {
            write!(f, "\n  {v}")?;
        }
        Ok(())
    }
}

impl SubsetError {
    /// The distinct keywords involved, for summaries.
    pub fn keywords(&self) -> Vec<&str> {
        let mut k: Vec<&str> = self.violations.iter().map(|v| v.keyword.as_str()).collect();
        k.sort_unstable();
        k.dedup();
        k
    }
}

/// One reason a schema is outside the subset.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Violation {
    /// The schema object holding the keyword (or the offending subschema).
    pub pointer: Pointer,
    /// The keyword involved (`""` when the problem is the schema object itself at the root).
    pub keyword: String,
    /// What is wrong.
    pub kind: ViolationKind,
}

impl Violation {
    pub(crate) fn new(pointer: &Pointer, keyword: &str, kind: ViolationKind) -> Self {
        Violation {
            pointer: pointer.clone(),
            keyword: keyword.to_owned(),
            kind,
        }
    }

    /// The reason, as a sentence a user can act on.
    pub fn reason(&self) -> String {
        self.kind.to_string()
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.keyword.is_empty() {
            write!(f, "at {}: {}", self.pointer, self.kind)
        } else {
            write!(f, "`{}` at {}: {}", self.keyword, self.pointer, self.kind)
        }
    }
}

/// The kinds of violation.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ViolationKind {
    /// A JSON Schema keyword the subset leaves out, with advice.
    Outside(&'static str),
    /// A keyword that is not part of JSON Schema's subset vocabulary at all.
    Unknown,
    /// A subset keyword whose value has the wrong shape.
    Shape {
        /// What the value must be.
        expected: &'static str,
        /// What was wrong with it, when more can be said.
        detail: Option<String>,
    },
    /// `true` or `false` where a schema object is needed.
    BooleanSchema(bool),
    /// Something other than an object where a schema is needed.
    NotASchema(&'static str),
    /// A schema with no assertion or applicator keyword (`{}` or annotations only).
    AssertsNothing,
    /// A `pattern` the linear-time engine cannot run, or that does not parse.
    Pattern(PatternError),
    /// `full` subset: a keyword no draft defines. It is an annotation (asserts nothing), so it
    /// is a warning unless unknown keywords are denied; `suggestion` is the keyword it is a
    /// near miss of.
    UnknownKeyword {
        /// The known keyword meant, when the name is a near miss of one.
        suggestion: Option<&'static str>,
    },
    /// `full` subset: a reference that resolves to no schema of the document or of the
    /// documents provided (nothing is fetched).
    Unresolved(String),
    /// The operation's work budget ([`Limit::Work`]) was spent: which operation, and the
    /// numbers.
    Work(WorkExceeded),
    /// A limit was exceeded.
    Limit {
        /// Which limit.
        limit: Limit,
        /// Its value.
        max: usize,
    },
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViolationKind::Outside(reason) => f.write_str(reason),
            ViolationKind::Unknown => f.write_str(
                "unknown keyword; the subset accepts no other keywords (fail-closed): remove it or move it into `description`",
            ),
            ViolationKind::Shape { expected, detail } => {
                write!(f, "must be {expected}")?;
                if let Some(d) = detail {
                    write!(f, " ({d})")?;
                }
                Ok(())
            }
            ViolationKind::BooleanSchema(true) => f.write_str(
                "boolean schemas are outside the subset; write a schema object with the constraint you mean",
            ),
            ViolationKind::BooleanSchema(false) => f.write_str(
                "boolean schemas are outside the subset; a schema that rejects everything cannot be expressed, so remove the part it guards",
            ),
            ViolationKind::NotASchema(found) => {
                write!(f, "a schema must be a JSON object, found {found}")
            }
            ViolationKind::AssertsNothing => f.write_str(
                "this schema asserts nothing (it is empty or has annotations only), which the subset does not accept; give it a `type` or another assertion",
            ),
            ViolationKind::Pattern(e) => write!(f, "{e}"),
            ViolationKind::UnknownKeyword { suggestion } => {
                f.write_str("unknown keyword, kept as an annotation (it asserts nothing)")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                Ok(())
            }
            ViolationKind::Unresolved(uri) => write!(
                f,
                "the reference `{uri}` resolves to no schema in this document or the documents provided (nothing is fetched); provide it with `ParseOptions::with_resource` (CLI: `--resource URI=FILE`)"
            ),
            ViolationKind::Work(e) => write!(f, "{e}"),
            ViolationKind::Limit { limit, max } => {
                let (field, flag) = limit.knob();
                write!(
                    f,
                    "{} exceeds the limit of {max}; raise `{field}` (CLI: `{flag}`) if the schema is trusted",
                    limit.what()
                )
            }
        }
    }
}

/// Where an instance fails its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidationError {
    /// The failing part of the instance.
    pub instance_path: Pointer,
    /// The failing keyword's location in the schema (node pointer + keyword).
    pub schema_path: Pointer,
    /// The failing keyword.
    pub keyword: &'static str,
    /// What is wrong, in words.
    pub message: String,
}

impl ValidationError {
    /// The keyword of the error that says validation ran out of its work budget
    /// ([`Limit::Work`]): the instance is then not accepted, and the error's paths say where
    /// the budget ran out.
    pub const WORK: &'static str = "$work";

    /// True for the error that says validation ran out of its work budget.
    pub fn is_work_limit(&self) -> bool {
        self.keyword == Self::WORK
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (schema {})",
            self.instance_path, self.message, self.schema_path
        )
    }
}

/// Every way an instance fails its schema.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors {
    /// The errors, in evaluation order.
    pub errors: Vec<ValidationError>,
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        write!(
            f,
            "instance is invalid ({n} error{})",
            if n == 1 { "" } else { "s" }
        )?;
        for e in &self.errors {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}
