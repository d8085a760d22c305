#!/usr/bin/env python3
"""Several processes meeting in the TCP store: under mpirun (the store set up through MPI), and
as a launcher like srun does it (rank and size in SLURM_* variables, --store tcp://...). A rank
killed with SIGKILL must not hang the others: they stop within their store timeout, name the
dead rank, and every record written so far stays valid against the schema.

Run by CTest, one test per CTest test:
  multi_rank_test.py RAILGAUGE STORE_MPI_CHECK TestName.test_name
"""
import json
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
import validate_run  # noqa: E402
from srun_ranks import end_all, records_of, start_ranks, wait_for_first_record  # noqa: E402

RAILGAUGE = None  # set from argv
CHECK = None
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]


def stop(process):
    """Ends a process and its children (mpirun after the job it no longer ends by itself)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for_files(paths, limit_s):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if all(p.exists() for p in paths):
            return True
        time.sleep(0.05)
    return False


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge-ranks-")
        self.out = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def only_run_dir(self):
        dirs = [p for p in self.out.iterdir() if p.is_dir()]
        self.assertEqual(len(dirs), 1, dirs)
        return dirs[0]


class MpiStoreTest(Base):
    def test_barrier_and_all_gather_over_the_mpi_bootstrapped_store(self):
        r = subprocess.run(MPIRUN + ["-np", "4", CHECK, "gather", str(self.out), "60000"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for rank in range(4):
            text = (self.out / f"rank-{rank}.txt").read_text()
            self.assertIn(f"rank {rank} of 4 gathered 4 values, all right", text)

    def test_a_rank_killed_before_a_barrier_is_named_by_every_other_rank(self):
        timeout_s = 3
        # mpirun would otherwise end the whole job when a rank dies, before the store's timeout
        # has anything to say. OpenMPI 4.1's mpirun then does not exit by itself when the job is
        # over: the test ends it once every surviving rank has written its result.
        mpirun = subprocess.Popen(
            MPIRUN + ["--mca", "orte_abort_on_non_zero_status", "0", "-np", "4", CHECK, "kill",
                      str(self.out), str(timeout_s * 1000), "2"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            survivors = [self.out / f"rank-{r}.txt" for r in (0, 1, 3)]
            done = wait_for_files(survivors, 120)
        finally:
            stop(mpirun)
        output = mpirun.stdout.read()
        self.assertTrue(done, f"not every surviving rank finished: {output}")
        self.assertFalse((self.out / "rank-2.txt").exists())
        for path in survivors:
            text = path.read_text()
            # Rank 0's store sees rank 2's connection close; were it still connecting, the
            # timeout names it.
            self.assertTrue("barrier 'before': store: rank 2 is lost" in text
                            or "barrier 'before': rank 2 of 4 did not arrive within 3 s" in text,
                            text)
            waited_s = float(text.split("waited_s ")[1])
            self.assertLess(waited_s, timeout_s + 5, text)


class MpiStartTest(Base):
    def test_a_rank_that_never_starts_ends_the_others_at_the_store_timeout(self):
        # Rank 1 is 60 s late: MPI_Init on rank 0 has no deadline of its own, and it once waited
        # the whole time. It now ends at --store-timeout, says why, and exits 3.
        late = ('if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then sleep 60; fi; exec "$0" "$@"')
        started = time.monotonic()
        r = subprocess.run(MPIRUN + ["-np", "2", "sh", "-c", late, RAILGAUGE, "run", "quick",
                                     "--out", str(self.out), "-q", "--store", "mpi",
                                     "--store-timeout", "5", "--filter", "memory.host_read"],
                           capture_output=True, text=True, timeout=120)
        waited_s = time.monotonic() - started
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)  # mpirun gives the rank's
        self.assertIn("railgauge: error: --store mpi: rank 0: MPI's start (MPI_Init_thread and "
                      "the store address sent from rank 0) did not finish within 5 s",
                      r.stdout + r.stderr)
        self.assertLess(waited_s, 40, r.stdout + r.stderr)


class RailgaugeRanksTest(Base):
    def test_mpirun_writes_one_run_directory_with_a_directory_per_rank(self):
        r = subprocess.run(MPIRUN + ["-np", "4", RAILGAUGE, "run", "quick", "--out", str(self.out),
                                     "-q", "--store-timeout", "120"],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        run_dir = self.only_run_dir()
        ranks = sorted(p.name for p in run_dir.iterdir())
        self.assertEqual(ranks, [f"rank-{r:05d}" for r in range(4)])
        for rank in range(4):
            rank_dir = run_dir / f"rank-{rank:05d}"
            problems, count = validate_run.validate_run_dir(rank_dir, True)
            self.assertEqual(problems, [])
            self.assertEqual(count, 8)
            manifest = json.loads((rank_dir / "run.json").read_text())
            self.assertEqual(manifest["run"], run_dir.name)
            self.assertEqual(manifest["rank"], rank)
            self.assertEqual(manifest["world"]["size"], 4)
            self.assertIn("address from MPI", manifest["world"]["store"])
            self.assertEqual({rec["rank"] for rec in records_of(rank_dir)}, {rank})
            self.assertEqual({rec["run"] for rec in records_of(rank_dir)}, {run_dir.name})

    def kill_one_rank_mid_run(self, victim):
        """Four railgauge processes started as srun starts them; `victim` runs a longer sweep and
        is killed (SIGKILL) once it has written its first record."""
        timeout_s = 5

        def args_of(rank):
            args = ["run", "quick", "--out", str(self.out), "-q"]
            return args + ["-a", "size_bytes=16KiB:256MiB:*2"] if rank == victim else args

        procs = start_ranks(RAILGAUGE, args_of, 4, timeout_s)
        try:
            deadline = time.monotonic() + 120
            victim_records = None
            while time.monotonic() < deadline and victim_records is None:
                for path in self.out.glob(f"*/rank-{victim:05d}/records.jsonl"):
                    if path.stat().st_size > 0:
                        victim_records = path
                time.sleep(0.01)
            self.assertIsNotNone(victim_records, "the victim never wrote a record")
            procs[victim].send_signal(signal.SIGKILL)
            killed_at = time.monotonic()
            results = {}
            for rank, p in enumerate(procs):
                out, err = p.communicate(timeout=timeout_s + 60)
                results[rank] = (p.returncode, err, time.monotonic() - killed_at)
        finally:
            end_all(procs)
        run_dir = self.only_run_dir()
        for rank, (rc, err, _) in results.items():
            rank_dir = run_dir / f"rank-{rank:05d}"
            problems, count = validate_run.validate_run_dir(rank_dir, False)
            self.assertEqual(problems, [], f"rank {rank}")
            self.assertGreater(count, 0, f"rank {rank} lost its records")
            if rank == victim:
                self.assertEqual(rc, -signal.SIGKILL)
        return run_dir, results, timeout_s

    def test_a_rank_killed_mid_run_is_named_and_no_record_is_lost(self):
        run_dir, results, timeout_s = self.kill_one_rank_mid_run(victim=2)
        for rank in (0, 1, 3):
            rc, err, after_s = results[rank]
            self.assertEqual(rc, 3, err)
            # Every survivor was waiting at the end barrier when rank 2 died: rank 0's store saw
            # its connection close, and every wait failed at once naming it, not at the timeout.
            self.assertIn("barrier 'railgauge/end': store: rank 2 is lost: its connection to the "
                          "store", err)
            self.assertLess(after_s, timeout_s, err)
            manifest = json.loads((run_dir / f"rank-{rank:05d}" / "run.json").read_text())
            self.assertEqual(manifest["status"], "failed")
            self.assertIn("rank 2 is lost", manifest["failure"])
            # Named with its host, so that check drains its node (the survivors that ended after
            # it are not named: they reached the end barrier).
            victim_host = json.loads((run_dir / "rank-00002" / "run.json").read_text())["host"]
            self.assertEqual([(l["rank"], l["host"]) for l in manifest["lost_ranks"]],
                             [(2, victim_host)], manifest["lost_ranks"])
            self.assertTrue(manifest["lost_ranks"][0]["reason"].startswith("rank 2 is lost: "))

    def test_rank_zero_killed_mid_run_is_named_by_the_others(self):
        run_dir, results, timeout_s = self.kill_one_rank_mid_run(victim=0)
        victim_host = json.loads((run_dir / "rank-00000" / "run.json").read_text())["host"]
        for rank in (1, 2, 3):
            rc, err, after_s = results[rank]
            self.assertEqual(rc, 3, err)
            self.assertIn("served by rank 0; did rank 0 exit?", err)
            self.assertLess(after_s, timeout_s + 30, err)
            # Rank 0's store went with it: each survivor names rank 0 and its host, so that
            # check drains rank 0's node rather than every node whose points it stopped.
            manifest = json.loads((run_dir / f"rank-{rank:05d}" / "run.json").read_text())
            self.assertEqual([(l["rank"], l["host"]) for l in manifest["lost_ranks"]],
                             [(0, victim_host)], manifest["lost_ranks"])
            self.assertIn("served by rank 0", manifest["lost_ranks"][0]["reason"])

    def test_sigterm_to_a_rank_waiting_at_the_end_ends_it_as_interrupted(self):
        # Slurm's time limit reaches a rank that has finished its points and waits at the end
        # barrier for a slower one: it exits 5 saying so, its run.json still complete, not by
        # the signal's default action with nothing said.
        def args_of(rank):
            args = ["run", "quick", "--out", str(self.out), "-q"]
            return args + ["-a", "size_bytes=16KiB:256MiB:*2"] if rank == 1 else args

        procs = start_ranks(RAILGAUGE, args_of, 2, 120)
        try:
            deadline = time.monotonic() + 120
            manifest = None
            while time.monotonic() < deadline:
                paths = list(self.out.glob("*/rank-00000/run.json"))
                if paths and json.loads(paths[0].read_text() or "{}").get("status") == "complete":
                    manifest = paths[0]
                    break
                time.sleep(0.05)
            self.assertIsNotNone(manifest, "rank 0 never finished its points")
            self.assertIsNone(procs[1].poll(), "rank 1 ended before rank 0 was signalled")
            time.sleep(0.5)  # rank 0 marks run.json, then waits at the barrier
            procs[0].send_signal(signal.SIGTERM)
            rc = procs[0].wait(timeout=30)
            err = procs[0].stderr.read()
        finally:
            end_all(procs)
        self.assertEqual(rc, 5, err)
        self.assertIn("SIGTERM while waiting for the other ranks at the end", err)
        self.assertIn("this rank's points are all recorded", err)
        self.assertEqual(json.loads(manifest.read_text())["status"], "complete")

    def test_sigterm_to_a_rank_waiting_at_the_start_ends_it_as_interrupted(self):
        # Rank 1 of 2 never comes; Slurm's time limit reaches rank 0 at the start barrier: it
        # exits 5 with run.json "interrupted" (it once ended by the signal's default action,
        # 143, its run.json "running" as if still going).
        procs = start_ranks(RAILGAUGE, lambda rank: ["run", "quick", "--out", str(self.out), "-q"],
                            2, 120)
        end_all(procs[1:])  # rank 1 never runs
        try:
            deadline = time.monotonic() + 60
            manifest = None
            while time.monotonic() < deadline and manifest is None:
                paths = list(self.out.glob("*/rank-00000/run.json"))
                if paths and json.loads(paths[0].read_text() or "{}").get("status") == "running":
                    manifest = paths[0]
                time.sleep(0.05)
            self.assertIsNotNone(manifest, "rank 0 never wrote its run.json")
            time.sleep(0.5)  # at the start barrier
            procs[0].send_signal(signal.SIGTERM)
            rc = procs[0].wait(timeout=30)
            err = procs[0].stderr.read()
        finally:
            end_all(procs[:1])
        self.assertEqual(rc, 5, err)
        self.assertIn("SIGTERM: the run stops between points", err)
        self.assertEqual(json.loads(manifest.read_text())["status"], "interrupted")

    def test_sigterm_to_every_rank_interrupts_them_all_and_resume_completes(self):
        # As Slurm at the time limit: every task gets SIGTERM. Each rank records its point as an
        # error, marks its run.json interrupted and exits 5, none waiting on the store for the
        # others; the same launch with --resume then completes every rank.
        store_timeout_s = 30

        def args_of(rank):
            return ["run", "quick", "--out", str(self.out), "-q", "-a",
                    "size_bytes=16KiB:64MiB:*2", "--time-budget", "0.2"]

        procs = start_ranks(RAILGAUGE, args_of, 4, store_timeout_s)
        try:
            self.assertIsNotNone(wait_for_first_record(self.out), "rank 0 never wrote a record")
            for p in procs:
                self.assertIsNone(p.poll(), "a rank ended before it could be signalled")
                p.send_signal(signal.SIGTERM)
            signalled_at = time.monotonic()
            results = [(p.wait(timeout=60), time.monotonic() - signalled_at) for p in procs]
            errs = [p.stderr.read() for p in procs]
        finally:
            end_all(procs)
        run_dir = self.only_run_dir()
        for rank, ((rc, after_s), err) in enumerate(zip(results, errs)):
            self.assertEqual(rc, 5, f"rank {rank}: {err}")
            self.assertLess(after_s, store_timeout_s, f"rank {rank} waited on the store: {err}")
            rank_dir = run_dir / f"rank-{rank:05d}"
            manifest = json.loads((rank_dir / "run.json").read_text())
            self.assertEqual(manifest["status"], "interrupted", f"rank {rank}")
            problems, _ = validate_run.validate_run_dir(rank_dir, False)
            self.assertEqual(problems, [], f"rank {rank}")

        procs = start_ranks(RAILGAUGE, lambda rank: args_of(rank) + ["--resume", str(run_dir)],
                            4, store_timeout_s)
        try:
            codes = [p.wait(timeout=300) for p in procs]
            errs = [p.stderr.read() for p in procs]
        finally:
            end_all(procs)
        for rank, (rc, err) in enumerate(zip(codes, errs)):
            self.assertEqual(rc, 0, f"rank {rank} resumed: {err}")
            manifest = json.loads((run_dir / f"rank-{rank:05d}" / "run.json").read_text())
            self.assertEqual(manifest["status"], "complete", f"rank {rank}")


if __name__ == "__main__":
    RAILGAUGE, CHECK = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], sys.argv[3]], verbosity=2)
