//! Prints the ratio tables of the last `cargo bench` run again (from criterion's estimates on
//! disk) and, with `--svg PATH`, writes the scaling plot there:
//!
//! ```sh
//! cargo run --release --example bench_report -- --svg docs/benchmarks-scaling.svg
//! ```
//!
//! The speed bench prints the same tables at the end of its run; this re-prints them without
//! measuring again, e.g. to update `docs/benchmarks.md`.

use support::bench_report::{self, Estimates};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = bench_report::criterion_dir();
    let est = Estimates::load(&dir, None);
    if est.is_empty() {
        eprintln!(
            "no criterion estimates under {}: run `cargo bench` first",
            dir.display()
        );
        std::process::exit(1);
    }
    println!("{}", bench_report::markdown(&est));
    if let Some(i) = args.iter().position(|a| a == "--svg") {
        let Some(path) = args.get(i + 1) else {
            eprintln!("--svg needs a path");
            std::process::exit(2);
        };
        if let Err(e) = std::fs::write(path, bench_report::svg(&est)) {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
        eprintln!("wrote {path}");
    }
}
