#!/usr/bin/env python3
"""A run that a lost peer cut short is never `complete`, and the documented resume finishes it.

Three ranks run one suite: a TCP pair (ranks 0 and 1; rank 2 waives it), then host memory
points. Rank 1 is stopped (SIGSTOP) in the pair's second point and continued once rank 0 has
given up on it, so every rank is alive at the end barrier: ranks 0 and 1 stop early with points
never run, rank 2 runs all of its own. Every rank's run.json must then say `failed` (exit 3),
and `--resume RUN_ROOT` without --force must complete the run on all three.

Run by CTest:  pair_cut_short_test.py RAILGAUGE TestName.test_name
"""
import json
import pathlib
import signal
import sys
import tempfile
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
import validate_run  # noqa: E402
from srun_ranks import end_all, records_of, start_ranks, wait_for_first_record  # noqa: E402

RAILGAUGE = None  # set from argv
TIMEOUT_S = 5
SUITE = """suite: pair-then-host
measure:
  time_budget_s: 1
  max_rel_noise: 0
  min_samples: 5
benchmarks:
  - key: rdma.tcp_bw
    axes:
      mode: [ranks]
      size_bytes: [1MiB, 4MiB, 16MiB, 64MiB]
  - key: memory.host_copy
    axes:
      size_bytes: [16KiB, 32KiB, 64KiB, 128KiB, 256KiB]
      threads: [1]
"""
POINTS = 9


class PairCutShortTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge-cut-short-")
        self.out = pathlib.Path(self.tmp.name) / "runs"
        self.suite = pathlib.Path(self.tmp.name) / "pair-then-host.yaml"
        self.suite.write_text(SUITE)

    def tearDown(self):
        self.tmp.cleanup()

    def args(self, *extra):
        return ["run", str(self.suite), "--out", str(self.out), "-q", *extra]

    def run_with_a_stalled_peer(self):
        procs = start_ranks(RAILGAUGE, lambda rank: self.args(), 3, TIMEOUT_S)
        try:
            first = wait_for_first_record(self.out)
            self.assertIsNotNone(first, "rank 0 never wrote a record")
            time.sleep(0.3)  # inside the pair's second point
            procs[1].send_signal(signal.SIGSTOP)
            deadline = time.monotonic() + TIMEOUT_S * 4
            while time.monotonic() < deadline and '"error"' not in first.read_text():
                time.sleep(0.05)
            procs[1].send_signal(signal.SIGCONT)
            outputs = [p.communicate(timeout=TIMEOUT_S * 10 + 60) for p in procs]
        finally:
            procs[1].send_signal(signal.SIGCONT)
            end_all(procs)
        [run_dir] = [p for p in self.out.iterdir() if p.is_dir()]
        return run_dir, [p.returncode for p in procs], [err for _, err in outputs]

    def test_a_lost_peer_fails_every_rank_and_resume_completes_without_force(self):
        run_dir, codes, errs = self.run_with_a_stalled_peer()
        for rank in range(3):
            rank_dir = run_dir / f"rank-{rank:05d}"
            manifest = json.loads((rank_dir / "run.json").read_text())
            self.assertEqual(manifest["status"], "failed", f"rank {rank}: {errs[rank]}")
            self.assertEqual(codes[rank], 3, f"rank {rank}: {errs[rank]}")
            self.assertIn(f"--resume {run_dir}\n", errs[rank])
            problems, _ = validate_run.validate_run_dir(rank_dir, False)
            self.assertEqual(problems, [], f"rank {rank}")
        for rank in (0, 1):
            failure = json.loads((run_dir / f"rank-{rank:05d}" / "run.json").read_text())["failure"]
            self.assertIn(f"of {POINTS} points", failure)
            self.assertIn("never ran", failure)
        # Rank 2 ran all its points; it fails by what it learns at the end barrier (or by the
        # barrier itself, when the pair's ranks reach it later than the store timeout).
        rank2 = json.loads((run_dir / "rank-00002" / "run.json").read_text())["failure"]
        self.assertTrue("another rank stopped early" in rank2 or "did not arrive" in rank2, rank2)

        procs = start_ranks(RAILGAUGE, lambda rank: self.args("--resume", str(run_dir)), 3,
                            TIMEOUT_S * 6)
        try:
            outputs = [p.communicate(timeout=300) for p in procs]
        finally:
            end_all(procs)
        for rank, (p, (_, err)) in enumerate(zip(procs, outputs)):
            # The pair's error point stays an error (--retry-errors runs it again): exit 1.
            self.assertIn(p.returncode, (0, 1), f"rank {rank}: {err}")
            rank_dir = run_dir / f"rank-{rank:05d}"
            manifest = json.loads((rank_dir / "run.json").read_text())
            self.assertEqual(manifest["status"], "complete", f"rank {rank}: {err}")
            self.assertEqual(sum(manifest["counts"].values()), POINTS, manifest["counts"])
            points = {(r["key"], json.dumps(r["axes"], sort_keys=True))
                      for r in records_of(rank_dir)}
            self.assertEqual(len(points), POINTS)
            problems, _ = validate_run.validate_run_dir(rank_dir, True)
            self.assertEqual(problems, [], f"rank {rank}")


if __name__ == "__main__":
    RAILGAUGE = sys.argv[1]
    unittest.main(argv=[sys.argv[0], sys.argv[2]], verbosity=2)
