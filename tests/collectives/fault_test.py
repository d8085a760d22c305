#!/usr/bin/env python3
"""Watchdog fault tests under mpirun (label mpi): a rank that never joins a collective, and a
rank SIGKILLed in the middle of one. The others must stop within the watchdog's time (2 s
timeout + census grace + start-up) and name the rank; nothing may hang."""
import re
import subprocess
import sys
import time
import unittest

MPIRUN, PROBE = sys.argv[1], sys.argv[2]
RANKS = 4
LIMIT_S = 60  # generous for a loaded 2-core machine; a hang would run to ctest's timeout


def run(mode, victim, extra=()):
    cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", *extra, "-np", str(RANKS), PROBE,
           mode, str(victim)]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT_S)
    return p, time.monotonic() - t0


class WatchdogTest(unittest.TestCase):
    def test_rank_that_never_joins_is_named_by_every_other_rank(self):
        p, elapsed = run("hang", 2)
        out = p.stdout + p.stderr
        self.assertNotEqual(p.returncode, 0, out)
        self.assertLess(elapsed, LIMIT_S)
        outcomes = re.findall(r"rank (\d) outcome: (\w+): (.*)", p.stdout)
        survivors = {int(r) for r, _, _ in outcomes}
        self.assertEqual(survivors, {0, 1, 3}, out)
        for r, status, reason in outcomes:
            self.assertEqual(status, "error", reason)
            self.assertIn("rank 2 of 4 did not answer", reason)

    def test_sigkilled_rank_is_named_by_every_survivor(self):
        # Open MPI's mpirun ends the job itself when a rank dies of a signal; with that turned
        # off, the survivors' watchdog is what notices, and each names the dead rank.
        p, elapsed = run("kill", 1, ["--mca", "orte_abort_on_non_zero_status", "0"])
        out = p.stdout + p.stderr
        self.assertNotEqual(p.returncode, 0, out)
        self.assertLess(elapsed, LIMIT_S)
        outcomes = re.findall(r"rank (\d) outcome: (\w+): (.*)", p.stdout)
        self.assertEqual({int(r) for r, _, _ in outcomes}, {0, 2, 3}, out)
        for r, status, reason in outcomes:
            self.assertEqual(status, "error", reason)
            self.assertIn("rank 1 of 4 did not answer", reason)

    def test_sigkilled_rank_ends_the_job_and_is_named(self):
        p, elapsed = run("kill", 1)
        out = p.stdout + p.stderr
        self.assertNotEqual(p.returncode, 0, out)
        self.assertLess(elapsed, LIMIT_S)
        self.assertNotIn("rank 1 outcome", p.stdout)
        # Either our watchdog named it (survivors' outcomes) or mpirun did, on noticing the
        # signal first and ending the job: both name rank 1; nobody reports success.
        named = "rank 1 of 4 did not answer" in out or re.search(
            r"rank 1 with PID \d+ on node \S+ exited on signal 9", out)
        self.assertTrue(named, out)
        self.assertNotIn("outcome: ok", p.stdout)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:], verbosity=2)
