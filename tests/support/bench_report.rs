//! The report of the speed bench: reads criterion's estimates from disk, computes the ratios the
//! issue sets targets for (lowering against the floor, validation against the `jsonschema`
//! crate, IR memory against `serde_json::Value`) and prints them as markdown tables; draws the
//! scaling plot as SVG with nothing but `format!`.
//!
//! Nothing here holds a number: every figure comes from the last run's
//! `target/criterion/**/new/{benchmark,estimates}.json` (and `schemalect-memory.json`, written
//! by the memory bench), so the tables cannot drift from the measurements.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The fixtures in report order (those absent from the run are left out).
pub const FIXTURES: [&str; 6] = [
    "invoice",
    "jsb-sample",
    "props-1000",
    "nest-10",
    "enum-1000",
    "anyof-100",
];

/// Schema sizes (properties) of the schema-size sweep.
pub const SCHEMA_SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

/// Instance sizes (array items) of the instance-size sweep.
pub const INSTANCE_SIZES: [usize; 5] = [10, 100, 1_000, 10_000, 100_000];

/// Where criterion writes, found the way criterion finds it: `CRITERION_HOME`, else
/// `CARGO_TARGET_DIR/criterion`, else `target/criterion` in the workspace.
pub fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    crate::workspace_root().join("target").join("criterion")
}

/// The file in which the memory bench leaves its measurements for this report.
pub fn memory_file() -> PathBuf {
    criterion_dir().join("schemalect-memory.json")
}

/// Median time in nanoseconds of every benchmark, by criterion's full id (`group/function/value`).
#[derive(Debug, Default)]
pub struct Estimates {
    median_ns: BTreeMap<String, f64>,
    /// Benchmarks found but written before the run started (left out of the tables).
    pub stale: usize,
}

impl Estimates {
    /// Reads every `new/benchmark.json` under `dir` with its `estimates.json`. With `since`,
    /// results written before that time are counted as stale and left out, so that every ratio
    /// compares measurements of one run.
    pub fn load(dir: &Path, since: Option<SystemTime>) -> Estimates {
        let mut out = Estimates::default();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = fs::read_dir(&d) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.file_name().is_some_and(|n| n == "benchmark.json")
                    && path
                        .parent()
                        .and_then(|p| p.file_name())
                        .is_some_and(|n| n == "new")
                {
                    out.read_one(&path, since);
                }
            }
        }
        out
    }

    fn read_one(&mut self, benchmark: &Path, since: Option<SystemTime>) {
        let estimates = benchmark.with_file_name("estimates.json");
        let (Some(meta), Some(est)) = (read(benchmark), read(&estimates)) else {
            return;
        };
        let fresh = match (since, fs::metadata(&estimates).and_then(|m| m.modified())) {
            (Some(since), Ok(written)) => written >= since,
            _ => true,
        };
        let (Some(id), Some(median)) = (
            meta["full_id"].as_str(),
            est["median"]["point_estimate"].as_f64(),
        ) else {
            return;
        };
        if fresh {
            self.median_ns.insert(id.to_owned(), median);
        } else {
            self.stale += 1;
        }
    }

    /// The median of one benchmark, in nanoseconds.
    pub fn get(&self, id: &str) -> Option<f64> {
        self.median_ns.get(id).copied()
    }

    /// Number of benchmarks read.
    pub fn len(&self) -> usize {
        self.median_ns.len()
    }

    /// True when no benchmark was read.
    pub fn is_empty(&self) -> bool {
        self.median_ns.is_empty()
    }

    fn ratio(&self, id: &str, base: &str) -> Option<f64> {
        Some(self.get(id)? / self.get(base)?)
    }

    fn fixtures(&self) -> Vec<&'static str> {
        FIXTURES
            .into_iter()
            .filter(|f| self.get(&format!("floor/{f}")).is_some())
            .collect()
    }
}

fn read(path: &Path) -> Option<Value> {
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

/// A duration in the largest unit that keeps it at 1 or more: `(3.41, "µs")`.
fn scaled(ns: f64) -> (f64, &'static str) {
    if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    }
}

/// A duration for humans: `812 ns`, `3.41 µs`, `27.0 ms`.
pub fn time(ns: f64) -> String {
    let (v, unit) = scaled(ns);
    if v < 10.0 {
        format!("{v:.2} {unit}")
    } else if v < 100.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

fn t(ns: Option<f64>) -> String {
    ns.map_or_else(|| "–".to_owned(), time)
}

fn x(r: Option<f64>) -> String {
    r.map_or_else(|| "–".to_owned(), |r| format!("{r:.2}×"))
}

/// `✓` when `r` meets the target `limit`, else `✗ (r / limit of the target)`.
fn verdict(r: Option<f64>, limit: f64) -> String {
    match r {
        Some(r) if r <= limit => "✓".to_owned(),
        Some(r) => format!("✗ ({:.1}× over)", r / limit),
        None => "–".to_owned(),
    }
}

/// The markdown report: one table per comparison, then the two scaling tables and the memory
/// table (when the memory bench has run).
pub fn markdown(est: &Estimates) -> String {
    // The names the benches measure under (`bench::targets`).
    let targets: Vec<&str> = crate::bench::targets().map(|(_, name)| name).collect();
    let mut out = String::new();
    let fixtures = est.fixtures();
    let w = &mut out;

    table_head(
        w,
        "### Lowering against the floor",
        Some(
            "Floor: `serde_json::from_str::<Value>` of the schema text + `serde_json::to_string` of \
             the value. Lowering: `Schema::lower` from the parsed schema. Times are per fixture \
             (every schema of it once); ratios are to the floor.",
        ),
        &[
            "fixture",
            "floor",
            "parse (`Schema::parse`)",
            "one target, median of 9",
            "one target, slowest",
            "all nine",
            "one ≤ 1×",
            "nine ≤ 5×",
        ],
    );
    for f in &fixtures {
        let floor = format!("floor/{f}");
        let mut ratios: Vec<(f64, &str)> = targets
            .iter()
            .filter_map(|t| Some((est.ratio(&format!("lower/{f}/{t}"), &floor)?, *t)))
            .collect();
        ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
        let median = ratios.get(ratios.len() / 2).map(|r| r.0);
        let worst = ratios.last().copied();
        let nine = est.ratio(&format!("lower/{f}/all-nine"), &floor);
        let _ = writeln!(
            w,
            "| {f} | {} | {} | {} | {} | {} | {} | {} |",
            t(est.get(&floor)),
            x(est.ratio(&format!("parse/{f}"), &floor)),
            x(median),
            worst.map_or_else(|| "–".to_owned(), |(r, t)| format!("{r:.2}× ({t})")),
            x(nine),
            verdict(worst.map(|w| w.0), 1.0),
            verdict(nine, 5.0),
        );
    }

    let mut columns = vec!["fixture"];
    columns.extend(&targets);
    columns.push("end to end, openai");
    table_head(w, "\n### Lowering per target (× floor)", None, &columns);
    for f in &fixtures {
        let floor = format!("floor/{f}");
        let _ = write!(w, "| {f} |");
        for t in &targets {
            let _ = write!(w, " {} |", x(est.ratio(&format!("lower/{f}/{t}"), &floor)));
        }
        let _ = writeln!(
            w,
            " {} |",
            x(est.ratio(&format!("lower/{f}/end-to-end-openai"), &floor))
        );
    }
    let _ = writeln!(
        w,
        "\nEnd to end: schema text → `Value` → `Schema::parse` → `lower(openai)` → wire text."
    );

    table_head(
        w,
        "\n### Validation against the `jsonschema` crate",
        Some(
            "Same schemas, same instances (valid and invalid), times per fixture (every instance of \
             every schema once). `jsonschema`: a `Validator` built once per schema (draft 2020-12, \
             formats not asserted, as in the subset); full errors = `iter_errors` collected. \
             Ratio = schemalect / jsonschema (below 1: schemalect faster).",
        ),
        &[
            "fixture",
            "`is_valid`",
            "jsonschema `is_valid`",
            "ratio",
            "≤ 1.0",
            "`validate`",
            "jsonschema `iter_errors`",
            "ratio",
        ],
    );
    for f in &fixtures {
        let ours = format!("is_valid/{f}/schemalect");
        let theirs = format!("is_valid/{f}/jsonschema");
        let full = format!("validate/{f}/schemalect");
        let full_theirs = format!("validate/{f}/jsonschema");
        let r = est.ratio(&ours, &theirs);
        let _ = writeln!(
            w,
            "| {f} | {} | {} | {} | {} | {} | {} | {} |",
            t(est.get(&ours)),
            t(est.get(&theirs)),
            x(r),
            verdict(r, 1.0),
            t(est.get(&full)),
            t(est.get(&full_theirs)),
            x(est.ratio(&full, &full_theirs)),
        );
    }

    table_head(
        w,
        "\n### `accept` (decode, undo reshaping, validate)",
        Some(
            "Every instance of the fixture through `Lowering::accept`: as text for `openai` \
             (decoded first), as a `Value` for `claude`; ratio to `is_valid` on the same instances.",
        ),
        &[
            "fixture",
            "openai (text)",
            "claude (value)",
            "claude ÷ `is_valid`",
        ],
    );
    for f in &fixtures {
        let claude = format!("accept/{f}/claude");
        let _ = writeln!(
            w,
            "| {f} | {} | {} | {} |",
            t(est.get(&format!("accept/{f}/openai"))),
            t(est.get(&claude)),
            x(est.ratio(&claude, &format!("is_valid/{f}/schemalect"))),
        );
    }

    table_head(
        w,
        "\n### Scaling with schema size",
        Some("A closed object of n properties (`props-n`); instance: every property set."),
        &[
            "properties",
            "floor",
            "lower openai",
            "per property",
            "all nine",
            "`is_valid`",
            "per property",
            "jsonschema `is_valid`",
        ],
    );
    for n in SCHEMA_SIZES {
        let lower = est.get(&format!("scale_schema/lower_openai/{n}"));
        let valid = est.get(&format!("scale_schema/is_valid/{n}"));
        let _ = writeln!(
            w,
            "| {n} | {} | {} | {} | {} | {} | {} | {} |",
            t(est.get(&format!("scale_schema/floor/{n}"))),
            t(lower),
            t(lower.map(|l| l / n as f64)),
            t(est.get(&format!("scale_schema/lower_all_nine/{n}"))),
            t(valid),
            t(valid.map(|v| v / n as f64)),
            t(est.get(&format!("scale_schema/jsonschema_is_valid/{n}"))),
        );
    }

    table_head(
        w,
        "\n### Scaling with instance size",
        Some("An array of n small closed objects against one schema (`items`)."),
        &[
            "items",
            "`is_valid`",
            "per item",
            "jsonschema `is_valid`",
            "`validate`",
            "jsonschema `iter_errors`",
        ],
    );
    for n in INSTANCE_SIZES {
        let valid = est.get(&format!("scale_instance/is_valid/{n}"));
        let _ = writeln!(
            w,
            "| {n} | {} | {} | {} | {} | {} |",
            t(valid),
            t(valid.map(|v| v / n as f64)),
            t(est.get(&format!("scale_instance/jsonschema_is_valid/{n}"))),
            t(est.get(&format!("scale_instance/validate/{n}"))),
            t(est.get(&format!("scale_instance/jsonschema_validate/{n}"))),
        );
    }

    if let Some(memory) = read(&memory_file()) {
        table_head(
            w,
            "\n### Memory: IR against `serde_json::Value`",
            Some(
                "Live heap bytes after `serde_json::from_str` (the `Value`) and retained by \
                 `Schema::parse` of that value (the IR), counted by a global allocator \
                 (`benches/memory.rs`).",
            ),
            &[
                "fixture",
                "schemas",
                "`Value`",
                "IR",
                "IR ÷ `Value`",
                "≤ 2×",
                "largest IR ÷ `Value` of one schema",
            ],
        );
        for row in memory["fixtures"].as_array().into_iter().flatten() {
            let ratio = row["ratio"].as_f64();
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} | {} | {} |",
                row["name"].as_str().unwrap_or("?"),
                row["schemas"],
                bytes(row["value_bytes"].as_f64()),
                bytes(row["ir_bytes"].as_f64()),
                x(ratio),
                verdict(ratio, 2.0),
                match (row["worst_ratio"].as_f64(), row["worst_case"].as_str()) {
                    (Some(r), Some(c)) => format!("{r:.2}× ({c})"),
                    _ => "–".to_owned(),
                },
            );
        }
    }
    out
}

/// A section's heading, its intro paragraph and the head of its table: the separator row is
/// derived from the columns, so the two cannot disagree.
fn table_head(w: &mut String, heading: &str, intro: Option<&str>, columns: &[&str]) {
    let _ = writeln!(w, "{heading}\n");
    if let Some(intro) = intro {
        let _ = writeln!(w, "{intro}\n");
    }
    let _ = writeln!(w, "| {} |", columns.join(" | "));
    let _ = writeln!(w, "|{}", "---|".repeat(columns.len()));
}

fn bytes(b: Option<f64>) -> String {
    match b {
        Some(b) if b >= 1e6 => format!("{:.2} MB", b / 1e6),
        Some(b) if b >= 1e3 => format!("{:.1} kB", b / 1e3),
        Some(b) => format!("{b:.0} B"),
        None => "–".to_owned(),
    }
}

/// One line of a plot: a label, a colour and `(size, nanoseconds)` points.
struct Series {
    label: &'static str,
    colour: &'static str,
    points: Vec<(f64, f64)>,
}

fn series(
    est: &Estimates,
    label: &'static str,
    colour: &'static str,
    prefix: &str,
    sizes: &[usize],
) -> Series {
    Series {
        label,
        colour,
        points: sizes
            .iter()
            .filter_map(|&n| Some((n as f64, est.get(&format!("{prefix}/{n}"))?)))
            .collect(),
    }
}

/// The scaling plot: time against schema size (left) and instance size (right), both axes
/// logarithmic, with a dotted line of slope 1 (linear growth) through the first point of the
/// first series of each panel for reference.
pub fn svg(est: &Estimates) -> String {
    let left = [
        series(
            est,
            "floor (parse + serialize)",
            "#888888",
            "scale_schema/floor",
            &SCHEMA_SIZES,
        ),
        series(
            est,
            "lower openai",
            "#1f77b4",
            "scale_schema/lower_openai",
            &SCHEMA_SIZES,
        ),
        series(
            est,
            "lower all nine",
            "#9467bd",
            "scale_schema/lower_all_nine",
            &SCHEMA_SIZES,
        ),
        series(
            est,
            "is_valid",
            "#2ca02c",
            "scale_schema/is_valid",
            &SCHEMA_SIZES,
        ),
        series(
            est,
            "jsonschema is_valid",
            "#d62728",
            "scale_schema/jsonschema_is_valid",
            &SCHEMA_SIZES,
        ),
    ];
    let right = [
        series(
            est,
            "is_valid",
            "#2ca02c",
            "scale_instance/is_valid",
            &INSTANCE_SIZES,
        ),
        series(
            est,
            "validate",
            "#17becf",
            "scale_instance/validate",
            &INSTANCE_SIZES,
        ),
        series(
            est,
            "jsonschema is_valid",
            "#d62728",
            "scale_instance/jsonschema_is_valid",
            &INSTANCE_SIZES,
        ),
        series(
            est,
            "jsonschema iter_errors",
            "#ff7f0e",
            "scale_instance/jsonschema_validate",
            &INSTANCE_SIZES,
        ),
    ];
    let (w, h) = (1000.0, 400.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    panel(
        &mut s,
        30.0,
        "Time against schema size",
        "properties",
        &left,
    );
    panel(
        &mut s,
        530.0,
        "Time against instance size",
        "array items",
        &right,
    );
    let _ = writeln!(s, "</svg>");
    s
}

fn panel(s: &mut String, x0: f64, title: &str, x_label: &str, all: &[Series]) {
    let (px, py, pw, ph) = (x0 + 60.0, 40.0, 380.0, 300.0);
    let points = all.iter().flat_map(|s| s.points.iter());
    let (mut xmin, mut xmax, mut ymin, mut ymax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        xmin = xmin.min(x);
        xmax = xmax.max(x);
        ymin = ymin.min(y);
        ymax = ymax.max(y);
    }
    if xmin > xmax {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}">no measurements</text>"#,
            px + 100.0,
            py + 100.0
        );
        return;
    }
    let (lx0, lx1) = (
        xmin.log10().floor(),
        xmax.log10().ceil().max(xmin.log10().floor() + 1.0),
    );
    let (ly0, ly1) = (
        ymin.log10().floor(),
        ymax.log10().ceil().max(ymin.log10().floor() + 1.0),
    );
    let sx = |x: f64| px + (x.log10() - lx0) / (lx1 - lx0) * pw;
    let sy = |y: f64| py + ph - (y.log10() - ly0) / (ly1 - ly0) * ph;
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="14" font-weight="bold">{title}</text>"#,
        px + pw / 2.0
    );
    let _ = writeln!(
        s,
        r##"<rect x="{px}" y="{py}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
    );
    let mut d = lx0;
    while d <= lx1 + 1e-9 {
        let x = sx(10f64.powf(d));
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{py}" x2="{x:.1}" y2="{}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
            py + ph,
            py + ph + 16.0,
            thousands(10f64.powf(d))
        );
        d += 1.0;
    }
    let mut d = ly0;
    while d <= ly1 + 1e-9 {
        let y = sy(10f64.powf(d));
        let _ = writeln!(
            s,
            r##"<line x1="{px}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            px + pw,
            px - 6.0,
            y + 4.0,
            tick(10f64.powf(d))
        );
        d += 1.0;
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{x_label} (log)</text>"#,
        px + pw / 2.0,
        py + ph + 34.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">median time (log)</text>"#,
        x0 - 4.0,
        py + ph / 2.0,
        x0 - 4.0,
        py + ph / 2.0
    );
    // Slope-1 reference through the first point of the first series that has points.
    if let Some(&(x1, y1)) = all.iter().find_map(|s| s.points.first()) {
        let x2 = xmax;
        let y2 = y1 * x2 / x1;
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#aaa" stroke-dasharray="2,4"/>"##,
            sx(x1),
            sy(y1),
            sx(x2),
            sy(y2).max(py)
        );
    }
    for (i, line) in all.iter().enumerate() {
        let pts: Vec<String> = line
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
            pts.join(" "),
            line.colour
        );
        for &(x, y) in &line.points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{}"/>"#,
                sx(x),
                sy(y),
                line.colour
            );
        }
        let ly = py + 14.0 + 16.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="2"/><text x="{}" y="{}">{}</text>"#,
            px + 8.0,
            px + 26.0,
            line.colour,
            px + 30.0,
            ly + 4.0,
            line.label
        );
    }
    let ly = py + 14.0 + 16.0 * all.len() as f64;
    let _ = writeln!(
        s,
        r##"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="#aaa" stroke-dasharray="2,4"/><text x="{}" y="{}">linear growth</text>"##,
        px + 8.0,
        px + 26.0,
        px + 30.0,
        ly + 4.0
    );
}

/// A power of ten of nanoseconds as an axis label: `100 ns`, `1 µs`, `10 ms`.
fn tick(ns: f64) -> String {
    let (v, unit) = scaled(ns);
    format!("{v:.0} {unit}")
}

fn thousands(v: f64) -> String {
    let digits = format!("{v:.0}");
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
