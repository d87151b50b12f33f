#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/ (not committed).

Seeds: the repository's corpus/ (schemas and answers), plus, when the shared corpora are
present beside the repository (../shared/corpus), schemas and labelled instances from
JSONSchemaBench and the official 2020-12 suite. Usage: python3 fuzz/seed.py [max-per-source]
"""
import glob, hashlib, json, os, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
limit = int(sys.argv[1]) if len(sys.argv) > 1 else 600
out = os.path.join(root, "fuzz", "corpus")

def put(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def enc(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()

pairs = []  # (schema, instance)
schemas = []
patterns = []

# The repository's own corpus: *.schema.json beside answers *.json.
for path in sorted(glob.glob(os.path.join(root, "corpus", "**", "*.json"), recursive=True)):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".schema.json"):
        schemas.append(json.loads(data))
        stem = path[: -len(".schema.json")]
        for answer in glob.glob(stem + "*.json"):
            if answer != path:
                with open(answer) as g:
                    pairs.append((json.loads(data), json.load(g)))

shared = os.path.join(os.path.dirname(root), "shared", "corpus")
if not os.path.isdir(shared):
    shared = "/work/shared/corpus"
bench = sorted(glob.glob(os.path.join(shared, "jsonschemabench", "*.json")))
step = max(1, len(bench) // limit)
for path in bench[::step]:
    try:
        doc = json.load(open(path))
    except Exception:
        continue
    s = doc.get("schema")
    if len(enc(s)) > 16384:
        continue
    schemas.append(s)
    for t in doc.get("tests", [])[:2]:
        pairs.append((s, t.get("data")))

for path in sorted(glob.glob(os.path.join(shared, "json-schema-test-suite", "tests", "draft2020-12", "*.json"))):
    for group in json.load(open(path)):
        schemas.append(group["schema"])
        for t in group["tests"][:2]:
            pairs.append((group["schema"], t["data"]))

def walk_patterns(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "pattern" and isinstance(x, str):
                patterns.append(x)
            walk_patterns(x)
    elif isinstance(v, list):
        for x in v:
            walk_patterns(x)

for s in schemas:
    put("parse", enc(s))
    put("lower", enc(s))
    walk_patterns(s)
for s, i in pairs:
    put("validate", enc(s) + b"\0" + enc(i))
    put("accept", enc(s) + b"\0" + enc(i))
for p in patterns:
    put("pattern", p.encode() + b"\0" + b"abc-123 XYZ_\xc3\xa9")
for t in ["parse", "validate", "lower", "accept", "pattern"]:
    print(t, len(os.listdir(os.path.join(out, t))))
