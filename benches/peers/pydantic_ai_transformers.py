#!/usr/bin/env python3
"""Times pydantic-ai's own schema transformers on a list of schema files (issue 21's peer run).

  python3 pydantic_ai_transformers.py FILE_LIST [ROUNDS]

FILE_LIST has one path per line: plain schemas, or benchmark-style files whose schema is under
`"schema"` (JSONSchemaBench). Each schema goes through the two transformers pydantic-ai applies
before a request, as it applies them (detect mode, `strict=None`):
`OpenAIJsonSchemaTransformer(schema).walk()` and `GoogleJsonSchemaTransformer(schema).walk()`.

Two figures, each the CPU time of this process (`time.process_time_ns`) for the whole list, the
minimum and the median of ROUNDS rounds (default 7), after one warm-up round:

- `transformers`: the two `walk()` calls per schema only, the files read and decoded before the
  clock starts;
- `same job`: what `schemalect lower --format json --target openai,gemini` does per file: read
  it, decode it, take its schema, run both transformers, encode both results as JSON text.

Neither counts the interpreter's start or the imports, which schemalect's whole-process figure
beside them does count. Needs `pip install pydantic-ai-slim` (no model client is used; nothing
is sent anywhere).
"""
import json
import statistics
import sys
import time

from pydantic_ai import __version__ as pydantic_ai_version
from pydantic_ai.profiles.google import GoogleJsonSchemaTransformer
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer


def schema_of(doc):
    if isinstance(doc, dict) and isinstance(doc.get('schema'), (dict, bool)):
        return doc['schema']
    return doc


def transform(schema, failed):
    out = []
    for name, make in (
        ('openai', lambda: OpenAIJsonSchemaTransformer(schema, strict=None)),
        ('google', lambda: GoogleJsonSchemaTransformer(schema)),
    ):
        try:
            out.append(make().walk())
        except Exception:  # a schema the transformer cannot walk still cost its time
            failed[name] += 1
    return out


def transformers_round(schemas):
    failed = {'openai': 0, 'google': 0}
    start = time.process_time_ns()
    for s in schemas:
        transform(s, failed)
    return (time.process_time_ns() - start) / 1e6, failed


def same_job_round(paths):
    failed = {'openai': 0, 'google': 0}
    written = 0
    start = time.process_time_ns()
    for path in paths:
        with open(path) as f:
            schema = schema_of(json.load(f))
        if isinstance(schema, dict):
            for wire in transform(schema, failed):
                written += len(json.dumps(wire))
    return (time.process_time_ns() - start) / 1e6, failed


def summary(name, times, failed, n):
    return (
        f'{name}: {n} schemas x 2 transformers, {len(times)} rounds: min {min(times):.1f} ms, '
        f'median {statistics.median(times):.1f} ms (raised: openai {failed["openai"]}, '
        f'google {failed["google"]})'
    )


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    with open(sys.argv[1]) as fh:
        paths = [line.strip() for line in fh if line.strip()]
    schemas = []
    for path in paths:
        with open(path) as f:
            s = schema_of(json.load(f))
        if isinstance(s, dict):
            schemas.append(s)
    print(f'pydantic-ai {pydantic_ai_version}, Python {sys.version.split()[0]}')
    for name, run, arg in (
        ('transformers', transformers_round, schemas),
        ('same job', same_job_round, paths),
    ):
        run(arg)  # warm-up
        times, failed = [], None
        for _ in range(rounds):
            ms, failed = run(arg)
            times.append(ms)
        print(summary(name, times, failed, len(schemas)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
