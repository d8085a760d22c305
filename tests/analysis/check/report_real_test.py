#!/usr/bin/env python3
"""`railgauge report` on real published peer-tool output (nccl-tests, perftest, nvbandwidth;
tests/fixtures/verdicts/real and tests/fixtures/nvbandwidth/real, cited in their READMEs): the
page a user gets, checked in its markup and, with label `browser`, in headless Chromium.

  report_real_test.py RAILGAUGE [unittest args]

The markup checks: one curve per collective, kind and run over size (never a curve of one
point), the runs named once in a table, latency percentiles on a log axis, nvbandwidth matrices
as heat maps with their slow cells, no two curves alike in one chart. The browser checks render
the page and every chart apart (Debian's chromium, --headless --screenshot) and look at the
pixels: each chart draws something, and nothing it draws falls outside its own width (a clipped
caption or legend).
"""
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
REAL = ROOT / "tests" / "fixtures" / "verdicts" / "real"
NVB = ROOT / "tests" / "fixtures" / "nvbandwidth" / "real"
RAILGAUGE = None

IMPORTS = [
    ("nccl-tests", REAL / "xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log"),
    ("nccl-tests", REAL / "xxrjun_cluster01_h100_10node_8gpu_5coll_healthy.log"),
    ("perftest", REAL / "moc_oc_h100_roce_ib_read_bw_8qp_mlx5_2_gpu0_client_healthy.log"),
    ("perftest", REAL / "moc_oc_h100_roce_ib_read_bw_8qp_mlx5_2_gpu2_client_slow.log"),
    ("perftest", REAL / "moc_oc_h100_roce_ib_read_lat_gpumem_client_healthy.log"),
    ("perftest", REAL / "moc_oc_roce_ib_read_lat_hostmem_client_latency_tail.log"),
    ("nvbandwidth", NVB / "issue24_h100x8_h2d_d2h_sm_EXTRACT.txt"),
    ("nvbandwidth", NVB / "issue48_h20x8_device_local_copy_EXTRACT.txt"),
    ("nvbandwidth", NVB / "issue50_a6000x6_d2d_read_ce_EXTRACT.txt"),
    ("nvbandwidth", REAL / "dcgm_testinput_nvbandwidth_v0.5_json_1gpu_EXTRACT.json"),
]


def railgauge(*args):
    r = subprocess.run([RAILGAUGE, *map(str, args)], capture_output=True, text=True, timeout=300)
    return r


class Page:
    """The report of every import above, built once."""
    tmp = html = md = None

    @classmethod
    def build(cls):
        if cls.html is not None:
            return cls
        cls.tmp = tempfile.TemporaryDirectory()
        runs = pathlib.Path(cls.tmp.name) / "runs"
        for tool, path in IMPORTS:
            r = railgauge("import", tool, path, "--out", runs)
            assert r.returncode in (0, 1), (path, r.stderr)
        out = pathlib.Path(cls.tmp.name)
        r = railgauge("report", runs, "--html", out / "report.html", "--markdown",
                      out / "report.md")
        assert r.returncode == 0, r.stderr
        cls.html = (out / "report.html").read_text()
        cls.md = (out / "report.md").read_text()
        return cls


def charts(html, cls):
    return re.findall(rf'<svg class="{cls}".*?</svg>', html, flags=re.S)


def chart_titled(html, cls, words):
    for svg in charts(html, cls):
        if words in re.search(r"<title>(.*?)</title>", svg).group(1):
            return svg
    raise AssertionError(f"no {cls} titled '{words}'")


class BurninReportTest(unittest.TestCase):
    """The committed H200 burn-in, healthy and beside a co-tenant, as a rack team reads it."""

    def test_each_phase_per_gpu_against_its_floor_and_second_by_second(self):
        burnin = ROOT / "results" / "reference" / "h200-burnin-2026-11-27" / "burnin"
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            r = railgauge("report", burnin / "cotenant", "--rules", "h200-sxm-1gpu", "--html",
                          out / "r.html", "--markdown", out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            html, md = (out / "r.html").read_text(), (out / "r.md").read_text()
        self.assertIn("Burn-in per GPU", md)
        # The grid: the GPU's row with each phase's figure.
        self.assertRegex(md, r"\| gpu0 0000:00:06\.0 \| 396\.5 \| 1978 \| 55\.34 \| 55\.45 \|")
        # Each phase against the profile's floor: the co-tenant's GPU is under both.
        self.assertIn("**gemm.burn** per GPU (TFLOP/s; floor 659.6 (h200-sxm-1gpu))", md)
        self.assertIn("**memory.burn** per GPU (GB/s; floor 3932 (h200-sxm-1gpu))", md)
        self.assertRegex(md, r"\| gpu0 0000:00:06\.0 \| 396\.5 \| yes \|")
        # The floor is on the axis: with the one GPU under it, it once ran off the chart's top.
        bars = re.search(r'<svg class="bars"[^>]*><title>gemm\.burn: TFLOP/s per GPU</title>.*?'
                         r'</svg>', html, flags=re.S).group(0)
        floor_y = float(re.search(r'<line [^>]*y1="([0-9.-]+)"[^>]*stroke-dasharray', bars).group(1))
        self.assertGreaterEqual(floor_y, 40)
        # Second by second: the figure, power and SM clock of each phase that has them.
        for title in ("gemm.burn: TFLOP/s per second", "gemm.burn: W per second",
                      "memory.burn: SM MHz per second"):
            chart_titled(html, "chart", title)

    def test_each_gemm_dtype_is_a_phase_with_its_own_floor(self):
        # The H200 run of 2026-11-28 burns bf16, FP64 and TF32: each is a column of the grid and
        # a chart against its own floor (the report once kept only the last dtype's figure, the
        # TF32 one, under "gemm.burn", against the TF32 floor).
        burnin = ROOT / "results" / "reference" / "h200-burnin-2026-11-28" / "burnin"
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            r = railgauge("report", burnin / "cotenant-50", "--rules", "h200-sxm-1gpu",
                          "--markdown", out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            md = (out / "r.md").read_text()
        self.assertIn("| GPU | gemm.burn TFLOP/s | gemm.burn fp64 TFLOP/s | gemm.burn tf32 TFLOP/s "
                      "| memory.burn GB/s |", md)
        self.assertRegex(md, r"\| gpu0 0000:00:06\.0 \| 398\.2 \| 29\.13 \| 205\.8 \| 1992 \|")
        for phase, floor in (("gemm.burn", "659.6"), ("gemm.burn fp64", "55.68"),
                             ("gemm.burn tf32", "325")):
            self.assertIn(f"**{phase}** per GPU (TFLOP/s; floor {floor} (h200-sxm-1gpu))", md)

    def test_the_nodes_all_reduce_is_on_the_page(self):
        # A one-rank all_reduce has no bus bandwidth and was drawn in no curve: the co-tenant's
        # 40 % slower 16 GiB all_reduce (compare: 0.598) was nowhere on the page.
        burnin = ROOT / "results" / "reference" / "h200-burnin-2026-11-28" / "burnin"
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            r = railgauge("report", burnin / "healthy", burnin / "cotenant-15", "--markdown",
                          out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            md = (out / "r.md").read_text()
        for run, rate, ms in (("run 1", "2150", "7.99"), ("run 2", "1286", "13.36")):
            self.assertIn(f"| {run} | collectives.nccl_all_reduce | 16 GiB | out_of_place | 1 | "
                          f"algbw (one rank: no bus) | {rate} | {ms} |", md)
        self.assertIn("| in_place | 1 | no data moved (one rank, in place) | - |", md)

    def test_a_gpu_that_failed_a_phase_is_a_failure_and_its_power_lines_up(self):
        # A GPU whose HBM burn held wrong data was left out of the grid and charts as if it never
        # ran ("-"); and power and clock, whose t_s counts from the settled window (6.6 s into
        # the bf16 burn), were drawn from 0 beside the TFLOP/s that count from the phase's start.
        source = next((ROOT / "results" / "reference" / "h200-burnin-2026-11-28" / "burnin" /
                       "healthy").iterdir())
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            run = out / "run"
            shutil.copytree(source, run)
            lines = []
            for line in (run / "records.jsonl").read_text().splitlines():
                r = json.loads(line)
                if r["key"] == "memory.burn":
                    r["metrics"]["per_gpu"][0].update(verdict="failed",
                                                      error="12 wrong elements")
                lines.append(json.dumps(r) + "\n")
            (run / "records.jsonl").write_text("".join(lines))
            r = railgauge("report", run, "--html", out / "r.html", "--markdown", out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            html, md = (out / "r.html").read_text(), (out / "r.md").read_text()
        self.assertRegex(md, r"\| gpu0 0000:00:06\.0 \| 717\.7 \| 60\.52 \| 353\.3 \| failed \|")
        self.assertIn("memory.burn: 1 GPU without a figure to draw: gpu0 0000:00:06.0: failed.", md)
        power = chart_titled(html, "chart", "gemm.burn: W per second")
        first = re.search(r"<circle [^>]*><title>[^<]*: ([0-9.]+) -> ", power).group(1)
        self.assertAlmostEqual(float(first), 6.6, places=6)

    def test_a_soak_of_one_node_is_a_line_per_benchmark_not_per_run(self):
        # One node's burn-in every week, 14 runs: the copy curves were a line per run (28 at one
        # size), every per-second chart 14 lines, and a one-rank all_reduce's bus bandwidth a
        # line of zeros. Now one line per benchmark over the runs with the lowest run named, the
        # last run's GPU second by second, and no bus where there is none.
        source = next((ROOT / "results" / "reference" / "h200-burnin-2026-11-28" / "burnin" /
                       "healthy").iterdir())
        run_id = json.loads((source / "run.json").read_text())["run"]
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            for week in range(14):
                name = f"2026-{week // 4 + 1:02d}-{week % 4 * 7 + 1:02d}T00-00-00Z-vm-{week:03d}"
                run = out / "soak" / name
                shutil.copytree(source, run)
                for f in ("run.json", "records.jsonl"):
                    (run / f).write_text((run / f).read_text().replace(run_id, name))
            r = railgauge("report", out / "soak", "--html", out / "r.html", "--markdown",
                          out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            html, md = (out / "r.html").read_text(), (out / "r.md").read_text()
        offload = [line for line in md.splitlines() if line.startswith("| all_gpus_")]
        self.assertEqual(len(offload), 2, offload)
        # Every week read the same (copies): the lowest is one of them, named by its run.
        self.assertRegex(md, r"\| all_gpus_h2d \| 1 GiB \| 55\.3 \| 14 \| 55\.3 \| vm rank 0 run "
                             r"2026-\d\d-\d\dT00-00-00Z-vm-0\d\d \|")
        self.assertIn("gemm.burn second by second: the GPUs of the last run given (run 14), "
                      "of 14 GPU runs; the bars above hold every run.", md)
        power = chart_titled(html, "chart", "gemm.burn: W per second")
        self.assertEqual(len(re.findall(r"<polyline", power)), 1)
        self.assertNotIn("collectives: bus bandwidth", html)
        self.assertLess(len(html), 300_000)

    def test_a_gpu_chart_says_at_what_clock_and_power_it_was_measured(self):
        # The H200 TP sweep of 2026-11-28 ran power-capped: the line under its chart gives the
        # records' own window medians (NVML), computed here again from the records by hand.
        run = (ROOT / "results" / "reference" / "h200-gemm-tp-2026-11-28" / "gemm-tp" / "runs" /
               "2026-11-28T21-19-52Z-vm-646")
        records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
        during = [r["metrics"]["telemetry"]["during"] for r in records
                  if r["key"] == "gemm.cublaslt" and r["status"] == "ok"]
        clocks = sorted(d["sm_clock_mhz"]["median"] for d in during)
        powers = sorted(d["power_w"]["median"] for d in during)
        capped = sum(d["reason_fraction"]["sw_power_cap"] > 0.5 for d in during)
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            r = railgauge("report", run, "--markdown", out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            md = (out / "r.md").read_text()
        self.assertIn(
            f"GPU state while measured (NVML, {len(during)} points): SM clock "
            f"{clocks[0]:.0f}-{clocks[-1]:.0f} MHz (median {statistics.median(clocks):.0f} of "
            f"1980 max), power {powers[0]:.0f}-{powers[-1]:.0f} W (median "
            f"{statistics.median(powers):.0f}) of a 700 W limit; held at its power limit for "
            f"most of the window in {capped} of {len(during)}", md)
        self.assertGreater(capped, len(during) // 2)  # the sweep ran power-capped

    def test_the_test_by_gpu_grid_heads_the_verdict_section(self):
        # `check --json` carries the grid it printed; `report --check` draws it first in the
        # verdict, the shared GPU's failing rows marked.
        cotenant = ROOT / "results" / "reference" / "h200-burnin-2026-11-27" / "burnin" / "cotenant"
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            r = railgauge("check", "--rules", "h200-sxm-1gpu", "--json", out / "v.json", cotenant)
            self.assertEqual(r.returncode, 2, r.stderr)
            r = railgauge("report", cotenant, "--check", out / "v.json", "--html", out / "r.html",
                          "--markdown", out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            html, md = (out / "r.html").read_text(), (out / "r.md").read_text()
        verdict = md.split("Verdict")[1]
        self.assertIn("Test x part on vm (node and GPUs)", verdict)
        self.assertLess(verdict.index("Test x part"), verdict.index("| host | part | level"))
        self.assertIn("| compute | burn-gemm-floor | . | FAIL |", verdict)
        self.assertIn("| pcie | burn-h2d-floor | . | PASS |", verdict)
        self.assertRegex(html, r'<tr class="fail"><td>compute</td><td>burn-gemm-floor</td>')


    def test_a_pairs_missing_values_name_its_hosts_once(self):
        # A two-node nccl-tests log is one part labelled with its hosts: the table of what could
        # not be judged gave "207-vm+208-vm 207-vm+208-vm: ..." as its example.
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            log = REAL / "issue256_h200_2node_roce_vm_all_reduce_slow_EXTRACT.txt"
            self.assertIn(railgauge("import", "nccl-tests", log, "--out", out / "runs").returncode,
                          (0, 1))
            r = railgauge("check", "--rules", "h200-sxm-roce", "--json", out / "v.json",
                          out / "runs")
            self.assertEqual(r.returncode, 2, r.stderr)
            r = railgauge("report", out / "runs", "--check", out / "v.json", "--markdown",
                          out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            md = (out / "r.md").read_text()
        self.assertIn("| 207-vm+208-vm: ", md)
        self.assertNotIn("207-vm+208-vm 207-vm+208-vm", md)

    def test_the_verdict_says_missing_as_check_says_it(self):
        # check of the healthy H200 burn-in: "0 missing, 62 cannot apply here", PASS; the page
        # read "62 missing" and listed those rules under "a missing value is never a pass".
        healthy = ROOT / "results" / "reference" / "h200-burnin-2026-11-28" / "burnin" / "healthy"
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            r = railgauge("check", "--rules", "auto", "--json", out / "v.json", healthy)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            summary = json.loads((out / "v.json").read_text())["summary"]
            self.assertGreater(summary["cannot_apply_here"], 0)
            said = re.search(r"(\d+) missing, (\d+) cannot apply here", r.stdout)
            self.assertIsNotNone(said, r.stdout)
            r = railgauge("report", healthy, "--check", out / "v.json", "--markdown", out / "r.md")
            self.assertEqual(r.returncode, 0, r.stderr)
            md = (out / "r.md").read_text()
        self.assertIn(f"{said.group(1)} missing, {said.group(2)} cannot apply here.", md)
        self.assertNotIn("a missing value is never a pass", md)
        self.assertIn("Cannot apply here", md)

    def test_a_time_ratio_chart_names_its_highest_as_worse(self):
        # A time compared (lower is better) over GEMM shapes: the bars are the highest ratios,
        # red above 1; the caption said "the 16 lowest" and "worse (under 1)".
        ref = ROOT / "results" / "reference"
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            r = railgauge("compare", "--label", "a", "--label", "b",
                          ref / "h200-2026-11-26" / "runs" / "gemm-model",
                          ref / "h200-2026-11-26b" / "runs" / "gemm-model",
                          "--metric", "metrics.time_s.median", "--json", out / "c.json")
            self.assertEqual(r.returncode, 0, r.stderr)
            r = railgauge("report", out / "c.json", "--html", out / "r.html")
            self.assertEqual(r.returncode, 0, r.stderr)
            html = (out / "r.html").read_text()
        self.assertRegex(html, r"ratio b/a, the \d+ highest of \d+")
        self.assertNotRegex(html, r"ratio b/a, the \d+ lowest of \d+")
        self.assertIn("judged worse (above 1 for this metric)", html)
        self.assertNotIn("judged worse (under 1 for this metric)", html)


class ReportRealTest(unittest.TestCase):
    def setUp(self):
        self.page = Page.build()

    def test_a_curve_per_collective_kind_and_run(self):
        svg = chart_titled(self.page.html, "chart", "collectives: bus bandwidth")
        lines = re.findall(r'<polyline[^>]*points="([^"]*)"', svg)
        # 5 collectives x in/out of place x 2 runs, each over the 10 sizes of the logs.
        self.assertEqual(len(lines), 20)
        self.assertTrue(all(len(p.split()) == 10 for p in lines), [len(p.split()) for p in lines])
        legend = re.findall(r'<line [^>]*/><text[^>]*>([^<]*)</text>', svg)
        self.assertIn("nccl_all_reduce in_place=out_of_place (run 1)", legend)
        self.assertFalse([n for n in legend if "count=" in n or "world_size=" in n], legend)
        self.assertIn("<h2 id=\"runs\">Runs</h2>", self.page.html)

    def test_no_two_curves_of_a_chart_look_alike(self):
        for svg in charts(self.page.html, "chart"):
            styles = re.findall(r'<polyline fill="none" stroke="([^"]*)" '
                                r'(?:stroke-dasharray="([^"]*)" )?stroke-width', svg)
            self.assertEqual(len(styles), len(set(styles)), styles)

    def test_a_multi_node_logs_lowest_part_is_its_nodes_not_a_rank(self):
        # The 10-node log's figures are the group's: "lowest at" read "cnode3-002+...+cnode3-011
        # rank 0", ten hosts joined and the rank of no node.
        rows = [line for line in self.page.md.splitlines()
                if "cnode3-002" in line and not line.startswith("| run ")]
        self.assertTrue(rows)
        self.assertTrue(all("cnode3-002 and 9 more nodes" in row for row in rows), rows[:3])
        self.assertFalse([row for row in rows if re.search(r"\+\S+ rank \d", row)], rows[:3])

    def test_latency_percentiles_on_a_log_axis(self):
        svg = chart_titled(self.page.html, "chart", "latency versus size")
        legend = re.findall(r'<line [^>]*/><text[^>]*>([^<]*)</text>', svg)
        for stat in ("p50", "p99", "max"):
            self.assertTrue([n for n in legend if f" {stat} " in n], legend)
        self.assertIn("microseconds (log scale)", svg)
        # The tail: the hostmem run's maximum reaches milliseconds (2.17 ms at 512 KiB, 2.45 ms
        # at 1 MiB).
        self.assertIn("2048", svg)

    def test_nvbandwidth_matrices_are_heat_maps(self):
        d2d = chart_titled(self.page.html, "heatmap", "device_to_device_memcpy_read_ce")
        self.assertEqual(len(re.findall(r"<rect ", d2d)), 36)  # 6 x 6, the diagonal N/A
        self.assertEqual(len(re.findall(r'fill="#eeeeee"', d2d)), 6)
        h2d = chart_titled(self.page.html, "heatmap", "host_to_device_memcpy_sm")
        self.assertEqual(len(re.findall(r"<rect ", h2d)), 8)
        self.assertIn("rows: cpu, columns: gpu", h2d)
        # The one-GPU file's testcases are one table, not 32 heat maps of one cell.
        self.assertIn("Testcases of a single cell", self.page.html)
        self.assertIn("device_local_copy", self.page.md)


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(html_path, png_path, width, height):
    # --disable-dev-shm-usage: a container's small /dev/shm would crash the renderer; a profile
    # of its own: a CI machine's HOME may be missing or read-only.
    r = subprocess.run([chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
                        "--disable-dev-shm-usage", "--hide-scrollbars",
                        f"--user-data-dir={png_path.parent / 'chromium-profile'}",
                        "--force-device-scale-factor=1",
                        f"--window-size={width},{height}", f"--screenshot={png_path}",
                        html_path.as_uri()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and png_path.exists(), r.stderr[-2000:]


class ReportBrowserTest(unittest.TestCase):
    """Needs Debian's chromium and python3-pil (scripts/setup.sh installs both); fails without."""

    def setUp(self):
        self.assertTrue(chromium(), "no chromium on PATH: scripts/setup.sh installs it")
        from PIL import Image  # noqa: F401 (python3-pil)
        self.page = Page.build()
        self.dir = pathlib.Path(tempfile.mkdtemp(dir=self.page.tmp.name))

    def test_every_chart_draws_and_nothing_is_clipped(self):
        from PIL import Image
        figures = re.findall(r'<svg class="(chart|heatmap|bars)" width="([0-9.]+)" '
                             r'height="([0-9.]+)".*?</svg>', self.page.html, flags=re.S)
        svgs = re.findall(r'<svg class="(?:chart|heatmap|bars)".*?</svg>', self.page.html,
                          flags=re.S)
        self.assertGreaterEqual(len(svgs), 7)
        style = re.search(r"<style>(.*?)</style>", self.page.html, flags=re.S).group(1)
        margin = 240
        for n, ((kind, w, h), svg) in enumerate(zip(figures, svgs)):
            w, h = int(float(w)), int(float(h))
            title = re.search(r"<title>(.*?)</title>", svg).group(1)
            # The same picture with room to the right: whatever is drawn there was clipped.
            wide = re.sub(r'width="[0-9.]+" height="([0-9.]+)" viewBox="0 0 [0-9.]+ ([0-9.]+)"',
                          lambda m: f'width="{w + margin}" height="{m.group(1)}" '
                                    f'viewBox="0 0 {w + margin} {m.group(2)}"', svg, count=1)
            page = self.dir / f"figure{n}.html"
            page.write_text(f"<!DOCTYPE html><html><head><style>{style} body{{margin:0}}"
                            f"</style></head><body>{wide}</body></html>")
            png = self.dir / f"figure{n}.png"
            screenshot(page, png, w + margin, h + 10)
            img = Image.open(png).convert("RGB")
            inside = img.crop((0, 0, w, h))
            outside = img.crop((w + 2, 0, w + margin, h))
            drawn = sum(1 for p in inside.getdata() if sum(p) < 700)
            self.assertGreater(drawn / (w * h), 0.01, f"{kind} '{title}' draws nothing")
            spill = sum(1 for p in outside.getdata() if sum(p) < 700)
            self.assertEqual(spill, 0, f"{kind} '{title}': {spill} pixels past its width {w}")

    def test_the_whole_page_renders(self):
        from PIL import Image
        path = self.dir / "report.html"
        path.write_text(self.page.html)
        png = self.dir / "report.png"
        screenshot(path, png, 1200, 6000)
        img = Image.open(png).convert("RGB")
        colours = {p for p in img.getdata() if max(p) - min(p) > 60}  # saturated: plot colours
        self.assertGreater(len(colours), 12)


if __name__ == "__main__":
    RAILGAUGE = sys.argv.pop(1)
    unittest.main()
