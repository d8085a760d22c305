"""`railgauge import` end to end: nccl-tests, perftest and nvbandwidth output become run
directories that validate against the schemas, and two imported nccl-tests logs (one fabric
against another) go through `railgauge compare` like measured runs.

Usage: import_cli_test.py RAILGAUGE_BINARY SOURCE_DIR TestName
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "support"))
from nccl_tests_text import with_averages  # noqa: E402

BINARY = SOURCE = None


def railgauge(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300)


def run_dir_of(output):
    match = re.search(r"into (\S+)", output)
    assert match, output
    return match.group(1)


def records(run_dir):
    with open(os.path.join(run_dir, "records.jsonl")) as f:
        return [json.loads(line) for line in f]


def validate(test, run_dir):
    check = subprocess.run(
        [sys.executable, os.path.join(SOURCE, "scripts/validate_run.py"), run_dir],
        capture_output=True, text=True, timeout=120)
    test.assertEqual(check.returncode, 0, check.stdout + check.stderr)


class ImportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge_import_")
        self.out = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def import_nccl_tests_sample(self, extension):
        """Imports the format sample as node01's; returns its records and run.json, validated.
        Both samples hold two size rows, the in-place half of the larger with 3 wrong elements."""
        sample = os.path.join(SOURCE, "tests/fixtures/nccl-tests/all_reduce_format_sample."
                              + extension)
        p = railgauge("import", "nccl-tests", sample, "--out", self.out, "--host", "node01")
        self.assertEqual(p.returncode, 0, p.stderr)
        run = run_dir_of(p.stdout)
        validate(self, run)
        recs = records(run)
        self.assertEqual(len(recs), 4)
        self.assertEqual({r["key"] for r in recs}, {"collectives.nccl_all_reduce"})
        self.assertEqual(sorted(r["status"] for r in recs), ["failed", "ok", "ok", "ok"])
        self.assertTrue(all(r["host"] == "node01" for r in recs))
        with open(os.path.join(run, "run.json")) as f:
            manifest = json.load(f)
        self.assertEqual(manifest["imported"]["tool"], "nccl-tests")
        self.assertEqual(manifest["status"], "complete")
        return recs, manifest

    def test_nccl_tests_log_becomes_a_valid_run(self):
        self.import_nccl_tests_sample("txt")

    def test_nccl_tests_json_becomes_a_valid_run_with_its_environment(self):
        recs, manifest = self.import_nccl_tests_sample("json")
        self.assertTrue(all(r["metrics"]["env_NCCL_ALGO"] == "Ring" for r in recs))
        self.assertTrue(all(r["metrics"]["nccl_version"] == "2.28.3" for r in recs))
        self.assertEqual(recs[0]["metrics"]["slowest_process"], 0)
        imported = manifest["imported"]
        self.assertEqual(len(imported["ranks"]), 2)
        self.assertEqual(imported["argv"][0], "./build/all_reduce_perf")

    def test_a_failed_nccl_tests_run_imports_as_an_error_record(self):
        # Real output: nccl-tests 2.19.6 all_reduce_perf on a machine without a CUDA driver.
        for extension in ("txt", "json"):
            real = os.path.join(SOURCE, "tests/fixtures/nccl-tests/all_reduce_no_cuda_driver."
                                + extension)
            p = railgauge("import", "nccl-tests", real, "--out", self.out)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("nccl-tests failed", p.stderr)
            run = run_dir_of(p.stdout)
            validate(self, run)
            (rec,) = records(run)
            self.assertEqual((rec["key"], rec["status"]), ("collectives.nccl_all_reduce", "error"))
            self.assertIn("after 0 result row(s)", rec["reason"])
            if extension == "txt":
                self.assertIn("CUDA driver version is insufficient", rec["reason"])
            else:
                self.assertIn("no results", rec["reason"])
            check = railgauge("check", run)
            self.assertNotEqual(check.returncode, 0, "a failed import must not pass a check")

    def test_a_log_that_failed_before_its_header_is_named_by_its_command_and_host(self):
        # nccl-tests issue 264 (tests/fixtures/verdicts/real): all_reduce_perf on 8 H100 that
        # failed at CUDA init, before the header that names the collective and the rank lines
        # that name the host. It imported as collectives.nccl_unknown of a node named after
        # the file (unknown-issue264_...), the node a check drained. The shell's echo of the
        # command names the collective, and nccl-tests' failure lines name the host ("test").
        real = os.path.join(SOURCE, "tests/fixtures/verdicts/real/"
                            "issue264_h100x8_all_reduce_cuda_init_abort_EXTRACT.txt")
        p = railgauge("import", "nccl-tests", real, "--out", self.out)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        run = run_dir_of(p.stdout)
        validate(self, run)
        (rec,) = records(run)
        self.assertEqual((rec["key"], rec["status"], rec["host"]),
                         ("collectives.nccl_all_reduce", "error", "test"))
        self.assertIn("of all_reduce", rec["reason"])
        with open(os.path.join(run, "run.json")) as f:
            self.assertEqual(json.load(f)["imported"]["hosts_from"], "failure lines")
        check = railgauge("check", "--rules", "auto", "--format", "json", run)
        self.assertEqual(check.returncode, 2, check.stderr)
        self.assertEqual(json.loads(check.stdout)["drain"], ["test"])

    def test_two_imported_fabrics_compare_with_a_ratio_per_point(self):
        sample = os.path.join(SOURCE, "tests/fixtures/nccl-tests/all_reduce_format_sample.txt")
        with open(sample) as f:
            text = f.read()
        # The second "fabric": the 1 MiB out-of-place row twice as slow (busbw halved).
        slower = with_averages(text.replace("20.00   52.43   52.43", "40.00   26.21   26.21"))
        self.assertNotEqual(slower, text)
        other = os.path.join(self.out, "roce.txt")
        with open(other, "w") as f:
            f.write(slower)
        a = railgauge("import", "nccl-tests", sample, "--out", self.out + "/ib")
        b = railgauge("import", "nccl-tests", other, "--out", self.out + "/roce")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(b.returncode, 0, b.stderr)
        p = railgauge("compare", run_dir_of(a.stdout), run_dir_of(b.stdout), "--label", "ib",
                      "--label", "roce", "--format", "json")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        doc = json.loads(p.stdout)
        big = [pt for pt in doc["points"]
               if pt["params"].get("size_bytes") == 1048576
               and pt["params"].get("in_place") == "out_of_place"]
        self.assertEqual(len(big), 1, doc["points"])
        self.assertEqual(big[0]["key"], "collectives.nccl_all_reduce")
        self.assertAlmostEqual(big[0]["ratio"][0], 26.21 / 52.43, places=3)
        families = {f["group"]: f for f in doc["families"]}
        # The 8-byte rows printed rates of 0.00: they compare by their times (the same on both
        # sides, ratio 1), so the family's mean is over three points, one of them halved; the
        # 1 MiB in-place half counted 3 wrong elements and failed.
        self.assertAlmostEqual(families["collectives"]["geomean_speedup"], 0.5 ** (1 / 3),
                               places=3)

    def test_perftest_client_output_becomes_a_valid_run(self):
        files = sorted(glob.glob(os.path.join(SOURCE, "tests/fixtures/rdma/perftest/*client*.txt")))
        self.assertTrue(files)
        for path in files:
            p = railgauge("import", "perftest", path, "--out", self.out)
            self.assertEqual(p.returncode, 0, p.stderr)
            run = run_dir_of(p.stdout)
            validate(self, run)
            recs = records(run)
            self.assertTrue(recs)
            self.assertTrue(all(r["key"].startswith("rdma.") for r in recs))

    def test_a_log_of_thirty_hosts_is_imported_under_a_run_id_of_bounded_length(self):
        """The node of a multi-node log is every host joined ("a+b+..."); with 30 hosts the run
        id was too long for a file name, and the import failed saying "give --out a directory
        you can write". The rows are streamed into the run directory, read a second time."""
        sample = os.path.join(SOURCE, "tests/fixtures/nccl-tests/all_reduce_format_sample.txt")
        with open(sample) as f:
            lines = f.read().splitlines()
        hosts = [f"gpu-node-with-a-long-name-{h:03}" for h in range(1, 31)]
        rank_at = next(i for i, line in enumerate(lines) if "Rank  0" in line)
        ranks = [f"#  Rank {r:2} Group  0 Pid  4100{r} on {host} device  0 [0000:19:00] "
                 "NVIDIA H100 80GB HBM3" for r, host in enumerate(hosts)]
        log = os.path.join(self.out, "all_reduce_30n.txt")
        with open(log, "w") as f:
            f.write("\n".join(lines[:rank_at] + ranks + lines[rank_at + 2:]) + "\n")
        p = railgauge("import", "nccl-tests", log, "--out", self.out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        run = run_dir_of(p.stdout)
        validate(self, run)
        name = os.path.basename(run)
        self.assertLessEqual(len(name), 128, name)
        self.assertIn("-gpu-node-with-a-long-name-001-and-29-more-", name)
        recs = records(run)
        self.assertEqual(len(recs), 4)
        self.assertEqual({r["host"] for r in recs}, {"+".join(hosts)})
        self.assertEqual({r["params"]["group_hosts"] for r in recs}, {30})
        with open(os.path.join(run, "run.json")) as f:
            self.assertEqual(json.load(f)["points_planned"], 4)

    def test_not_the_tools_output_is_an_input_error(self):
        bad = os.path.join(self.out, "bad.txt")
        with open(bad, "w") as f:
            f.write("hello\n")
        for tool in ("nccl-tests", "perftest"):
            p = railgauge("import", tool, bad, "--out", self.out)
            self.assertEqual(p.returncode, 4, p.stdout + p.stderr)
            self.assertIn("bad.txt", p.stderr)
            self.assertFalse(glob.glob(os.path.join(self.out, "*", "records.jsonl")))
        p = railgauge("import", "nccl-tests", bad, "--kind", "allreduce", "--out", self.out)
        self.assertEqual(p.returncode, 4)
        self.assertIn("--kind", p.stderr)
        # A real perftest log given as nccl-tests output: the advice was "pass the collective",
        # and with --kind, "a result row needs 13 columns". Both now say what the file may be.
        perftest = os.path.join(SOURCE, "tests/fixtures/verdicts/real/"
                                "moc_bm_roce_cx7_ib_write_bw_hostmem_16qp_client.log")
        for extra in ([], ["--kind", "all_reduce"]):
            p = railgauge("import", "nccl-tests", perftest, "--out", self.out, *extra)
            self.assertEqual(p.returncode, 4, p.stdout + p.stderr)
            self.assertIn("railgauge import perftest", p.stderr)
            self.assertFalse(glob.glob(os.path.join(self.out, "*", "records.jsonl")))

    def test_an_all_gather_named_all_reduce_is_refused_by_its_bus_factor(self):
        # The real 8-GPU all_gather of the xxrjun cnode3-007 log, without the lines that name it
        # (as a log saved from its rows would be), given as all_reduce: its records read
        # collectives.nccl_all_reduce at half an all_reduce's busbw.
        log = os.path.join(SOURCE, "tests/fixtures/verdicts/real/"
                           "xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log")
        with open(log) as f:
            lines = f.read().splitlines()[35:70]
        unnamed = os.path.join(self.out, "rows.txt")
        with open(unnamed, "w") as f:
            f.write("\n".join(line for line in lines if "all_gather_perf" not in line) + "\n")
        p = railgauge("import", "nccl-tests", unnamed, "--kind", "all_reduce", "--out", self.out)
        self.assertEqual(p.returncode, 4, p.stdout + p.stderr)
        self.assertIn("rows.txt:", p.stderr)
        self.assertIn("all_gather's", p.stderr)
        self.assertIn("--kind all_gather", p.stderr)
        self.assertFalse(glob.glob(os.path.join(self.out, "*", "records.jsonl")))
        p = railgauge("import", "nccl-tests", unnamed, "--kind", "all_gather", "--out", self.out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(len(glob.glob(os.path.join(self.out, "*", "records.jsonl"))), 1)


if __name__ == "__main__":
    BINARY, SOURCE, name = sys.argv[1], sys.argv[2], sys.argv[3]
    suite = unittest.TestSuite([ImportTest(name)])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
