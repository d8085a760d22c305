#!/usr/bin/env python3
"""scripts/softroce/ratios.py on made-up VM output: medians and spreads over the alternating
runs, figures that are missing or zero on either side shown as missing with the reason (never a
crash), and its exit status (0 complete, 1 figures missing, 2 its own error).

Run by CTest, one test per CTest test:  softroce_ratios_test.py RatiosTest.test_name
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RATIOS = ROOT / "scripts" / "softroce" / "ratios.py"
VERBS = ("write", "read", "send")


def bw_record(verb, gbits, tool=None, status="ok", reason=None):
    params = {"size_bytes": 65536, "direction": "uni", "qps": 1}
    if tool:
        params = {"size_bytes": 65536, "qps": 1, "tool": f"perftest ib_{verb}_bw",
                  "source": f"perftest_{verb}_bw.txt"}
    return {"key": f"rdma.{verb}_bw", "status": status, "reason": reason, "params": params,
            "metrics": {} if status != "ok" else {"bandwidth_gbits_per_s": gbits}}


def lat_record(verb, p50_us, tool=None):
    params = {"size_bytes": 8}
    if tool:
        params.update({"tool": f"perftest ib_{verb}_lat", "source": f"perftest_{verb}_lat.txt"})
    latency = {"min_s": p50_us * 0.8e-6, "p50_s": p50_us * 1e-6, "p99_s": p50_us * 3e-6}
    return {"key": f"rdma.{verb}_lat", "status": "ok", "params": params,
            "metrics": {"latency": latency}}


def write_jsonl(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


class RatiosTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge-ratios-")
        self.out = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def make_rep(self, rep, ours_bw=0.3, theirs_bw=0.3, ours_lat=20.0, theirs_lat=20.0,
                 perftest_overrides=None, ours_overrides=None):
        """One alternating run: railgauge loopback and 2 ranks, perftest's imported client and
        server records. *_overrides: {key: record or None (left out)}."""
        d = self.out / f"rep{rep}"
        ours = {f"rdma.{v}_bw": bw_record(v, ours_bw) for v in VERBS}
        ours.update({f"rdma.{v}_lat": lat_record(v, ours_lat) for v in VERBS})
        for key, record in (ours_overrides or {}).items():
            ours[key] = record
        kept = [r for r in ours.values() if r is not None]
        write_jsonl(d / "runs" / "run-a" / "records.jsonl", kept)
        write_jsonl(d / "runs_ranks" / "run-b" / "rank-00000" / "records.jsonl", kept)
        theirs = {f"rdma.{v}_bw": bw_record(v, theirs_bw, tool=True) for v in VERBS}
        theirs.update({f"rdma.{v}_lat": lat_record(v, theirs_lat, tool=True) for v in VERBS})
        for key, record in (perftest_overrides or {}).items():
            theirs[key] = record
        for key, record in theirs.items():
            if record is None:
                continue
            name = key.split(".")[1]
            write_jsonl(d / f"perftest_{name}.jsonl", [record])
            # The server's side of the same test must never be taken for the client's.
            server = json.loads(json.dumps(record))
            server["params"]["source"] = f"perftest_{name}_server.txt"
            if "bandwidth_gbits_per_s" in server["metrics"]:
                server["metrics"]["bandwidth_gbits_per_s"] = 99.0
            write_jsonl(d / f"perftest_{name}_server.jsonl", [server])

    def run_ratios(self):
        done = subprocess.run([sys.executable, str(RATIOS), str(self.out)], capture_output=True,
                              text=True, timeout=60)
        return done.returncode, done.stdout, done.stderr

    def row(self, stdout, label):
        rows = [line for line in stdout.splitlines() if line.startswith(f"| {label} |")]
        self.assertEqual(len(rows), 1, f"one row '{label}' in:\n{stdout}")
        return [cell.strip() for cell in rows[0].strip("|").split("|")]

    def test_medians_spreads_and_ratio_over_three_runs(self):
        for rep, (ours, theirs) in enumerate(((0.30, 0.40), (0.20, 0.20), (0.25, 0.30)), 1):
            self.make_rep(rep, ours_bw=ours, theirs_bw=theirs, ours_lat=10.0 * rep,
                          theirs_lat=20.0)
        rc, stdout, stderr = self.run_ratios()
        self.assertEqual(rc, 0, stderr + stdout)
        cells = self.row(stdout, "ib_send_bw 64 KiB, Gb/s, loopback")
        self.assertEqual(cells[1:5], ["0.25 [0.2-0.3]", "0.3 [0.2-0.4]", "0.83", "yes"])
        self.assertEqual(cells[5], "n=3/3")
        # Latency in microseconds; railgauge 10, 20, 30 us against perftest's 20 us.
        cells = self.row(stdout, "ib_read_lat 8 B median, us, 2 ranks")
        self.assertEqual(cells[1:5], ["20 [10-30]", "20 [20-20]", "1.00", "yes"])
        cells = self.row(stdout, "ib_read_lat 8 B p99, us, 2 ranks")
        self.assertEqual(cells[1:4], ["60 [30-90]", "60 [60-60]", "1.00"])

    def test_ranges_that_do_not_overlap_are_said(self):
        for rep in (1, 2, 3):
            self.make_rep(rep, ours_lat=40.0 + rep, theirs_lat=20.0 + rep)
        rc, stdout, _ = self.run_ratios()
        self.assertEqual(rc, 0)
        cells = self.row(stdout, "ib_send_lat 8 B median, us, loopback")
        self.assertEqual(cells[3:5], ["1.91", "no"])

    def test_a_zero_perftest_figure_in_one_run_is_left_out_with_its_reason(self):
        self.make_rep(1, theirs_bw=0.4)
        self.make_rep(2, perftest_overrides={
            "rdma.read_bw": bw_record("read", 0.0, tool=True)})
        self.make_rep(3, theirs_bw=0.2)
        rc, stdout, stderr = self.run_ratios()
        self.assertEqual(rc, 1, stderr)
        self.assertNotIn("Traceback", stderr)
        cells = self.row(stdout, "ib_read_bw 64 KiB, Gb/s, loopback")
        self.assertEqual(cells[2], "0.3 [0.2-0.4]")
        self.assertEqual(cells[3], "1.00")
        self.assertIn("n=3/2", cells[5])
        self.assertIn("perftest rep2: rdma.read_bw metrics.bandwidth_gbits_per_s is 0", cells[5])
        # Other rows are whole.
        self.assertEqual(self.row(stdout, "ib_write_bw 64 KiB, Gb/s, loopback")[5], "n=3/3")

    def test_a_figure_zero_or_missing_in_every_run_is_shown_missing(self):
        zero_lat = lat_record("send", 20.0, tool=True)
        zero_lat["metrics"]["latency"]["min_s"] = 0.0
        for rep in (1, 2, 3):
            self.make_rep(rep, perftest_overrides={"rdma.send_lat": zero_lat,
                                                   "rdma.write_bw": None})
        rc, stdout, stderr = self.run_ratios()
        self.assertEqual(rc, 1, stderr)
        self.assertNotIn("Traceback", stderr)
        cells = self.row(stdout, "ib_send_lat 8 B min, us, loopback")
        self.assertEqual(cells[2:5], ["missing", "missing", "-"])
        self.assertIn("perftest rep3: rdma.send_lat metrics.latency.min_s is 0", cells[5])
        # The median of the same record is there.
        self.assertEqual(self.row(stdout, "ib_send_lat 8 B median, us, loopback")[3], "1.00")
        cells = self.row(stdout, "ib_write_bw 64 KiB, Gb/s, 2 ranks")
        self.assertEqual(cells[2:4], ["missing", "missing"])
        self.assertIn("no rdma.write_bw record at 65536 B", cells[5])

    def test_a_failed_railgauge_point_is_missing_with_its_reason(self):
        failed = bw_record("send", 0, status="failed", reason="3 wrong bytes")
        for rep in (1, 2, 3):
            self.make_rep(rep, ours_overrides={"rdma.send_bw": failed, "rdma.read_lat": None})
        rc, stdout, _ = self.run_ratios()
        self.assertEqual(rc, 1)
        cells = self.row(stdout, "ib_send_bw 64 KiB, Gb/s, loopback")
        self.assertEqual(cells[1], "missing")
        self.assertIn("railgauge rep1: rdma.send_bw 65536 B failed: 3 wrong bytes", cells[5])
        cells = self.row(stdout, "ib_read_lat 8 B median, us, 2 ranks")
        self.assertIn("no rdma.read_lat record at 8 B", cells[5])

    def test_a_run_without_perftest_output_is_named(self):
        self.make_rep(1)
        self.make_rep(2, perftest_overrides={f"rdma.{v}_{t}": None for v in VERBS
                                             for t in ("bw", "lat")})
        rc, stdout, _ = self.run_ratios()
        self.assertEqual(rc, 1)
        cells = self.row(stdout, "ib_write_bw 64 KiB, Gb/s, loopback")
        self.assertIn("perftest rep2: no perftest output imported", cells[5])
        self.assertIn("n=2/1", cells[5])

    def test_no_runs_is_said_and_not_a_success(self):
        rc, stdout, stderr = self.run_ratios()
        self.assertEqual(rc, 1, stderr)
        self.assertIn("has no rep* directory", stdout)

    def test_an_unreadable_record_is_an_error_of_its_own(self):
        self.make_rep(1)
        (self.out / "rep1" / "perftest_send_bw.jsonl").write_text("{not json\n")
        rc, _, stderr = self.run_ratios()
        self.assertEqual(rc, 2)
        self.assertIn("perftest_send_bw.jsonl:1: not a JSON record", stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:])
