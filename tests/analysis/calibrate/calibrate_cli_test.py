#!/usr/bin/env python3
"""End-to-end test of `railgauge calibrate` on records the CPU backends produce here (OpenBLAS
GEMM, host memory): the Calculon system file is checked rule by rule, independently of the C++
checker, and the coefficient file against its JSON Schema.

Run by CTest, one test method per CTest test:  calibrate_cli_test.py RAILGAUGE_BINARY Test.test_x
MeasuredNetworkTest runs a 2-rank MPI sweep under the mpirun named by $RAILGAUGE_MPIRUN (else the
one on PATH), and is skipped, saying so, when there is none.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

import jsonschema

ROOT = pathlib.Path(__file__).resolve().parents[3]
CALCULON = ROOT / "tests/fixtures/calculon"  # Calculon's example inputs (README.md there)
BINARY = None  # set from argv in __main__
DATATYPES = {"float8", "float16", "bfloat16", "float32"}
# These runs (one host's CPU records, imported nccl-tests logs of one tier) leave values that only
# Calculon's A100 file gives: asked for by name, as a user must (BorrowedValuesTest).
BORROW = ("--borrow", "a100_80g")
NETWORK_KEYS = {"bandwidth", "efficiency", "size", "latency", "ops", "must_be_filled",
                "processor_usage"}


def railgauge(*args, timeout=600):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout)


def check_rows(rows, where):
    """Calculon's step tables: [threshold, eff] rows, strictly descending, last threshold 0."""
    problems = []
    if not isinstance(rows, list) or not rows:
        return [f"{where}: empty"]
    previous = float("inf")
    for i, row in enumerate(rows):
        if not (isinstance(row, list) and len(row) == 2):
            problems.append(f"{where}[{i}]: not a pair")
            continue
        x, e = row
        if not x < previous:
            problems.append(f"{where}[{i}]: not descending")
        if x < 0 or not 0 < e <= 1:
            problems.append(f"{where}[{i}]: out of range")
        previous = x
    if rows[-1][0] != 0:
        problems.append(f"{where}: last threshold is not 0")
    return problems


def calculon_problems(s):
    p = []
    if set(s) != {"matrix", "vector", "mem1", "mem2", "processing_mode", "networks"}:
        p.append(f"top-level keys {sorted(s)}")
    for family in ("matrix", "vector"):
        if not s.get(family):
            p.append(f"{family}: empty")
        for dt, v in s.get(family, {}).items():
            if dt not in DATATYPES:
                p.append(f"{family}.{dt}: unknown datatype")
            if not v.get("tflops", 0) > 0:
                p.append(f"{family}.{dt}.tflops")
            p += check_rows(v.get("gflops_efficiency"), f"{family}.{dt}.gflops_efficiency")
    for dt in s.get("matrix", {}):
        if dt not in s.get("vector", {}):
            p.append(f"vector.{dt} missing")
    for tier in ("mem1", "mem2"):
        m = s.get(tier, {})
        if not (m.get("GiB", 0) > 0 and m.get("GBps", 0) > 0):
            p.append(f"{tier}: GiB/GBps")
        p += check_rows(m.get("MB_efficiency"), f"{tier}.MB_efficiency")
    if s.get("processing_mode") not in ("no_overlap", "roofline"):
        p.append("processing_mode")
    if not s.get("networks"):
        p.append("networks: empty")
    for i, n in enumerate(s.get("networks", [])):
        if set(n) != NETWORK_KEYS:
            p.append(f"networks[{i}] keys {sorted(n)}")
            continue
        if not (n["bandwidth"] > 0 and 0 < n["efficiency"] <= 1 and isinstance(n["size"], int)
                and n["size"] >= 1 and n["latency"] >= 0 and 0 <= n["processor_usage"] < 1
                and isinstance(n["must_be_filled"], bool)):
            p.append(f"networks[{i}]: a value out of range")
        if set(n["ops"]) != {"p2p", "reduce_scatter", "all_gather", "all_reduce"}:
            p.append(f"networks[{i}].ops keys")
        for op, (scalar, offset) in n["ops"].items():
            if not scalar > 0:
                p.append(f"networks[{i}].ops.{op}: scalar")
            if (op == "p2p") != (offset is None):
                p.append(f"networks[{i}].ops.{op}: offset {offset}")
    return p


class CalibrateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.runs = pathlib.Path(cls.tmp.name) / "runs"
        # Small sweeps: seconds on 2 cores.
        r = railgauge("gemm", "--out", str(cls.runs), "-q", "--filter", "gemm.cpu_blas_size",
                      "-a", "m=16,32,64,96,128,192,256", "-a", "dtype=fp32",
                      "--time-budget", "0.02", "--no-verify")
        assert r.returncode == 0, r.stderr
        # A transformer block's GEMMs under t = 1, 2, 4: the TP-sweep check of the fit report.
        r = railgauge("gemm", "--out", str(cls.runs), "-q", "--filter", "gemm.cpu_blas", "-a",
                      "model=custom", "-a", "hidden=256", "-a", "heads=4", "-a", "seq=256",
                      "-a", "tp=1,2,4", "--time-budget", "0.02", "--no-verify")
        assert r.returncode == 0, r.stderr
        r = railgauge("memory", "--out", str(cls.runs), "-q", "--filter", "memory.host_*",
                      "-a", "size_bytes=16KiB:16MiB:*4", "-a", "threads=1",
                      "--time-budget", "0.02")
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def calibrate(self, *extra):
        out = pathlib.Path(self.tmp.name) / f"cal-{self.id().split('.')[-1]}"
        r = railgauge("calibrate", *BORROW, str(self.runs), "--out", str(out), *extra)
        return r, out

    def test_calibration_of_cpu_records_is_complete(self):
        r, out = self.calibrate()
        self.assertEqual(r.returncode, 0, r.stderr)
        system = json.loads((out / "calculon_system.json").read_text())
        self.assertEqual(calculon_problems(system), [])
        self.assertIn("float32", system["matrix"])  # measured: OpenBLAS sgemm
        # --processing-mode auto: the mode the GEMM records fit, named in the report with both
        # errors; asked for by name, it is that mode.
        report = json.loads((out / "fit_report.json").read_text())
        (choice,) = [n for n in report["notes"] if n.startswith("processing_mode ")]
        self.assertIn(f"processing_mode {system['processing_mode']}:", choice)
        self.assertIn("roofline mode and", choice)
        r, named = self.calibrate("--processing-mode", "no_overlap")
        self.assertEqual(r.returncode, 0, r.stderr)
        named_system = json.loads((named / "calculon_system.json").read_text())
        self.assertEqual(named_system["processing_mode"], "no_overlap")

        coeff = json.loads((out / "coefficients.json").read_text())
        schema = json.loads((ROOT / "results/schema/coefficients.schema.json").read_text())
        jsonschema.validate(coeff, schema)
        self.assertEqual(coeff["mem1_stands_for"], "host")
        self.assertTrue(coeff["calculon_tables"]["matrix.float32"]["measured"])
        self.assertFalse(coeff["calculon_tables"]["mem2"]["measured"])
        by_key = [row["key"] for row in coeff["gemm"]["fp32"]["by_shape"]]
        self.assertEqual(by_key.count("gemm.cpu_blas_size"), 7)

        report = json.loads((out / "fit_report.json").read_text())
        by_name = {s["name"]: s for s in report["coefficient_sets"]}
        for name in ("gemm.fp32", "memory.host"):
            held = by_name[name]["fit"]["held_out"]
            self.assertIsNotNone(held, name)
            self.assertGreater(held["points"], 0)
            self.assertGreaterEqual(held["max_rel"], held["mean_rel"])
        # What was not measured is listed with its source, never silently filled.
        not_measured = {a["name"]: a["source"] for a in report["not_measured"]}
        self.assertIn("networks.0.bandwidth", not_measured)
        self.assertIn("Calculon", not_measured["networks.0.bandwidth"])
        self.assertIn("held-out mean", (out / "fit_report.md").read_text())
        # The block's GEMMs: each t predicted by the table, and again by one fitted without it.
        [sweep] = report["tp_sweeps"]
        self.assertEqual((sweep["model"], sweep["dtype"]), ("custom", "fp32"))
        self.assertEqual([d["tp"] for d in sweep["degrees"]], [1, 2, 4])
        for d in sweep["degrees"]:
            self.assertGreater(d["gemms"], 0)
            self.assertGreater(d["gemm_sum_measured_s"], 0)
            self.assertIsNotNone(d["leave_t_out"])
        self.assertEqual(len(sweep["gemms"]), sum(d["gemms"] for d in sweep["degrees"]))
        self.assertIn("## Model GEMMs under tensor parallelism",
                      (out / "fit_report.md").read_text())

        yml = (out / "astra_network.yml").read_text()
        for key in ("topology:", "npus_count:", "bandwidth:", "latency:"):
            self.assertIn(key, yml)

    def test_errors_are_also_weighted_by_the_sizes_an_execution_asks_for(self):
        # megatron-126M under a Calculon execution (tests/fixtures/calculon/README.md): every
        # measured set gets its error per size and, read at the execution's sizes, a weighted one.
        r, out = self.calibrate("--execution", str(CALCULON / "32_t8_p2_d2_mbs2_attn_only_ar.json"),
                                "--model", str(CALCULON / "megatron-126M.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads((out / "fit_report.json").read_text())
        self.assertEqual(report["execution"]["model"], "megatron-126M.json")
        self.assertEqual(report["execution"]["tensor_par"], 8)
        by_name = {s["name"]: s for s in report["coefficient_sets"]}
        for name in ("gemm.fp32", "memory.host"):
            per_size = by_name[name]["held_out_per_size"]
            self.assertGreaterEqual(per_size["sizes"], 4, name)
            errors = [row["mean_rel"] for row in per_size["table"]]
            self.assertAlmostEqual(per_size["mean_rel"], sum(errors) / len(errors))
            x = by_name[name]["execution"]
            self.assertGreater(x["uses"], 0, name)
            # Read between measured sizes (or at an end): never outside their range of errors.
            self.assertGreaterEqual(x["weighted_mean_rel"], min(errors) - 1e-12, name)
            self.assertLessEqual(x["weighted_mean_rel"], max(errors) + 1e-12, name)
            self.assertGreaterEqual(x["share_outside_measured_sizes"], 0)
            self.assertLessEqual(x["share_outside_measured_sizes"], 1)
        # The largest GEMM asked for: the score BMM's backward, 2 × its forward over a batch of
        # microbatch 2 × 16/8 heads = 4 products of 2048 × 48 × 2048 at 2 FLOPs each.
        self.assertEqual(by_name["gemm.fp32"]["execution"]["asked_max"],
                         2 * 4 * 2 * 2048 * 48 * 2048)
        md = (out / "fit_report.md").read_text()
        self.assertIn("execution-weighted", md)
        self.assertIn("32_t8_p2_d2_mbs2_attn_only_ar.json on megatron-126M.json", md)
        # Without an execution the per-size error is still there; the weighted one is not.
        r, plain = self.calibrate()
        report = json.loads((plain / "fit_report.json").read_text())
        self.assertIsNone(report["execution"])
        gemm = next(s for s in report["coefficient_sets"] if s["name"] == "gemm.fp32")
        self.assertNotIn("execution", gemm)
        self.assertIsNotNone(gemm["held_out_per_size"])

    def test_assume_and_roofline(self):
        r, out = self.calibrate("--assume", "networks.0.bandwidth=450", "--assume",
                                "mem2.GBps=50", "--processing-mode", "roofline")
        self.assertEqual(r.returncode, 0, r.stderr)
        system = json.loads((out / "calculon_system.json").read_text())
        self.assertEqual(calculon_problems(system), [])
        self.assertEqual(system["networks"][0]["bandwidth"], 450)
        self.assertEqual(system["mem2"]["GBps"], 50)
        self.assertEqual(system["processing_mode"], "roofline")

    def overlapped_execution(self):
        e = json.loads((CALCULON / "3072_t4_p64_d12_mbs4_full.json").read_text())
        e["tensor_par_overlap"] = "ring"
        path = pathlib.Path(self.tmp.name) / "overlapped.json"
        path.write_text(json.dumps(e))
        return path

    def test_bad_input_writes_nothing(self):
        for args, expect in [
            (("--assume", "mem1.speed=3"), "unknown key"),
            (("--assume", "mem1.GBps=-1"), "out of range"),
            # a network of 2.5 GPUs was once rounded to 3, and an FP8 figure with no FP8 table
            # kept in coefficients.json and written nowhere
            (("--assume", "networks.0.size=2.5"), "a network's size a whole number of GPUs"),
            (("--assume", "matrix.float8.tflops=1979"), "matrix.float8 has no table"),
            (("--processing-mode", "overlap"), "processing mode"),
            (("--folds", "1"), "--folds"),
            (("--execution", str(CALCULON / "3072_t4_p64_d12_mbs4_full.json")), "go together"),
            (("--execution", str(self.overlapped_execution()), "--model",
              str(CALCULON / "gpt3-175B.json")), "tensor_par_overlap"),
        ]:
            r, out = self.calibrate(*args)
            self.assertEqual(r.returncode, 4, args)
            self.assertIn(expect, r.stderr)
            self.assertFalse(out.exists(), args)
        empty = pathlib.Path(self.tmp.name) / "empty"
        empty.mkdir()
        r = railgauge("calibrate", *BORROW, str(empty), "--out", str(empty / "out"))
        self.assertEqual(r.returncode, 4)
        self.assertIn("no records.jsonl", r.stderr)


class ImportedNcclTestsTest(unittest.TestCase):
    """nccl-tests logs a cluster already has calibrate the network tier: the rank lines give
    the group and its nodes, the text form's wall-clock mean the time."""

    def test_imported_nccl_tests_calibrate_the_tier_they_ran_on(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = pathlib.Path(tmp) / "runs"
            fixtures = ROOT / "tests" / "fixtures" / "nccl-tests"
            for name in ("all_reduce_format_sample.txt", "all_reduce_format_sample.json"):
                r = railgauge("import", "nccl-tests", str(fixtures / name), "--out", str(runs))
                self.assertEqual(r.returncode, 0, r.stderr)
            out = pathlib.Path(tmp) / "cal"
            r = railgauge("calibrate", *BORROW, str(runs), "--out", str(out))
            self.assertEqual(r.returncode, 0, r.stderr)
            coeff = json.loads((out / "coefficients.json").read_text())
            up = coeff["network"]["scale_up"]
            self.assertTrue(up["measured"], up)
            system = json.loads((out / "calculon_system.json").read_text())
            self.assertEqual(calculon_problems(system), [])
            self.assertEqual(system["networks"][0]["size"], 2)  # the two ranks of the logs


REAL = ROOT / "tests/fixtures/verdicts/real"


class HonestLabelsTest(unittest.TestCase):
    """Only what was measured is called measured, and one machine's coefficients come from one
    machine's runs: real logs (tests/fixtures/verdicts/real) beside this machine's CPU runs."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.runs = pathlib.Path(self.tmp.name) / "runs"
        self.out = pathlib.Path(self.tmp.name) / "cal"

    def import_log(self, name):
        r = railgauge("import", "nccl-tests", str(REAL / name), "--out", str(self.runs))
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_ops_not_measured_are_named_assumed_on_the_console_and_in_the_report(self):
        # The MOC 2-node RoCE log measured all_reduce alone: reduce_scatter, all_gather and p2p
        # of the scale-out tier are assumed.
        self.import_log("moc_h100_2node_1gpu_roce_all_reduce_gdr0_15GBps.log")
        r = railgauge("calibrate", *BORROW, str(self.runs), "--out", str(self.out))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("assumed, not measured", r.stderr)
        self.assertIn("networks.1.reduce_scatter.scalar", r.stderr)
        report = json.loads((self.out / "fit_report.json").read_text())
        names = {a["name"]: a for a in report["not_measured"]}
        for op in ("reduce_scatter", "all_gather", "p2p"):
            self.assertIn(f"networks.1.{op}.scalar", names)
            self.assertTrue(names[f"networks.1.{op}.scalar"]["source"].startswith("assumed"))
        self.assertNotIn("networks.1.all_reduce.scalar", names)
        row = [s for s in report["coefficient_sets"] if s["name"] == "networks[1] scale_out"][0]
        self.assertIn("assumed ops: all_gather, p2p, reduce_scatter", row["source"])

    def test_runs_of_different_hardware_are_refused_together(self):
        self.import_log("xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log")
        r = railgauge("gemm", "--out", str(self.runs), "-q", "--filter", "gemm.cpu_blas_size",
                      "-a", "m=16,32,64", "-a", "dtype=fp32", "--time-budget", "0.02",
                      "--no-verify")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = railgauge("calibrate", *BORROW, str(self.runs), "--out", str(self.out))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("different hardware", r.stderr)
        self.assertIn("cpu (gemm.cpu_blas_size)", r.stderr)
        self.assertIn("--allow-mixed", r.stderr)
        self.assertFalse(self.out.exists())
        r = railgauge("calibrate", *BORROW, str(self.runs), "--out", str(self.out), "--allow-mixed")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_two_gpu_models_named_by_the_logs_are_refused_together(self):
        # nccl-tests' rank lines name the GPU: an H100 node's log and an H200 cluster's.
        self.import_log("xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log")
        self.import_log("issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt")
        r = railgauge("calibrate", *BORROW, str(self.runs), "--out", str(self.out))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("gpu NVIDIA H100 80GB HBM3", r.stderr)
        self.assertIn("gpu NVIDIA H200", r.stderr)
        self.assertFalse(self.out.exists())


class DecomposedTierTest(unittest.TestCase):
    """A multi-node nccl-tests log's scale-out tier is one GPU's share of the fabric, not the
    run's busbw: real logs of tests/fixtures/verdicts/real (README.md there gives their repository,
    commit and path)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.runs = pathlib.Path(self.tmp.name) / "runs"
        self.out = pathlib.Path(self.tmp.name) / "cal"

    def calibrate(self, logs, *extra):
        for name in logs:
            r = railgauge("import", "nccl-tests", str(REAL / name), "--out", str(self.runs))
            self.assertEqual(r.returncode, 0, r.stderr)
        r = railgauge("calibrate", *BORROW, str(self.runs), "--out", str(self.out), *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        return (json.loads((self.out / "calculon_system.json").read_text()),
                json.loads((self.out / "fit_report.json").read_text()))

    def test_ten_nodes_of_h100_give_the_per_gpu_fabric_rate(self):
        # xxrjun cluster01: 10 nodes × 8 H100 all_reduce, and one node of the same cluster for
        # the NVLink tier. Its busbw is ~350 GB/s; one GPU's share of the fabric ~44 GB/s, within
        # 15% of a 400 Gb/s NIC per GPU (50 GB/s).
        system, report = self.calibrate(["xxrjun_cluster01_h100_10node_8gpu_5coll_healthy.log",
                                         "xxrjun_h100x8_1node_cnode3-002_5coll.log"])
        [d] = report["decomposed_tiers"]
        self.assertEqual((d["op"], d["nodes"], d["gpus_per_node"]), ("all_reduce", 10, 8))
        self.assertEqual(len(d["runs"]), 1)
        self.assertTrue(d["intra_node"]["measured"])
        self.assertIn("all_reduce on one node of 8 ranks", d["intra_node"]["source"])
        self.assertTrue(d["fabric_bound"])
        self.assertGreater(d["bus_gbytes_per_s"], 300)
        bandwidth = system["networks"][1]["bandwidth"] * system["networks"][1]["efficiency"]
        self.assertAlmostEqual(bandwidth, d["fabric_gbytes_per_s_per_gpu"], delta=0.01)
        self.assertLess(abs(bandwidth / 50 - 1), 0.15)
        md = (self.out / "fit_report.md").read_text()
        self.assertIn("## Network tiers taken apart", md)
        self.assertIn("| 10 × 8 |", md)

    def test_the_fabric_tier_is_weighted_by_the_sizes_its_data_parallel_ops_use(self):
        # Calculon's gpt3-175B example puts PP 64 and DP 12 (RS + AG of each block's weights,
        # 906 MB) on networks[1]. The 10-node log measured all_reduce, all_gather,
        # reduce_scatter and sendrecv (p2p) up to 16 GiB: each op the execution runs is read from
        # its own points, inside the measured range.
        system, report = self.calibrate(
            ["xxrjun_cluster01_h100_10node_8gpu_5coll_healthy.log",
             "xxrjun_h100x8_1node_cnode3-002_5coll.log"],
            "--execution", str(CALCULON / "3072_t4_p64_d12_mbs4_full.json"),
            "--model", str(CALCULON / "gpt3-175B.json"))
        by_name = {s["name"]: s for s in report["coefficient_sets"]}
        fabric = by_name["networks[1] scale_out"]["execution"]
        self.assertGreater(fabric["uses"], 0)
        self.assertEqual(fabric["share_on_unmeasured_ops"], 0)
        self.assertEqual(fabric["share_outside_measured_sizes"], 0)
        self.assertIsNotNone(fabric["weighted_mean_rel"])
        # The execution runs no all_reduce on the fabric (optimizer sharding: RS + AG).
        self.assertEqual(by_name["scale_out.all_reduce"]["execution"]["uses"], 0)
        self.assertGreater(by_name["scale_out.reduce_scatter"]["execution"]["uses"], 0)
        self.assertIn("not used", (self.out / "fit_report.md").read_text())
        # β of a tier taken apart is per fabric byte per GPU, and the file says so.
        coeff = json.loads((self.out / "coefficients.json").read_text())
        jsonschema.validate(
            coeff, json.loads((ROOT / "results/schema/coefficients.schema.json").read_text()))
        self.assertEqual(coeff["network"]["scale_out"]["beta_per"], "fabric byte per GPU")
        self.assertEqual(coeff["network"]["scale_up"]["beta_per"], "bus byte")
        self.assertAlmostEqual(1 / coeff["network"]["scale_out"]["joint"]["beta_s_per_byte"][
            "all_reduce"] / 1e9, system["networks"][1]["bandwidth"], delta=0.01)

    def test_two_h200_nodes_above_line_rate_are_said_not_fabric_bound(self):
        # NVIDIA/nccl-tests#256, bare metal: 2 × 8 H200, 8 × 400 Gb/s NICs each. As a ring its
        # 490 GB/s busbw needs 61 GB/s per GPU from 50 GB/s NICs and 95% of a given 450 GB/s
        # NVLink: not a fabric rate. Read as NCCL's NVLS tree it is ~33 GB/s.
        system, report = self.calibrate(
            ["issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt"],
            "--assume", "networks.0.bandwidth=450", "--assume", "networks.0.efficiency=1")
        [d] = report["decomposed_tiers"]
        self.assertFalse(d["intra_node"]["measured"])
        self.assertIn("--assume", d["intra_node"]["source"])
        self.assertFalse(d["fabric_bound"])
        self.assertGreater(d["fabric_gbytes_per_s_per_gpu"], 50)
        self.assertLess(abs(d["nvls_tree_gbytes_per_s_per_gpu"] / 32.7 - 1), 0.05)
        self.assertTrue(any("is not the fabric's rate" in n for n in report["notes"]))


def calibrate_two_ranks(test, collectives_args):
    """Runs `railgauge collectives ARGS` on 2 ranks under mpirun (skipping the test without
    one), then `railgauge calibrate` on the run: (records, calculon_system, coefficients,
    fit_report)."""
    mpirun = os.environ.get("RAILGAUGE_MPIRUN") or shutil.which("mpirun")
    if not mpirun or mpirun.endswith("-NOTFOUND"):
        test.skipTest("no mpirun ($RAILGAUGE_MPIRUN or PATH): the 2-rank collectives run this "
                      "test calibrates on cannot run")
    with tempfile.TemporaryDirectory() as tmp:
        runs, out = pathlib.Path(tmp) / "runs", pathlib.Path(tmp) / "cal"
        r = subprocess.run([mpirun, "--oversubscribe", "--allow-run-as-root", "-n", "2", BINARY,
                            "collectives", "--out", str(runs), "-q", "--time-budget", "0.02"]
                           + collectives_args, capture_output=True, text=True, timeout=300)
        test.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        records = [json.loads(line) for path in sorted(runs.glob("*/rank-*/records.jsonl"))
                   for line in path.read_text().splitlines() if line.strip()]
        r = railgauge("calibrate", *BORROW, str(runs), "--out", str(out))
        test.assertEqual(r.returncode, 0, r.stderr)
        return (records, json.loads((out / "calculon_system.json").read_text()),
                json.loads((out / "coefficients.json").read_text()),
                json.loads((out / "fit_report.json").read_text()))


class MeasuredNetworkTest(unittest.TestCase):
    """A measured collective sweep makes Calculon's scale-up tier a measured one."""

    def test_measured_collectives_set_the_network_tier(self):
        # 5 sizes x in-place or not of one all_reduce on 2 ranks: a few seconds.
        _, system, coeff, report = calibrate_two_ranks(
            self, ["--filter", "collectives.mpi_all_reduce", "-a", "size_bytes=1KiB:4MiB:*8"])

        self.assertEqual(calculon_problems(system), [])
        jsonschema.validate(
            coeff, json.loads((ROOT / "results/schema/coefficients.schema.json").read_text()))
        up = coeff["network"]["scale_up"]
        self.assertTrue(up["measured"])
        for value in ("bandwidth_gbytes_per_s", "efficiency", "latency_s", "size"):
            self.assertTrue(up[value]["measured"], (value, up[value]))
        self.assertFalse(coeff["network"]["scale_out"]["measured"])  # one host
        # Calculon's networks[0] is the fit, not a100_80g's NVLink (300 GB/s, 10 us, size 8).
        net = system["networks"][0]
        self.assertAlmostEqual(net["bandwidth"] / up["bandwidth_gbytes_per_s"]["value"], 1,
                               places=4)
        self.assertAlmostEqual(net["latency"] / up["latency_s"]["value"], 1, places=3)
        self.assertEqual(net["size"], 2)
        not_measured = {a["name"] for a in report["not_measured"]}
        for value in ("bandwidth", "efficiency", "latency", "size"):
            self.assertNotIn(f"networks.0.{value}", not_measured)
            self.assertIn(f"networks.1.{value}", not_measured)
        # Both ranks wrote every point: one sample each, the other rank's counted apart.
        key = "collectives.mpi_all_reduce"
        self.assertEqual(coeff["records"]["used_by_key"][key], 10)
        self.assertEqual(coeff["records"]["rank_duplicates"][key], 10)
        self.assertEqual(len(report["run_ids"]), 1)
        self.assertEqual(len(report["runs"]), 2)


class MeasuredProcessorUsageTest(unittest.TestCase):
    """An all_reduce beside a GEMM makes Calculon's scale-up processor_usage a measured one."""

    def test_all_reduce_with_gemm_sets_processor_usage(self):
        # The plain all_reduce gives the tier its bandwidth, the one beside a GEMM its
        # processor usage; tiny sizes and few iterations: a few seconds on 2 ranks.
        records, system, coeff, report = calibrate_two_ranks(
            self, ["--filter", "collectives.mpi_all_reduce*", "-a", "size_bytes=64KiB:1MiB:*4",
                   "-a", "in_place=out_of_place", "-a", "gemm_mnk=128", "-a", "iterations=5",
                   "-a", "warmup=1"])

        overlap = [x for x in records if x["key"] == "collectives.mpi_all_reduce_with_gemm"]
        self.assertEqual(len(overlap), 2 * 3)  # 3 sizes, each rank's record
        slowdowns = []
        for x in overlap:
            self.assertEqual(x["status"], "ok", x.get("reason"))
            m = x["metrics"]
            self.assertIs(m["verified"], True)
            self.assertGreater(m["gemm_slowdown"], 0)
            self.assertAlmostEqual(m["gemm_slowdown"], m["gemm_concurrent_s"] / m["gemm_alone_s"])
            self.assertGreaterEqual(min(m["gemms_per_window"], m["allreduces_per_window"]), 1)
            slowdowns.append(m["gemm_slowdown"])
        # Every rank's record carries the slowest rank's figures: the same on both ranks.
        self.assertEqual(sorted(slowdowns[:3]), sorted(slowdowns[3:]))

        self.assertEqual(calculon_problems(system), [])
        usage = coeff["network"]["scale_up"]["processor_usage"]
        self.assertTrue(usage["measured"], usage)
        expected = min(max(1 - 1 / sorted(slowdowns[:3])[1], 0.0), 0.99)
        self.assertAlmostEqual(usage["value"], expected, places=6)
        self.assertAlmostEqual(system["networks"][0]["processor_usage"], round_sig(expected, 4),
                               places=6)
        not_measured = {a["name"] for a in report["not_measured"]}
        self.assertNotIn("networks.0.processor_usage", not_measured)
        self.assertIn("networks.1.processor_usage", not_measured)


H100_BLOCK_RUNS = ROOT / "results/reference/h100-2026-11-27/block/runs"


class GpuBlockPredictionTest(unittest.TestCase):
    """The GPU block measured on one H100 (results/reference/h100-2026-11-27, GPT-3-175B at
    t = 1, 3 rounds) is predicted from the same rounds' gemm.cublaslt records within 3 % per
    shape, and within 5 % through the step table Calculon reads, for both sequence_parallel
    values."""

    def test_the_h100_block_is_predicted_within_3_percent(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = railgauge("calibrate", str(H100_BLOCK_RUNS), "--out", tmp, "--borrow",
                          "a100_80g")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(tmp, "fit_report.json")) as f:
                report = json.load(f)
            with open(os.path.join(tmp, "fit_report.md")) as f:
                markdown = f.read()
        rows = report["block_predictions"]
        self.assertEqual(sorted(b["sequence_parallel"] for b in rows), [False, True])
        for b in rows:
            self.assertEqual((b["tp"], b["runs"]), (1, 3), b)
            self.assertIn("GPU, bf16", b["model"])
            self.assertFalse(b["missing"], b)
            self.assertAlmostEqual(b["measured_s"], 0.0321, delta=0.0005)
            self.assertLess(abs(b["error"]), 0.03, b)
            # Calculon's path, through the fitted table, within 5 %: roofline, which --processing-
            # mode auto chose (no_overlap's table put it at +5.2 % and +4.3 %).
            self.assertLess(abs(b["step_table_s"] / b["measured_s"] - 1), 0.05, b)
            self.assertEqual(b["measured_collective_s"], 0.0)
        self.assertIn("2 of 2 within 3 %", markdown)
        self.assertIn("processing_mode roofline:", markdown)


H200_RUNS = ROOT / "results/reference/h200-2026-11-26b/runs"


class BorrowedValuesTest(unittest.TestCase):
    """Nothing from another GPU's file without asking, on the committed H200 run's records: the
    GPU's spec table and the inventory fill what they can, the rest is refused unless --borrow
    names the file, and then the fit report opens with every value not measured."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.runs = sorted(str(p.parent) for p in H200_RUNS.glob("*/*/run.json"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_h200_run_is_refused_without_borrow(self):
        out = pathlib.Path(self.tmp.name) / "refused"
        r = railgauge("calibrate", *self.runs, "--out", str(out))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("would come from another GPU's file", r.stderr)
        self.assertIn("networks.1.bandwidth", r.stderr)
        self.assertIn("--borrow a100_80g", r.stderr)
        # Its NCCL points ran on one GPU: the way to measure the network tiers is more ranks.
        self.assertRegex(r.stderr, r"the runs' \d+ collective record\(s\) are of a group of one "
                                   r"rank, which measure no network: run the collectives over 2 "
                                   r"or more GPUs")
        # The H200's spec figures and its inventory are not borrowed.
        self.assertNotIn("vector.bfloat16.tflops", r.stderr)
        self.assertNotIn("networks.0.bandwidth", r.stderr)
        self.assertNotIn("mem2.GiB", r.stderr)
        self.assertFalse(out.exists())
        r = railgauge("calibrate", *self.runs, "--out", str(out), "--borrow", "h100_80g")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("unknown file 'h100_80g'", r.stderr)

    def test_with_borrow_each_value_says_where_it_came_from(self):
        out = pathlib.Path(self.tmp.name) / "borrowed"
        r = railgauge("calibrate", *self.runs, "--out", str(out), *BORROW)
        self.assertEqual(r.returncode, 0, r.stderr)
        md = (out / "fit_report.md").read_text()
        self.assertTrue(md.startswith("# Calibration fit report\n\n## Not measured: "), md[:200])
        self.assertIn("borrowed from another GPU's file", md.splitlines()[2])
        report = json.loads((out / "fit_report.json").read_text())
        origin = {a["name"]: a["origin"] for a in report["not_measured"]}
        self.assertEqual(origin["vector.bfloat16.tflops"], "spec")
        self.assertEqual(origin["networks.0.bandwidth"], "spec")
        self.assertEqual(origin["networks.1.bandwidth"], "borrowed")
        self.assertEqual(origin["vector.bfloat16.efficiency"], "borrowed")
        self.assertNotIn("mem2.GiB", origin)  # the host's memory, from the inventory
        system = json.loads((out / "calculon_system.json").read_text())
        self.assertEqual(system["vector"]["bfloat16"]["tflops"], 133.8)
        self.assertEqual(system["networks"][0]["bandwidth"], 450)
        self.assertNotEqual(system["mem2"]["GiB"], 512)
        coeff = json.loads((out / "coefficients.json").read_text())
        jsonschema.validate(
            coeff, json.loads((ROOT / "results/schema/coefficients.schema.json").read_text()))
        self.assertEqual(coeff["network"]["scale_out"]["bandwidth_gbytes_per_s"]["origin"],
                         "borrowed")
        self.assertEqual(coeff["mem2_gib"]["origin"], "measured")

    def test_the_h200_tables_have_no_step_above_what_was_measured(self):
        out = pathlib.Path(self.tmp.name) / "steps"
        r = railgauge("calibrate", *self.runs, "--out", str(out), *BORROW)
        self.assertEqual(r.returncode, 0, r.stderr)
        coeff = json.loads((out / "coefficients.json").read_text())
        bf16 = coeff["gemm"]["bf16"]
        best = max(row["efficiency"] for row in bf16["by_shape"])
        self.assertLess(best, 0.9)  # 850 of 989 TFLOP/s
        for threshold, eff in bf16["by_flops"]["rows"]:
            self.assertLessEqual(eff, best + 1e-12, threshold)
        # mem2: the table chosen is at least as good on the points it saw as on those held out.
        fit = coeff["calculon_tables"]["mem2"]["fit"]
        self.assertLessEqual(fit["in_sample"]["mean_rel"], fit["held_out"]["mean_rel"])
        self.assertLessEqual(fit["in_sample"]["max_rel"], fit["held_out"]["max_rel"])
        self.assertGreater(coeff["calculon_tables"]["mem2"]["steps"], 1)


def round_sig(x, digits):
    return float(f"{x:.{digits}g}")


H100_BURNIN = ROOT / "results/reference/h100-burnin-2026-11-26/burnin/healthy"
XXRJUN = ROOT / "tests/fixtures/verdicts/real"
# What the burn-in and the two logs cannot say, given by hand (docs/calibrate.md, "Calculon end
# to end on Hopper"): the rest of an H100 system file is measured or from the GPU's spec.
H100_ASSUMED = {"networks.1.size": "3072", "mem2.GBps": "55.1", "mem2.efficiency": "1",
                "mem2.GiB": "512", "vector.bfloat16.efficiency": "0.95",
                "networks.0.processor_usage": "0.15", "networks.1.processor_usage": "0.02"}


class HopperBurnInTest(unittest.TestCase):
    """An H100 system file from one H100's committed burn-in (its sustained GEMM and HBM copy)
    and real nccl-tests logs of one 8-GPU node and of ten such nodes: nothing from another GPU."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        for log, out in (("xxrjun_h100x8_1node_cnode3-002_5coll.log", "node"),
                         ("xxrjun_cluster01_h100_10node_8gpu_5coll_healthy.log", "fabric")):
            r = railgauge("import", "nccl-tests", XXRJUN / log, "--out", self.dir / out)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.inputs = [H100_BURNIN, self.dir / "node", self.dir / "fabric"]

    def tearDown(self):
        self.tmp.cleanup()

    def test_the_burn_in_gives_the_matrix_and_hbm_figures(self):
        r = railgauge("calibrate", *self.inputs, "--out", self.dir / "refused")
        self.assertEqual(r.returncode, 4, r.stderr)
        listed = r.stderr.split("A100): ", 1)[1].split("\n", 1)[0].split(", ")
        # The burn-in's GEMM and copy and the H100's spec leave these five, and only these.
        self.assertEqual(sorted(listed), sorted(["mem2.GBps", "vector.bfloat16.efficiency",
                                                 "mem2.efficiency", "networks.0.processor_usage",
                                                 "networks.1.processor_usage"]))
        out = self.dir / "cal"
        assume = [a for k, v in H100_ASSUMED.items() for a in ("--assume", f"{k}={v}")]
        r = railgauge("calibrate", *self.inputs, "--out", out, *assume)
        self.assertEqual(r.returncode, 0, r.stderr)
        system = json.loads((out / "calculon_system.json").read_text())
        bf16 = system["matrix"]["bfloat16"]
        self.assertEqual(bf16["tflops"], 989)  # the spec's dense peak, not the rate measured
        self.assertEqual(len(bf16["gflops_efficiency"]), 1)
        self.assertAlmostEqual(bf16["gflops_efficiency"][0][1], 718.22 / 989, places=3)
        self.assertAlmostEqual(system["mem1"]["GBps"], 3022.8, places=1)
        report = json.loads((out / "fit_report.json").read_text())
        origins = {a["name"]: a["origin"] for a in report["not_measured"]}
        self.assertNotIn("borrowed", origins.values(), origins)
        self.assertEqual(origins["matrix.bfloat16.tflops"], "spec")

    def test_the_processing_mode_is_chosen_on_held_out_errors(self):
        # The H100 burn-in has one GEMM per dtype: no point can be held out, and a one-row table
        # fits its point exactly in roofline, so auto keeps Calculon's no_overlap and says the
        # errors are in-sample. The H200 run's bf16 sweep holds points out beside fp16, fp32,
        # fp64, fp8 and tf32 tables of too few: its held-out error chooses.
        for name, runs, said in (
                ("one-point", H100_BURNIN, ["processing_mode no_overlap: the GEMM tables' "
                                            "in-sample mean error", "too few points"]),
                ("sweep", H200_RUNS, ["the GEMM tables' held-out mean error is"])):
            out = self.dir / name
            r = railgauge("calibrate", runs, "--out", out, "--borrow", "a100_80g")
            self.assertEqual(r.returncode, 0, r.stderr)
            report = (out / "fit_report.md").read_text()
            for text in said:
                self.assertIn(text, report, name)
            if name == "sweep":
                self.assertNotIn("too few points to hold any out", report)

    def test_a_tf32_burn_is_read_against_the_tf32_peak(self):
        # The H200 burn-in's TF32 GEMM (353.3 TFLOP/s sustained) against the dense TF32 peak,
        # 494 (gpu_peaks.yaml): without that spec its own rate was the peak, at efficiency 1.0.
        out = self.dir / "tf32"
        r = railgauge("calibrate", ROOT / "results/reference/h200-burnin-2026-11-28/burnin/healthy",
                      "--out", out, "--borrow", "a100_80g")
        self.assertEqual(r.returncode, 0, r.stderr)
        tf32 = json.loads((out / "calculon_system.json").read_text())["matrix"]["float32"]
        self.assertEqual(tf32["tflops"], 494)
        self.assertAlmostEqual(tf32["gflops_efficiency"][0][1], 353.25 / 494, places=2)

    def test_an_h100_and_an_h200_burn_in_are_refused_together(self):
        # A burn-in's gemm.burn and memory.burn carry no gpu_name: their GPU is the run's
        # inventory's. Once fitted together as one unnamed GPU (a bf16 table of both GPUs, the
        # H200's HBM rate beside the H100's capacity); refused, each GPU named.
        h200 = ROOT / "results/reference/h200-burnin-2026-11-28/burnin/healthy"
        out = self.dir / "mixed"
        r = railgauge("calibrate", H100_BURNIN, h200, "--out", out, "--borrow", "a100_80g")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("gpu NVIDIA H100 80GB HBM3 (gemm.burn); gpu NVIDIA H200 (gemm.burn)",
                      r.stderr)
        self.assertFalse(out.exists())

if __name__ == "__main__":
    BINARY = sys.argv[1]
    unittest.main(argv=[sys.argv[0], sys.argv[2]])
