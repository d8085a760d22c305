"""scripts/node_kit.sh: bad arguments, the kit of this build (self-contained: every library the
packed executables link resolves inside it or is one a node has, and the packed binary starts
with only the kit's libraries, in a directory whose name has a space and brackets), a library
left out named with exit 1, and --tar.

Usage: node_kit_test.py RAILGAUGE_BINARY SOURCE_DIR [TestName ...]
"""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_named_tests  # noqa: E402
from stand_ins import executable  # noqa: E402

BINARY = SOURCE = None



class NodeKitTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge_node_kit_")
        self.addCleanup(self.tmp.cleanup)
        self.script = os.path.join(SOURCE, "scripts", "node_kit.sh")

    def run_kit(self, *args, env=None):
        return subprocess.run([self.script, *args], capture_output=True, text=True, timeout=300,
                              env=env)

    def small_build(self):
        """A build directory whose railgauge is a copy of true(1): links only the C runtime."""
        build = os.path.join(self.tmp.name, "small")
        os.makedirs(os.path.join(build, "bin"))
        shutil.copy(shutil.which("true"), os.path.join(build, "bin", "railgauge"))
        return build

    def test_bad_arguments_exit_2(self):
        out = os.path.join(self.tmp.name, "kit")
        build = os.path.dirname(os.path.dirname(BINARY))
        os.makedirs(os.path.join(self.tmp.name, "full"))
        open(os.path.join(self.tmp.name, "full", "x"), "w").close()
        for args, message in [(["--frobnicate"], "unknown argument"),
                              (["--build-dir", self.tmp.name], "no railgauge"),
                              (["--build-dir", build, "--peer", "nvbandwidth"], "NAME=PATH"),
                              (["--build-dir", build, "--peer", "x=/nonexistent"], "no such"),
                              (["--build-dir", build, "--out", os.path.join(self.tmp.name, "full")],
                               "not empty")]:
            p = self.run_kit(*args, *([] if "--out" in args else ["--out", out]))
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertIn(message, p.stderr, args)
        self.assertFalse(os.path.exists(out))

    def test_kit_of_this_build_is_self_contained(self):
        out = os.path.join(self.tmp.name, "a kit [1]")  # ldd's lines and the prefix test
        peer = executable(os.path.join(self.tmp.name, "peer", "nvbandwidth"), "#!/bin/sh\n")
        p = self.run_kit("--build-dir", os.path.dirname(os.path.dirname(BINARY)), "--out", out,
                         "--peer", f"nvbandwidth={peer}")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        packed = os.path.join(out, "build", "bin", "railgauge")
        self.assertTrue(os.access(packed, os.X_OK))
        self.assertTrue(os.access(os.path.join(out, "peers", "nvbandwidth", "nvbandwidth"),
                                  os.X_OK))
        libs = os.listdir(os.path.join(out, "lib"))
        self.assertTrue(any(n.startswith("libfmt.so") for n in libs), libs)
        self.assertFalse([n for n in libs if n.startswith(("libc.so", "libstdc++", "libcuda"))])
        with open(os.path.join(out, "kit.txt")) as f:
            kit = f.read()
        self.assertIn("  ok", kit)
        self.assertIn("build/bin/railgauge", kit)
        v = subprocess.run(["env", "-i", f"LD_LIBRARY_PATH={out}/lib", packed, "--version"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("railgauge", v.stdout)

    def test_a_library_left_out_is_named_and_exits_1(self):
        # An ldd that lists nothing: no library is packed, so the check finds railgauge's
        # libraries outside the kit and names them.
        fake = os.path.join(self.tmp.name, "fakebin")
        executable(os.path.join(fake, "ldd"), "#!/bin/sh\nexit 0\n")
        env = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"])
        out = os.path.join(self.tmp.name, "kit")
        p = self.run_kit("--build-dir", os.path.dirname(os.path.dirname(BINARY)), "--out", out,
                         env=env)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("not in the kit: build/bin/railgauge: libfmt.so", p.stdout)
        self.assertIn("FAILED", p.stdout)

    def test_tar_holds_the_kit(self):
        out = os.path.join(self.tmp.name, "kit")
        p = self.run_kit("--build-dir", self.small_build(), "--out", out, "--tar")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with tarfile.open(out + ".tar.xz") as t:
            names = t.getnames()
        self.assertIn("kit/build/bin/railgauge", names)
        self.assertIn("kit/kit.txt", names)


def main():
    global BINARY, SOURCE
    BINARY, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    run_named_tests(sys.argv[3:])


if __name__ == "__main__":
    main()
