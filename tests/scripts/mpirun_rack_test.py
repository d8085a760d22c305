"""scripts/mpirun_rack.sh with a stand-in mpirun that prints its arguments: every NCCL_*
variable of the caller is forwarded with -x (so NCCL_ALGO/NCCL_PROTO reach every rank),
NCCL_DEBUG defaults to WARN and a caller's value wins, and ranks are bound to their NUMA node.

Usage: mpirun_rack_test.py SOURCE_DIR [TestName ...]
"""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_named_tests  # noqa: E402

SOURCE = None


class MpirunRackTest(unittest.TestCase):
    def launch(self, extra_env):
        """The stand-in mpirun's argv, one argument a line, and the environment it saw."""
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "mpirun")
            with open(fake, "w") as f:
                f.write('#!/usr/bin/env bash\nprintf "%s\\n" "$@"\n')
            os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
            hosts = os.path.join(tmp, "hosts.txt")
            with open(hosts, "w") as f:
                f.write("n0 slots=8\nn1 slots=8\n")
            env = {k: v for k, v in os.environ.items() if not k.startswith("NCCL_")}
            env.update(extra_env, PATH=tmp + os.pathsep + env.get("PATH", ""), HOSTFILE=hosts,
                       RAILGAUGE="/bin/true")
            p = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "mpirun_rack.sh")],
                               env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            return p.stdout.splitlines()

    @staticmethod
    def forwarded(args):
        return [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-x"]

    def test_every_nccl_variable_is_forwarded(self):
        args = self.launch({"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple", "NCCL_IB_HCA": "mlx5"})
        fwd = self.forwarded(args)
        for name in ("NCCL_ALGO", "NCCL_PROTO", "NCCL_IB_HCA"):
            self.assertIn(name, fwd)
        self.assertIn("NCCL_DEBUG=WARN", fwd)
        self.assertIn("-np", args)
        self.assertEqual(args[args.index("-np") + 1], "16")

    def test_callers_nccl_debug_wins_and_is_forwarded_once(self):
        fwd = self.forwarded(self.launch({"NCCL_DEBUG": "INFO"}))
        self.assertEqual([f for f in fwd if f.startswith("NCCL_DEBUG")], ["NCCL_DEBUG=INFO"])

    def test_ranks_bind_to_their_numa_node(self):
        args = self.launch({})
        self.assertEqual(args[args.index("--bind-to") + 1], "numa")
        self.assertEqual(args[args.index("--map-by") + 1], "ppr:4:numa")


if __name__ == "__main__":
    SOURCE = sys.argv[1]
    run_named_tests(sys.argv[2:])
