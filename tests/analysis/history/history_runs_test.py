#!/usr/bin/env python3
"""The fleet history as a rack's operator keeps it, on the committed H200 burn-ins
(results/reference/h200-burnin-2026-11-28): weekly runs, each stored and checked, or a backlog
stored at once; a co-tenant's FAIL three weeks running; a series that ended.

  history_runs_test.py RAILGAUGE [unittest args]
"""
import datetime
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "analysis" / "history"))
import history_clocks_test as clocks  # noqa: E402

RAILGAUGE = None
PROFILE = "h200-sxm-1gpu"


def drifted(fraction):
    """An edit that makes the bf16 burn `fraction` slower, second by second."""
    def edit(r):
        if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
            gpu = r["metrics"]["gpus"][0]
            gpu["tflops"] *= 1 - fraction
            for second in gpu["series"]:
                second["tflops"] *= 1 - fraction
    return edit


class HistoryRuns(unittest.TestCase):
    def setUp(self):
        """A new directory and history (a test may start over in another)."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = pathlib.Path(tmp.name)
        self.db = f"sqlite:{self.tmp / 'fleet.db'}"

    def week(self, kind, week, edit=None):
        """The burn-in of `kind` (healthy, cotenant-50) dated 2026-08-<3 + 7 x week> 10:00."""
        day = (datetime.date(2026, 8, 3) + datetime.timedelta(weeks=week)).isoformat()
        run = clocks.dated(clocks.only_run(kind), self.tmp / f"w{week:02d}", f"{day}-vm",
                           f"{day}T10:00:00.000Z")
        if edit:
            clocks.reference.rewrite_records(run, edit)
        return run

    def check(self, *runs):
        r = subprocess.run([RAILGAUGE, "check", "--rules", PROFILE, "--format", "json",
                            "--history", self.db, *map(str, runs)],
                           capture_output=True, text=True, timeout=120)
        self.assertIn(r.returncode, (0, 1, 2), r.stdout + r.stderr)
        return r.returncode, json.loads(r.stdout)

    def ingest(self, *runs):
        r = subprocess.run([RAILGAUGE, "db", "ingest", "--db", self.db, "--quiet",
                            *map(str, runs)], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    @staticmethod
    def findings(verdict, rule):
        return [f for p in verdict["parts"] for f in p["findings"] if f["rule"] == rule]

    def test_the_third_failure_is_a_repeat_offender_at_its_own_check(self):
        # Three healthy weeks, then the co-tenant's FAIL three weeks running, each run checked
        # as it came. At the third failure no repeat offender was said: the run's own verdict
        # was stored after the rule had counted, and checking it again said it.
        for week in range(3):
            self.check(self.week("healthy", week))
        for week in range(3, 6):
            code, out = self.check(self.week("cotenant-50", week))
            self.assertEqual(code, 2)
            offender = self.findings(out, "history-repeat-offender")
            if week < 5:
                self.assertEqual(offender, [], week)
        self.assertEqual(len(offender), 1, out["problems"])
        self.assertIn("a repeat offender: failed 3 of its last 6 runs", offender[0]["detail"])
        self.assertEqual(out["problems"], [])

    def test_a_backlog_never_checked_is_said_not_counted(self):
        # The same six weeks stored at once by db ingest: no check ever stored the co-tenant
        # runs' verdicts, and a healthy seventh week passed without a word of them.
        self.ingest(*(self.week("healthy" if week < 3 else "cotenant-50", week)
                      for week in range(6)))
        code, out = self.check(self.week("healthy", 6))
        self.assertEqual(code, 0)
        self.assertEqual(self.findings(out, "history-repeat-offender"), [])
        self.assertEqual(out["problems"], [
            "1 host holds runs among its last 10 that no check judged (stored by db ingest, "
            "never checked; the first: vm, run 2026-08-03-vm): history-repeat-offender counts a "
            "run's failure from the verdict a check stored of it, so theirs are not counted; "
            "`check --rules PROFILE --history DB RUN...` stores each run given with its verdict"])
        # Given to check instead, each run is stored with its verdict, and the rule counts them.
        self.setUp()  # another history
        self.check(*(self.week("healthy" if week < 3 else "cotenant-50", week)
                     for week in range(6)))
        code, out = self.check(self.week("healthy", 6))
        self.assertEqual(code, 1)
        self.assertEqual(len(self.findings(out, "history-repeat-offender")), 1)
        self.assertEqual(out["problems"], [])

    def test_a_series_that_ended_is_not_judged_at_every_check_after(self):
        # The GPU drifted 1.5 % a week for six weeks, then the burn's workspace changed (a new
        # series) and three clean weeks followed: each check warned of the old series' drift,
        # at run w05, beside a newest run that was clean.
        for week in range(6):
            code, out = self.check(self.week("healthy", week, drifted(0.015 * week)))
        drift = self.findings(out, "history-drift")
        self.assertEqual([f["run"] for f in drift], ["2026-09-07-vm"], drift)

        def new_workspace(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                r["params"]["workspace_bytes"] *= 2
                if "workspace_bytes" in r.get("axes", {}):
                    r["axes"]["workspace_bytes"] = r["params"]["workspace_bytes"]
        for week in range(6, 9):
            code, out = self.check(self.week("healthy", week, new_workspace))
        self.assertEqual(self.findings(out, "history-drift"), [])
        self.assertEqual(code, 0, json.dumps(out["problems"]))

        # A step's figures are written as a figure is, not as doubles (717.7006521416369).
        def slower(r):
            new_workspace(r)
            drifted(0.07)(r)
        code, out = self.check(self.week("healthy", 9, slower))
        step = [f for f in self.findings(out, "history-step") if "bf16" in f["what"]]
        self.assertEqual(len(step), 1, step)
        self.assertTrue(step[0]["detail"].endswith("since the previous run (717.7 -> 667.46)"),
                        step[0]["detail"])

    def test_a_node_that_stopped_running_is_dated(self):
        # A node retired after its co-tenant FAIL of 2026-08-03 stayed on the drain list while
        # the rack ran on for a month, and nothing said how old its verdict was.
        old = self.week("cotenant-50", 0)
        manifest = json.loads((old / "run.json").read_text())
        manifest.update(host="old", run="2026-08-03-old")
        (old / "run.json").write_text(json.dumps(manifest))

        def renamed(r):
            r.update(host="old", run="2026-08-03-old")
        clocks.reference.rewrite_records(old, renamed)
        self.ingest(old, *(self.week("healthy", week) for week in range(1, 5)))
        code, out = self.check()
        self.assertEqual((code, out["drain"]), (2, ["old"]))
        self.assertIn("1 host ran last more than 14 days before the history's newest run (the "
                      "oldest: old, run 2026-08-03-old, 28 days before): each is judged by that "
                      "run; `railgauge db remove` takes a retired host out", out["problems"])
        # Its one GPU is the one that ran on as "vm": a machine renamed, said so.
        renamed = [p for p in out["problems"] if p.startswith("old: its 1 GPU")]
        self.assertEqual(len(renamed), 1, out["problems"])
        self.assertIn("is now vm's, whose newest run", renamed[0])
        self.assertIn("28 days after its own last (2026-08-03-old): the machine renamed",
                      renamed[0])

    def test_the_report_shows_a_drift_and_a_replaced_gpu(self):
        # A GPU 7 % slow for two weeks, then swapped for a new one that ran healthy: the
        # report's table read "first 717.7, latest 717.7", the drift and the swap unseen.
        for week in range(4):
            run = self.week("healthy", week, drifted(0.07) if week in (1, 2) else None)
            self.check(self.swapped(run) if week == 3 else run)
        r = subprocess.run([RAILGAUGE, "report", "--history", self.db, "--host", "vm"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        chart = next(i for i, line in enumerate(lines)
                     if line.startswith("**gemm.burn") and '"bf16"' in line)
        self.assertIn("| slot | runs | first | lowest | latest | parts in the slot |",
                      lines[chart + 1:chart + 6])
        self.assertIn("| 0000:00:06.0 | 4 | 717.7 | 667.5 | 717.7 | 2 (replaced) |",
                      lines[chart + 1:chart + 6])

    def swapped(self, run):
        """The run's GPU replaced by another (a new UUID and serial in its slot)."""
        for name in ("run.json", "records.jsonl"):
            text = (run / name).read_text()
            (run / name).write_text(
                text.replace("GPU-1682937c-62a9-9033-a256-5f4eec0a7d47",
                             "GPU-00000000-0000-0000-0000-000000000003")
                .replace("1653924091294", "1653924099999"))
        return run

    def test_a_repeat_offender_is_said_once_and_a_replaced_part_beside_it(self):
        # Four co-tenant FAILs, each stored and checked as the fleet does (db ingest, then check
        # --history): a repeat offender from the third, said once a check (it was said twice,
        # judged before the newest run's verdict was stored and again after). Then the GPU was
        # swapped: the host's failures still count (a lemon host), and the finding says that a
        # part was replaced since, for they may be the old part's.
        for week in range(4):
            self.ingest(self.week("cotenant-50", week))
            code, out = self.check()
            offender = self.findings(out, "history-repeat-offender")
            self.assertEqual(len(offender), 1 if week >= 2 else 0, (week, offender))
            self.assertNotIn("replaced since", offender[0]["detail"] if offender else "")
        for week in range(4, 6):
            self.ingest(self.swapped(self.week("healthy", week)))
            code, out = self.check()
            offender = self.findings(out, "history-repeat-offender")
            self.assertEqual(len(offender), 1, (week, offender))
            self.assertIn("a part was replaced since some of them (history-replaced): they may "
                          "be the old part's", offender[0]["detail"])
            self.assertEqual(code, 1, json.dumps(out["problems"]))

    def bare_check(self, *flags):
        """`check --history DB` with no run directory: the fleet-wide form."""
        r = subprocess.run([RAILGAUGE, "check", "--format", "json", "--history", self.db,
                            *flags], capture_output=True, text=True, timeout=120)
        return r.returncode, r.stdout, r.stderr

    def test_a_check_without_rules_keeps_what_the_profile_concluded(self):
        # The co-tenant's run checked with its profile (FAIL, stored), then the fleet-wide
        # `check --history DB` without --rules: it read PASS, exit 0, the stored FAIL unread.
        self.check(self.week("cotenant-50", 0))
        code, out, err = self.bare_check()
        self.assertEqual(code, 2, out + err)
        stored = self.findings(json.loads(out), "history-stored-verdict")
        self.assertTrue(stored, out)
        details = " ".join(f["detail"] for f in stored)
        self.assertIn("burn-hbm-floor said fail (2026-08-03-vm", details)
        self.assertIn("fail", {f["level"] for f in stored})
        # The same run checked again with the 8-GPU profile (its gpu-count fails) and then with
        # its own: the latest check of a run is what stands, each finding once.
        run = self.week("healthy", 2)
        subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm", "--history", self.db, str(run)],
                       capture_output=True, text=True, timeout=120)
        code, out, err = self.bare_check()
        gpu_count = [f for f in self.findings(json.loads(out), "history-stored-verdict")
                     if "gpu-count said fail" in f["detail"]]
        self.assertEqual((code, len(gpu_count)), (2, 1), out + err)
        self.check(run)
        code, out, err = self.bare_check()
        self.assertEqual(code, 0, out + err)
        # A healthy run checked after it is the host's newest: what was stored of it stands.
        self.check(self.week("healthy", 3))
        code, out, err = self.bare_check()
        self.assertEqual(code, 0, out + err)
        self.assertEqual(self.findings(json.loads(out), "history-stored-verdict"), [])
        # A newest run only ingested has no verdict to stand: said, never counted a pass.
        self.ingest(self.week("healthy", 4))
        code, out, err = self.bare_check()
        self.assertTrue(any("never checked with a profile" in p
                            for p in json.loads(out)["problems"]), out)

    def test_the_nodes_expected_are_judged_over_the_history_too(self):
        # --expect-hosts over the database alone passed a rack whose second node never ran; and
        # --expect-gpus, which counts what run directories show, passed 8 GPUs expected of 1.
        self.check(self.week("healthy", 0))
        r = subprocess.run([RAILGAUGE, "check", "--rules", PROFILE, "--format", "json",
                            "--history", self.db, "--expect-hosts", "vm,node02"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual((r.returncode, json.loads(r.stdout)["drain"]), (2, ["node02"]),
                         r.stdout + r.stderr)
        code, out, err = self.bare_check("--rules", PROFILE, "--expect-gpus", "8")
        self.assertEqual(code, 4, out + err)
        self.assertIn("--expect-gpus", err)

if __name__ == "__main__":
    RAILGAUGE = sys.argv.pop(1)
    unittest.main()
