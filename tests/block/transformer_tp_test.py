#!/usr/bin/env python3
"""block.transformer_tp through the command line, and calibrate's prediction of it.

  transformer_tp_test.py RAILGAUGE [unittest args]

SingleRankTest: one rank (t = 1, no collectives): the GEMM sweep of the block's model at tp 1,
the block, then `railgauge calibrate` prints the block table with a prediction.
MpiBlockTest (label mpi; RAILGAUGE_MPIRUN names mpirun): 2 and 4 ranks, with and without
sequence parallelism: every rank's record ok and data checked, the phases in block order; and
calibrate predicts a 2-rank block from gemm.cpu_blas and collectives runs made beside it.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

RAILGAUGE = os.path.abspath(sys.argv.pop(1))
MPIRUN = os.environ.get("RAILGAUGE_MPIRUN", "")
# A small block: a few milliseconds on one core.
# The CPU block only: on a machine with a GPU, `railgauge block` alone also runs
# block.transformer_tp_gpu, whose records these tests neither expect nor calibrate.
BLOCK = ["--filter", "block.transformer_tp"]
MODEL = ["-a", "model=custom", "-a", "hidden=256", "-a", "heads=4", "-a", "seq=128"]


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


def mpi(np):
    return [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", str(np)]


def records(out, key):
    rs = []
    for f in sorted(glob.glob(os.path.join(out, "**", "records.jsonl"), recursive=True)):
        with open(f) as fh:
            rs += [json.loads(line) for line in fh if line.strip()]
    return [r for r in rs if r["key"] == key]


def calibrate(runs, out):
    # CPU runs measure no scale-out tier: Calculon's A100 figures fill it, asked for by name.
    return run([RAILGAUGE, "calibrate", *runs, "--out", out, "--borrow", "a100_80g"]).stdout


class SingleRankTest(unittest.TestCase):
    def test_block_and_its_prediction_in_the_fit_report(self):
        with tempfile.TemporaryDirectory() as d:
            run([RAILGAUGE, "gemm", "--filter", "gemm.cpu_blas", *MODEL, "-a", "tp=1",
                 "-a", "dtype=fp32", "--time-budget", "0.05", "--out", f"{d}/gemm", "-q"])
            run([RAILGAUGE, "block", *BLOCK, *MODEL, "-a", "iterations=3", "--out", f"{d}/block",
                 "-q"])
            [r] = records(f"{d}/block", "block.transformer_tp")
            self.assertEqual(r["status"], "ok", r.get("reason"))
            self.assertEqual(r["params"]["tp"], 1)
            self.assertIs(r["metrics"]["verified"], True)
            self.assertEqual(r["metrics"]["collective_time_s"], 0)
            self.assertEqual(len(r["metrics"]["phases"]), 18)  # the GEMMs, no collective
            stdout = calibrate([f"{d}/gemm", f"{d}/block"], f"{d}/cal")
            self.assertIn("## A block predicted", stdout)
            self.assertIn("| custom (h 256, s 128, b 1, 4 heads, ffn 1024) | 1 | no |", stdout)
            with open(f"{d}/cal/fit_report.json") as f:
                [b] = json.load(f)["block_predictions"]
            self.assertEqual(b["missing"], [])
            self.assertGreater(b["predicted_s"], 0)
            self.assertAlmostEqual(b["error"], (b["predicted_s"] - b["measured_s"]) /
                                   b["measured_s"])
            # The block itself is never fitted on: without the GEMM runs nothing predicts it.
            p = subprocess.run([RAILGAUGE, "calibrate", f"{d}/block", "--out", f"{d}/cal2",
                                "--borrow", "a100_80g"],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 4, p.stderr)


@unittest.skipUnless(MPIRUN, "RAILGAUGE_MPIRUN is not set: no mpirun")
class MpiBlockTest(unittest.TestCase):
    def test_every_rank_records_a_checked_block(self):
        with tempfile.TemporaryDirectory() as d:
            for np in (2, 4):
                for sp in (0, 1):
                    out = f"{d}/np{np}sp{sp}"
                    run([*mpi(np), RAILGAUGE, "block", *BLOCK, *MODEL,
                         "-a", f"sequence_parallel={sp}",
                         "-a", "iterations=3", "-a", "warmup=1", "--out", out, "-q"])
                    rs = records(out, "block.transformer_tp")
                    self.assertEqual(sorted(r["rank"] for r in rs), list(range(np)))
                    for r in rs:
                        self.assertEqual(r["status"], "ok", r.get("reason"))
                        m = r["metrics"]
                        self.assertIs(m["verified"], True)
                        self.assertEqual(m["wrong_elements"], 0)
                        self.assertEqual(r["params"]["tp"], np)
                        self.assertEqual(r["params"]["sequence_parallel"], sp)
                        phases = m["phases"]
                        colls = [p for p in phases if p["kind"] == "collective"]
                        self.assertEqual(len(phases) - len(colls), 18)
                        ops = [p["op"] for p in colls]
                        self.assertEqual(ops, ["all_reduce"] * 4 if sp == 0 else
                                         ["all_gather", "reduce_scatter"] * 4)
                        self.assertEqual(phases[4 if sp == 0 else 5]["name"],
                                         "all_reduce.attn.fwd" if sp == 0 else
                                         "reduce_scatter.attn.fwd")
                        for p in colls:
                            self.assertEqual(p["size_bytes"], 128 * 256 * 4)
                        self.assertGreater(m["collective_time_s"], 0)
                        self.assertGreater(m["time_s"]["median"], 0)
                    # Every rank's time is the max over ranks: the same on every rank.
                    self.assertEqual(len({r["metrics"]["time_s"]["median"] for r in rs}), 1)

    def test_calibrate_predicts_the_two_rank_block(self):
        with tempfile.TemporaryDirectory() as d:
            run([*mpi(2), RAILGAUGE, "gemm", "--filter", "gemm.cpu_blas", *MODEL, "-a", "tp=2",
                 "-a", "dtype=fp32", "--time-budget", "0.05", "--out", f"{d}/gemm", "-q"])
            run([*mpi(2), RAILGAUGE, "collectives", "--filter", "collectives.mpi_all_reduce",
                 "-a", "size_bytes=64KiB:512KiB:*2", "-a", "in_place=out_of_place",
                 "-a", "iterations=5", "--out", f"{d}/coll", "-q"])
            run([*mpi(2), RAILGAUGE, "block", *BLOCK, *MODEL, "-a", "iterations=3",
                 "--out", f"{d}/block", "-q"])
            stdout = calibrate([f"{d}/gemm", f"{d}/coll", f"{d}/block"], f"{d}/cal")
            self.assertIn("| custom (h 256, s 128, b 1, 4 heads, ffn 1024) | 2 | no |", stdout)
            with open(f"{d}/cal/fit_report.json") as f:
                [b] = json.load(f)["block_predictions"]
            self.assertEqual(b["missing"], [])
            self.assertEqual(b["tp"], 2)
            self.assertGreater(b["predicted_collective_s"], 0)
            coll = [p for p in b["phases"] if p["kind"] == "collective"]
            self.assertEqual([(p["name"], p["calls"]) for p in coll], [("all_reduce", 4)])


if __name__ == "__main__":
    unittest.main()
