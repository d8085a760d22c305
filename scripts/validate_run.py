#!/usr/bin/env python3
"""Validates railgauge run directories against the JSON Schemas in results/schema/.

    validate_run.py RUN_DIR [RUN_DIR ...]

Checks run.json against run.schema.json (with the inventory it embeds) and every line of
records.jsonl against record.schema.json. Prints one line per problem with file:line and exits
1 when there is any, 0 otherwise. Needs the `jsonschema` module (Debian: python3-jsonschema).
"""
import json
import pathlib
import sys

import jsonschema

SCHEMA_DIR = pathlib.Path(__file__).resolve().parent.parent / "results" / "schema"


def load_schemas(schema_dir=SCHEMA_DIR):
    """Returns {file stem: schema} and a resolver that knows every schema by its $id."""
    schemas = {}
    for path in sorted(schema_dir.glob("*.schema.json")):
        schemas[path.name.removesuffix(".schema.json")] = json.loads(path.read_text())
    store = {s["$id"]: s for s in schemas.values() if "$id" in s}
    return schemas, store


def validator(name, schemas, store):
    schema = schemas[name]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    return cls(schema, resolver=resolver)


def validate_records(path, record_validator):
    """Yields 'path:line: problem' for every invalid line; returns the number of records."""
    problems, count = [], 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            if not line.endswith("\n"):
                problems.append(f"{where}: last line is not terminated (truncated write)")
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"{where}: not JSON: {e}")
                continue
            for error in record_validator.iter_errors(record):
                problems.append(f"{where}: {'/'.join(map(str, error.path))}: {error.message}")
            count += 1
    return problems, count


def validate_run_dir(run_dir, require_complete=True):
    schemas, store = load_schemas()
    run_dir = pathlib.Path(run_dir)
    problems = []
    manifest_path = run_dir / "run.json"
    manifest = json.loads(manifest_path.read_text())
    for error in validator("run", schemas, store).iter_errors(manifest):
        problems.append(f"{manifest_path}: {'/'.join(map(str, error.path))}: {error.message}")
    if require_complete and manifest.get("status") != "complete":
        problems.append(f"{manifest_path}: status is {manifest.get('status')!r}, not 'complete'")
    record_problems, count = validate_records(run_dir / "records.jsonl",
                                              validator("record", schemas, store))
    problems += record_problems
    return problems, count


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for run_dir in argv[1:]:
        problems, count = validate_run_dir(run_dir, require_complete=False)
        for p in problems:
            print(p)
        bad += len(problems)
        print(f"{run_dir}: {count} records, {len(problems)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
