#!/usr/bin/env python3
"""Within-node (sibling) comparisons through the real importer and the shipped profiles.

  sibling_check_test.py RAILGAUGE [unittest args]

An 8-GPU node's nvbandwidth output is written in nvbandwidth v0.8's text form (test data, not a
measurement), imported with `railgauge import nvbandwidth` and judged by `railgauge check`
against any-fabric and the SKU profiles: with GPUs 4-7 copying 20-40 % slower it fails and names
exactly those four GPUs with their figure, their siblings' median and the shortfall; a healthy
node passes; a one-GPU node passes and says it has no sibling.
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
RULES = ROOT / "results" / "rules"
RAILGAUGE = None
PROFILES = ["any-fabric", "h100-sxm-ib", "h100-sxm-roce", "h200-sxm-ib", "h200-sxm-roce"]
BUS = ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"]


def matrix(name, caption, row_label, rows):
    """One testcase as nvbandwidth prints it: caption, column header, rows, blank, SUM."""
    width = len(rows[0])
    lines = [f"Running {name}.", caption,
             "   " + "".join(f"{c:>10}" for c in range(width))]
    for label, row in zip(row_label, rows):
        lines.append(f"{label:>2}" + "".join(
            f"{'N/A' if v is None else f'{v:.2f}':>10}" for v in row))
    total = sum(v for row in rows for v in row if v is not None)
    return lines + ["", f"SUM {name} {total:.2f}", ""]


def nvbandwidth_text(h2d, d2h, d2d):
    n = len(h2d)
    lines = ["nvbandwidth Version: v0.8", "Built from Git version: v0.8", "",
             "CUDA Runtime Version: 12060", "CUDA Driver Version: 12060",
             "Driver Version: 560.35.05", "", "sibnode"]
    lines += [f"Device {i}: NVIDIA H100 80GB HBM3 (00000000:{BUS[i]}:00)" for i in range(n)]
    lines.append("")
    lines += matrix("host_to_device_memcpy_ce",
                    "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)", ["0"], [h2d])
    lines += matrix("device_to_host_memcpy_ce",
                    "memcpy CE CPU(row) <- GPU(column) bandwidth (GB/s)", ["0"], [d2h])
    if n > 1:
        lines += matrix("device_to_device_memcpy_read_ce",
                        "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)",
                        [str(i) for i in range(n)], d2d)
    return "\n".join(lines) + "\n"


def d2d_matrix(read_gbps):
    """GPU x GPU read: each row at the reading GPU's rate (a GPU whose own copies are slow)."""
    n = len(read_gbps)
    return [[None if r == c else read_gbps[r] for c in range(n)] for r in range(n)]


HEALTHY_H2D = [55.30, 55.32, 55.28, 55.35, 55.31, 55.29, 55.33, 55.30]
HEALTHY_D2H = [55.15, 55.13, 55.15, 55.10, 55.14, 55.12, 55.15, 55.11]
HEALTHY_D2D = [372.0] * 8
# GPUs 4-7 20-40 % slow (as a node whose second PCIe switch trained low would copy).
SLOW = {4: 0.80, 5: 0.70, 6: 0.60, 7: 0.75}


def slowed(values):
    return [v * SLOW.get(i, 1.0) for i, v in enumerate(values)]


def judge(text, profile):
    with tempfile.TemporaryDirectory() as out:
        log = pathlib.Path(out) / "nvbandwidth.txt"
        log.write_text(text)
        runs = pathlib.Path(out) / "runs"
        r = subprocess.run([RAILGAUGE, "import", "nvbandwidth", log, "--out", runs],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        r = subprocess.run([RAILGAUGE, "check", "--rules", RULES / f"{profile}.yaml", runs,
                            "--format", "json"], capture_output=True, text=True, timeout=120)
        return r.returncode, json.loads(r.stdout)


def findings(result, rule):
    return [dict(f, host=p["host"], label=p["label"]) for p in result["parts"]
            for f in p["findings"] if f["rule"] == rule]


class SiblingTest(unittest.TestCase):
    def test_four_slow_gpus_of_eight_fail_and_are_named(self):
        text = nvbandwidth_text(slowed(HEALTHY_H2D), slowed(HEALTHY_D2H),
                                d2d_matrix(slowed(HEALTHY_D2D)))
        for profile in PROFILES:
            with self.subTest(profile=profile):
                status, result = judge(text, profile)
                self.assertEqual(result["verdict"], "fail")
                self.assertEqual(status, 2)
                for rule in ("copy-vs-siblings", "peer-copy-vs-siblings"):
                    hits = [f for f in findings(result, rule) if not f["missing"]]
                    self.assertEqual({f["label"] for f in hits},
                                     {"gpu4", "gpu5", "gpu6", "gpu7"}, (rule, hits))
                h2d = [f for f in findings(result, "copy-vs-siblings") if not f["missing"]
                       and f["key"] == "import.nvbandwidth.host_to_device_memcpy_ce"]
                gpu6 = next(f for f in h2d if f["label"] == "gpu6")
                # its figure, the median of its 7 siblings and the shortfall
                self.assertAlmostEqual(gpu6["value"], 55.33 * 0.6, places=1)
                self.assertIn("of its 7 siblings on this node", gpu6["text"])
                # 33.20 against the siblings' 55.28: -39.9 %
                self.assertRegex(gpu6["text"], r"-39\.9% from its siblings' median")

    def test_healthy_node_passes(self):
        text = nvbandwidth_text(HEALTHY_H2D, HEALTHY_D2H, d2d_matrix(HEALTHY_D2D))
        for profile in PROFILES:
            with self.subTest(profile=profile):
                status, result = judge(text, profile)
                self.assertEqual(result["verdict"], "pass")
                self.assertEqual(status, 0)
                self.assertEqual([f for f in findings(result, "copy-vs-siblings")], [])

    def test_one_gpu_node_has_no_siblings(self):
        # any-fabric has no floor for a copy, only its siblings: one GPU's copies are judged by
        # nothing, and the verdict says so rather than passing them.
        status, result = judge(nvbandwidth_text([55.3], [55.1], []), "any-fabric")
        self.assertEqual(result["verdict"], "warn")
        self.assertEqual(status, 1)
        unjudged = findings(result, "nothing-judged")
        self.assertEqual(len(unjudged), 1)
        self.assertIn("rules of any-fabric selected its 2 ok records", unjudged[0]["text"])
        self.assertIn("could judge none: copy-vs-siblings (no sibling", unjudged[0]["text"])
        notes = findings(result, "copy-vs-siblings")
        self.assertTrue(notes)
        for f in notes:
            self.assertTrue(f["missing"])
            self.assertEqual(f["level"], "info")
            self.assertIn("no sibling on this node", f["text"])


if __name__ == "__main__":
    RAILGAUGE = sys.argv.pop(1)
    unittest.main()
