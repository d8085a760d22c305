"""scripts/cuda_waivers.py, which scripts/package_cuda.sh and package_image.sh run on the GPU
package's `railgauge list`: the core package's listing (tests/fixtures/list/core_package.txt) is
refused, naming a key and "built without CUDA"; the listing of the build under test passes when
it was built with CUDA and NCCL (every GPU benchmark runs or waits for a driver) and is refused
when not; a GPU benchmark waived for another reason is named; an input without benchmarks exits 2.

Usage: cuda_waivers_test.py RAILGAUGE_BINARY SOURCE_DIR BUILD_DIR [TestName ...]
"""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = SOURCE = BUILD = None


class CudaWaiversTest(unittest.TestCase):
    def judge(self, listed):
        script = os.path.join(SOURCE, "scripts", "cuda_waivers.py")
        return subprocess.run([sys.executable, script], input=listed, capture_output=True,
                              text=True, timeout=60)

    def core_listing(self):
        with open(os.path.join(SOURCE, "tests", "fixtures", "list", "core_package.txt")) as f:
            return f.read()

    def build_listing(self):
        with tempfile.TemporaryDirectory(prefix="railgauge_cuda_waivers_") as cwd:
            p = subprocess.run([BINARY, "list"], cwd=cwd, capture_output=True, text=True,
                               timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def built_with_cuda_and_nccl(self):
        with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
            cache = f.read()
        return all(f"RAILGAUGE_ENABLE_{x}:BOOL=ON" in cache for x in ("CUDA", "NCCL"))

    def test_the_core_package_is_refused_naming_the_reason(self):
        p = self.judge(self.core_listing())
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("cuda_waivers.py: memory.hbm_read is waived for another reason than the "
                      "driver: built without CUDA", p.stderr)
        self.assertIn("collectives.nccl_all_reduce is waived for another reason than the driver: "
                      "built without NCCL", p.stderr)

    def test_the_build_under_test_passes_exactly_when_built_with_cuda(self):
        p = self.judge(self.build_listing())
        if self.built_with_cuda_and_nccl():
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stderr, r"cuda_waivers.py: \d+ GPU benchmarks: \d+ run here, \d+ "
                                       r"wait for the NVIDIA driver")
        else:
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("built without", p.stderr)

    def test_a_gpu_benchmark_waived_for_another_reason_is_named(self):
        lines = [line for line in self.build_listing().splitlines()
                 if not line.startswith("gemm.cublaslt  [")]
        lines.append("gemm.cublaslt  [waived here: cuBLASLt returned no algorithm]")
        p = self.judge("\n".join(lines))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("gemm.cublaslt is waived for another reason than the driver: cuBLASLt "
                      "returned no algorithm", p.stderr)

    def test_no_benchmark_listed_exits_2(self):
        p = self.judge("railgauge: unknown command 'lsit'\n")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("lists no GPU benchmark", p.stderr)


def main():
    global BINARY, SOURCE, BUILD
    BINARY, SOURCE, BUILD = (os.path.abspath(a) for a in sys.argv[1:4])
    run_named_tests(sys.argv[4:])


if __name__ == "__main__":
    main()
