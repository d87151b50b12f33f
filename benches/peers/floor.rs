//! Issue 21's floor: what any tool pays to read the same files and check them as JSON, with
//! nothing built from them, as one process on every core (`benches/peers/compare.sh` times it
//! beside schemalect; docs/benchmarks.md, "The floor of a whole-process run").
//!
//!   floor DIR [THREADS]
//!
//! Lists DIR, sorts it, and on THREADS threads (default: every core) reads each file whole
//! (as `schemalect` does: its size first, then one read of that size) and checks it with
//! serde_json, skipping every value (`IgnoredAny`). Prints how many files were JSON. Built by
//! `compare.sh` in a temporary folder with schemalect's allocator and serde_json features;
//! not part of the workspace.
use serde::de::IgnoredAny;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Four system calls a file, as `schemalect` makes (open, size, one read, close):
/// `File::read_to_string` would ask for the size and the position again and read once more to
/// find the end (seven calls a file, most of this program's kernel time on a virtual machine).
fn read(path: &std::path::Path) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    file.take(len).read_to_end(&mut bytes)?;
    String::from_utf8(bytes).map_err(std::io::Error::other)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: floor DIR [THREADS]");
        std::process::exit(2);
    };
    let threads = args
        .next()
        .and_then(|s| s.parse().ok())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .max(1);
    let mut files: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            eprintln!("floor: {dir}: {e}");
            std::process::exit(2);
        }
    };
    files.sort();
    let next = AtomicUsize::new(0);
    let json = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(f) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let ok = read(f).is_ok_and(|t| serde_json::from_str::<IgnoredAny>(&t).is_ok());
                    if ok {
                        json.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    println!(
        "{} of {} files are JSON",
        json.load(Ordering::Relaxed),
        files.len()
    );
}
