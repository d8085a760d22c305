"""scripts/reference_run.sh end to end on a machine without a GPU: bad arguments, the --quick
run (every GPU point a waived record, the GPU-only steps saying "no GPU", exit 3), the GPU path
with a stand-in nvidia-smi (GPU tests run, peers and calibrate fail clearly, exit 1), and the
time budget (a step that outlives its share is killed, later ones are skipped, exit 1).

Usage: reference_run_test.py RAILGAUGE_BINARY SOURCE_DIR [TestName ...]
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_named_tests  # noqa: E402
from stand_ins import executable  # noqa: E402

BINARY = SOURCE = None


def gpu_here():
    smi = shutil.which("nvidia-smi") or "/usr/local/nvidia/bin/nvidia-smi"
    try:
        p = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0 and "GPU " in p.stdout



class ReferenceRunTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge_reference_")
        self.addCleanup(self.tmp.cleanup)
        self.script = os.path.join(SOURCE, "scripts", "reference_run.sh")
        self.env = dict(os.environ, PYTHON=sys.executable)

    def run_script(self, *args, env=None, timeout=300):
        return subprocess.run([self.script, *args], capture_output=True, text=True,
                              timeout=timeout, env=env or self.env)

    def manifest(self, out):
        with open(os.path.join(out, "manifest.json")) as f:
            m = json.load(f)
        return m, {s["name"]: s for s in m["steps"]}

    def fake_build(self, railgauge=None):
        """A build directory as copied to a node: bin/railgauge and one GPU test executable,
        no ctest files."""
        build = os.path.join(self.tmp.name, "build")
        os.makedirs(os.path.join(build, "bin"))
        if railgauge:
            executable(os.path.join(build, "bin", "railgauge"), railgauge)
        else:
            os.symlink(BINARY, os.path.join(build, "bin", "railgauge"))
        executable(os.path.join(build, "tests", "cuda", "cuda_tests"),
                   "#!/bin/sh\necho \"stand-in GPU test $*\"\n")
        return build

    def fake_nvbandwidth(self):
        """An nvbandwidth that prints the JSON format sample of tests/fixtures/nvbandwidth."""
        sample = os.path.join(SOURCE, "tests", "fixtures", "nvbandwidth", "two_gpus.json")
        return executable(os.path.join(self.tmp.name, "nvbandwidth", "nvbandwidth"),
                          f"#!/bin/sh\ncat '{sample}'\n")

    def fake_gpu_env(self, name="NVIDIA H100 80GB HBM3"):
        bin_dir = os.path.join(self.tmp.name, "fakebin")
        executable(os.path.join(bin_dir, "nvidia-smi"),
                   "#!/bin/sh\ncase \"$1\" in\n"
                   f"-L) echo 'GPU 0: {name} (UUID: GPU-00000000-0000-0000-0000-"
                   "000000000000)' ;;\n*) echo \"stand-in nvidia-smi $*\" ;;\nesac\n")
        return dict(self.env, PATH=bin_dir + os.pathsep + self.env["PATH"])

    def fake_nccl_tests(self):
        """An nccl-tests build directory with all_reduce_perf and all_gather_perf only, each of
        which writes the JSON format sample of tests/fixtures/nccl-tests where -J says."""
        sample = os.path.join(SOURCE, "tests", "fixtures", "nccl-tests",
                              "all_reduce_format_sample.json")
        directory = os.path.join(self.tmp.name, "nccl-tests")
        for name in ("all_reduce_perf", "all_gather_perf"):
            executable(os.path.join(directory, name),
                       f"#!/bin/sh\necho \"stand-in {name} $*\"\n"
                       "while [ $# -gt 0 ]; do\n"
                       f"  if [ \"$1\" = -J ]; then cp '{sample}' \"$2\"; fi\n"
                       "  shift\ndone\n")
        return directory

    def test_bad_arguments_exit_2_and_run_nothing(self):
        out = os.path.join(self.tmp.name, "out")
        build = os.path.dirname(os.path.dirname(BINARY))
        cases = [(["--frobnicate"], "unknown argument"),
                 (["--build-dir", os.path.join(self.tmp.name, "nope")], "--build-dir"),
                 (["--build-dir", self.tmp.name], "no railgauge binary"),
                 (["--build-dir", build, "--budget-s", "soon"], "not a whole number"),
                 (["--build-dir", build, "--budget-s", "10"], "too short"),
                 (["--build-dir", build, "--rules", "/nonexistent.yaml"], "--rules"),
                 (["--build-dir", build, "--lib-dir", "/nonexistent"], "--lib-dir"),
                 (["--build-dir", build, "--nccl-tests", "/nonexistent"], "--nccl-tests"),
                 (["--build-dir", build, "--nccl-tests", self.tmp.name], "no all_reduce_perf"),
                 (["--build-dir", build, "--nvbandwidth", self.tmp.name], "not an executable"),
                 (["--build-dir", build, "--only", "gemm,bogus"], "no group 'bogus'"),
                 (["--build-dir", build, "--only", "gemm memory"], "no group 'gemm memory'"),
                 (["--build-dir", build, "--only", "torch,block"], "needs gemm, memory or offload"),
                 (["--build-dir", build, "--only", "nccl-tests"], "needs --nccl-tests"),
                 (["--build-dir", build, "--only", "nvbandwidth"], "needs --nvbandwidth"),
                 (["--build-dir", build, "--interleave", "2"], "at least 3"),
                 (["--build-dir", build, "--interleave", "x"], "--interleave 'x'"),
                 (["--build-dir", build, "--out"], "--out needs")]
        for args, message in cases:
            p = self.run_script(*args, "--out", out) if args[-1] != "--out" else \
                self.run_script(*args)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertIn(message, p.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        os.makedirs(out)
        open(os.path.join(out, "something"), "w").close()
        p = self.run_script("--build-dir", build, "--out", out, "--quick")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("not empty", p.stderr)
        self.assertEqual(os.listdir(out), ["something"])

    @unittest.skipIf(gpu_here(), "this machine has a GPU: the no-GPU path does not apply")
    def test_quick_run_without_gpu_waives_gpu_points_and_exits_3(self):
        out = os.path.join(self.tmp.name, "out")
        build = os.path.dirname(os.path.dirname(BINARY))
        p = self.run_script("--build-dir", build, "--out", out, "--quick")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("no GPU", p.stdout)
        m, steps = self.manifest(out)
        self.assertEqual((m["exit_status"], m["gpu_seen"], m["quick"]), (3, False, True))
        for name in ("gpu-tests", "gemm-vs-torch", "copy-vs-torch", "calibrate"):
            self.assertEqual(steps[name]["status"], "skipped", name)
            self.assertIn("no GPU", steps[name]["note"], name)
        probe_built = os.access(os.path.join(build, "bin", "hbm_copy_variants"), os.X_OK)
        self.assertEqual(steps["hbm-copy-variants"]["status"], "skipped")
        self.assertIn("no GPU" if probe_built else "in the build",
                      steps["hbm-copy-variants"]["note"])
        self.assertEqual(steps["check"]["status"], "verdict fail")  # 8-GPU rules, no GPU
        with open(os.path.join(out, "summary.txt")) as f:
            summary = f.read()
        # The verdict and each violated rule with its first finding, on the summary page.
        self.assertRegex(summary, r"\n  FAIL gpu-count \[health\]: 1 finding on 1 part\n"
                                  r"    \S+ node: node.gpu_count \(summary.gpus\) = 0, needs >= 8\n")
        self.assertRegex(summary, r"\n  FAIL: 1 node \(0 pass, 0 warn, 1 fail\)")
        self.assertTrue(m["railgauge_version"].startswith("railgauge "), m["railgauge_version"])
        # The commit the binary states it was built from, not the tree the script runs in.
        with open(glob.glob(os.path.join(out, steps["gemm-model"]["run_dir"], "*",
                                         "run.json"))[0]) as f:
            built_from = json.load(f)["railgauge"]["source_commit"]
        self.assertEqual(m["source_commit"], built_from)
        for name in ("gemm-model", "gemm-size", "gemm-dtypes", "memory-hbm", "offload",
                     "collectives"):
            self.assertEqual((steps[name]["status"], steps[name]["exit"]), ("ok", 0), name)
            self.assertIn("no GPU", steps[name]["note"], name)
            # Named relative to the source tree: the output holds no path of this machine.
            self.assertTrue(steps[name]["command"].startswith(os.path.relpath(build, SOURCE)),
                            (name, steps[name]["command"]))
            run_dir = os.path.join(out, steps[name]["run_dir"])
            (run_id,) = os.listdir(run_dir)
            with open(os.path.join(run_dir, run_id, "records.jsonl")) as f:
                recs = [json.loads(line) for line in f]
            self.assertTrue(recs, name)
            gpu_keys = [r for r in recs if not r["key"].startswith("collectives.mpi")]
            self.assertTrue(gpu_keys, name)
            for r in gpu_keys:
                self.assertEqual(r["status"], "waived", r)
                self.assertTrue(r["reason"], r)
        self.assertIn("--tp 1,2,4,8,16,32", steps["gemm-model"]["command"])
        if "validate" in steps:  # needs python3-jsonschema
            self.assertEqual(steps["validate"]["status"], "ok", steps["validate"])
        with open(os.path.join(out, "inventory.json")) as f:
            self.assertIsInstance(json.load(f), dict)
        with open(os.path.join(out, "summary.txt")) as f:
            summary = f.read()
        self.assertIn("No GPU here", summary)
        self.assertIn("108 waived", summary)  # gpt3-175b: 6 t x 6 GEMMs x 3 passes
        self.assertIn("finished", summary.splitlines()[0])
        self.assertIn("Failed or timed out: none", summary)
        self.assertTrue(os.path.getsize(os.path.join(out, "reference_run.log")) > 0)
        check = subprocess.run([sys.executable, os.path.join(SOURCE, "scripts",
                                                             "relative_paths.py"), out, "--check"],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        for s in m["steps"]:
            self.assertTrue(os.path.exists(os.path.join(out, s["log"])), s)

    def test_gpu_steps_run_and_fail_clearly_when_the_gpu_does_not_answer(self):
        out = os.path.join(self.tmp.name, "out")
        lib_dir = os.path.join(self.tmp.name, "lib")
        os.makedirs(lib_dir)
        p = self.run_script("--build-dir", self.fake_build(), "--out", out, "--quick",
                            "--lib-dir", lib_dir, "--nccl-tests", self.fake_nccl_tests(),
                            "--nvbandwidth", self.fake_nvbandwidth(), env=self.fake_gpu_env())
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        m, steps = self.manifest(out)
        self.assertTrue(m["gpu_seen"])
        # The copied libraries are for railgauge; the Python steps keep the caller's path.
        self.assertIn(lib_dir, m["railgauge_ld_library_path"])
        self.assertNotIn(lib_dir, steps["copy-vs-torch"]["command"])
        # A copied build has no ctest files: its GPU test executables run directly.
        self.assertEqual(steps["gpu-tests-cuda_tests"]["status"], "ok")
        with open(os.path.join(out, steps["gpu-tests-cuda_tests"]["log"])) as f:
            self.assertIn("stand-in GPU test --gtest_output=xml:", f.read())
        # The comparison scripts exit 2 when nothing pairs; railgauge calibrate 4 (bad input).
        for name, status in (("gemm-vs-torch-model", 2), ("gemm-vs-torch-size", 2),
                             ("copy-vs-torch", 2), ("calibrate", 4)):
            self.assertEqual((steps[name]["status"], steps[name]["exit"]), ("failed", status), name)
            self.assertTrue(steps[name]["note"], name)
        self.assertIn("no ok record", steps["copy-vs-torch"]["note"])
        with open(os.path.join(out, "summary.txt")) as f:
            self.assertIn("results/reference/h100-80gb-hbm3-", f.read())
        with open(os.path.join(out, "gpu", "nvidia-smi-query.csv")) as f:
            self.assertIn("--query-gpu=", f.read())
        # nccl-tests beside railgauge: run with per-iteration events into JSON, imported, the
        # same kind run by railgauge (waived here: no CUDA), both compared; kinds without a
        # binary are skipped by name.
        self.assertEqual(steps["nccl-tests-all_reduce"]["status"], "ok")
        self.assertIn("-g 1 -w 5 -n 20 -c 1 -I 1 -J", steps["nccl-tests-all_reduce"]["command"])
        self.assertEqual(steps["import-nccl-tests-all_reduce"]["status"], "ok")
        imported = os.listdir(os.path.join(out, "peers", "nccl-tests"))
        self.assertEqual(len(imported), 2, imported)  # one run directory per kind
        with open(os.path.join(out, "peers", "nccl-tests", imported[0], "records.jsonl")) as f:
            self.assertEqual(json.loads(f.readline())["key"], "collectives.nccl_all_reduce")
        self.assertEqual(steps["collectives-nccl-all_reduce"]["status"], "ok")
        self.assertIn("-a op=sum", steps["collectives-nccl-all_reduce"]["command"])
        self.assertNotIn("-a op=sum", steps["collectives-nccl-all_gather"]["command"])
        self.assertEqual(steps["nccl-tests-reduce_scatter"]["status"], "skipped")
        self.assertIn("no reduce_scatter_perf", steps["nccl-tests-reduce_scatter"]["note"])
        self.assertNotIn("collectives-nccl-reduce_scatter", steps)
        self.assertIn(steps["compare-nccl-tests"]["status"], ("ok",), steps["compare-nccl-tests"])
        # The most informative first: the GEMM TP sweep and its torch peer, HBM and the host
        # copies and theirs, nvbandwidth, nccl-tests; the square sweep and the suite after.
        order = [s["name"] for s in m["steps"]]
        firsts = ["gpu-tests-cuda_tests", "gemm-model", "gemm-vs-torch-model", "memory-hbm",
                  "offload", "copy-vs-torch", "nvbandwidth", "nccl-tests-all_reduce",
                  "gemm-size", "gemm-vs-torch-size", "gemm-dtypes", "collectives", "check"]
        self.assertEqual([n for n in order if n in firsts], firsts)
        # nvbandwidth beside railgauge: its JSON imported, railgauge's copies at its 512 MiB
        # (waived here: no CUDA), so the pairing finds no point and says so.
        self.assertEqual(steps["nvbandwidth"]["status"], "ok")
        self.assertIn("-j -b 512 -i 3 -t host_to_device_memcpy_ce", steps["nvbandwidth"]["command"])
        self.assertEqual(steps["import-nvbandwidth"]["status"], "ok")
        self.assertIn("-a size_bytes=512MiB -a placement=near -a host_memory=pinned",
                      steps["offload-nvbandwidth-size"]["command"])
        self.assertEqual(steps["offload-nvbandwidth-size"]["status"], "ok")
        self.assertEqual(steps["memory-nvbandwidth-size"]["status"], "ok")
        pairing = steps["nvbandwidth-vs-ours"]
        self.assertEqual((pairing["status"], pairing["exit"]), ("failed", 2))
        self.assertIn("no nvbandwidth cell found its railgauge point",
                      steps["nvbandwidth-vs-ours"]["note"])

    def test_an_h200_is_judged_by_the_h200_profile_unless_rules_are_given(self):
        build = self.fake_build()
        for extra, expected in (([], "results/rules/h200-sxm-ib.yaml"),
                                (["--rules", os.path.join(SOURCE, "results", "rules",
                                                          "host-only.yaml")],
                                 "results/rules/host-only.yaml")):
            out = os.path.join(self.tmp.name, "out-" + os.path.basename(expected))
            self.run_script("--build-dir", build, "--out", out, "--quick",
                            "--only", "memory", *extra, env=self.fake_gpu_env("NVIDIA H200"))
            m, steps = self.manifest(out)
            self.assertEqual(m["rules"], expected)
            self.assertIn(os.path.basename(expected), steps["check"]["command"])

    def test_only_runs_the_groups_named(self):
        out = os.path.join(self.tmp.name, "out")
        p = self.run_script("--build-dir", self.fake_build(), "--out", out, "--quick",
                            "--nccl-tests", self.fake_nccl_tests(), "--only", "nccl-tests,memory",
                            env=self.fake_gpu_env())
        m, steps = self.manifest(out)
        for name in ("gpu-tests", "gemm-model", "gemm-size", "gemm-dtypes", "offload",
                     "collectives", "torch-peers", "nvbandwidth"):
            self.assertEqual(steps[name]["status"], "skipped", name)
            self.assertIn("not in --only nccl-tests,memory", steps[name]["note"], name)
        for name in ("inventory", "memory-hbm", "nccl-tests-all_reduce",
                     "collectives-nccl-all_reduce", "compare-nccl-tests", "check"):
            self.assertNotEqual(steps[name]["status"], "skipped", name)
        # The analysis takes every run of the output, the nccl-tests kinds' included.
        self.assertIn("collectives-nccl", steps["check"]["command"])
        self.assertIn("memory-hbm", steps["check"]["command"])
        self.assertNotIn("failed", [s["status"] for s in m["steps"] if s["name"] != "calibrate"],
                         p.stdout)

    def test_interleaved_peers_widen_a_default_budget_and_keep_a_given_one(self):
        # Interleaved by sweep, the torch peers run N torch passes and N - 1 (GEMM) or N (copy)
        # railgauge sweeps of their sources: a default budget grows by (N - 1) times the peers'
        # 21 % and the sources' 53 %, and once more the copies' 20 %, so the steps after them
        # keep their shares.
        build = self.fake_build()
        grown = 480 + 480 * 74 * 2 // 100 + 480 * 20 // 100
        for extra, expected in (([], grown), (["--budget-s", "600"], 600)):
            out = os.path.join(self.tmp.name, f"out-{expected}")
            self.run_script("--build-dir", build, "--out", out, "--quick", "--only", "memory",
                            "--interleave", "3", *extra, env=self.fake_gpu_env())
            m, _ = self.manifest(out)
            self.assertEqual(m["budget_s"], expected)

    def test_a_step_past_its_share_is_killed_and_the_budget_skips_the_rest(self):
        # railgauge that hangs in `gemm` and `memory`: each step is killed at its share of a 60 s
        # budget, the steps after them find none left and are skipped; no run directory is
        # written, so the peers and the analysis have nothing to read.
        hang = ("#!/bin/sh\ncase \"$1\" in\n--version) echo 'railgauge stand-in' ;;\n"
                "gemm | memory) sleep 300 ;;\n*) echo \"stand-in $*\" ;;\nesac\n")
        out = os.path.join(self.tmp.name, "out")
        p = self.run_script("--build-dir", self.fake_build(railgauge=hang), "--out", out,
                            "--budget-s", "60", env=self.fake_gpu_env(), timeout=200)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        m, steps = self.manifest(out)
        self.assertEqual(m["budget_s"], 60)
        self.assertEqual(steps["gemm-model"]["status"], "timed out")
        self.assertLessEqual(steps["gemm-model"]["seconds"], steps["gemm-model"]["limit_s"] + 11)
        skipped = [s["name"] for s in m["steps"] if s["note"] == "no time left"]
        self.assertTrue(skipped, m["steps"])
        self.assertEqual(steps["check"]["status"], "skipped")
        total = sum(s["seconds"] for s in m["steps"])
        self.assertLess(total, 60 + 15, m["steps"])
        with open(os.path.join(out, "summary.txt")) as f:
            summary = f.read()
        self.assertIn("gemm-model", summary)
        self.assertIn("Failed or timed out: gemm-model", summary)

    def test_a_run_killed_outright_leaves_its_summary_page(self):
        # The machine taken back mid-step: SIGKILL to the whole script while gemm hangs. The
        # page written after the last finished step is there, and says the run did not finish.
        hang = ("#!/bin/sh\ncase \"$1\" in\n--version) echo 'railgauge stand-in' ;;\n"
                "gemm) sleep 300 ;;\n*) echo \"stand-in $*\" ;;\nesac\n")
        out = os.path.join(self.tmp.name, "out")
        p = subprocess.Popen([self.script, "--build-dir", self.fake_build(railgauge=hang),
                              "--out", out, "--quick"], env=self.fake_gpu_env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        log = os.path.join(out, "reference_run.log")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if os.path.exists(log) and "step 03 gemm-model" in open(log).read():
                break
            time.sleep(0.2)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=60)
        with open(os.path.join(out, "summary.txt")) as f:
            summary = f.read()
        self.assertIn("IN PROGRESS", summary.splitlines()[0], summary)
        self.assertIn("gpu-tests-cuda_tests", summary)
        self.assertIn("inventory", summary)
        self.assertNotIn("gemm-vs-torch", summary)


def main():
    global BINARY, SOURCE
    BINARY, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    run_named_tests(sys.argv[3:])


if __name__ == "__main__":
    main()
