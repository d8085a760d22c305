"""scripts/telemetry_vs_smi.py on the committed H200 burn-in of 2026-11-28: every phase's
telemetry in the records agrees with the nvidia-smi that ran beside it over the same windows, and
the same records against nvidia-smi read a phase later (its clock shifted) do not.

Usage: telemetry_vs_smi_test.py SOURCE_DIR [TestName ...]
"""
import glob
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_script_tests  # noqa: E402

SOURCE = None
tvs = None
RUN = "results/reference/h200-burnin-2026-11-28"


class TelemetryVsSmiTest(unittest.TestCase):
    def setUp(self):
        self.root = os.path.join(SOURCE, RUN)
        self.smi = os.path.join(self.root, "smi.csv")
        self.runs = sorted(glob.glob(os.path.join(self.root, "burnin", "*", "*", "records.jsonl")))
        self.assertEqual(len(self.runs), 3, "healthy, cotenant-50 and cotenant-15")
        self.runs = [os.path.dirname(r) for r in self.runs]

    def run_main(self, args):
        with redirect_stdout(io.StringIO()) as out, redirect_stderr(io.StringIO()) as err:
            rc = tvs.main(args)
        return rc, out.getvalue(), err.getvalue()

    def test_every_window_of_the_committed_runs_agrees_within_3_percent(self):
        rc, out, _ = self.run_main([self.smi] + self.runs)
        self.assertEqual(rc, 0, out)
        self.assertIn("20 window(s) judged, 0 outside 3%", out)
        smi = tvs.read_smi(self.smi)
        for run in self.runs:
            for row in tvs.compare(tvs.read_records(run), smi, 0.03):
                if "power_ratio" in row:
                    self.assertAlmostEqual(row["power_ratio"], 1, delta=0.01, msg=row)
                    self.assertAlmostEqual(row["clock_ratio"], 1, delta=0.01, msg=row)
                else:  # a 1.3 s pattern test and the all_reduce's windows: under 2 readings
                    self.assertLess(row["window_s"], 2, row)
                    self.assertIn(row["phase"], ("memory.pattern", "collectives.nccl_all_reduce"))

    def test_a_clock_shifted_by_a_phase_fails(self):
        with open(self.smi) as f:
            lines = f.read().splitlines()
        shifted = [lines[0]]
        for line in lines[1:]:
            stamp, rest = line.split(",", 1)
            t = tvs.utc(stamp, "smi") - 20  # 20 s early: the burn's bf16 phase reads as fp64
            shifted.append(tvs.datetime.datetime.fromtimestamp(t, tvs.datetime.timezone.utc)
                           .strftime("%Y/%m/%d %H:%M:%S.%f")[:-3] + "," + rest)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "smi.csv")
            with open(path, "w") as f:
                f.write("\n".join(shifted) + "\n")
            rc, out, _ = self.run_main([path, self.runs[0]])
        self.assertEqual(rc, 1, out)
        self.assertIn("outside", out)

    def test_each_gpu_is_judged_by_its_own_readings(self):
        # The same readings as GPU 0 beside a GPU 1 at half the power: with an index column GPU 0's
        # records still agree; without one the file is refused, not pooled.
        with open(self.smi) as f:
            lines = f.read().splitlines()
        with tempfile.TemporaryDirectory() as tmp:
            both, pooled = os.path.join(tmp, "both.csv"), os.path.join(tmp, "pooled.csv")
            with open(both, "w") as f, open(pooled, "w") as g:
                f.write("index, " + lines[0] + "\n")
                g.write(lines[0] + "\n")
                for line in lines[1:]:
                    stamp, power, rest = line.split(", ", 2)
                    half = f"{float(power.split()[0]) / 2:.2f} W"
                    f.write(f"0, {line}\n1, {stamp}, {half}, {rest}\n")
                    g.write(f"{line}\n{stamp}, {half}, {rest}\n")
            rc, out, _ = self.run_main([both, self.runs[0]])
            self.assertEqual(rc, 0, out)
            rc, _, err = self.run_main([pooled, self.runs[0]])
            self.assertEqual(rc, 2)
            self.assertIn("no index column", err)

    def test_bad_input_exits_2_naming_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            empty = os.path.join(tmp, "smi.csv")
            open(empty, "w").close()
            rc, _, err = self.run_main([empty, self.runs[0]])
            self.assertEqual(rc, 2)
            self.assertIn(empty, err)
            rc, _, err = self.run_main([self.smi, tmp])
            self.assertEqual(rc, 2)
            self.assertIn("records.jsonl", err)


def main():
    run_script_tests(globals(), tvs="telemetry_vs_smi")


if __name__ == "__main__":
    main()
