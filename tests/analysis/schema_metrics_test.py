#!/usr/bin/env python3
"""Every metric name a record carries is declared in results/schema/record.schema.json, with its
type and meaning: the names in every committed reference run (GPU runs, imports, peer
comparisons) and in a fresh `railgauge run quick` on this machine. A metric added by a writer
without a line in the schema fails here, naming it and the keys that wrote it. And the schema
holds a record of a known kind to that list: every committed record validates against it, and
the same record with a misspelled metric does not.

  schema_metrics_test.py RAILGAUGE_BINARY [unittest args]
"""
import collections
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = None
sys.path.insert(0, str(ROOT / "scripts"))
import validate_run  # noqa: E402

# The key prefixes the schema holds to its declared metrics (its allOf), each with a record of
# that kind: from the reference runs where they hold one, else made up here.
KNOWN_KINDS = ("gemm", "memory", "offload", "rdma", "collectives", "block", "peer", "import")


def declared():
    schema = json.loads((ROOT / "results/schema/record.schema.json").read_text())
    return set(schema["properties"]["metrics"]["properties"])


def metric_names(records_files):
    """{metric name: keys that wrote it} over the records files; unreadable lines are another
    test's business (the loaders' and the schema validation's)."""
    names = collections.defaultdict(set)
    for f in records_files:
        for line in f.read_text().splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            for name in record.get("metrics", {}):
                names[name].add(record.get("key", "?"))
    return names


class SchemaMetricsTest(unittest.TestCase):
    def assert_declared(self, names):
        missing = {n: sorted(keys)[:3] for n, keys in names.items() if n not in declared()}
        self.assertEqual(missing, {}, "metrics written but not in record.schema.json's metrics "
                         "(add each with its type, unit and meaning)")

    def test_every_metric_of_the_reference_runs_is_declared(self):
        files = sorted((ROOT / "results/reference").rglob("records.jsonl"))
        self.assertGreater(len(files), 10)
        names = metric_names(files)
        self.assertGreater(len(names), 50)
        self.assert_declared(names)

    def test_every_metric_of_a_fresh_quick_run_is_declared(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([BINARY, "run", "quick", "--out", tmp, "-q"], capture_output=True,
                               text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            names = metric_names(pathlib.Path(tmp).rglob("records.jsonl"))
            self.assertGreater(len(names), 5)
            self.assert_declared(names)

    def test_every_record_of_the_reference_runs_validates(self):
        check = record_validator()
        problems, count = [], 0
        for f in sorted((ROOT / "results/reference").rglob("records.jsonl")):
            found, n = validate_run.validate_records(f, check)
            problems += found
            count += n
        self.assertGreater(count, 1000)
        self.assertEqual(problems[:20], [])

    def test_a_misspelled_metric_is_refused_on_every_known_kind(self):
        check = record_validator()
        examples = reference_record_of_each_kind()
        examples.setdefault("rdma", made_up_record("rdma.write_lat", {"verified": True}))
        self.assertEqual(sorted(examples), sorted(KNOWN_KINDS))  # the list above is the schema's
        for kind, record in sorted(examples.items()):
            self.assertEqual(errors_of(check, record), [], kind)
            name = next(iter(record["metrics"]))
            wrong = json.loads(json.dumps(record))
            wrong["metrics"][name + "x"] = wrong["metrics"].pop(name)  # tflops -> tflopsx
            self.assertEqual(errors_of(check, wrong),
                             [f"Unevaluated properties are not allowed ('{name}x' was "
                              "unexpected)"], kind)
            wrong["key"] = "fake." + kind  # a kind the schema does not know keeps its names
            self.assertEqual(errors_of(check, wrong), [], kind)


def record_validator():
    schemas, store = validate_run.load_schemas()
    return validate_run.validator("record", schemas, store)


def errors_of(check, record):
    return [e.message for e in check.iter_errors(record)]


def made_up_record(key, metrics):
    return {"schema": "railgauge.record/1", "run": "r", "host": "h", "rank": 0, "key": key,
            "params": {}, "device": {}, "metrics": metrics, "status": "ok", "reason": None,
            "time_utc": "2026-11-27T00:00:00Z"}


def reference_record_of_each_kind():
    """{kind: the first committed ok record of that kind with a metric}."""
    out = {}
    for f in sorted((ROOT / "results/reference").rglob("records.jsonl")):
        for line in f.read_text().splitlines():
            record = json.loads(line)
            kind = record["key"].split(".", 1)[0]
            if kind not in out and record["status"] == "ok" and record["metrics"]:
                out[kind] = record
    return out


if __name__ == "__main__":
    BINARY = sys.argv[1]
    unittest.main(argv=[sys.argv[0], *sys.argv[2:]])
