#!/usr/bin/env python3
"""Faults a rack team replaces `dcgmi diag -r 3` to catch, each put into the committed healthy
H200 burn-in (results/reference/h200-burnin-2026-11-28) and judged by the 1-GPU H200 profile:
the node fails (or warns) on the rule that names the fault, where it once passed.

  burnin_faults_test.py RAILGAUGE [unittest args]
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import burnin_reference_test as reference  # noqa: E402
from burnin_reference_test import healthy_h200_with, rewrite_records  # noqa: E402

RAILGAUGE = None


def gemm_burn_gpu(r, dtype):
    """The GPU object of the `dtype` gemm.burn record `r`, or None for another record."""
    if r["key"] != "gemm.burn" or r["params"].get("dtype") != dtype:
        return None
    return r["metrics"]["gpus"][0]


def judged(run, tmp):
    """(exit status, {rule: level} of the findings that are not missing, {rule: level} of the
    missing ones that count: not info) of the 1-GPU H200 profile over `run`."""
    out = pathlib.Path(tmp) / "verdict.json"
    r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--json", str(out),
                        str(run)], capture_output=True, text=True, timeout=120)
    found, missing = {}, {}
    for part in json.loads(out.read_text())["parts"]:
        for f in part["findings"]:
            if not f["missing"]:
                found[f["rule"]] = f["level"]
            elif f["level"] != "info":
                missing[f["rule"]] = f["level"]
    return r.returncode, found, missing


class BurninFaultsTest(unittest.TestCase):
    def verdict(self, edit_records=None, edit_manifest=None):
        """judged() of the healthy H200 burn-in, its records and run.json edited."""
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, edit_manifest or (lambda m: None))
            if edit_records:
                rewrite_records(run, edit_records)
            return judged(run, tmp)

    def test_the_healthy_burn_in_still_passes(self):
        self.assertEqual(self.verdict(), (0, {}, {}))

    def test_a_gpu_at_half_speed_for_part_of_its_window_fails(self):
        # Half speed over the last 45 % of the bf16 window leaves the median healthy: only the
        # slowest settled batch shows it.
        def dip(r):
            if gpu := gemm_burn_gpu(r, "bf16"):
                gpu["tflops_min"] = gpu["tflops"] * 0.49
        rc, found, _ = self.verdict(dip)
        self.assertEqual((rc, found), (2, {"burn-gemm-steadiness": "fail"}))

    def test_a_steady_gpu_is_not_named_unsteady(self):
        # The co-tenant runs hold half the GPU for the whole window: slow, but steady.
        for kind in ("cotenant-50", "cotenant-15"):
            run = next((reference.REFERENCE / "h200-burnin-2026-11-28" / "burnin" /
                        kind).iterdir())
            with tempfile.TemporaryDirectory() as tmp:
                rc, found, _ = judged(run, tmp)
            self.assertEqual(rc, 2, kind)
            self.assertIn("burn-gemm-floor", found, kind)
            self.assertNotIn("burn-gemm-steadiness", found, kind)

    def test_fp64_and_tf32_far_below_healthy_fail_on_one_gpu(self):
        for dtype, rule in (("fp64", "burn-gemm-fp64-fail-floor"),
                            ("tf32", "burn-gemm-tf32-fail-floor")):
            def halved(r):
                if gpu := gemm_burn_gpu(r, dtype):
                    gpu["tflops"] *= 0.5
                    gpu["tflops_min"] *= 0.5
            rc, found, _ = self.verdict(halved)
            self.assertEqual(rc, 2, dtype)
            self.assertEqual(found[rule], "fail", found)
            # 10 % slow stays the warning it was: one healthy GPU gave the figure.
            def slower(r):
                if gpu := gemm_burn_gpu(r, dtype):
                    gpu["tflops"] *= 0.9
                    gpu["tflops_min"] *= 0.9
            rc, found, _ = self.verdict(slower)
            self.assertEqual(rc, 1, (dtype, found))
            self.assertNotIn(rule, found)

    def test_a_hot_gpu_whose_limit_nvml_did_not_read_is_judged_by_its_sku(self):
        def hot(celsius):
            def edit(r):
                for window in telemetry_windows(r):
                    during = window["during"]
                    during["temperature_c_max"] = celsius
                    during["temperature_limit_c"] = None
            return edit
        rc, found, _ = self.verdict(hot(110))
        self.assertEqual(rc, 2)
        self.assertEqual(found["load-temperature-over-sku-shutdown"], "fail")
        rc, found, _ = self.verdict(hot(89))
        self.assertEqual((rc, found), (1, {"load-temperature-over-sku-max": "warn"}))

    def test_nvlink_replays_and_recoveries_fail_crc_errors_warn(self):
        def counted(kind):
            def edit(r):
                if r["key"] != "memory.burn":
                    return
                delta = r["metrics"]["per_gpu"][0]["telemetry"]["health_delta"]
                link = {"link": 7, "crc_flit": 0, "crc_data": 0, "replay": 0, "recovery": 0}
                link[kind] = 3
                delta["nvlink_errors"] = 3
                delta["nvlink_errors_per_link"] = [link]
            return edit
        for kind, rule in (("replay", "load-nvlink-replays"),
                           ("recovery", "load-nvlink-recoveries")):
            rc, found, _ = self.verdict(counted(kind))
            self.assertEqual(rc, 2, kind)
            self.assertEqual(found[rule], "fail", found)
        rc, found, _ = self.verdict(counted("crc_flit"))
        self.assertEqual((rc, found), (1, {"load-nvlink-errors": "warn"}))

    def test_a_volatile_uncorrectable_ecc_error_or_ecc_off_after_reset_fails(self):
        def dbe(m):
            m["inventory"]["nvml"]["gpus"][0]["ecc"]["volatile"]["uncorrected"] = 3

        def ecc_off_next(m):
            m["inventory"]["nvml"]["gpus"][0]["ecc"]["enabled_pending"] = False
        for edit, rule in ((dbe, "ecc-uncorrectable-volatile"),
                           (ecc_off_next, "ecc-enabled-pending")):
            rc, found, _ = self.verdict(edit_manifest=edit)
            self.assertEqual((rc, found), (2, {rule: "fail"}))
        # A flag reads as one: "= false, needs == true" (it read "= 0, needs == 1").
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, ecc_off_next)
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", str(run)],
                               capture_output=True, text=True, timeout=120)
        self.assertIn("gpu.ecc_enabled_pending (ecc.enabled_pending) = false, needs == true",
                      r.stdout)

    def test_a_link_not_sampled_under_load_is_no_pass(self):
        def unsampled(r):
            for window in telemetry_windows(r):
                window["during"]["pcie"] = None
        rc, found, missing = self.verdict(unsampled)
        self.assertEqual((rc, found), (1, {}))
        self.assertEqual(missing, {"load-pcie-width": "warn"})

    def test_a_node_of_eight_that_shows_one_fails_where_the_job_expects_eight(self):
        # A VM given 8 H200s that sees 1, with no NVSwitch or other GPU left on its bus, reads as
        # a healthy machine of one: --rules auto passed it.
        run = next((reference.REFERENCE / "h200-burnin-2026-11-28" / "burnin" /
                    "healthy").iterdir())
        for expect, rc, profile in (("8", 2, "h200-sxm "), ("1", 0, "h200-sxm-1gpu ")):
            with tempfile.TemporaryDirectory() as tmp:
                out = pathlib.Path(tmp) / "verdict.json"
                r = subprocess.run([RAILGAUGE, "check", "--rules", "auto", "--expect-gpus",
                                    expect, "--json", str(out), str(run)],
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, rc, r.stdout + r.stderr)
                self.assertIn(f"--rules auto: {profile}", r.stderr)
                node = [p for p in json.loads(out.read_text())["parts"] if p["kind"] == "node"]
                rules = {f["rule"] for f in node[0]["findings"]}
                self.assertEqual("expected-gpus" in rules, expect == "8", rules)

    def test_a_check_whose_counts_contradict_their_total_is_no_pass(self):
        # The pattern test's per-pattern counts or failing addresses beside a total of 0, a
        # total below 0, a GEMM burn's first bad iteration beside none: each once passed.
        def pattern(edit):
            def apply(r):
                if r["key"] == "memory.pattern":
                    edit(r["metrics"]["per_gpu"][0])
            return apply

        def gemm(r):
            if gpu := gemm_burn_gpu(r, "bf16"):
                gpu["first_bad_iteration"] = 100
        edits = {
            "by pattern": pattern(lambda g: g["wrong_words_by_pattern"].update(random=7)),
            "bad words": pattern(lambda g: g.update(bad_words=[{"address": "0x1000"}])),
            "negative": pattern(lambda g: g.update(wrong_words=-3)),
            "first bad iteration": gemm,
        }
        for name, edit in edits.items():
            rc, found, missing = self.verdict(edit)
            self.assertEqual(rc, 2, name)
            self.assertEqual(found.get("record-status"), "fail", (name, found, missing))


def telemetry_windows(r):
    """The per-GPU telemetry windows of a burn phase's record (gpus[] or per_gpu[])."""
    for gpu in r["metrics"].get("gpus") or r["metrics"].get("per_gpu") or []:
        if isinstance(gpu, dict) and isinstance(gpu.get("telemetry"), dict):
            yield gpu["telemetry"]


if __name__ == "__main__":
    RAILGAUGE = sys.argv.pop(1)
    reference.RAILGAUGE = RAILGAUGE
    unittest.main()
