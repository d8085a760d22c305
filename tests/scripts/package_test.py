"""The installed layout, outside the checkout: `cmake --install` into a fresh prefix and the
Debian package (cpack) unpacked into a clean root each give a railgauge that finds its suites,
rules and GPU peaks beside itself, lists, runs the quick suite and judges it; the stripped binary
holds no path of the source tree; $RAILGAUGE_DATA_DIR overrides the data directory, and a
missing one is a clear input error.

Usage: package_test.py RAILGAUGE_BINARY SOURCE_DIR BUILD_DIR [TestName ...]
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = SOURCE = BUILD = None


class PackageTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge_package_")
        self.addCleanup(self.tmp.cleanup)

    def run_in_tmp(self, argv, env=None, timeout=300):
        """Runs from the temporary directory, never the checkout, with no railgauge variables."""
        clean = {k: v for k, v in os.environ.items() if not k.startswith("RAILGAUGE_")}
        clean.update(env or {})
        return subprocess.run(argv, cwd=self.tmp.name, capture_output=True, text=True,
                              timeout=timeout, env=clean)

    def exercise(self, binary, data_dir):
        """list, a quick run and check with the installed binary; its data comes from data_dir."""
        p = self.run_in_tmp([binary, "list"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"read from {data_dir} (beside the binary)", p.stdout)
        runs = os.path.join(self.tmp.name, "runs")
        p = self.run_in_tmp([binary, "run", "quick", "--filter", "memory.host_*", "--out", runs,
                             "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        [records] = glob.glob(os.path.join(runs, "*", "records.jsonl"))
        with open(records) as f:
            statuses = {json.loads(line)["status"] for line in f}
        self.assertEqual(statuses, {"ok"})
        p = self.run_in_tmp([binary, "check", "--rules", "host-only", runs])
        self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)  # pass, or warn on a busy host
        self.assertIn(os.path.join(data_dir, "rules", "host-only.yaml"), p.stdout)
        p = self.run_in_tmp([binary, "check", "--rules", "host-only", "--inventory-only"])
        self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)

    def assert_no_source_path(self, binary):
        with open(binary, "rb") as f:
            self.assertNotIn(os.path.realpath(SOURCE).encode(), f.read(),
                             f"{binary} names the source tree")

    def test_cmake_install_runs_outside_the_checkout(self):
        prefix = os.path.join(self.tmp.name, "prefix")
        p = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix, "--strip"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        for path in ["bin/railgauge", "share/railgauge/suites/node.yaml",
                     "share/railgauge/rules/h100-sxm-ib.yaml",
                     "share/railgauge/peaks/gpu_peaks.yaml",
                     "share/railgauge/schema/record.schema.json",
                     "share/railgauge/slurm/slurm_burnin.sbatch"]:
            self.assertTrue(os.path.isfile(os.path.join(prefix, path)), path)
        binary = os.path.join(prefix, "bin", "railgauge")
        self.assert_no_source_path(binary)
        self.exercise(binary, os.path.join(prefix, "share", "railgauge"))

    def test_debian_package_unpacked_in_a_clean_root(self):
        out = os.path.join(self.tmp.name, "pkg")
        p = subprocess.run(["cpack", "-G", "DEB", "--config",
                            os.path.join(BUILD, "CPackConfig.cmake"), "-B", out],
                           capture_output=True, text=True, timeout=600, cwd=BUILD)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        [deb] = glob.glob(os.path.join(out, "railgauge_*_*.deb"))
        self.assertRegex(os.path.basename(deb), r"^railgauge_\d+\.\d+\.\d+_amd64\.deb$")
        depends = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True,
                                 text=True, check=True).stdout
        # The Debian libraries the binary links, as dpkg-shlibdeps names them.
        for package in ["libyaml-cpp0.7", "libfmt9", "libhwloc15", "libstdc++6"]:
            self.assertIn(package, depends)
        root = os.path.join(self.tmp.name, "root")
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
        binary = os.path.join(root, "usr", "bin", "railgauge")
        self.assert_no_source_path(binary)
        self.exercise(binary, os.path.join(root, "usr", "share", "railgauge"))

    def test_data_dir_variable_overrides_and_a_missing_one_is_named(self):
        data = os.path.join(self.tmp.name, "site")
        shutil.copytree(os.path.join(SOURCE, "results", "suites"), os.path.join(data, "suites"))
        p = self.run_in_tmp([BINARY, "list"], env={"RAILGAUGE_DATA_DIR": data})
        self.assertIn(f"read from {data} (RAILGAUGE_DATA_DIR)", p.stdout)
        empty = os.path.join(self.tmp.name, "empty")
        os.mkdir(empty)
        p = self.run_in_tmp([BINARY, "check", "--rules", "h100-sxm-ib", "--inventory-only"],
                            env={"RAILGAUGE_DATA_DIR": empty})
        self.assertEqual(p.returncode, 4, p.stdout + p.stderr)
        self.assertIn("RAILGAUGE_DATA_DIR", p.stderr)
        self.assertIn(os.path.join(empty, "rules"), p.stderr)


if __name__ == "__main__":
    BINARY, SOURCE, BUILD = sys.argv[1:4]
    run_named_tests(sys.argv[4:])
