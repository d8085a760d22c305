#!/usr/bin/env python3
"""Group splits through the command line under mpirun (label mpi): `--groups tp=2,dp=rest` runs
each group type alone on 4 ranks, and a split that -a's ',' cut in two is an error record that
says how to write it, never a world point labelled with half a split.

Run by CTest:  cli_groups_test.py MPIRUN RAILGAUGE TestName.test_name
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

MPIRUN = RAILGAUGE = None  # set from argv
RANKS = 4


def records_of(out):
    """Rank 0's records of the run under `out`."""
    records = []
    for path in pathlib.Path(out).glob("*/rank-00000/records.jsonl"):
        with open(path) as f:
            records += [json.loads(line) for line in f if line.strip()]
    return records


def run(out, *args):
    cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", str(RANKS), RAILGAUGE,
           "collectives", "--filter", "collectives.mpi_all_reduce", "-a", "size_bytes=4KiB",
           "-a", "in_place=out_of_place", "-a", "iterations=5", "-a", "warmup=1", "--out",
           str(out), "-q", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240)


class GroupsTest(unittest.TestCase):
    def test_groups_option_runs_each_group_type(self):
        with tempfile.TemporaryDirectory(prefix="railgauge-groups-") as tmp:
            p = run(tmp, "--groups", "tp=2,dp=rest")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            records = records_of(tmp)
            self.assertTrue(records)
            types = sorted({r["params"]["group_type"] for r in records})
            self.assertEqual(types, ["dp", "tp"])
            for r in records:
                self.assertEqual(r["status"], "ok", r.get("reason"))
                self.assertEqual(r["params"]["groups"], "tp=2+dp=rest")
                self.assertEqual(r["params"]["group_size"], 2)
                self.assertEqual(r["params"]["group_hosts"], 1)  # all 4 ranks on this machine
                self.assertTrue(r["metrics"]["verified"])

    def test_a_split_cut_by_the_axis_comma_is_an_error_that_says_how(self):
        with tempfile.TemporaryDirectory(prefix="railgauge-groups-") as tmp:
            p = run(tmp, "-a", "groups=tp=2,dp=rest")
            self.assertNotEqual(p.returncode, 0)
            records = records_of(tmp)
            # Both halves, tp=2 and dp=rest (a valid split on its own), are errors.
            self.assertEqual(sorted({r["params"]["groups"] for r in records}), ["dp=rest", "tp=2"])
            for r in records:
                self.assertEqual(r["status"], "error")
                self.assertIn("join the groups with '+'", r["reason"])


if __name__ == "__main__":
    MPIRUN, RAILGAUGE = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], sys.argv[3]], verbosity=2)
