//! Rendering: human text, JSON lines (the documented contract), SARIF 2.1.0; and standard
//! output, buffered and locked, that stops quietly when the reader goes away.

pub mod compact;
pub mod gitlab;
pub mod json;
pub mod sarif;
pub mod text;

use crate::commands::Status;
use crate::input::{Group, Place};
use crate::progress::Console;
use std::io::{self, BufWriter, StdoutLock, Write};

/// Buffered standard output. After a write error nothing more is written; a closed pipe
/// (`| head`) ends the run quietly, any other error is reported and exits 2.
#[derive(Debug)]
pub struct Out {
    w: BufWriter<StdoutLock<'static>>,
    error: Option<io::Error>,
}

impl Out {
    /// Locks standard output.
    pub fn new() -> Self {
        Out {
            w: BufWriter::with_capacity(1 << 16, io::stdout().lock()),
            error: None,
        }
    }

    /// Writes `bytes`; `false` once output is no longer possible.
    pub fn write(&mut self, bytes: &[u8]) -> bool {
        if self.error.is_none() {
            if let Err(e) = self.w.write_all(bytes) {
                self.error = Some(e);
            }
        }
        self.error.is_none()
    }

    /// Flushes, and reports a write error other than a closed pipe.
    pub fn finish(mut self, console: &mut Console, status: &mut Status) {
        if self.error.is_none() {
            if let Err(e) = self.w.flush() {
                self.error = Some(e);
            }
        }
        if let Some(e) = self.error {
            if e.kind() != io::ErrorKind::BrokenPipe {
                console.message(&format!("schemalect: cannot write to standard output: {e}"));
                status.raise(Status::Error);
            }
        }
    }
}

impl Default for Out {
    fn default() -> Self {
        Out::new()
    }
}

/// How a group is named in text reports: the file, with `#N` for a group of a test-suite file.
pub fn label(file: &str, group: &Group<'_>) -> String {
    match group.place {
        Place::Suite(i) => format!("{file}#{i}"),
        Place::Root | Place::Bench => file.to_owned(),
    }
}
