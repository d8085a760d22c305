#!/usr/bin/env python3
"""The Slurm prolog deploy/slurm/railgauge-prolog.sh, run as slurmd runs it (SLURMD_NODENAME set),
with the real railgauge and a stand-in `scontrol` that writes down what it was asked: a node whose
inventory fails the profile is drained by the prolog itself with railgauge's first finding as the
reason (Slurm's own reason would be "Prolog error"), also when railgauge judged nothing; a node
that passes is left alone. The Slurm tier (scripts/slurm_ci.sh) runs it under a real slurmd.

    slurm_prolog_test.py RAILGAUGE_BINARY SOURCE_DIR [SlurmPrologTest.test_name ...]
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = SOURCE = None  # set from argv

IMPOSSIBLE = """schema: railgauge.rules/1
name: numa-impossible
rules:
  - id: numa-nodes-impossible
    description: More NUMA nodes than any host has, so that the check fails.
    category: health
    severity: fail
    inventory: node.numa_node_count
    compare: ">="
    value: 1000
"""


class SlurmPrologTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        fake = self.dir / "bin"
        fake.mkdir()
        (fake / "scontrol").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {self.dir}/scontrol\n')
        (fake / "scontrol").chmod(0o755)
        self.path = f"{fake}:{os.environ['PATH']}"

    def tearDown(self):
        self.tmp.cleanup()

    def prolog(self, rules):
        env = dict(os.environ, PATH=self.path, RAILGAUGE=BINARY, RAILGAUGE_PROLOG_RULES=rules,
                   RAILGAUGE_PROLOG_LOG=str(self.dir / "log" / "prolog.log"),
                   SLURMD_NODENAME="n7", SLURM_JOB_ID="42")
        r = subprocess.run(["sh", str(pathlib.Path(SOURCE) / "deploy" / "slurm" /
                                      "railgauge-prolog.sh")],
                           capture_output=True, text=True, env=env, timeout=120)
        asked = self.dir / "scontrol"
        return r.returncode, asked.read_text().splitlines() if asked.exists() else None

    def test_a_failing_inventory_drains_the_node_with_the_first_finding(self):
        rules = self.dir / "impossible.yaml"
        rules.write_text(IMPOSSIBLE)
        status, asked = self.prolog(str(rules))
        self.assertEqual(status, 1)
        self.assertEqual(asked[:3], ["update", "nodename=n7", "state=drain"])
        self.assertEqual(asked[3], f"reason=railgauge prolog (exit 2, {rules}): FAIL "
                         "numa-nodes-impossible: n7 node: node.numa_node_count "
                         "(summary.numa_nodes) = 1, needs >= 1000")
        log = (self.dir / "log" / "prolog.log").read_text()
        self.assertIn(" n7 job 42: railgauge prolog (exit 2", log)
        self.assertIn("drain: n7", log)  # the whole check is kept beside the reason

    def test_a_check_that_judged_nothing_drains_with_railgauge_s_own_line(self):
        status, asked = self.prolog("no-such-profile")
        self.assertEqual(status, 1)
        self.assertEqual(asked[3], "reason=railgauge prolog (exit 4, no-such-profile): railgauge: "
                         "error: no-such-profile: no rules named 'no-such-profile'")

    def test_a_passing_node_runs_the_job_untouched(self):
        status, asked = self.prolog("host-only")
        self.assertEqual(status, 0)
        self.assertIsNone(asked, "scontrol was called on a node that passed")


if __name__ == "__main__":
    BINARY, SOURCE = sys.argv[1], sys.argv[2]
    run_named_tests(sys.argv[3:])
