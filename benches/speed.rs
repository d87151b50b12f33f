//! Speed of schemalect, and its ratios to the floor and to the `jsonschema` crate, in one run.
//!
//! Groups (criterion ids `group/fixture/variant`):
//! - `floor`: one `serde_json` parse of the schema text and one serialisation of the value, the
//!   cost any gateway pays to forward a schema at all;
//! - `parse`: `Schema::parse` of the value, and from the text (through a `Value`, and
//!   `Schema::from_json_str`, through a borrowed tree);
//! - `lower`: `Schema::lower` for each of the nine targets, for all nine in a row, and end to end
//!   (text → `Value` → `Schema` → lowering → wire text) for OpenAI;
//! - `is_valid` and `validate`: schemalect against a `jsonschema::Validator` of the same schema,
//!   on the same instances;
//! - `accept`: decode, undo reshaping and validate a provider answer;
//! - `scale_schema` and `scale_instance`: time against schema size and instance size.
//!
//! After a `cargo bench` run the report (`tests/support/bench_report.rs`) prints the ratio tables
//! from the estimates this run wrote. `SCHEMALECT_BENCH_QUICK=1` shortens every measurement so the
//! whole run fits in a few minutes on two cores (docs/benchmarks.md).

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use schemalect::{LowerOptions, Schema, Target};
use serde_json::Value;
use std::hint::black_box;
use std::time::{Duration, SystemTime};
use support::bench::{self, Case, Fixture};
use support::bench_report::{self, Estimates, INSTANCE_SIZES, SCHEMA_SIZES};

/// A case ready to measure: the schema parsed by both validators.
struct Prepared<'a> {
    case: &'a Case,
    schema: Schema,
    theirs: jsonschema::Validator,
}

fn prepare(fixture: &Fixture) -> Vec<Prepared<'_>> {
    let mut disagreements = 0;
    let prepared: Vec<Prepared<'_>> = fixture
        .cases
        .iter()
        .map(|case| {
            let schema = Schema::parse(&case.value)
                .unwrap_or_else(|e| panic!("{}: out of the subset: {e}", case.name));
            let theirs = jsonschema_validator(&case.value);
            for i in &case.instances {
                if schema.is_valid(&i.value) != theirs.is_valid(&i.value) {
                    disagreements += 1;
                }
            }
            Prepared {
                case,
                schema,
                theirs,
            }
        })
        .collect();
    if disagreements > 0 {
        eprintln!(
            "notice: {}: schemalect and jsonschema disagree on {disagreements} instances \
             (deviations documented in tests/expectations); both still validate all of them",
            fixture.name
        );
    }
    prepared
}

/// The `jsonschema` crate's validator with the subset's semantics: draft 2020-12 whatever the
/// document says, formats as annotations.
fn jsonschema_validator(schema: &Value) -> jsonschema::Validator {
    support::oracle::compile(schema).expect("the jsonschema crate compiles every fixture")
}

fn config() -> Criterion {
    let quick = std::env::var_os("SCHEMALECT_BENCH_QUICK").is_some_and(|v| v != "0");
    // No criterion plots: drawing them takes longer than measuring on a loaded 2-core machine,
    // and the report draws the one plot that matters (docs/benchmarks-scaling.svg).
    let c = Criterion::default().without_plots();
    let c = if quick {
        c.warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(500))
            .sample_size(10)
            .nresamples(5_000)
    } else {
        c.warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_millis(1_500))
            .sample_size(20)
            .nresamples(20_000)
    };
    c.configure_from_args()
}

/// A group with flat sampling: every sample runs the same number of iterations, so a slow
/// benchmark (lowering 10,000 properties to nine targets) costs `sample_size` iterations rather
/// than the `n(n+1)/2` of linear sampling, which keeps the whole run within minutes.
fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sampling_mode(SamplingMode::Flat);
    g
}

fn bench_fixture(c: &mut Criterion, fixture: &Fixture) {
    let prepared = prepare(fixture);
    let name = fixture.name.as_str();
    let options = LowerOptions::default();

    let mut g = group(c, "floor");
    g.bench_function(name, |b| {
        b.iter(|| {
            for p in &prepared {
                let v: Value = serde_json::from_str(black_box(&p.case.text)).expect("schema text");
                black_box(serde_json::to_string(&v).expect("serialisable"));
            }
        })
    });
    g.finish();
    let mut g = group(c, "parse");
    g.bench_function(name, |b| {
        b.iter(|| {
            for p in &prepared {
                black_box(Schema::parse(black_box(&p.case.value)).expect("in subset"));
            }
        })
    });
    // From text, as a gateway receives a schema: read into a `Value` and parsed, against
    // `Schema::from_json_str`, which reads the text into a borrowed tree instead.
    g.bench_function(BenchmarkId::new(name, "text-via-value"), |b| {
        b.iter(|| {
            for p in &prepared {
                let v: Value = serde_json::from_str(black_box(&p.case.text)).expect("schema text");
                black_box(Schema::parse(&v).expect("in subset"));
            }
        })
    });
    let parse_options = schemalect::subset::ParseOptions::default();
    g.bench_function(BenchmarkId::new(name, "text"), |b| {
        b.iter(|| {
            for p in &prepared {
                let text = black_box(&p.case.text);
                black_box(Schema::from_json_str(text, &parse_options).expect("in subset"));
            }
        })
    });
    // As a first parse: no compiled pattern kept from an earlier one (`pattern::programs`).
    g.bench_function(BenchmarkId::new(name, "cold-patterns"), |b| {
        b.iter(|| {
            schemalect::pattern::programs::clear();
            for p in &prepared {
                black_box(Schema::parse(black_box(&p.case.value)).expect("in subset"));
            }
        })
    });
    g.finish();

    let mut g = group(c, "lower");
    for (target, tname) in bench::targets() {
        g.bench_function(BenchmarkId::new(name, tname), |b| {
            b.iter(|| {
                for p in &prepared {
                    black_box(p.schema.lower(target, &options));
                }
            })
        });
    }
    g.bench_function(BenchmarkId::new(name, "all-nine"), |b| {
        b.iter(|| {
            for p in &prepared {
                for target in Target::ALL {
                    black_box(p.schema.lower(target, &options));
                }
            }
        })
    });
    g.bench_function(BenchmarkId::new(name, "end-to-end-openai"), |b| {
        b.iter(|| {
            for p in &prepared {
                let v: Value = serde_json::from_str(black_box(&p.case.text)).expect("schema text");
                let schema = Schema::parse(&v).expect("in subset");
                let plan = schema.lower(Target::OpenAi, &options);
                black_box(serde_json::to_string(plan.wire()).expect("serialisable"));
            }
        })
    });
    g.finish();

    let instances = fixture.instance_count() as u64;
    let mut g = group(c, "is_valid");
    g.throughput(Throughput::Elements(instances));
    g.bench_function(BenchmarkId::new(name, "schemalect"), |b| {
        b.iter(|| {
            for p in &prepared {
                for i in &p.case.instances {
                    black_box(p.schema.is_valid(black_box(&i.value)));
                }
            }
        })
    });
    g.bench_function(BenchmarkId::new(name, "jsonschema"), |b| {
        b.iter(|| {
            for p in &prepared {
                for i in &p.case.instances {
                    black_box(p.theirs.is_valid(black_box(&i.value)));
                }
            }
        })
    });
    g.finish();

    let mut g = group(c, "validate");
    g.throughput(Throughput::Elements(instances));
    g.bench_function(BenchmarkId::new(name, "schemalect"), |b| {
        b.iter(|| {
            for p in &prepared {
                for i in &p.case.instances {
                    black_box(p.schema.validate(black_box(&i.value)).is_ok());
                }
            }
        })
    });
    g.bench_function(BenchmarkId::new(name, "jsonschema"), |b| {
        b.iter(|| {
            for p in &prepared {
                for i in &p.case.instances {
                    let errors: Vec<_> = p.theirs.iter_errors(black_box(&i.value)).collect();
                    black_box(errors);
                }
            }
        })
    });
    g.finish();

    let plans: Vec<_> = prepared
        .iter()
        .map(|p| {
            (
                p,
                p.schema.lower(Target::OpenAi, &options),
                p.schema.lower(Target::Claude, &options),
            )
        })
        .collect();
    let mut g = group(c, "accept");
    g.throughput(Throughput::Elements(instances));
    g.bench_function(BenchmarkId::new(name, "openai"), |b| {
        b.iter(|| {
            for (p, openai, _) in &plans {
                for i in &p.case.instances {
                    black_box(openai.accept(black_box(i.text.as_str())).is_ok());
                }
            }
        })
    });
    g.bench_function(BenchmarkId::new(name, "claude"), |b| {
        b.iter(|| {
            for (p, _, claude) in &plans {
                for i in &p.case.instances {
                    black_box(claude.accept(black_box(&i.value)).is_ok());
                }
            }
        })
    });
    g.finish();
}

fn bench_scaling(c: &mut Criterion) {
    let options = LowerOptions::default();
    let mut g = group(c, "scale_schema");
    for n in SCHEMA_SIZES {
        let case = bench::stress_properties_case(n);
        let schema = Schema::parse(&case.value).expect("in subset");
        let theirs = jsonschema_validator(&case.value);
        let full = &case.instances[0].value;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("floor", n), &case.text, |b, text| {
            b.iter(|| {
                let v: Value = serde_json::from_str(text).expect("schema text");
                black_box(serde_json::to_string(&v).expect("serialisable"))
            })
        });
        g.bench_with_input(BenchmarkId::new("lower_openai", n), &schema, |b, s| {
            b.iter(|| black_box(s.lower(Target::OpenAi, &options)))
        });
        g.bench_with_input(BenchmarkId::new("lower_all_nine", n), &schema, |b, s| {
            b.iter(|| {
                for target in Target::ALL {
                    black_box(s.lower(target, &options));
                }
            })
        });
        g.bench_with_input(BenchmarkId::new("is_valid", n), full, |b, v| {
            b.iter(|| black_box(schema.is_valid(v)))
        });
        g.bench_with_input(BenchmarkId::new("jsonschema_is_valid", n), full, |b, v| {
            b.iter(|| black_box(theirs.is_valid(v)))
        });
    }
    g.finish();

    let items = bench::items_schema();
    let schema = Schema::parse(&items).expect("in subset");
    let theirs = jsonschema_validator(&items);
    let mut g = group(c, "scale_instance");
    for n in INSTANCE_SIZES {
        let instance = bench::items_instance(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("is_valid", n), &instance, |b, v| {
            b.iter(|| black_box(schema.is_valid(v)))
        });
        g.bench_with_input(
            BenchmarkId::new("jsonschema_is_valid", n),
            &instance,
            |b, v| b.iter(|| black_box(theirs.is_valid(v))),
        );
        g.bench_with_input(BenchmarkId::new("validate", n), &instance, |b, v| {
            b.iter(|| black_box(schema.validate(v).is_ok()))
        });
        g.bench_with_input(
            BenchmarkId::new("jsonschema_validate", n),
            &instance,
            |b, v| {
                b.iter(|| {
                    let errors: Vec<_> = theirs.iter_errors(v).collect();
                    black_box(errors)
                })
            },
        );
    }
    g.finish();
}

fn main() {
    let started = SystemTime::now();
    // `cargo bench` passes `--bench`; `cargo test --benches` does not, and criterion then runs
    // each benchmark once as a test: no estimates, so no report.
    let measuring = std::env::args().any(|a| a == "--bench");
    let mut c = config();
    for fixture in bench::fixtures() {
        bench_fixture(&mut c, &fixture);
    }
    bench_scaling(&mut c);
    c.final_summary();
    if measuring {
        let est = Estimates::load(&bench_report::criterion_dir(), Some(started));
        if est.is_empty() {
            return;
        }
        println!("\n## Report ({} benchmarks of this run)\n", est.len());
        println!("{}", bench_report::markdown(&est));
        if est.stale > 0 {
            println!(
                "({} older results left out: the ratios compare this run only.)",
                est.stale
            );
        }
    }
}
