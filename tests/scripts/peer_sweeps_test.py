"""scripts/peer_sweeps.py, and the interleaving by sweep of gemm_vs_torch.py and copy_vs_torch.py,
without torch or a GPU: railgauge is a shell script that writes one record per point of its
sweep, torch a stand-in with known times.

Usage: peer_sweeps_test.py SOURCE_DIR [TestName ...]
"""
import io
import json
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_script_tests  # noqa: E402

sys.modules["torch"] = None  # importing torch raises: the logic must not need it

SOURCE = None
peer_sweeps = peer_pairs = peer_records = gemm_vs_torch = copy_vs_torch = None

# A railgauge stand-in: writes a record for each point named in POINTS (key and size_bytes),
# 2 ms per call, into the --out it is given; logs each call's arguments to $RG_LOG.
FAKE_RAILGAUGE = r"""#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
out = args[args.index("--out") + 1]
with open(os.environ["RG_LOG"], "a") as f:
    f.write(json.dumps(args) + "\n")
os.makedirs(os.path.join(out, "r"), exist_ok=True)
with open(os.path.join(out, "r", "records.jsonl"), "a") as f:
    for key, size in json.loads(os.environ["POINTS"]):
        f.write(json.dumps({"key": key, "axes": {"size_bytes": size}, "status": "ok",
                            "reason": None, "metrics": {"time_s": {"median": 0.002}}}) + "\n")
"""


def source(key, size):
    return {"key": key, "axes": {"size_bytes": size}, "status": "ok",
            "params": {"size_bytes": size, "gpu": 0},
            "metrics": {"time_s": {"n": 10, "median": 0.002}}}


class PeerSweepsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.fake = os.path.join(self.tmp.name, "railgauge")
        with open(self.fake, "w") as f:
            f.write(FAKE_RAILGAUGE)
        os.chmod(self.fake, 0o755)
        self.log = os.path.join(self.tmp.name, "calls.log")
        os.environ["RG_LOG"] = self.log
        self.run_dir = os.path.join(self.tmp.name, "runs", "r0")
        os.makedirs(self.run_dir)
        with open(os.path.join(self.run_dir, "run.json"), "w") as f:
            json.dump({"argv": ["node/bin/railgauge", "memory", "--filter", "memory.hbm_*",
                                "--out", "runs", "--time-budget", "0.2", "--resume", "x"]}, f)

    def calls(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def test_the_sweep_is_its_own_command_with_this_binary_and_a_round_out(self):
        cmd = peer_sweeps.sweep_command("rg", ["a/railgauge", "gemm", "--out=o", "--tp", "1,2",
                                               "--out", "runs", "-a", "x=1"], "R")
        self.assertEqual(cmd, ["rg", "gemm", "--tp", "1,2", "-a", "x=1", "--out", "R", "-q"])
        with self.assertRaisesRegex(ValueError, "cannot read its run.json"):
            peer_sweeps.argv_of(self.tmp.name)

    def test_rounds_alternate_sweep_then_every_point(self):
        points = [source("memory.hbm_copy", 64), source("memory.hbm_copy", 128)]
        os.environ["POINTS"] = json.dumps([["memory.hbm_copy", 64], ["memory.hbm_copy", 128]])
        order = []
        runner = peer_sweeps.RailgaugeSweepRunner(self.fake, os.path.join(self.tmp.name, "w"),
                                                  [self.run_dir])
        real_round = runner.run_round

        def run_round():
            order.append("railgauge sweep")
            real_round()

        runner.run_round = run_round

        def peer(point):
            order.append(f"torch {point['axes']['size_bytes']}")
            return 0.0025

        rows = peer_sweeps.interleave_sweeps(points, runner, peer, 3)
        self.assertEqual(order, ["railgauge sweep", "torch 64", "torch 128"] * 3)
        for _, ours, theirs, error in rows:
            self.assertEqual((ours, theirs, error), ([0.002] * 3, [0.0025] * 3, None))
        (first, *_) = self.calls()
        self.assertEqual(first, ["memory", "--filter", "memory.hbm_*", "--time-budget", "0.2",
                                 "--out", os.path.join(self.tmp.name, "w", "round-0001"), "-q"])
        self.assertEqual(len(self.calls()), 3)
        pair = peer_pairs.interleaved_metrics(*rows[0][1:3])
        self.assertEqual((pair["ratio"], pair["verdict"]), (1.25, "railgauge faster"))

    def test_the_source_run_can_be_the_first_round(self):
        point = source("memory.hbm_copy", 64)
        with open(os.path.join(self.run_dir, "records.jsonl"), "w") as f:
            f.write(json.dumps(dict(point, metrics={"time_s": {"median": 0.003}})) + "\n")
        os.environ["POINTS"] = json.dumps([["memory.hbm_copy", 64]])
        runner = peer_sweeps.RailgaugeSweepRunner(self.fake, os.path.join(self.tmp.name, "w"),
                                                  [self.run_dir], source_first=True)
        ((_, ours, _, error),) = peer_sweeps.interleave_sweeps([point], runner,
                                                               lambda p: 0.002, 3)
        self.assertIsNone(error)
        self.assertEqual(ours, [0.003, 0.002, 0.002])  # the source's time, then two sweeps
        self.assertEqual(len(self.calls()), 2)

    def test_a_point_the_sweep_lacks_keeps_its_error_and_the_rest_go_on(self):
        points = [source("memory.hbm_copy", 64), source("memory.hbm_copy", 256)]
        os.environ["POINTS"] = json.dumps([["memory.hbm_copy", 64]])
        runner = peer_sweeps.RailgaugeSweepRunner(self.fake, os.path.join(self.tmp.name, "w"),
                                                  [self.run_dir])
        rows = peer_sweeps.interleave_sweeps(points, runner, lambda p: 0.002, 3)
        self.assertIsNone(rows[0][3])
        self.assertIn("no ok record of the point", rows[1][3])
        with self.assertRaisesRegex(ValueError, "at least 3 rounds"):
            peer_sweeps.interleave_sweeps(points, runner, lambda p: 0.002, 2)

    def test_copy_vs_torch_by_sweep(self):
        src = source("memory.hbm_memcpy_d2d", 1 << 30)
        src["params"]["size_bytes"] = 1 << 30
        src["metrics"] = {"bandwidth_gbytes_per_s": 100.0, "bytes_per_call": 2 << 30,
                          "batch": 4, "time_s": {"n": 25, "median": 0.002}}
        os.environ["POINTS"] = json.dumps([["memory.hbm_memcpy_d2d", 1 << 30]])
        order = []

        class Measurer:
            def measure(self, point):
                order.append("torch")
                return {"samples_s": [0.0025] * point.samples, "verified": True}

        runner = peer_sweeps.RailgaugeSweepRunner(self.fake, os.path.join(self.tmp.name, "w"),
                                                  [self.run_dir])
        with peer_records.PeerRun(self.tmp.name, "torch-copy", host="node") as run:
            (rec,) = copy_vs_torch.compare([src], Measurer(), run, "0.0-test", 100,
                                           out=io.StringIO(), rounds=3, sweep_runner=runner)
        self.assertEqual(order, ["torch"] * 3)
        self.assertEqual(len(self.calls()), 3)
        m = rec["metrics"]
        self.assertEqual((rec["status"], m["rounds"], m["verdict"]),
                         ("ok", 3, "railgauge faster"))
        self.assertAlmostEqual(m["ours_vs_torch"], 1.25)

    def test_gemm_vs_torch_by_sweep_marks_the_point_railgauge_lost(self):
        os.environ["POINTS"] = json.dumps([["gemm.cublaslt", 1]])

        class Point:  # gemm_vs_torch.TorchPoint's interface, torch replaced by known times
            def __init__(self, size):
                self.source = source("gemm.cublaslt", size)
                self.rounds = 0

            def measure(self, _=None):
                self.rounds += 1
                return 0.004

            def metrics(self, pair=None):
                return dict(pair or {}, rounds_measured=self.rounds)

        args = types.SimpleNamespace(interleave=3, interleave_by="sweep", railgauge=self.fake,
                                     railgauge_lib=None, run_dir=self.run_dir)
        points = [Point(1), Point(2)]
        (kept, err), (lost, why) = gemm_vs_torch.measure_points(args, points, self.tmp.name)
        self.assertIsNone(err)
        self.assertEqual((kept["ratio"], kept["verdict"], kept["rounds_measured"]),
                         (2.0, "railgauge faster", 3))
        self.assertEqual(lost, {})
        self.assertIn("no ok record of the point", why)
        self.assertEqual(points[1].rounds, 0)  # torch never measured what railgauge lost


def main():
    run_script_tests(globals(), "peer_sweeps", "peer_pairs", "peer_records", "gemm_vs_torch",
                     "copy_vs_torch")


if __name__ == "__main__":
    main()
