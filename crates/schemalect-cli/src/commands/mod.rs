//! The subcommands, and what they share: exit status, loading a file into groups, analysing a
//! schema for the selected targets, and running files on every core with output in input order.

pub mod check;
pub mod lint;
pub mod lower;
pub mod suite;

use crate::input::{self, Document, Group, InputError, Item, Kind, Source};
use crate::skim::Skimmed;
use schemalect::{
    Assessment, LowerOptions, Lowering, Mode, ParseOptions, Profile, Schema, Subset, SubsetError,
    Target,
};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

/// The exit status: the worst over every file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// 0: nothing to report.
    #[default]
    Clean,
    /// 1: findings (out of subset, a `--deny` hit, an invalid instance, a failed test).
    Findings,
    /// 2: usage or I/O error.
    Error,
}

impl Status {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::Findings => 1,
            Status::Error => 2,
        }
    }

    /// Raises the status to at least `other`.
    pub fn raise(&mut self, other: Status) {
        *self = (*self).max(other);
    }
}

/// A file that could not be used, ready to report.
#[derive(Clone, Debug)]
pub struct FileError {
    /// The file as reports show it.
    pub file: String,
    /// What went wrong, without the file.
    pub what: String,
    /// Line and column, when known.
    pub position: Option<(usize, usize)>,
}

impl FileError {
    /// From an input error.
    pub fn new(file: &str, e: &InputError) -> Self {
        FileError {
            file: file.to_owned(),
            what: e.to_string(),
            position: e.position(),
        }
    }

    /// `file:LINE:COLUMN: what` or `file: what`.
    pub fn message(&self) -> String {
        match self.position {
            Some((l, c)) => format!("{}:{l}:{c}: {}", self.file, self.what),
            None => format!("{}: {}", self.file, self.what),
        }
    }
}

/// Reads and parses the file of `item`.
pub fn load(item: &Item, max_file_size: u64) -> Result<Document, FileError> {
    load_with(item, |p| input::load(p, max_file_size))
}

/// The text of the file of `item`, for [`load_schemas`].
pub fn read_text(item: &Item, max_file_size: u64) -> Result<String, FileError> {
    load_with(item, |p| input::read_text(p, max_file_size))
}

/// [`load`] for the commands that read only the schemas of a file, not their tests (`lint`,
/// `lower`), from its text ([`read_text`]), read as `kind` (detected when `None`): see
/// [`input::load_schemas`]. Its groups are [`schema_groups`].
pub fn load_schemas<'t>(
    file: &str,
    text: &'t str,
    kind: Option<Kind>,
) -> Result<Skimmed<'t>, FileError> {
    input::load_schemas(text, kind).map_err(|e| FileError::new(file, &e))
}

fn load_with<T>(
    item: &Item,
    read: impl FnOnce(&std::path::Path) -> Result<T, InputError>,
) -> Result<T, FileError> {
    match item {
        Item::File(p) => read(p).map_err(|e| FileError::new(&input::display_path(p), &e)),
        Item::Problem(p, e) => Err(FileError::new(&input::display_path(p), e)),
    }
}

/// The groups of a loaded document.
pub fn groups<'d>(
    file: &str,
    doc: &'d Document,
    kind: Option<Kind>,
) -> Result<Vec<Group<'d>>, FileError> {
    input::groups(&doc.value, kind).map_err(|e| FileError::new(file, &e))
}

/// The groups of a document loaded by [`load_schemas`].
pub fn schema_groups<'d>(
    file: &str,
    doc: &'d Skimmed<'_>,
    kind: Option<Kind>,
) -> Result<Vec<Group<'d>>, FileError> {
    input::schema_groups(doc, kind).map_err(|e| FileError::new(file, &e))
}

/// A schema parsed and lowered for each selected target (none when it is out of the subset):
/// a [`Lowering`] each ([`Settings::analyse`]), or only its [`Assessment`] where no request is
/// printed ([`Settings::assess`]).
#[derive(Debug)]
pub struct Analysis<L = Lowering> {
    /// The parsed schema, or every violation.
    pub parsed: Result<Schema, SubsetError>,
    /// One lowering per selected target, in target order; empty when out of the subset.
    pub lowerings: Vec<L>,
    /// Per lowering, with [`Settings::hints`]: the profile that would send natively what
    /// this one sends as JSON mode or a prompt, and the mode it reaches.
    pub hints: Vec<Option<(Profile, Mode)>>,
    /// The subset it was parsed under.
    pub subset: Subset,
    /// Out of the ADR-126 subset but inside the extended one (for the summary's hint); only
    /// asked with [`Settings::extended_count`].
    pub extended_only: bool,
}

/// How schemas are parsed and lowered.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Parse options (limits).
    pub parse: ParseOptions,
    /// Lowering options (profile).
    pub lower: LowerOptions,
    /// The targets, in report order.
    pub targets: Vec<Target>,
    /// Whether fallbacks are lowered once more to find a profile that would be native
    /// ([`Analysis::hints`]): a second lowering per fallback, so only reports that print it
    /// ask for it.
    pub hints: bool,
    /// Whether a schema outside the ADR-126 subset is parsed again under the extended one
    /// ([`Analysis::extended_only`]): a second parse, for a count only the text summary
    /// prints.
    pub extended_count: bool,
}

impl Settings {
    /// Parses `schema` and lowers it for every target.
    pub fn analyse(&self, schema: Source<'_>) -> Analysis {
        self.analysis(schema, |s| {
            self.targets
                .iter()
                .map(|t| s.lower(*t, &self.lower))
                .collect()
        })
    }

    /// Parses `schema` and assesses it for every target: the modes and losses of
    /// [`Settings::analyse`] without the requests, which `lint` never prints.
    pub fn assess(&self, schema: Source<'_>) -> Analysis<Assessment> {
        self.analysis(schema, |s| s.assess_all(&self.targets, &self.lower))
    }

    fn analysis<L: AsRef<Assessment>>(
        &self,
        schema: Source<'_>,
        lower: impl Fn(&Schema) -> Vec<L>,
    ) -> Analysis<L> {
        let parsed = schema.parse(&self.parse);
        let lowerings: Vec<L> = match &parsed {
            Ok(s) => lower(s),
            Err(_) => Vec::new(),
        };
        let hints = if self.hints {
            Assessment::stronger_profiles(&lowerings, &self.lower)
        } else {
            Vec::new()
        };
        let subset = self.parse.subset;
        let extended_only = self.extended_count
            && parsed.is_err()
            && subset == Subset::Adr126
            && schema
                .parse(&self.parse.clone().with_subset(Subset::Extended))
                .is_ok();
        Analysis {
            parsed,
            lowerings,
            hints,
            subset,
            extended_only,
        }
    }
}

/// Runs `work` on every item on `threads` threads and hands the results to `sink` in item
/// order, as soon as each is next in line, so the output is the same for any number of
/// threads. `sink` returns `false` to stop early (standard output closed).
///
/// Threads take runs of consecutive items ([`chunk_len`]) and hand each run's results over at
/// once: one hand-over per item cost a futex wait and wake each (about 15,000 system calls for
/// 4,439 files, more time in the kernel than in the work). The calling thread is one of the
/// `threads`: it takes runs like the others and, between its own runs, passes on the results
/// that are next in line. A calling thread that only waited for results slept and was woken
/// about 900 times in a `lower` of 4,439 files, on a third thread sharing the two cores with
/// the workers (docs/benchmarks.md).
pub fn run_ordered<T: Send>(
    items: &[Item],
    threads: usize,
    work: impl Fn(&Item) -> T + Sync,
    mut sink: impl FnMut(T) -> bool,
) {
    let threads = threads.min(items.len());
    if threads <= 1 {
        for item in items {
            if !sink(work(item)) {
                return;
            }
        }
        return;
    }
    let chunk = chunk_len(items.len(), threads);
    let next = AtomicUsize::new(0);
    // The next run of items to work on, and where it starts.
    let take = || {
        let start = next.fetch_add(chunk, Ordering::Relaxed);
        items
            .get(start..items.len().min(start.saturating_add(chunk)))
            .filter(|run| !run.is_empty())
            .map(|run| (start, run))
    };
    // How many runs may wait: in the channel, and again in the calling thread's queue.
    let bound = threads * 4;
    thread::scope(|scope| {
        // Bounded, so that a reader that is slow to take the output (a pager, a full pipe)
        // holds the workers back instead of the run's whole output piling up in memory.
        let (tx, rx) = mpsc::sync_channel::<(usize, Vec<T>)>(bound);
        for _ in 1..threads {
            let tx = tx.clone();
            let (take, work) = (&take, &work);
            scope.spawn(move || {
                while let Some((start, run)) = take() {
                    if tx.send((start, run.iter().map(work).collect())).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut ordered = InOrder {
            pending: BTreeMap::new(),
            expected: 0,
            chunk,
        };
        let mut stopped = false;
        'work: loop {
            // Runs waiting for an earlier one that a worker still holds (a worker the system
            // has not scheduled for a while): wait for that one rather than work further
            // ahead, so that the queue stays bounded however the threads are scheduled.
            while ordered.pending.len() >= bound {
                let Ok((start, results)) = rx.recv() else {
                    break;
                };
                ordered.pending.insert(start, results);
                if !ordered.deliver(&mut sink) {
                    stopped = true;
                    break 'work;
                }
            }
            let Some((start, run)) = take() else {
                break;
            };
            ordered
                .pending
                .insert(start, run.iter().map(&work).collect());
            // At most a channel's worth: on a busy core, each run received wakes a worker
            // blocked on a full channel, which may send another before this loop asks again.
            ordered.pending.extend(rx.try_iter().take(bound));
            if !ordered.deliver(&mut sink) {
                stopped = true;
                break;
            }
        }
        if !stopped {
            for (start, results) in rx.iter() {
                ordered.pending.insert(start, results);
                if !ordered.deliver(&mut sink) {
                    stopped = true;
                    break;
                }
            }
        }
        if stopped {
            // No more runs are taken, and dropping the receiver makes every worker's next
            // send fail, so they stop.
            next.store(items.len(), Ordering::Relaxed);
        }
    });
}

/// The runs' results that came early, waiting for those before them.
struct InOrder<T> {
    pending: BTreeMap<usize, Vec<T>>,
    /// Where the next run to hand over starts.
    expected: usize,
    chunk: usize,
}

impl<T> InOrder<T> {
    /// Hands every result next in line to `sink`; false when it asked to stop.
    fn deliver(&mut self, sink: &mut impl FnMut(T) -> bool) -> bool {
        while let Some(results) = self.pending.remove(&self.expected) {
            self.expected += self.chunk;
            for result in results {
                if !sink(result) {
                    return false;
                }
            }
        }
        true
    }
}

/// How many consecutive items a worker of [`run_ordered`] takes at a time: up to 16, so that a
/// hand-over is rare, but no more than leaves each thread about 64 runs, so that the last runs
/// still spread over the threads (and the first results, and the progress bar, come soon).
fn chunk_len(items: usize, threads: usize) -> usize {
    (items / threads.saturating_mul(64).max(1)).clamp(1, 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// `n` items named by their index (the work under test never opens them).
    fn numbered(n: usize) -> Vec<Item> {
        (0..n)
            .map(|i| Item::File(PathBuf::from(i.to_string())))
            .collect()
    }

    /// A sink that is slow to take results holds the workers back: what is done but not yet
    /// taken stays within the channel's runs, not the whole run.
    #[test]
    fn a_slow_sink_holds_the_workers_back() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let items = numbered(2_000);
        let chunk = chunk_len(items.len(), 2);
        let done = AtomicUsize::new(0);
        let mut taken = 0;
        let mut ahead = 0;
        run_ordered(
            &items,
            2,
            |_| done.fetch_add(1, Ordering::Relaxed),
            |_| {
                taken += 1;
                if taken < 150 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                    ahead = ahead.max(done.load(Ordering::Relaxed) - taken);
                }
                true
            },
        );
        assert_eq!(taken, 2_000);
        // A bounded number of runs: the caller's queue (up to twice the channel's 8 runs), as
        // many again in the channel, one waiting to be sent, the caller's own (about 26 runs
        // of 15 here, however the two threads are scheduled); without the bound, the worker
        // finished the whole run (1,999 ahead).
        assert!(ahead <= chunk * 30, "{ahead} done ahead of the sink");
    }

    /// A worker that stops for a while (the system schedules something else) holds a run the
    /// calling thread must hand over before its own: the caller waits for it once a bounded
    /// number of runs are queued, instead of doing the whole rest of the work ahead.
    #[test]
    fn a_stalled_worker_holds_the_caller_back() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let items = numbered(2_000);
        let chunk = chunk_len(items.len(), 2);
        let caller = std::thread::current().id();
        let stalled = AtomicBool::new(false);
        let done = AtomicUsize::new(0);
        let mut taken = 0;
        let mut ahead = 0;
        run_ordered(
            &items,
            2,
            |_| {
                if std::thread::current().id() != caller {
                    if !stalled.swap(true, Ordering::SeqCst) {
                        std::thread::sleep(std::time::Duration::from_millis(100));
                    }
                } else {
                    // The caller goes on only once the worker holds its first run.
                    let start = std::time::Instant::now();
                    while !stalled.load(Ordering::SeqCst)
                        && start.elapsed() < std::time::Duration::from_secs(10)
                    {
                        std::thread::yield_now();
                    }
                }
                done.fetch_add(1, Ordering::Relaxed)
            },
            |_| {
                taken += 1;
                ahead = ahead.max(done.load(Ordering::Relaxed) - taken);
                true
            },
        );
        assert_eq!(taken, 2_000);
        assert!(stalled.load(Ordering::Relaxed), "the worker took no run");
        // The caller's queue (up to twice the channel's 8 runs after draining it), the channel
        // and the run in each thread's hands; without the wait, the caller did all the other
        // runs (about 1,980 ahead).
        assert!(ahead <= chunk * 30, "{ahead} done ahead of the stalled run");
    }

    /// The calling thread works too: with two threads, one worker is spawned and the caller
    /// takes runs of its own.
    #[test]
    fn the_calling_thread_is_one_of_the_threads() {
        use std::collections::HashSet;
        use std::sync::Mutex;
        let items = numbered(64);
        let ids = Mutex::new(HashSet::new());
        let mut seen = Vec::new();
        run_ordered(
            &items,
            2,
            |item| {
                // Slow enough that both threads take runs.
                std::thread::sleep(std::time::Duration::from_millis(1));
                ids.lock()
                    .map(|mut s| s.insert(std::thread::current().id()))
                    .ok();
                item.display()
            },
            |n| {
                seen.push(n);
                true
            },
        );
        let ids = ids.into_inner().unwrap_or_default();
        assert!(ids.contains(&std::thread::current().id()));
        assert_eq!(ids.len(), 2);
        let want: Vec<String> = (0..64).map(|i| i.to_string()).collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn results_come_in_item_order_and_stop_early() {
        let items = numbered(200);
        let mut seen = Vec::new();
        run_ordered(
            &items,
            4,
            |item| item.display().parse::<usize>().unwrap_or(usize::MAX),
            |n| {
                seen.push(n);
                true
            },
        );
        assert_eq!(seen, (0..200).collect::<Vec<_>>());
        let mut count = 0;
        run_ordered(
            &items,
            3,
            |_| (),
            |()| {
                count += 1;
                count < 5
            },
        );
        assert_eq!(count, 5);
        let mut one = Vec::new();
        run_ordered(
            &items,
            1,
            |item| item.display(),
            |n| {
                one.push(n);
                true
            },
        );
        assert_eq!(one.len(), 200);
        // Runs of 16 items per hand-over, the last one short: still every item, in order.
        let many = numbered(5_003);
        assert_eq!(chunk_len(many.len(), 2), 16);
        let mut seen = Vec::new();
        run_ordered(
            &many,
            2,
            |item| item.display().parse::<usize>().unwrap_or(usize::MAX),
            |n| {
                seen.push(n);
                true
            },
        );
        assert_eq!(seen, (0..5_003).collect::<Vec<_>>());
    }

    #[test]
    fn status_is_the_worst() {
        let mut s = Status::Clean;
        s.raise(Status::Error);
        s.raise(Status::Findings);
        assert_eq!(s.code(), 2);
    }
}
