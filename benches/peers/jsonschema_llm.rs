//! Issue 21's Rust peer: jsonschema-llm's in-call time on the same files as schemalect's
//! whole process (`benches/peers/compare.sh` with `JSL_CORE` set; docs/benchmarks.md).
//!
//!   jsl-harness FILE_LIST [ROUNDS]
//!
//! FILE_LIST has one path per line: plain schemas, or benchmark-style files whose schema is
//! under `"schema"`. Each schema is converted by `json_schema_llm_core::convert` for its
//! OpenAI strict target (`ConvertOptions::default()`) and for its Gemini target, the two
//! targets schemalect's run lowers to. Two figures, the minimum and the median of ROUNDS
//! rounds (default 7) after a warm-up round, each timed whole with `Instant`:
//!
//! - `convert only`: the two calls per schema, the files read and parsed before the clock;
//! - `same job`: per file, read, parse, take the schema, convert for both targets, write
//!   each result's schema as JSON text.
//!
//! A conversion that errs or panics still counts its time; they are counted. The work runs
//! on a thread with a large stack, since a stack overflow cannot be caught. Not part of the
//! workspace: the script builds it in a temporary folder against the peer's source.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use json_schema_llm_core::{convert, ConvertOptions, Target};
use serde_json::Value;

#[derive(Default, Clone, Copy)]
struct Counts {
    ok: usize,
    err: usize,
    panic: usize,
}

impl Counts {
    fn add(
        &mut self,
        r: &std::thread::Result<
            Result<json_schema_llm_core::ConvertResult, json_schema_llm_core::ConvertError>,
        >,
    ) {
        match r {
            Ok(Ok(_)) => self.ok += 1,
            Ok(Err(_)) => self.err += 1,
            Err(_) => self.panic += 1,
        }
    }
}

fn pick_schema(doc: Value) -> Value {
    if let Value::Object(mut m) = doc {
        if matches!(m.get("schema"), Some(Value::Object(_) | Value::Bool(_))) {
            if let Some(s) = m.remove("schema") {
                return s;
            }
        }
        Value::Object(m)
    } else {
        doc
    }
}

fn opts_for(target: Target) -> ConvertOptions {
    let mut o = ConvertOptions::default();
    o.target = target;
    o
}

fn stats(ms: &mut Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    let min = ms[0];
    let n = ms.len();
    let med = if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    };
    (min, med)
}

/// One measure's lines: its minimum and median, and what each target's calls gave.
fn report(name: &str, (min, median): (f64, f64), (openai, gemini): (Counts, Counts)) {
    println!("{name}");
    println!("  min    {min:10.2} ms");
    println!("  median {median:10.2} ms");
    for (target, c) in [("openai-strict:", openai), ("gemini:       ", gemini)] {
        println!(
            "  {target} ok {} / errors {} / panics {}",
            c.ok, c.err, c.panic
        );
    }
}

fn real_main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: {} <file-with-paths> [rounds=7]", args[0]);
        std::process::exit(2);
    }
    let rounds: usize = args
        .get(2)
        .map(|s| s.parse().expect("rounds"))
        .unwrap_or(7)
        .max(1);
    let list = std::fs::read_to_string(&args[1]).expect("read list");
    let paths: Vec<String> = list
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();

    // Silence panic messages; panics are counted.
    std::panic::set_hook(Box::new(|_| {}));

    let openai = opts_for(Target::OpenaiStrict);
    let gemini = opts_for(Target::Gemini);

    // ---- Before the clock: read + parse everything ----
    let mut schemas: Vec<Value> = Vec::with_capacity(paths.len());
    let mut ok_paths: Vec<&str> = Vec::with_capacity(paths.len());
    let mut read_fail = 0usize;
    let mut parse_fail = 0usize;
    for p in &paths {
        let text = match std::fs::read_to_string(p) {
            Ok(t) => t,
            Err(_) => {
                read_fail += 1;
                continue;
            }
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(doc) => {
                schemas.push(pick_schema(doc));
                ok_paths.push(p.as_str());
            }
            Err(_) => parse_fail += 1,
        }
    }

    // ---- Measure 1: convert only (2 targets per schema) ----
    let run_convert = |c_o: &mut Counts, c_g: &mut Counts| {
        for s in &schemas {
            let r = catch_unwind(AssertUnwindSafe(|| convert(s, &openai)));
            c_o.add(&r);
            drop(r);
            let r = catch_unwind(AssertUnwindSafe(|| convert(s, &gemini)));
            c_g.add(&r);
            drop(r);
        }
    };
    let (mut w_o, mut w_g) = (Counts::default(), Counts::default());
    run_convert(&mut w_o, &mut w_g); // warm-up
    let mut t1 = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let (mut a, mut b) = (Counts::default(), Counts::default());
        let t = Instant::now();
        run_convert(&mut a, &mut b);
        t1.push(t.elapsed().as_secs_f64() * 1e3);
    }

    // ---- Measure 2: same job (read + parse + convert x2 + to_string x2) ----
    let run_job = |c_o: &mut Counts, c_g: &mut Counts, io_fail: &mut usize, bytes: &mut usize| {
        for p in &ok_paths {
            let text = match std::fs::read_to_string(p) {
                Ok(t) => t,
                Err(_) => {
                    *io_fail += 1;
                    continue;
                }
            };
            let doc: Value = match serde_json::from_str(&text) {
                Ok(d) => d,
                Err(_) => {
                    *io_fail += 1;
                    continue;
                }
            };
            let s = pick_schema(doc);
            for (opts, c) in [(&openai, &mut *c_o), (&gemini, &mut *c_g)] {
                let r = catch_unwind(AssertUnwindSafe(|| {
                    convert(&s, opts)
                        .map(|res| serde_json::to_string(&res.schema).unwrap_or_default())
                }));
                match r {
                    Ok(Ok(out)) => {
                        c.ok += 1;
                        *bytes += out.len();
                    }
                    Ok(Err(_)) => c.err += 1,
                    Err(_) => c.panic += 1,
                }
            }
        }
    };
    let (mut j_o, mut j_g, mut j_io, mut j_bytes) =
        (Counts::default(), Counts::default(), 0usize, 0usize);
    run_job(&mut j_o, &mut j_g, &mut j_io, &mut j_bytes); // warm-up
    let mut t2 = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let (mut a, mut b, mut io, mut by) = (Counts::default(), Counts::default(), 0usize, 0usize);
        let t = Instant::now();
        run_job(&mut a, &mut b, &mut io, &mut by);
        t2.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(by);
    }

    let (min1, med1) = stats(&mut t1);
    let (min2, med2) = stats(&mut t2);
    println!(
        "json-schema-llm-core at {}",
        option_env!("JSL_CORE").unwrap_or("(JSL_CORE not set at build time)")
    );
    println!("entry point: json_schema_llm_core::convert(&Value, &ConvertOptions) -> Result<ConvertResult, ConvertError>");
    println!("options: {openai:?}");
    println!("         {gemini:?}");
    println!(
        "files listed: {}  read failures: {}  JSON parse failures: {}  schemas: {}",
        paths.len(),
        read_fail,
        parse_fail,
        schemas.len()
    );
    println!("rounds: {} (after 1 warm-up round)", rounds);
    println!();
    report(
        &format!(
            "[convert only] 2 targets x {} schemas per round",
            schemas.len()
        ),
        (min1, med1),
        (w_o, w_g),
    );
    println!();
    report(
        "[same job] per file: read + parse + convert(openai-strict, gemini) + serde_json::to_string(result.schema)",
        (min2, med2),
        (j_o, j_g),
    );
    println!(
        "  io/parse failures during job: {}   output bytes (warm-up round): {}",
        j_io, j_bytes
    );
}

fn main() {
    // Run on a thread with a large stack so deeply nested schemas do not overflow
    // (a stack overflow aborts the process and cannot be caught by catch_unwind).
    let h = std::thread::Builder::new()
        .stack_size(512 * 1024 * 1024)
        .spawn(real_main)
        .expect("spawn");
    h.join().expect("bench thread");
}
