"""scripts/node_kit.sh: bad arguments, the kit of this build (self-contained: every library the
packed executables link resolves inside it or is one a node has, and the packed binary starts
with only the kit's libraries, in a directory whose name has a space and brackets), a library
left out named with exit 1, and --tar.

Usage: node_kit_test.py RAILGAUGE_BINARY SOURCE_DIR [TestName ...]
"""
import os
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
        self.assertFalse([n for n in libs if n.startswith(("libc.so", "libstdc++", "libcuda."))])
        # The CUDA toolkit's libraries travel with the kit when the build links them.
        linked = subprocess.run(["ldd", BINARY], capture_output=True, text=True).stdout
        for lib in ("libcublasLt.so", "libnccl.so"):
            if lib in linked:
                self.assertTrue(any(n.startswith(lib) for n in libs), (lib, libs))
        self.assertTrue(os.path.isfile(os.path.join(out, "build", "share", "railgauge", "rules",
                                                    "h100-sxm-ib.yaml")))
        with open(os.path.join(out, "kit.txt")) as f:
            kit = f.read()
        self.assertIn("  ok", kit)
        self.assertIn("build/bin/railgauge", kit)
        v = subprocess.run(["env", "-i", f"LD_LIBRARY_PATH={out}/lib", packed, "--version"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("railgauge", v.stdout)
        # The wrapper runs it from anywhere with no environment, and it finds the kit's data.
        w = subprocess.run(["env", "-i", os.path.join(out, "railgauge"), "check", "--rules",
                            "host-only", "--inventory-only"], capture_output=True, text=True,
                           timeout=60, cwd="/")
        self.assertIn(w.returncode, (0, 1), w.stdout + w.stderr)
        self.assertIn(os.path.join(out, "build", "share", "railgauge", "rules"), w.stdout)

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
        p = self.run_kit("--build-dir", os.path.dirname(os.path.dirname(BINARY)), "--out", out,
                         "--tar", "--without-cuda-libs")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with tarfile.open(out + ".tar.xz") as t:
            names = t.getnames()
        self.assertIn("kit/build/bin/railgauge", names)
        self.assertIn("kit/kit.txt", names)
        self.assertIn("kit/railgauge", names)
        self.assertIn("kit/build/share/railgauge/suites/burnin-h100.yaml", names)
        self.assertFalse([n for n in names if "libcublasLt" in n or "libnccl" in n])


def main():
    global BINARY, SOURCE
    BINARY, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    run_named_tests(sys.argv[3:])


if __name__ == "__main__":
    main()
