#!/usr/bin/env python3
"""scripts/run_layout.py on run directories laid out by hand: the layout a step states passes,
and the layout srun ran when it took the job's SLURM_NTASKS (one rank per node where two were
stated) fails, naming what differs.

    run_layout_test.py SOURCE_DIR RunLayoutTest.test_name
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "support"))
from named_tests import run_named_tests  # noqa: E402

SCRIPT = None  # set from argv


def write_run(out, run_id, size, hosts):
    """One run of `size` ranks, rank r on hosts[r], as railgauge lays it out."""
    for rank, host in enumerate(hosts):
        d = out / run_id / (f"rank-{rank:05d}" if size > 1 else "")
        d.mkdir(parents=True, exist_ok=True)
        (d / "run.json").write_text(json.dumps(
            {"run": run_id, "rank": rank, "host": host, "world": {"size": size, "rank": rank}}))


def run_layout(out, runs, size, per_node, nodes):
    return subprocess.run([sys.executable, SCRIPT, str(out), "--runs", str(runs), "--world-size",
                           str(size), "--ranks-per-node", str(per_node), "--nodes", str(nodes)],
                          capture_output=True, text=True, timeout=60)


class RunLayoutTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_the_stated_layout_passes(self):
        write_run(self.out / "collectives", "t-vm-1", 4, ["n1", "n1", "n2", "n2"])
        r = run_layout(self.out / "collectives", 1, 4, 2, 2)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("world.size 4, ranks per node n1:2 n2:2", r.stdout)
        # One run per node, each alone (the burn-in's per-node step).
        write_run(self.out / "per_node", "t-n1-1", 2, ["n1", "n1"])
        write_run(self.out / "per_node", "t-n2-2", 2, ["n2", "n2"])
        self.assertEqual(run_layout(self.out / "per_node", 2, 2, 2, 2).returncode, 0)

    def test_one_rank_per_node_where_two_were_stated_fails(self):
        # srun -n 2 from the job's SLURM_NTASKS: two ranks, one per node, exit 0 everywhere.
        write_run(self.out / "collectives", "t-vm-1", 2, ["n1", "n2"])
        r = run_layout(self.out / "collectives", 1, 4, 2, 2)
        self.assertEqual(r.returncode, 1)
        self.assertIn("world.size [2], not 4", r.stderr)
        self.assertIn("1 rank(s) on n1, not 2", r.stderr)

    def test_nodes_that_share_a_name_fail(self):
        # Simulated nodes named by the host name alone: one node where there are two.
        write_run(self.out / "collectives", "t-vm-1", 4, ["vm"] * 4)
        r = run_layout(self.out / "collectives", 1, 4, 2, 2)
        self.assertEqual(r.returncode, 1)
        self.assertIn("4 rank(s) on vm, not 2", r.stderr)
        self.assertIn("1 node(s) (vm), not 2", r.stderr)

    def test_a_step_that_wrote_nothing_fails(self):
        (self.out / "empty").mkdir()
        r = run_layout(self.out / "empty", 1, 4, 2, 2)
        self.assertEqual(r.returncode, 1)
        self.assertIn("0 run(s), not 1", r.stderr)


if __name__ == "__main__":
    SCRIPT = str(pathlib.Path(sys.argv.pop(1)) / "scripts" / "run_layout.py")
    run_named_tests(sys.argv[1:])
