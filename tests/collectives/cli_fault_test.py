#!/usr/bin/env python3
"""A rank SIGKILLed in the middle of an MPI collective, through the railgauge command line under
mpirun (label mpi): every survivor's watchdog names the dead rank in an `error` record for the
point in progress, the records written so far stay valid against the schema, run.json says
`failed`, and the job ends (the survivors abort it with MPI_Abort) instead of hanging.

mpirun runs with `--mca orte_abort_on_non_zero_status 0`: otherwise Open MPI ends the whole job
itself the moment a rank dies, before railgauge can notice (what Slurm's srun does without
--kill-on-bad-exit is the case tested here).

Run by CTest:  cli_fault_test.py MPIRUN RAILGAUGE TestName.test_name
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
import validate_run  # noqa: E402
from srun_ranks import records_of, wait_for_first_record  # noqa: E402

MPIRUN = RAILGAUGE = None  # set from argv
RANKS, VICTIM, WATCHDOG_S = 4, 1, 3


def pid_of_rank(out_dir, rank):
    """The railgauge process of `rank` (Open MPI's rank variable) writing under `out_dir`."""
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if (cmdline and cmdline[0].endswith(b"railgauge") and str(out_dir).encode() in cmdline
                and f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ):
            return int(entry.name)
    return None


class CliFaultTest(unittest.TestCase):
    def test_sigkilled_rank_mid_collective_is_named_and_the_job_ends(self):
        with tempfile.TemporaryDirectory(prefix="railgauge-coll-") as tmp:
            out = pathlib.Path(tmp)
            # A quick first point (its record shows the run is under way), then one of 32 MiB
            # and 300 iterations: tens of seconds on a loaded machine, so the kill lands in it.
            cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "--mca",
                   "orte_abort_on_non_zero_status", "0", "-np", str(RANKS), RAILGAUGE,
                   "collectives", "--filter", "collectives.mpi_all_reduce", "-a",
                   "size_bytes=4KiB,32MiB", "-a", "iterations=300", "-a", "in_place=out_of_place",
                   "-a", f"timeout_s={WATCHDOG_S}", "--store-timeout", "10", "--out", str(out),
                   "-q"]
            job = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
            try:
                self.assertIsNotNone(wait_for_first_record(out, ranks=RANKS),
                                     "the ranks never wrote their first records")
                time.sleep(0.5)
                victim = pid_of_rank(out, VICTIM)
                self.assertIsNotNone(victim, "no process of rank 1 found")
                os.kill(victim, signal.SIGKILL)
                hit_at = time.monotonic()
                _, err = job.communicate(timeout=120)
                after_s = time.monotonic() - hit_at
            finally:
                if job.poll() is None:
                    job.kill()
                    job.communicate()
            print(f"mpirun ended {after_s:.1f} s after the kill, exit {job.returncode}",
                  file=sys.stderr)
            self.assertNotEqual(job.returncode, 0, err)
            # The watchdog (3 s), its census grace, the survivors' done-exchange, the abort.
            self.assertLess(after_s, 60, err)
            self.assertIn(f"rank {VICTIM} of {RANKS} did not answer", err)
            [run_dir] = [p for p in out.iterdir() if p.is_dir()]
            for rank in range(RANKS):
                rank_dir = run_dir / f"rank-{rank:05d}"
                problems, count = validate_run.validate_run_dir(rank_dir, False)
                self.assertEqual(problems, [], f"rank {rank}")
                self.assertGreater(count, 0, f"rank {rank} lost its records")
                if rank == VICTIM:
                    continue
                records = records_of(rank_dir)
                self.assertEqual([r["status"] for r in records], ["ok", "error"], err)
                self.assertEqual(records[1]["key"], "collectives.mpi_all_reduce")
                self.assertEqual(records[1]["axes"]["size_bytes"], 32 << 20)
                self.assertIn(f"rank {VICTIM} of {RANKS} did not answer", records[1]["reason"])
                manifest = json.loads((rank_dir / "run.json").read_text())
                self.assertEqual(manifest["status"], "failed")

    def test_rank_that_never_reaches_an_mpi_point_is_named(self):
        # MPMD: ranks 0-2 run an MPI collective, rank 3 only a host-memory point and never
        # initialises MPI. The others must not hang in MPI_Comm_dup: the arrival census names
        # rank 3 within the store timeout and the job ends.
        with tempfile.TemporaryDirectory(prefix="railgauge-coll-") as tmp:
            out = pathlib.Path(tmp)
            common = ["--store-timeout", "8", "--out", str(out), "-q"]
            cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "--mca",
                   "orte_abort_on_non_zero_status", "0",
                   "-np", str(RANKS - 1), RAILGAUGE, "collectives", "--filter",
                   "collectives.mpi_all_reduce", "-a", "size_bytes=4KiB", "-a",
                   "in_place=out_of_place", "-a", f"timeout_s={WATCHDOG_S}", *common, ":",
                   "-np", "1", RAILGAUGE, "memory", "--filter", "memory.host_copy", "-a",
                   "size_bytes=4KiB", *common]
            started = time.monotonic()
            job = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
            took_s = time.monotonic() - started
            self.assertNotEqual(job.returncode, 0, job.stderr)
            self.assertLess(took_s, 90, job.stderr)
            missing = f"rank {RANKS - 1} of {RANKS} did not arrive at the first MPI point"
            [run_dir] = [p for p in out.iterdir() if p.is_dir()]
            for rank in range(RANKS - 1):
                records = records_of(run_dir / f"rank-{rank:05d}")
                self.assertTrue(records, f"rank {rank} wrote nothing")
                self.assertEqual(records[0]["status"], "error")
                self.assertIn(missing, records[0]["reason"])


if __name__ == "__main__":
    MPIRUN, RAILGAUGE = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], sys.argv[3]], verbosity=2)
