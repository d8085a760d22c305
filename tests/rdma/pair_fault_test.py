#!/usr/bin/env python3
"""A pair point (rdma.tcp_bw, rank 0 against rank 1) whose peer dies or stops answering in the
middle: the survivor writes an `error` record for the point in progress naming the peer, says so
on stderr, and exits within its peer timeout (--store-timeout) plus slack; every record written
so far, on both ranks, stays valid against the schema. And a pair matrix played in the
coverage planner's rounds (coverage_k) instead of all pairs.

Run by CTest, one test per CTest test:  pair_fault_test.py RAILGAUGE TestName.test_name
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
TIMEOUT_S = 4
# Large messages and a long budget: the victim is certainly mid-point when the signal comes.
SIZES = "size_bytes=1MiB,4MiB,16MiB,64MiB"


# Every point runs its whole time budget: the noise rule could end a quiet machine's point within
# the 0.3 s the tests wait after the first record, and the signal would land points later.
FULL_BUDGET = ["--measure", "max_rel_noise=0"]

class PairFaultTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge-pair-")
        self.out = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def run_pair_and_hit(self, victim, sig):
        """Starts the pair, waits until both ranks have written their first record (the pair is
        then in its second point), sends `sig` to `victim`, and returns per rank (rc, stderr, seconds from
        the signal to the exit) for the survivor, with the victim's records."""
        args = ["rdma", "--filter", "rdma.tcp_bw", "-a", "mode=ranks", "-a", SIZES,
                "--time-budget", "3", *FULL_BUDGET, "--out", str(self.out), "-q"]
        procs = start_ranks(RAILGAUGE, lambda rank: args, 2, TIMEOUT_S)
        try:
            self.assertIsNotNone(wait_for_first_record(self.out, ranks=2),
                                 "the pair never wrote its first records")
            time.sleep(0.3)  # well inside the second point's 3 s budget
            procs[victim].send_signal(sig)
            hit_at = time.monotonic()
            survivor = 1 - victim
            _, err = procs[survivor].communicate(timeout=TIMEOUT_S * 10 + 60)
            print(f"survivor rank {survivor} exited {time.monotonic() - hit_at:.1f} s after "
                  f"the signal", file=sys.stderr)
            after_s = time.monotonic() - hit_at
            rc = procs[survivor].returncode
        finally:
            if sig == signal.SIGSTOP:
                procs[victim].send_signal(signal.SIGCONT)
            end_all(procs)
        [run_dir] = [p for p in self.out.iterdir() if p.is_dir()]
        for rank in (0, 1):
            problems, count = validate_run.validate_run_dir(run_dir / f"rank-{rank:05d}", False)
            self.assertEqual(problems, [], f"rank {rank}")
            self.assertGreater(count, 0, f"rank {rank} lost its records")
        return run_dir / f"rank-{survivor:05d}", rc, err, after_s

    def check_survivor(self, rank_dir, rc, err, after_s, peer, limit_s):
        self.assertEqual(rc, 3, err)  # the end barrier: the peer never arrives
        self.assertLess(after_s, limit_s, err)
        errors = [r for r in records_of(rank_dir) if r["status"] == "error"]
        self.assertEqual(len(errors), 1, errors)
        reason = errors[0]["reason"]
        self.assertIn(f"pair with rank {peer}", reason)
        self.assertEqual(errors[0]["key"], "rdma.tcp_bw")
        # The point in progress: named in the record (its axes) and on stderr.
        size = errors[0]["axes"]["size_bytes"]
        self.assertIn(f"railgauge: error at rdma.tcp_bw size_bytes={size}", err)
        self.assertIn(f"pair with rank {peer}", err)
        # The end barrier names it too: a rank the store saw go, a missing rank, or rank 0
        # whose store is gone.
        self.assertTrue(f"rank {peer} is lost" in err or f"rank {peer} of 2 did not arrive" in err
                        or f"did rank {peer} exit?" in err, err)
        manifest = json.loads((rank_dir / "run.json").read_text())
        self.assertEqual(manifest["status"], "failed")
        return reason

    def test_server_killed_mid_point_is_named_by_the_client(self):
        rank_dir, rc, err, after_s = self.run_pair_and_hit(1, signal.SIGKILL)
        # A dead process's socket is reset at once, and rank 0's store sees its connection
        # close: the end barrier fails at once naming it, where it once waited TIMEOUT_S.
        self.check_survivor(rank_dir, rc, err, after_s, 1, TIMEOUT_S)
        self.assertIn("barrier 'railgauge/end': store: rank 1 is lost: its connection to the "
                      "store", err)

    def test_client_killed_mid_point_is_named_by_the_server(self):
        rank_dir, rc, err, after_s = self.run_pair_and_hit(0, signal.SIGKILL)
        # Rank 0 served the store: the end barrier first tries to reconnect for TIMEOUT_S.
        self.check_survivor(rank_dir, rc, err, after_s, 0, 2 * TIMEOUT_S + 10)

    def test_stopped_server_times_out_and_is_named(self):
        # SIGSTOP: the peer's socket stays open and silent, like a hung host. The client's send
        # or receive waits TIMEOUT_S, the end barrier another, and rank 0's store as long again
        # for the stopped rank to hang up.
        rank_dir, rc, err, after_s = self.run_pair_and_hit(1, signal.SIGSTOP)
        reason = self.check_survivor(rank_dir, rc, err, after_s, 1, 3 * TIMEOUT_S + 10)
        self.assertIn("pair with rank 1 (client side here)", reason)


class PairResumeTest(PairFaultTest):
    def test_killed_pair_run_resumes_from_its_root_on_both_ranks(self):
        """After rank 1 died in the second point, `--resume RUN_ROOT` on both ranks: each takes
        its own rank directory, the ranks agree to skip only the point both recorded (rank 0's
        `error` for the second point is not enough: rank 1 has nothing for it), and the run
        completes with every planned point's last record `ok` on both ranks."""
        self.run_pair_and_hit(1, signal.SIGKILL)
        [run_dir] = [p for p in self.out.iterdir() if p.is_dir()]
        args = ["rdma", "--filter", "rdma.tcp_bw", "-a", "mode=ranks", "-a", SIZES,
                "--time-budget", "3", *FULL_BUDGET, "--out", str(self.out), "-q", "--resume",
                str(run_dir)]
        procs = start_ranks(RAILGAUGE, lambda rank: args, 2, TIMEOUT_S)
        try:
            outputs = [p.communicate(timeout=240) for p in procs]
        finally:
            end_all(procs)
        for rank, (p, (_, err)) in enumerate(zip(procs, outputs)):
            self.assertEqual(p.returncode, 0, f"rank {rank}: {err}")
            rank_dir = run_dir / f"rank-{rank:05d}"
            problems, count = validate_run.validate_run_dir(rank_dir, False)
            self.assertEqual(problems, [], f"rank {rank}")
            records = records_of(rank_dir)
            sizes = [r["axes"]["size_bytes"] for r in records]
            last = {r["axes"]["size_bytes"]: r["status"] for r in records}
            self.assertEqual(sorted(last), [1 << 20, 4 << 20, 16 << 20, 64 << 20], sizes)
            self.assertEqual(set(last.values()), {"ok"}, records)
            self.assertEqual(sizes.count(1 << 20), 1, sizes)  # done by both: not run again
            manifest = json.loads((rank_dir / "run.json").read_text())
            self.assertEqual(manifest["status"], "complete")
            self.assertEqual(manifest["resumes"][-1]["points_skipped"], 1)
        self.assertIn("1 of the 2 points this rank has done run again", outputs[0][1])


class PairMatrixFaultTest(unittest.TestCase):
    """rdma.tcp_pair_matrix on 4 ranks; rank 3 is killed in the middle of the matrix's second
    point. Every survivor stops within its bounded waits (peer timeouts and the round bound, not
    the 10 minutes a round once waited), names rank 3, and keeps valid records."""

    def test_rank_killed_mid_matrix_is_named_by_every_survivor(self):
        with tempfile.TemporaryDirectory(prefix="railgauge-matrix-") as tmp:
            out = pathlib.Path(tmp)
            args = ["rdma", "--filter", "rdma.tcp_pair_matrix", "-a",
                    "latency_size_bytes=8,16,32", "--time-budget", "0.5", "--out", str(out),
                    "-q"]
            procs = start_ranks(RAILGAUGE, lambda rank: args, 4, TIMEOUT_S)
            try:
                self.assertIsNotNone(wait_for_first_record(out, 180, ranks=4),
                                     "the ranks never finished the first matrix")
                time.sleep(0.5)  # inside the second matrix: 3 rounds of pairs, 1 s each
                procs[3].send_signal(signal.SIGKILL)
                hit_at = time.monotonic()
                outputs = {}
                for rank in (0, 1, 2):
                    _, err = procs[rank].communicate(timeout=240)
                    outputs[rank] = (procs[rank].returncode, err, time.monotonic() - hit_at)
            finally:
                end_all(procs)
            [run_dir] = [p for p in out.iterdir() if p.is_dir()]
            # A round waits at most 2 * (budget + T) + T; then the end barrier T (rank 0's
            # store may take another T to notice the dead connection).
            limit_s = 2 * (0.5 + TIMEOUT_S) + TIMEOUT_S + 3 * TIMEOUT_S + 20
            for rank, (rc, err, after_s) in outputs.items():
                print(f"rank {rank} exited {after_s:.1f} s after the kill", file=sys.stderr)
                self.assertEqual(rc, 3, err)
                self.assertLess(after_s, limit_s, err)
                rank_dir = run_dir / f"rank-{rank:05d}"
                problems, count = validate_run.validate_run_dir(rank_dir, False)
                self.assertEqual(problems, [], f"rank {rank}")
                records = records_of(rank_dir)
                self.assertEqual([r["status"] for r in records], ["ok", "error"], err)
                error = records[1]
                self.assertEqual(error["key"], "rdma.tcp_pair_matrix")
                self.assertEqual(error["axes"]["latency_size_bytes"], 16)
                self.assertIn("pair matrix, round", error["reason"])
                # Rank 0's store sees its connection close; a rank that hung would be named at
                # the round's timeout. A rank kept off the CPU past rank 0's shutdown grace (a
                # busy host) finds the store gone instead, says so, and stops there too.
                self.assertTrue("rank 3 is lost" in error["reason"]
                                or "rank 3 of 4 did not arrive" in error["reason"]
                                or (rank != 0 and "did rank 0 exit?" in error["reason"]), error)
                self.assertIn("railgauge: error at rdma.tcp_pair_matrix", err)
            # What rank 3 wrote before it died is still valid.
            problems, count = validate_run.validate_run_dir(run_dir / "rank-00003", False)
            self.assertEqual(problems, [])
            self.assertEqual(count, 1)


class PairMatrixCoverageTest(unittest.TestCase):
    """rdma.tcp_pair_matrix on 4 ranks with coverage_k=2: the coverage planner's 2 rounds of 2
    pairs instead of all pairs' 3 rounds of 2, every rank in a pair each round, records valid."""

    def run_matrix(self, out, ranks, *extra):
        """rdma.tcp_pair_matrix with coverage_k=2 on `ranks` ranks into `out`; every rank ok."""
        args = ["rdma", "--filter", "rdma.tcp_pair_matrix", "-a", "coverage_k=2", *extra,
                "--time-budget", "0.2", "--out", str(out), "-q"]
        procs = start_ranks(RAILGAUGE, lambda rank: args, ranks, 30)
        try:
            for p in procs:
                _, err = p.communicate(timeout=240)
                self.assertEqual(p.returncode, 0, err)
        finally:
            end_all(procs)

    def test_coverage_rounds_cross_every_endpoint_twice(self):
        with tempfile.TemporaryDirectory(prefix="railgauge-coverage-") as tmp:
            out = pathlib.Path(tmp)
            self.run_matrix(out, 4)
            [run_dir] = [p for p in out.iterdir() if p.is_dir()]
            [matrix] = [r for r in records_of(run_dir / "rank-00000")
                        if r.get("key") == "rdma.tcp_pair_matrix"]
            self.assertEqual(matrix["status"], "ok")
            metrics = matrix["metrics"]
            self.assertEqual(metrics["pairing"], "coverage")
            self.assertEqual(metrics["rounds"], 2)
            played = {}
            for pair in metrics["pairs"]:
                for end in pair["endpoints"]:
                    played[end] = played.get(end, 0) + 1
            self.assertEqual(played, {0: 2, 1: 2, 2: 2, 3: 2}, metrics["pairs"])
            for rank in range(4):
                problems, _ = validate_run.validate_run_dir(run_dir / f"rank-{rank:05d}", False)
                self.assertEqual(problems, [], f"rank {rank}")


    def test_a_second_matrix_with_cover_since_plans_only_the_cables_the_first_left(self):
        """Rank 0 writes fabric_ledger.jsonl into its run directory; a later matrix of six
        ranks in the same --out with cover_since=1h plans only the two ranks the first
        matrix of four did not have, each in two pairs or more."""
        with tempfile.TemporaryDirectory(prefix="railgauge-cover-since-") as tmp:
            out = pathlib.Path(tmp)
            self.run_matrix(out, 4)
            [first] = [p for p in out.iterdir() if p.is_dir()]
            ledger = [json.loads(line) for line in
                      (first / "rank-00000" / "fabric_ledger.jsonl").read_text().splitlines()]
            # Loopback on a loaded host can make pairs bad: their retests have lines of their own.
            matrix_lines = [line for line in ledger if line["phase"] == "matrix"]
            self.assertEqual(len(matrix_lines), 4, ledger)  # one line per rank's cable
            for line in ledger:
                self.assertEqual(line["kind"], "nic_leaf", line)
                self.assertEqual(line["via"], "rdma.tcp_pair_matrix")
            for line in matrix_lines:
                self.assertEqual(line["flows"], 2, line)
            self.run_matrix(out, 6, "-a", "cover_since=1h")
            [second] = [p for p in out.iterdir() if p.is_dir() and p != first]
            [record] = [r for r in records_of(second / "rank-00000")
                        if r.get("key") == "rdma.tcp_pair_matrix"]
            self.assertEqual(record["status"], "ok", record.get("reason"))
            metrics = record["metrics"]
            self.assertIn("4 of 6 NIC cables exercised since then, 2 planned",
                          metrics["coverage_plan"])
            played = {}
            for pair in metrics["pairs"]:
                ends = pair["endpoints"]
                self.assertTrue(4 in ends or 5 in ends, pair)
                for end in ends:
                    played[end] = played.get(end, 0) + 1
            self.assertGreaterEqual(played.get(4, 0), 2, metrics["pairs"])
            self.assertGreaterEqual(played.get(5, 0), 2, metrics["pairs"])
            self.assertTrue((second / "rank-00000" / "fabric_ledger.jsonl").exists())

    def test_cover_since_with_db_reads_the_ledger_of_runs_in_other_out_directories(self):
        """With --db, a matrix's ledger goes into the fleet history when its run finishes, and a
        later matrix in another --out directory (another node's local disk) with cover_since
        plans only the cables the history does not hold; without --db it plans them all."""
        with tempfile.TemporaryDirectory(prefix="railgauge-cover-since-db-") as tmp:
            tmp = pathlib.Path(tmp)
            db = f"sqlite:{tmp / 'fleet.db'}"
            self.run_matrix(tmp / "first", 4, "--db", db)

            def plan(out, *extra):
                self.run_matrix(out, 6, "-a", "cover_since=1h", *extra)
                [run] = [p for p in out.iterdir() if p.is_dir()]
                [record] = [r for r in records_of(run / "rank-00000")
                            if r.get("key") == "rdma.tcp_pair_matrix"]
                self.assertEqual(record["status"], "ok", record.get("reason"))
                return record["metrics"]

            alone = plan(tmp / "no-db")
            self.assertIn("0 of 6 NIC cables exercised since then, 6 planned",
                          alone["coverage_plan"])
            metrics = plan(tmp / "second", "--db", db)
            self.assertIn("4 of 6 NIC cables exercised since then, 2 planned",
                          metrics["coverage_plan"])
            for pair in metrics["pairs"]:
                self.assertTrue(4 in pair["endpoints"] or 5 in pair["endpoints"], pair)

    def test_a_fleet_history_that_cannot_be_read_makes_the_point_an_error_on_every_rank(self):
        """Rank 0 cannot open the database (its directory does not exist): every rank's matrix
        point is an error naming why, at once, not at the store's timeout of 30 s."""
        with tempfile.TemporaryDirectory(prefix="railgauge-cover-since-bad-db-") as tmp:
            out = pathlib.Path(tmp) / "runs"
            db = f"sqlite:{pathlib.Path(tmp) / 'no-such-dir' / 'fleet.db'}"
            args = ["rdma", "--filter", "rdma.tcp_pair_matrix", "-a", "coverage_k=2", "-a",
                    "cover_since=1h", "--db", db, "--time-budget", "0.2", "--out", str(out), "-q"]
            started = time.monotonic()
            procs = start_ranks(RAILGAUGE, lambda rank: args, 4, 30)
            try:
                for p in procs:
                    p.communicate(timeout=240)
                    self.assertNotEqual(p.returncode, 0)
            finally:
                end_all(procs)
            self.assertLess(time.monotonic() - started, 25)
            [run] = [p for p in out.iterdir() if p.is_dir()]
            for rank in range(4):
                [record] = [r for r in records_of(run / f"rank-{rank:05d}")
                            if r.get("key") == "rdma.tcp_pair_matrix"]
                self.assertEqual(record["status"], "error", record)
                self.assertIn("no-such-dir", record["reason"], f"rank {rank}")


if __name__ == "__main__":
    RAILGAUGE = sys.argv[1]
    unittest.main(argv=[sys.argv[0], sys.argv[2]], verbosity=2)
