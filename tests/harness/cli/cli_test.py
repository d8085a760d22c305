#!/usr/bin/env python3
"""End-to-end tests of the railgauge command line: real runs, their files checked against the
JSON Schemas with a real validator, and every bad-input path of the foundation issue.

Run by CTest, one test method per CTest test:  cli_test.py RAILGAUGE_BINARY TestName.test_name
"""
import json
import os
import pathlib
import re
import shutil
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
from run_dirs import only_run_dir, records_of  # noqa: E402

BINARY = None  # set from argv in __main__
EMITTER = None  # emit_record_kinds, set from argv in __main__
FIXTURES = ROOT / "tests" / "fixtures" / "topology"


def railgauge(*args, timeout=300):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout)


class RunTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def assert_valid(self, run_dir, require_complete=True):
        problems, count = validate_run.validate_run_dir(run_dir, require_complete)
        self.assertEqual(problems, [])
        return count

    def test_quick_suite_writes_valid_run_directory(self):
        r = railgauge("run", "quick", "--out", self.out, "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        run_dir = only_run_dir(self.out)
        self.assertEqual(self.assert_valid(run_dir), 8)
        records = records_of(run_dir)
        self.assertEqual({r["status"] for r in records}, {"ok"})
        self.assertEqual({r["key"] for r in records},
                         {"memory.host_read", "memory.host_write", "memory.host_copy",
                          "memory.host_triad"})
        for rec in records:
            self.assertGreater(rec["metrics"]["bandwidth_gbytes_per_s"], 0)
            self.assertTrue(rec["metrics"]["verified"])
        manifest = json.loads((run_dir / "run.json").read_text())
        self.assertEqual(manifest["counts"], {"ok": 8})
        self.assertEqual(manifest["suite"]["name"], "quick")
        self.assertEqual(manifest["run"], run_dir.name)
        # The source the binary was built from: a commit of this checkout (the tree may have
        # moved on since the build, so not necessarily HEAD), or null outside a git checkout.
        commit = manifest["railgauge"]["source_commit"]
        if (ROOT / ".git").exists():
            self.assertIsInstance(manifest["railgauge"]["source_dirty"], bool)
            self.assertRegex(commit or "", r"^[0-9a-f]{40}$")
            known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", commit + "^{commit}"],
                                   capture_output=True)
            self.assertEqual(known.returncode, 0, f"{commit} is no commit of {ROOT}")

    def test_default_suite_measures_host_and_waives_what_cannot_run(self):
        # noise_bound=0: a 0.01 s budget on a loaded CI machine may leave a point past the
        # suite's bound; the bound has its own test below.
        r = railgauge("run", "--out", self.out, "--time-budget", "0.01",
                      "-a", "size_bytes=64KiB", "-a", "threads=1", "-a", "m=64",
                      "-a", "seq=64", "-a", "tp=1,2", "--measure", "noise_bound=0")
        self.assertEqual(r.returncode, 0, r.stderr)
        run_dir = only_run_dir(self.out)
        self.assert_valid(run_dir)
        records = records_of(run_dir)
        by_status = {}
        for rec in records:
            by_status.setdefault(rec["status"], set()).add(rec["key"])
            if rec["status"] == "waived":
                self.assertTrue(rec["reason"])
        self.assertNotIn("failed", by_status)
        self.assertNotIn("error", by_status)
        # What runs on any machine was measured.
        for key in ("memory.host_read", "memory.host_write", "memory.host_copy",
                    "memory.host_triad", "gemm.cpu_blas", "gemm.cpu_blas_size"):
            self.assertIn(key, by_status["ok"])
        # Every GPU benchmark registered so far is there, waived with its reason, on a machine
        # without a GPU.
        if not os.path.exists("/dev/nvidia0"):
            gpu_keys = {k for k in by_status.get("waived", set())
                        if "hbm" in k or "cublaslt" in k}
            self.assertEqual(gpu_keys, {"memory.hbm_read", "memory.hbm_write", "memory.hbm_copy",
                                        "memory.hbm_triad", "memory.hbm_memcpy_d2d",
                                        "gemm.cublaslt", "gemm.cublaslt_size"})
            self.assertNotIn("gemm.cublaslt", by_status["ok"])
        self.assertIn("Summary: one row per benchmark", r.stdout)
        self.assertIn("Bandwidth of the host DRAM of NUMA node 0", r.stdout)
        self.assertIn("per GEMM (row) at TP degree t (column)", r.stdout)
        # The default suite's own run passes the host profile, and what it waived for want of a
        # GPU is no value missing there.
        c = railgauge("check", "--rules", "host-only", str(run_dir))
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.assertIn("PASS: 1 node", c.stdout)
        self.assertIn(" 0 missing", c.stdout)
        self.assertNotIn("no usable CUDA device", c.stdout)

    def test_host_arrays_larger_than_the_node_are_not_applicable_not_missing(self):
        # 64 TiB per array fits no NUMA node: the point is waived as not applicable, and the
        # host profile passes the run instead of failing it on a missing data check.
        r = railgauge("run", "--out", self.out, "--filter", "memory.host_triad",
                      "-a", "size_bytes=64KiB,64TiB", "-a", "threads=1", "-q",
                      "--measure", "noise_bound=0")
        self.assertEqual(r.returncode, 0, r.stderr)
        run_dir = only_run_dir(self.out)
        big = [rec for rec in records_of(run_dir) if rec["params"]["size_bytes"] == 64 << 40]
        self.assertEqual([rec["status"] for rec in big], ["waived"])
        self.assertTrue(big[0]["reason"].startswith("not applicable: "), big[0]["reason"])
        c = railgauge("check", "--rules", "host-only", str(run_dir))
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.assertIn("PASS: 1 node", c.stdout)

    def test_a_point_noisier_than_its_bound_is_named_and_exits_1(self):
        # A bound no real timing meets: the one point is past it.
        args = ["--filter", "memory.host_read", "-a", "size_bytes=16KiB", "-a", "threads=1"]
        r = railgauge("run", "quick", "--out", self.out, *args, "--measure", "noise_bound=1e-12")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("NOISY: 1 point(s) whose noise (p10..p90 half-width over the median) "
                      "exceeds the suite's noise_bound", r.stdout)
        self.assertRegex(r.stderr, r"1 point\(s\) noisier than their noise_bound \(the worst: "
                                   r"memory.host_read .*size_bytes=16384")
        self.assertNotIn("measured again", r.stdout)
        # Measured again once (noise_retries), and still past the bound: named, exits 1, and its
        # record keeps the first measurement's noise.
        out2 = pathlib.Path(self.out) / "retried"
        r = railgauge("run", "quick", "--out", str(out2), *args, "--measure", "noise_bound=1e-12",
                      "--measure", "noise_retries=1")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("1 point(s) past their noise_bound were measured again (noise_retries)",
                      r.stdout)
        self.assertIn("NOISY: 1 point(s)", r.stdout)
        [record] = records_of(only_run_dir(out2))
        self.assertEqual(len(record["metrics"]["noise_before_remeasure"]), 1)
        self.assertGreater(record["metrics"]["noise_before_remeasure"][0], 1e-12)
        # Without a bound (the quick suite states none) the same point exits 0.
        r = railgauge("run", "quick", "--out", self.out, *args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("NOISY", r.stdout)
        # The default suite states its bound.
        node = (ROOT / "results" / "suites" / "node.yaml").read_text()
        self.assertRegex(node, r"\n  noise_bound: 0\.5\n")
        self.assertRegex(node, r"\n  noise_retries: 1\n")

    def test_other_work_beside_the_run_is_said_with_its_noise(self):
        # A process burning one CPU for the whole run: run.json says how many CPUs other work
        # kept busy, and the noisy line puts that before the advice.
        hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            time.sleep(0.5)  # on the CPU before the points start
            r = railgauge("run", "quick", "--out", self.out, "--filter", "memory.host_read",
                          "-a", "size_bytes=16KiB,64MiB", "-a", "threads=1",
                          "--measure", "noise_bound=1e-12", "--measure", "time_budget_s=0.6",
                          "--measure", "max_rel_noise=1e-9")  # sampled to the budget's end
        finally:
            hog.kill()
            hog.wait()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        manifest = json.loads((only_run_dir(self.out) / "run.json").read_text())
        contention = manifest["cpu_contention"]
        self.assertEqual(contention["cpus"], os.cpu_count())
        self.assertGreater(contention["other_processes_cpus"], 0.5, contention)
        self.assertLess(contention["other_processes_cpus"], os.cpu_count() + 0.5, contention)
        self.assertGreater(contention["wall_s"], 1.0)
        self.assertRegex(r.stderr, r"the run exits 1; other processes kept \d+\.\d of "
                                   + str(os.cpu_count()) + r" CPUs busy on average while the "
                                   r"points ran: measure on an idle machine")

    def test_main_commands_help_ends_with_real_examples(self):
        for command in ("run", "burnin", "check"):
            r = railgauge(command, "--help")
            self.assertEqual(r.returncode, 0, r.stderr)
            examples = r.stdout.split("Examples:\n")[1].split("\nExit status:")[0]
            lines = [line.strip() for line in examples.splitlines()
                     if line.strip().startswith("railgauge ")]
            self.assertGreaterEqual(len(lines), 3, r.stdout)
            for line in lines:
                self.assertTrue(line.startswith(f"railgauge {command}"), line)
                # Every flag an example uses is one the command has.
                options = r.stdout.split("Examples:")[0]
                for flag in re.findall(r"(?<!\S)--[a-z][a-z-]*", line):
                    self.assertRegex(options, rf"{flag}\b", line)
            # The exit statuses are one table, referenced rather than repeated.
            self.assertIn("`railgauge exit-statuses` prints the table", r.stdout)
            self.assertNotIn("Exit status: 0 done", r.stdout)

    def test_jsonl_and_csv_stream_the_records(self):
        r = railgauge("memory", "--out", self.out, "--format", "jsonl", "--time-budget", "0.01",
                      "--filter", "memory.host_copy", "-a", "size_bytes=16KiB", "-a", "threads=1",
                      "-a", "numa_node=0")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [json.loads(l) for l in r.stdout.splitlines()]
        self.assertEqual(len(lines), 1)
        self.assertEqual(lines, records_of(only_run_dir(self.out)))
        # The first point is waived (not a multiple of 8 bytes): the measured ones that follow
        # still get their own header with every metric.
        r = railgauge("memory", "--out", self.out, "--format", "csv", "--time-budget", "0.01",
                      "--filter", "memory.host_copy", "-a", "size_bytes=4,16KiB,32KiB",
                      "-a", "threads=1", "-a", "numa_node=0")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = r.stdout.splitlines()
        self.assertEqual(len(rows), 5, rows)
        self.assertTrue(rows[0].startswith("key,status,host,rank,"))
        self.assertIn(",waived,", rows[1])
        header = rows[2].split(",")
        self.assertIn("metrics.bandwidth_gbytes_per_s", header)
        for row in rows[3:]:
            cells = dict(zip(header, row.split(",")))
            self.assertEqual(cells["status"], "ok")
            self.assertGreater(float(cells["metrics.bandwidth_gbytes_per_s"]), 0)

    def test_sigkill_leaves_every_record_written_so_far_valid(self):
        proc = subprocess.Popen([BINARY, "memory", "--out", self.out, "-q", "--time-budget", "0.05",
                                 "-a", "threads=1"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 120
            records = None
            while time.time() < deadline:
                dirs = [p for p in pathlib.Path(self.out).iterdir() if p.is_dir()]
                if dirs and (dirs[0] / "records.jsonl").exists():
                    records = dirs[0] / "records.jsonl"
                    if records.read_text().count("\n") >= 3:
                        break
                time.sleep(0.01)
            self.assertIsNone(proc.poll(), "the run ended before it could be killed")
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, -signal.SIGKILL)
        run_dir = only_run_dir(self.out)
        count = self.assert_valid(run_dir, require_complete=False)
        self.assertGreaterEqual(count, 3)
        manifest = json.loads((run_dir / "run.json").read_text())
        self.assertEqual(manifest["status"], "running")  # marks the run as interrupted

    def test_inventory_json_validates(self):
        r = railgauge("inventory", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        schemas, store = validate_run.load_schemas()
        inventory = json.loads(r.stdout)
        errors = list(validate_run.validator("inventory", schemas, store).iter_errors(inventory))
        self.assertEqual([e.message for e in errors], [])

    def test_every_record_status_validates(self):
        path = pathlib.Path(self.out) / "records.jsonl"
        r = subprocess.run([EMITTER, str(path)], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        schemas, store = validate_run.load_schemas()
        problems, count = validate_run.validate_records(
            path, validate_run.validator("record", schemas, store))
        self.assertEqual(problems, [])
        self.assertEqual([rec["status"] for rec in records_of(pathlib.Path(self.out))],
                         ["ok", "waived", "failed", "error"])
        # The schema is not a rubber stamp: a waived record without its reason is refused.
        bad = records_of(pathlib.Path(self.out))[1]
        bad["reason"] = None
        errors = list(validate_run.validator("record", schemas, store).iter_errors(bad))
        self.assertTrue(errors)

    def test_inventory_of_topology_files_validates(self):
        schemas, store = validate_run.load_schemas()
        check = validate_run.validator("inventory", schemas, store)
        for name in ("h100_8gpu_8nic.hwloc.xml", "h100_8gpu_8nic.nccl.xml"):
            r = railgauge("inventory", "--topology", str(FIXTURES / name), "--format", "json")
            self.assertEqual(r.returncode, 0, r.stderr)
            inventory = json.loads(r.stdout)
            self.assertEqual([e.message for e in check.iter_errors(inventory)], [], name)
            rails = inventory["rail_map"]["rails"]
            self.assertEqual(len(rails), 8, name)
            self.assertEqual({rail["path"] for rail in rails}, {"PIX"}, name)
        r = railgauge("inventory", "--topology", str(FIXTURES / "missing.xml"))
        self.assertEqual(r.returncode, 4)
        self.assertIn("missing.xml", r.stderr)

    def test_list_shows_every_key_with_axes_and_whether_it_runs(self):
        r = railgauge("list", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        listing = json.loads(r.stdout)
        keys = [b["key"] for b in listing]
        self.assertIn("memory.host_copy", keys)
        for b in listing:
            self.assertTrue(b["axes"], b["key"])
            for axis in b["axes"]:
                self.assertTrue(axis["help"], (b["key"], axis["name"]))
            self.assertEqual(b["runs_here"], b["waive_reason"] is None)
        r = railgauge("list")
        self.assertIn("memory.host_triad", r.stdout)

    def test_nccl_all_reduce_with_gemm_is_listed_and_waived_without_a_gpu(self):
        if os.path.exists("/dev/nvidia0"):
            self.skipTest("a GPU is here: nccl_gpu_tests (label gpu) run the benchmark")
        key = "collectives.nccl_all_reduce_with_gemm"
        r = railgauge("list", "--format", "json", "--filter", key)
        self.assertEqual(r.returncode, 0, r.stderr)
        listing = json.loads(r.stdout)
        self.assertEqual([b["key"] for b in listing], [key])
        self.assertFalse(listing[0]["runs_here"])
        self.assertIn("gemm_mnk", [a["name"] for a in listing[0]["axes"]])
        r = railgauge("collectives", "--filter", key, "--out", self.out, "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        run_dir = only_run_dir(self.out)
        self.assert_valid(run_dir)
        records = records_of(run_dir)
        self.assertTrue(records)
        for rec in records:
            self.assertEqual(rec["key"], key)
            self.assertEqual(rec["status"], "waived")
            # No GPU (or a build without NCCL): the reason says which.
            self.assertRegex(rec["reason"], "no usable CUDA device|built without NCCL")

    def blas_library_of_a_gemm(self, env):
        out = tempfile.mkdtemp(dir=self.out)
        r = subprocess.run([BINARY, "gemm", "--filter", "gemm.cpu_blas_size", "-a", "m=64",
                            "-a", "dtype=fp32", "--time-budget", "0.01", "--out", out, "-q"],
                           capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        records = [rec for rec in records_of(only_run_dir(out)) if rec["status"] == "ok"]
        self.assertTrue(records)
        return records[0]["params"]["blas_library"]

    def test_openblas_runs_the_kernels_of_this_cpu(self):
        # OpenBLAS 0.3.21 gives a CPU newer than itself (Emerald Rapids) its generic Prescott
        # kernels, 3.8x slower there; railgauge restarts itself with OPENBLAS_CORETYPE set
        # (harness/openblas_kernels.h). Where the OS gives AVX2, Prescott must never run.
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
        library = self.blas_library_of_a_gemm(env)
        if not library:
            self.skipTest("built without OpenBLAS")
        flags = set()
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
        if {"avx2", "fma"} <= flags:
            self.assertNotIn("(Prescott)", library)
        # A core the user names is kept, and nothing is said of it.
        env["OPENBLAS_CORETYPE"] = "Prescott"
        library = self.blas_library_of_a_gemm(env)
        self.assertIn("(Prescott)", library)
        self.assertNotIn("set by railgauge", library)


class NvmlInventoryTest(unittest.TestCase):
    """The inventory as NVML fills it, through a scripted libnvidia-ml (fake_nvml.cpp, named by
    RAILGAUGE_TEST_FAKE_NVML and found by its soname on LD_LIBRARY_PATH): a machine without a GPU
    otherwise validates only an inventory whose NVML is unavailable."""

    def test_inventory_read_through_nvml_validates(self):
        fake = os.environ.get("RAILGAUGE_TEST_FAKE_NVML")
        self.assertTrue(fake and os.path.exists(fake),
                        f"RAILGAUGE_TEST_FAKE_NVML={fake!r}: build the fake_nvml target")
        links = ["up"] * 18
        links[3] = "down"
        gpu = {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-00000000", "serial": "1652323000000",
               "pci_bus_id": "00000000:19:00.0",
               "pcie": {"gen_current": 5, "gen_max": 5, "width_current": 16, "width_max": 16,
                        "replay_count": 0},
               "sm_clock_mhz": {"current": 1980, "max": 1980},
               "mem_clock_mhz": {"current": 2619, "max": 2619},
               "memory_total_bytes": 85520809984, "power_limit_mw": 700000,
               "power_usage_mw": 118250, "temperature_c": 34, "clocks_event_reasons": 1,
               "ecc_mode": {"current": True, "pending": True},
               "ecc": {"volatile": {"corrected": 0, "uncorrected": 0},
                       "aggregate": {"corrected": 2, "uncorrected": 0}},
               "remapped_rows": {"correctable": 0, "uncorrectable": 0, "pending": 0, "failure": 0},
               "nvlink": {"links": links,
                          "errors": {"crc_flit": 12, "crc_data": 0, "replay": 0, "recovery": 0},
                          "per_link": {"7": {"crc_flit": 12}}},
               "compute_processes": [{"pid": 4242, "used_memory_bytes": 1 << 30}]}
        no_per_link = dict(gpu, uuid="GPU-00000001", pci_bus_id="00000000:3B:00.0",
                           nvlink=dict(gpu["nvlink"], per_link="NVML_ERROR_NOT_SUPPORTED"))
        with tempfile.TemporaryDirectory() as d:
            os.symlink(fake, os.path.join(d, "libnvidia-ml.so.1"))
            script = os.path.join(d, "script.json")
            with open(script, "w") as f:
                json.dump({"driver_version": "550.54.15", "nvml_version": "12.550.54.15",
                           "gpus": [gpu, no_per_link, {"handle": "NVML_ERROR_GPU_IS_LOST"}]}, f)
            env = dict(os.environ, LD_LIBRARY_PATH=d, RAILGAUGE_FAKE_NVML_SCRIPT=script)
            r = subprocess.run([BINARY, "inventory", "--format", "json"], capture_output=True,
                               text=True, timeout=120, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        inventory = json.loads(r.stdout)
        nvml = inventory["nvml"]
        self.assertTrue(nvml["available"], nvml.get("reason"))
        self.assertEqual(len(nvml["gpus"]), 3)
        self.assertEqual(nvml["gpus"][0]["nvlink"]["errors_per_link"]["crc_flit"][7], 12)
        self.assertIsNone(nvml["gpus"][1]["nvlink"]["errors_per_link"])
        self.assertEqual(nvml["gpus"][2]["errors"], {"handle": "GPU is lost"})
        schemas, store = validate_run.load_schemas()
        errors = list(validate_run.validator("inventory", schemas, store).iter_errors(inventory))
        self.assertEqual([e.message for e in errors], [])


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = pathlib.Path(self.tmp.name) / "runs"

    def tearDown(self):
        self.tmp.cleanup()

    def assert_input_error(self, r, *fragments):
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        for fragment in fragments:
            self.assertIn(fragment, r.stderr)
        self.assertFalse(self.out.exists() and any(self.out.iterdir()),
                         "a bad input must stop the run before anything is written")

    def test_unknown_key_names_the_closest(self):
        r = railgauge("run", "--out", str(self.out), "--filter", "memory.host_cpy")
        self.assert_input_error(r, "memory.host_copy", "--filter")

    def test_bad_axis_value_on_the_command_line(self):
        r = railgauge("memory", "--out", str(self.out), "-a", "size_bytes=12XB")
        self.assert_input_error(r, "size_bytes=12XB", "12XB", "KiB")

    def test_unknown_axis(self):
        r = railgauge("memory", "--out", str(self.out), "-a", "colour=red")
        self.assert_input_error(r, "colour", "size_bytes")

    def test_bad_suite_yaml_gives_file_and_line(self):
        suite = pathlib.Path(self.tmp.name) / "bad.yaml"
        suite.write_text("suite: bad\nbenchmarks:\n  - key: memory.host_copy\n"
                         "    axes:\n      threads: [1, two]\n")
        r = railgauge("run", str(suite), "--out", str(self.out))
        self.assert_input_error(r, f"{suite}:5", "threads", "integers")
        suite.write_text("suite: bad\nbenchmarks:\n  - key: memory.host_copy\n   axes: [\n")
        r = railgauge("run", str(suite), "--out", str(self.out))
        self.assert_input_error(r, f"{suite}:", "YAML syntax error")
        suite.write_text("suite: bad\nbenchmarks:\n  - key: memory.hots_copy\n")
        r = railgauge("run", str(suite), "--out", str(self.out))
        self.assert_input_error(r, f"{suite}:3", "memory.host_copy")

    def test_unknown_suite_lists_the_known_ones(self):
        r = railgauge("run", "nodes", "--out", str(self.out))
        self.assert_input_error(r, "no suite named 'nodes'", "node")

    def test_a_command_one_level_down_is_named_where_it_is(self):
        # `railgauge ingest` said only "The following argument was not expected: ingest".
        r = railgauge("ingest", str(self.out))
        self.assert_input_error(r, "`ingest` is a command of `railgauge db`",
                                "railgauge db ingest ...")
        r = railgauge("ingets")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertNotIn("is a command of", r.stderr)

    def test_unwritable_out_fails_before_anything_runs(self):
        blocker = pathlib.Path(self.tmp.name) / "a-file"
        blocker.write_text("not a directory")
        started = time.time()
        r = railgauge("run", "--out", str(blocker / "runs"))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn(str(blocker / "runs"), r.stderr)
        self.assertIn("--out", r.stderr)
        self.assertLess(time.time() - started, 10, "it must fail before measuring")

    def test_bad_format_and_measure_setting(self):
        r = railgauge("memory", "--out", str(self.out), "--format", "xml")
        self.assert_input_error(r, "xml", "table, jsonl, csv")
        r = railgauge("memory", "--out", str(self.out), "--measure", "max_rel_noise=-1")
        self.assert_input_error(r, "max_rel_noise")
        # Seconds out of range say what to give, not CLI11's range up to 1.8e308.
        r = railgauge("burnin", "--budget", "0", "--out", str(self.out))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("--budget: '0' is not a number of seconds above 0; give e.g. --budget 600",
                      r.stderr)
        self.assertNotIn("1797693", r.stderr)
        # The least budget said is one that plans: "give --budget 88" once refused 88 (88.4).
        r = railgauge("burnin", "--plan-only", "--plan-gpus", "8", "--budget", "1")
        self.assertEqual(r.returncode, 4, r.stderr)
        least = re.search(r"give --budget (\d+) or more", r.stderr).group(1)
        r = railgauge("burnin", "--plan-only", "--plan-gpus", "8", "--budget", least)
        self.assertEqual(r.returncode, 0, r.stderr)
        # Planned on a node that shows no GPU: said, not only on one phase's line.
        r = railgauge("burnin", "--plan-only")
        self.assertEqual(r.returncode, 0, r.stderr)
        no_gpu = "No usable GPU here (no NVIDIA driver, or none visible): planned for 1 GPU"
        if shutil.which("nvidia-smi") is None:  # this tier runs on GPU nodes too
            self.assertIn(no_gpu, r.stdout)
        # A filtered burn-in plans the phases it runs (it planned all nine) and says that check
        # will not pass a node on it.
        r = railgauge("burnin", "--plan-only", "--plan-gpus", "8", "--filter", "gemm.*")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("gemm.burn tf32", r.stdout)
        self.assertNotIn("memory.burn", r.stdout)
        self.assertIn("--filter 'gemm.*': 3 of the suite's 9 phases", r.stdout)
        # A GPU burn-in that expects no GPU passed a node without one on its waivers alone.
        r = railgauge("burnin", "--expect", "gpus=0", "--rules", "any-fabric", "--out",
                      str(self.out))
        self.assert_input_error(r, "--expect gpus=0", "give gpus=1 or more")

    def test_an_option_given_again_takes_one_value_each_time(self):
        # `--label ib --label roce A B` once took A and B for labels too ("compare needs at least
        # two runs"), and `--expect gpus=8 quick` took the suite for an expectation.
        healthy = pathlib.Path(__file__).resolve().parents[3] / "results" / "reference" / \
            "h200-burnin-2026-11-28" / "burnin" / "healthy"
        r = railgauge("compare", "--label", "a", "--label", "b", str(healthy), str(healthy))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("b vs a", r.stdout)
        r = railgauge("run", "--out", str(self.out), "--expect", "gpus=4096", "quick")
        self.assertNotIn("'quick' is not an expectation", r.stderr)
        self.assertIn("gpus: expected 4096", r.stderr)


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    EMITTER = sys.argv.pop(1)
    unittest.main()
