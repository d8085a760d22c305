#!/usr/bin/env python3
"""The fleet history when a node's clock is wrong, on the committed H200 burn-ins
(results/reference/h200-burnin-2026-11-28): healthy, and beside a process holding half its SMs
(a FAIL of its GEMM and power floors). Each run is a copy of one of them, dated as a node whose
clock was ahead, behind or read to the second would date it; when the history stored it is set
as a fleet that ingests each run after it ran would have stored it.

  history_clocks_test.py RAILGAUGE [unittest args]
"""
import json
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "analysis" / "check"))
import burnin_reference_test as reference  # noqa: E402

BURNIN = ROOT / "results" / "reference" / "h200-burnin-2026-11-28" / "burnin"
RAILGAUGE = None
PROFILE = "h200-sxm-1gpu"


def only_run(kind):
    return next((BURNIN / kind).iterdir())


def dated(src, dst, run_id, start_utc):
    """The run `src` copied to `dst` as run `run_id` that says it started at `start_utc`."""
    reference.shutil.copytree(src, dst)
    manifest = json.loads((dst / "run.json").read_text())
    manifest.update(run=run_id, start_utc=start_utc)
    manifest.pop("end_utc", None)
    (dst / "run.json").write_text(json.dumps(manifest))

    def renamed(r):
        r["run"] = run_id
        r["time_utc"] = start_utc
    reference.rewrite_records(dst, renamed)
    return dst


def without_backlog(verdict):
    """The verdict less the line that says runs were stored by db ingest and never checked
    (history_runs_test.py): here every run is stored that way, and the history's dating is what
    is tested."""
    verdict["problems"] = [p for p in verdict["problems"] if "that no check judged" not in p]
    return verdict


def slower(r):
    if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
        r["metrics"]["gpus"][0]["tflops"] *= 0.93


class HistoryClocks(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = pathlib.Path(self._tmp.name)
        self.db = self.tmp / "fleet.db"

    def tearDown(self):
        self._tmp.cleanup()

    def store(self, run, stored_utc):
        """`run` ingested, and dated in the history as stored at `stored_utc`."""
        r = subprocess.run([RAILGAUGE, "db", "ingest", "--db", f"sqlite:{self.db}", str(run)],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        run_id = json.loads((run / "run.json").read_text())["run"]
        with sqlite3.connect(self.db) as db:
            db.execute("UPDATE runs SET ingested_utc = ? WHERE run_id = ?", (stored_utc, run_id))

    def judged(self):
        r = subprocess.run([RAILGAUGE, "check", "--rules", PROFILE, "--format", "json",
                            "--history", f"sqlite:{self.db}"], capture_output=True, text=True,
                           timeout=120)
        self.assertIn(r.returncode, (0, 1, 2), r.stdout + r.stderr)
        return r.returncode, without_backlog(json.loads(r.stdout))

    def day(self, src, day, start_utc=None, edit=None):
        """A burn-in of 2026-11-<day> 10:00, stored at 10:30 that day; `start_utc` is what its
        node's clock said instead."""
        run = dated(src, self.tmp / f"d{day}", f"2026-11-{day:02d}-vm",
                    start_utc or f"2026-11-{day:02d}T10:00:00.000Z")
        if edit:
            reference.rewrite_records(run, edit)
        self.store(run, f"2026-11-{day:02d}T10:30:00.000Z")
        return run

    def test_a_clock_ahead_does_not_hide_the_drops_stored_after_it(self):
        # The third run's node said 2026-11-20 on 2026-11-03. Dated by its clock it was the
        # newest run of the host: judged alone, and the last of every series, so a 7 % fall in
        # the two runs after it was never a step, and the node passed.
        for day in range(1, 8):
            self.day(only_run("healthy"), day,
                     start_utc="2026-11-20T10:00:00.000Z" if day == 3 else None,
                     edit=slower if day >= 6 else None)
        code, out = self.judged()
        self.assertEqual(code, 1, json.dumps(out["problems"]))
        steps = [f for p in out["parts"] for f in p["findings"]
                 if f["rule"] == "history-step" and "gemm.burn" in f["what"]
                 and "bf16" in f["what"]]
        self.assertEqual([f["run"] for f in steps], ["2026-11-07-vm"], steps)
        self.assertIn("fell 7.0 % below the median of its 6 runs before", steps[0]["detail"])
        self.assertEqual(out["problems"], [
            "vm: 1 run of the host said it started more than an hour after the history stored it "
            "(the first: run 2026-11-03-vm says it started 2026-11-20T10:00:00.000Z, after the "
            "history stored it (2026-11-03T10:30:00.000Z)): its clock was ahead; they are dated "
            "by when they were stored"])
        # The report draws the runs in the same order: the slow run is the latest point.
        r = subprocess.run([RAILGAUGE, "report", "--history", f"sqlite:{self.db}", "--host",
                            "vm"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        chart = next(i for i, line in enumerate(lines)
                     if line.startswith("**gemm.burn") and '"bf16"' in line)
        self.assertIn("| 0000:00:06.0 | 7 | 717.7 | 667.5 | 667.5 | 1 |", lines[chart + 1:chart + 6])

    def test_a_run_checked_again_that_is_not_the_newest_says_which_is(self):
        # `check --history DB RUN` on the third of five daily runs, the fifth the co-tenant's
        # FAIL: the verdict was the third run's, beside history steps of the fifth, and nothing
        # said that the node's newest run had failed.
        for day in range(1, 5):
            self.day(only_run("healthy"), day)
        self.day(only_run("cotenant-50"), 5)
        for day, verdict in ((3, 1), (5, 2)):
            r = subprocess.run([RAILGAUGE, "check", "--rules", PROFILE, "--format", "json",
                                "--history", f"sqlite:{self.db}", str(self.tmp / f"d{day}")],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, verdict, r.stdout + r.stderr)
            problems = without_backlog(json.loads(r.stdout))["problems"]
            if day == 5:
                self.assertEqual(problems, [])
                continue
            self.assertEqual(problems, [
                f"{self.tmp / 'd3'}: run 2026-11-03-vm is not the newest run of vm in "
                f"sqlite:{self.db} (suite burnin-gpu): 2026-11-05-vm is, and the history's rules "
                "(history-step, history-drift, history-repeat-offender) judged that one; `check "
                f"--history sqlite:{self.db}` with no run judges every host as it stands"])

    def test_a_drop_behind_a_reset_clock_is_a_step(self):
        # Five healthy runs, then the GPU 7 % slower on a clock reset to 2026-10-01. Dated by
        # its clock, the run was the first of the series, and no step judged it.
        for day in range(1, 6):
            self.day(only_run("healthy"), day)
        self.day(only_run("healthy"), 6, start_utc="2026-10-01T00:00:00.000Z", edit=slower)
        code, out = self.judged()
        self.assertEqual(code, 1, json.dumps(out["problems"]))
        steps = [f for p in out["parts"] for f in p["findings"]
                 if f["rule"] == "history-step" and "gemm.burn" in f["what"]
                 and "bf16" in f["what"] and f["level"] == "warn"]
        self.assertEqual([f["run"] for f in steps], ["2026-11-06-vm"], steps)

    def test_a_node_repaired_behind_a_reset_clock_passes_again(self):
        # The shared GPU failed on 2026-11-05; the board was swapped and the clock reset to
        # 2026-10, and two healthy retests were stored on the days after. Dated by its clock
        # the failed run stayed the newest: the node failed until its clock caught up.
        for day in range(1, 5):
            self.day(only_run("healthy"), day)
        self.day(only_run("cotenant-50"), 5)
        self.day(only_run("healthy"), 6, start_utc="2026-10-02T00:00:00.000Z")
        self.assertEqual(self.judged()[0], 2)
        self.day(only_run("healthy"), 7, start_utc="2026-10-03T00:00:00.000Z")
        code, out = self.judged()
        self.assertEqual(code, 0, json.dumps(out["problems"]))
        self.assertIn("runs of two later ingests were stored after the other", out["problems"][0])

    def test_a_failed_retest_behind_a_reset_clock_is_judged(self):
        # Five healthy runs, then the node shared its GPU with a process holding half its SMs,
        # on a clock reset to 2026-10-01 after a board swap. Dated by its clock it was older
        # than the healthy runs and superseded by them: the node passed.
        for day in range(1, 6):
            self.day(only_run("healthy"), day)
        self.day(only_run("cotenant-50"), 6, start_utc="2026-10-01T00:00:00.000Z")
        code, out = self.judged()
        self.assertEqual(code, 2, json.dumps(out["problems"]))
        floors = {f["rule"] for p in out["parts"] for f in p["findings"]
                  if f["level"] == "fail" and not f["missing"]}
        self.assertIn("burn-gemm-floor", floors)
        behind = [p for p in out["problems"] if "stored after run" in p]
        self.assertEqual(behind, ["vm: run 2026-11-06-vm was stored after run 2026-11-05-vm "
                                  "but says it started before it (2026-10-01T00:00:00.000Z < "
                                  "2026-11-05T10:00:00.000Z): its clock was behind, or it is "
                                  "an old run ingested late; it is dated by when it was stored "
                                  "(2026-11-06T10:30:00.000Z), and both are judged until runs "
                                  "of two later ingests are stored"])
        # A run newer than both settles it: the healthy retest passes alone.
        self.day(only_run("healthy"), 7)
        code, out = self.judged()
        self.assertEqual((code, out["problems"]), (0, []))

    def test_an_old_run_ingested_with_newer_ones_is_superseded(self):
        # One ingest of a tree stores its runs in the order of their paths: a failed run of
        # 2026-11-01 stored a second after the healthy one of 2026-11-02 is no retest.
        old = dated(only_run("cotenant-50"), self.tmp / "z-old", "2026-11-01-vm",
                    "2026-11-01T10:00:00.000Z")
        new = dated(only_run("healthy"), self.tmp / "a-new", "2026-11-02-vm",
                    "2026-11-02T10:00:00.000Z")
        self.store(new, "2026-11-30T10:00:00.000Z")
        self.store(old, "2026-11-30T10:00:01.000Z")
        code, out = self.judged()
        self.assertEqual((code, out["problems"]), (0, []))

    def test_a_run_of_two_durations_is_two_series(self):
        # Each run burned bf16 for 60 s and then 600 s, the soak 6 % slower every time. The
        # series without duration_s held both points of each run, and the soak read as a 6 %
        # fall from the run before it.
        def soak(run):
            lines = []
            for line in (run / "records.jsonl").read_text().splitlines():
                r = json.loads(line)
                if r["key"] == "gemm.burn" and r["params"]["dtype"] == "bf16":
                    r["params"]["duration_s"] = r["axes"]["duration_s"] = 60.0
                    r["metrics"]["gpus"][0]["elapsed_s"] = 60.0
                    longer = json.loads(json.dumps(r))
                    longer["params"]["duration_s"] = longer["axes"]["duration_s"] = 600.0
                    longer["metrics"]["gpus"][0].update(elapsed_s=600.0)
                    longer["metrics"]["gpus"][0]["tflops"] *= 0.94
                    lines.append(json.dumps(longer))
                lines.append(json.dumps(r))
            (run / "records.jsonl").write_text("\n".join(lines) + "\n")
            manifest = json.loads((run / "run.json").read_text())
            manifest["counts"]["ok"] += 1
            (run / "run.json").write_text(json.dumps(manifest))
        for day in range(1, 4):
            run = dated(only_run("healthy"), self.tmp / f"d{day}", f"2026-11-{day:02d}-vm",
                        f"2026-11-{day:02d}T10:00:00.000Z")
            soak(run)
            self.store(run, f"2026-11-{day:02d}T10:30:00.000Z")
        code, out = self.judged()
        self.assertEqual([f["detail"] for p in out["parts"] for f in p["findings"]
                          if f["rule"] == "history-step"], [])
        self.assertEqual(code, 0, [(f["rule"], f["text"]) for p in out["parts"]
                                   for f in p["findings"] if f["level"] != "info"])

    def test_a_start_within_the_second_is_ordered_by_its_fraction(self):
        # Two runs in one second: "10:00:00Z", then the shared GPU's at "10:00:00.500Z". As
        # text the whole second sorted after its fraction, and the healthy run superseded the
        # failed one that started after it.
        runs = self.tmp / "runs"
        dated(only_run("healthy"), runs / "a", "r-first", "2026-11-05T10:00:00Z")
        dated(only_run("cotenant-50"), runs / "b", "r-second", "2026-11-05T10:00:00.500Z")
        r = subprocess.run([RAILGAUGE, "check", "--rules", PROFILE, "--latest-per-host",
                            "--format", "json", str(runs)], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(json.loads(r.stdout)["inputs"], [str(runs / "b")])
        for source in ("a", "b"):
            self.store(runs / source, "2026-11-05T10:30:00.000Z")
        code, _ = self.judged()
        self.assertEqual(code, 2)


if __name__ == "__main__":
    RAILGAUGE = sys.argv.pop(1)
    reference.RAILGAUGE = RAILGAUGE
    unittest.main()
