#!/usr/bin/env python3
"""The NHC check that docs/launch.md gives ("Health checks in seconds"), run as NHC runs it, with
the real railgauge first on PATH and NHC's `die` standing in: a node it drains is drained with a
reason, also when railgauge judged nothing (exit 4), where the reason was once empty.

    health_hook_test.py RAILGAUGE_BINARY SOURCE_DIR [HealthHookTest.test_name ...]
"""
import os
import pathlib
import re
import subprocess
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = SOURCE = None  # set from argv


def nhc_check():
    """The shell function check_railgauge as docs/launch.md prints it."""
    text = (pathlib.Path(SOURCE) / "docs" / "launch.md").read_text()
    found = re.search(r"```sh\n(function check_railgauge\(\) \{.*?\n\})\n```", text, re.S)
    assert found, "docs/launch.md holds no check_railgauge function"
    return found.group(1)


def run_check(profile):
    """Runs check_railgauge PROFILE under bash; returns (its status, what `die` was given)."""
    script = ("die() { echo \"die $1: $2\"; }\n" + nhc_check() +
              f"\ncheck_railgauge {profile}\necho \"status $?\"\n")
    env = dict(os.environ, PATH=f"{pathlib.Path(BINARY).parent}:{os.environ['PATH']}")
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                       timeout=120)
    status = int(re.search(r"^status (\d+)$", r.stdout, re.M).group(1))
    died = re.search(r"^die 1: (.*)$", r.stdout, re.M)
    return status, died.group(1) if died else None


class HealthHookTest(unittest.TestCase):
    def test_a_check_that_judged_nothing_drains_with_railgauge_s_reason(self):
        status, said = run_check("no-such-profile")
        self.assertEqual(status, 1)
        self.assertIsNotNone(said, "the node failed the check but die was not called")
        prefix = "railgauge inventory check failed (exit 4): "
        self.assertTrue(said.startswith(prefix), said)
        self.assertIn("no-such-profile", said[len(prefix):])


if __name__ == "__main__":
    BINARY, SOURCE = sys.argv[1], sys.argv[2]
    run_named_tests(sys.argv[3:])
