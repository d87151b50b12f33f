#!/usr/bin/env bash
# Issue 21's peer run: schemalect's whole process against pydantic-ai's transformers, on the same
# files, in one run (docs/benchmarks.md, "Against pydantic-ai's transformers").
#
#   benches/peers/compare.sh [CORPUS_DIR]        (default ../shared/corpus/jsonschemabench)
#   JSL_CORE=/path/to/json-schema-llm-core benches/peers/compare.sh
#
# Needs hyperfine and a Python with pydantic-ai-slim (`PYTHON=/path/to/python`, default python3).
# The files are those of CORPUS_DIR inside the ADR-126 subset (as `schemalect lint` says). One
# `schemalect lower --format json --target openai,gemini` process lowers them all (conservative
# profile, the default), timed whole by hyperfine with `--jobs 1` and with every core; then
# benches/peers/pydantic_ai_transformers.py runs pydantic-ai's OpenAI and Google transformers
# on the same schemas in one Python process. Three alternating rounds, so that both see the
# same machine. Each round also times the floor of any whole-process run over the files:
# reading them and checking them as JSON, nothing built (benches/peers/floor.rs), and ends
# with the round's ratios: pydantic-ai's median over schemalect's mean on every core, and
# minimum over minimum.
#
# With JSL_CORE set to a checkout of the Rust peer jsonschema-llm's core crate (its
# `crates/json-schema-llm-core`; it is on no registry), each round also times that crate's
# `convert` for its OpenAI strict and Gemini targets on the same schemas in one process
# (benches/peers/jsonschema_llm.rs, built here against JSL_CORE in a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=${1:-../shared/corpus/jsonschemabench}
python=${PYTHON:-python3}
cargo build --release -q -p schemalect-cli
s=target/release/schemalect
# The in-subset files are copied into one folder, which both sides then read: a list of
# thousands of paths does not fit in one command-line argument of hyperfine's.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/files"
"$s" --no-config lint --format json --target openai "$corpus" 2>/dev/null |
    "$python" -c 'import json, os, shutil, sys
out = sys.argv[1]
for line in sys.stdin:
    d = json.loads(line)
    if d.get("in_subset"):
        dest = os.path.join(out, "files", os.path.basename(d["file"]))
        shutil.copyfile(d["file"], dest)
        print(dest)' "$work" | sort -u > "$work/list" || true
files=$work/files
# A program of benches/peers built on its own, outside the workspace, in $work/NAME:
# `harness NAME SOURCE DEPENDENCY_LINE...` prints the path of the built binary.
harness() {
    local name=$1 source=$2
    shift 2
    mkdir -p "$work/$name/src"
    cp "$source" "$work/$name/src/main.rs"
    {
        printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n' "$name"
        printf '[dependencies]\n'
        printf '%s\n' "$@"
        printf '\n[workspace]\n'
    } > "$work/$name/Cargo.toml"
    cargo build --release -q --manifest-path "$work/$name/Cargo.toml" \
        --target-dir "$work/$name/target" || return
    echo "$work/$name/target/release/$name"
}
# The floor (benches/peers/floor.rs): read every file and check it as JSON, nothing built, on
# every core, with schemalect's allocator and serde_json features.
floor=$(harness floor benches/peers/floor.rs 'serde = "1"' \
    'serde_json = { version = "1", features = ["preserve_order"] }' \
    'mimalloc = { version = "0.1.52", default-features = false, features = ["no_thp"] }')
jsl=
if [ -n "${JSL_CORE:-}" ]; then
    core=$(cd "$JSL_CORE" && pwd)
    jsl=$(JSL_CORE=$core harness jsl-harness benches/peers/jsonschema_llm.rs \
        "json-schema-llm-core = { path = \"$core\" }" 'serde_json = "1"')
fi
echo "$(wc -l < "$work/list") files in the subset; $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo)"
for round in 1 2 3; do
    echo "--- round $round: $(uptime)"
    hyperfine -N -i --warmup 2 --runs 20 --style basic --output null \
        --command-name "schemalect --jobs 1" \
        "$s --no-config lower --format json --target openai,gemini --jobs 1 $files" \
        --command-name "schemalect (every core)" \
        "$s --no-config lower --format json --target openai,gemini $files" \
        --command-name "floor: read and check every file as JSON (every core)" \
        "$floor $files" --export-json "$work/round.json" 2>&1 |
        grep -E "^Benchmark|Time|Range"
    "$python" benches/peers/pydantic_ai_transformers.py "$work/list" 7 | tee "$work/peer.txt"
    # The round's ratios, as issue 21 states its target: pydantic-ai's median against
    # schemalect's mean on every core, and minimum against minimum.
    "$python" - "$work/round.json" "$work/peer.txt" <<'RATIOS'
import json, re, sys
runs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
ours = runs["schemalect (every core)"]
mean, least = ours["mean"] * 1e3, ours["min"] * 1e3
text = open(sys.argv[2]).read()
for name in ("transformers", "same job"):
    m = re.search(rf"^{name}: .*min ([0-9.]+) ms, median ([0-9.]+) ms", text, re.M)
    if m:
        print(f"{name} against schemalect (every core): {float(m[2]) / mean:.1f}x "
              f"(median / mean), {float(m[1]) / least:.1f}x (minimum / minimum)")
RATIOS
    if [ -n "$jsl" ]; then
        "$jsl" "$work/list" 7
    fi
done
