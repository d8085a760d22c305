#!/usr/bin/env python3
"""Every metric name a record carries is declared in results/schema/record.schema.json, with its
type and meaning: the names in every committed reference run (GPU runs, imports, peer
comparisons) and in a fresh `railgauge run quick` on this machine. A metric added by a writer
without a line in the schema fails here, naming it and the keys that wrote it.

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


if __name__ == "__main__":
    BINARY = sys.argv[1]
    unittest.main(argv=[sys.argv[0], *sys.argv[2:]])
