#!/usr/bin/env python3
"""Checks that the Rust oracle (tests/support/oracle.rs) is at least as strict as the Python
harness (shared/tools/harness.py) on real wires: whatever the harness refuses or rejects, the
Rust oracle refuses or rejects too.

    SCHEMALECT_WIDENING_DUMP=/tmp/wires.ndjson cargo test --test widening corpus_replay
    python3 tests/regressions/harness_crosscheck.py /tmp/wires.ndjson ../shared/tools/harness.py

Prints the first differences and a count; exits 1 when the harness is stricter anywhere.
"""
import importlib.util, json, sys

dump, harness_path = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location('harness', harness_path)
h = importlib.util.module_from_spec(spec)
spec.loader.exec_module(h)

lines = stricter = oracle_stricter = 0
for ln in open(dump):
    d = json.loads(ln)
    lines += 1
    t, wire = d['target'], d['wire']
    refused = bool(h.provider_problems(t, wire))
    T = None
    if not refused:
        try:
            T = h.decoder_language(t, wire)
            v = h.validator(T) if T is not True else None
        except Exception:
            refused = True
    if refused:
        if not d['refused']:
            stricter += 1
            if stricter <= 5:
                print(f"{d['file']} {t}: harness refuses, Rust oracle accepts the wire {json.dumps(wire)[:300]}")
        continue
    if d['refused']:
        oracle_stricter += 1
        continue
    for x, mine in zip(d['data'], d['accepts']):
        theirs = v is None or v.is_valid(x)
        if mine and not theirs:
            stricter += 1
            if stricter <= 5:
                print(f"{d['file']} {t}: harness rejects {json.dumps(x)[:200]}, Rust oracle accepts it; wire {json.dumps(wire)[:300]}")
        elif theirs and not mine:
            oracle_stricter += 1
print(f'{lines} wires: harness stricter in {stricter} verdicts, Rust oracle stricter in {oracle_stricter}')
sys.exit(1 if stricter else 0)
