//! Memory of the IR against the `serde_json::Value` of the same schema.
//!
//! A counting global allocator keeps the number of live heap bytes (as requested by the program,
//! without the allocator's own overhead, the same for both sides). For each fixture schema:
//! - `Value`: the live bytes that `serde_json::from_str` of the compact schema text leaves;
//! - IR: the live bytes that `Schema::parse` of that value leaves (the value is still alive, so
//!   only what the `Schema` itself holds is counted; temporaries of the parse are freed).
//!
//! Prints a markdown table and leaves the figures in `target/criterion/schemalect-memory.json`
//! for the speed bench's report. Deterministic: it runs the same in `cargo bench` and in
//! `cargo test --benches`.

use schemalect::Schema;
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::bench::{self, Fixture};
use support::bench_report;

/// The system allocator, counting live bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// The only unsafe code of the workspace: a global allocator cannot be written without it, and
// counting what the IR really holds needs one. It forwards every call to `System` unchanged.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout, which the caller guarantees is valid.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` through this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` through this allocator with `layout`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// `(value bytes, IR bytes, IR bytes after a first validation)` of one schema text. The
/// validator lays the schema out for its walk on the first validation (`plan.rs`) and
/// keeps that with the IR, so the third figure is what a schema in use retains.
fn measure(text: &str) -> (usize, usize, usize) {
    let before = live();
    let value: Value = serde_json::from_str(text).expect("schema text");
    let value_bytes = live().saturating_sub(before);
    // Compiled patterns are kept for the next parse of the same pattern; the kept copies and
    // their storage are dropped around the parse, so that what is counted is what this
    // schema holds (its patterns' programs included), whatever was parsed before.
    schemalect::pattern::programs::clear();
    let before = live();
    let schema = Schema::parse(&value).expect("in subset");
    schemalect::pattern::programs::clear();
    let ir_bytes = live().saturating_sub(before);
    black_box(schema.is_valid(&Value::Null));
    let in_use_bytes = live().saturating_sub(before);
    black_box((&schema, &value));
    (value_bytes, ir_bytes, in_use_bytes)
}

fn row(fixture: &Fixture) -> Value {
    let (mut value_total, mut ir_total, mut in_use_total) = (0usize, 0usize, 0usize);
    let mut worst: Option<(f64, &str)> = None;
    for case in &fixture.cases {
        let (v, ir, in_use) = measure(&case.text);
        value_total += v;
        ir_total += ir;
        in_use_total += in_use;
        let r = ir as f64 / v.max(1) as f64;
        if worst.is_none_or(|(w, _)| r > w) {
            worst = Some((r, &case.name));
        }
    }
    json!({
        "name": fixture.name,
        "schemas": fixture.cases.len(),
        "value_bytes": value_total,
        "ir_bytes": ir_total,
        "ratio": ir_total as f64 / value_total.max(1) as f64,
        "in_use_bytes": in_use_total,
        "in_use_ratio": in_use_total as f64 / value_total.max(1) as f64,
        "worst_ratio": worst.map(|w| w.0),
        "worst_case": worst.map(|w| w.1),
    })
}

fn main() {
    let mut fixtures = bench::fixtures();
    for n in [10, 100, 10_000] {
        fixtures.push(bench::stress_properties(n));
    }
    let rows: Vec<Value> = fixtures.iter().map(row).collect();
    let report = json!({ "fixtures": rows });
    let path = bench_report::memory_file();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("criterion directory");
    }
    std::fs::write(&path, report.to_string()).expect("memory figures written");
    println!("memory: IR against serde_json::Value (live heap bytes)\n");
    println!("| fixture | schemas | Value | IR | IR ÷ Value | IR + validation plan ÷ Value | largest of one schema |");
    println!("|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {:.2}× | {:.2}× | {:.2}× ({}) |",
            r["name"].as_str().unwrap_or("?"),
            r["schemas"],
            r["value_bytes"],
            r["ir_bytes"],
            r["ratio"].as_f64().unwrap_or(f64::NAN),
            r["in_use_ratio"].as_f64().unwrap_or(f64::NAN),
            r["worst_ratio"].as_f64().unwrap_or(f64::NAN),
            r["worst_case"].as_str().unwrap_or("?"),
        );
    }
    println!("\n(written to {})", path.display());
}
