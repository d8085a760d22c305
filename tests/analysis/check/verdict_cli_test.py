#!/usr/bin/env python3
"""End-to-end tests of check, compare and report: real `railgauge run quick` records on this
machine judged with the host-only profile, synthetic fleets (make_fleet.py) with a slow GPU and
a bad pair, bad rules files, and the exit statuses (0 pass, 1 warn, 2 fail, 4 input error).

Run by CTest, one test method per CTest test:  verdict_cli_test.py RAILGAUGE_BINARY Test.test_x
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[3]
HERE = pathlib.Path(__file__).resolve().parent
BINARY = None


def railgauge(*args, timeout=300):
    return subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


class VerdictTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def quick_run(self, name):
        out = self.dir / name
        r = railgauge("run", "quick", "--out", out, "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        return out

    def fleet(self, name, *args):
        out = self.dir / name
        subprocess.run([sys.executable, HERE / "make_fleet.py", out, *args], check=True)
        return out

    def test_host_profile_passes_a_real_quick_run(self):
        run = self.quick_run("runs")
        files = {k: self.dir / f"check.{k}" for k in ("json", "xml", "prom", "md", "drain")}
        r = railgauge("check", "--rules", ROOT / "results/rules/host-only.yaml", run,
                      "--json", files["json"], "--junit", files["xml"], "--prometheus",
                      files["prom"], "--markdown", files["md"], "--drain", files["drain"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("PASS: 1 node", r.stdout)
        verdict = json.loads(files["json"].read_text())
        self.assertEqual(verdict["schema"], "railgauge.check/1")
        self.assertEqual(verdict["verdict"], "pass")
        checked = sum(t["checked"] for p in verdict["parts"]
                      for t in p["rules"].values())
        self.assertGreaterEqual(checked, 8 * 3)  # 8 records x data check, measured, fleet
        suites = ET.parse(files["xml"]).getroot()
        self.assertEqual(suites.tag, "testsuites")
        self.assertEqual(suites.get("failures"), "0")
        for line in files["prom"].read_text().splitlines():
            self.assertRegex(line, r'^(# (HELP|TYPE) .*|[a-z_]+\{.*\} -?\d+)$')
        self.assertEqual(files["drain"].read_text(), "")

    def test_slow_gpu_fails_drains_and_is_deterministic(self):
        fleet = self.fleet("fleet", "--slow", "node03:5")
        drain = self.dir / "drain.txt"
        args = ["check", "--rules", HERE / "fixture_rules.yaml", fleet, "--format", "json"]
        first = railgauge(*args, "--drain", drain)
        self.assertEqual(first.returncode, 2, first.stderr)
        self.assertEqual(drain.read_text(), "node03\n")
        verdict = json.loads(first.stdout)
        bad = [(p["host"], p["label"], p["verdict"]) for p in verdict["parts"]
               if p["verdict"] != "pass"]
        self.assertEqual(bad, [("node03", "gpu5", "fail"), ("node04", "mlx5_0", "warn")])
        self.assertEqual(railgauge(*args).stdout, first.stdout)
        junit = railgauge("check", "--rules", HERE / "fixture_rules.yaml", fleet,
                          "--format", "junit")
        failed = [tc.get("classname") + " " + tc.get("name")
                  for tc in ET.fromstring(junit.stdout).iter("testcase")
                  if tc.find("failure") is not None]
        self.assertEqual(failed, ["node03.gpu5 gemm-vs-fleet"])

    def test_an_imported_nvbandwidth_run_is_judged_by_the_profile(self):
        # The format sample's GPU 1 copies at 40/41 GB/s, GPU 0 at 50/51: only GPU 1 fails
        # the nvbandwidth floors (48 GB/s).
        out = self.dir / "imported"
        r = railgauge("import", "nvbandwidth",
                      ROOT / "tests" / "fixtures" / "nvbandwidth" / "two_gpus.txt", "--out", out)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        r = railgauge("check", "--rules", ROOT / "results" / "rules" / "h100-sxm-ib.yaml", out,
                      "--json", self.dir / "check.json")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        failed = set()
        for part in json.loads((self.dir / "check.json").read_text())["parts"]:
            for f in part["findings"]:
                if f["rule"].startswith("nvbandwidth-") and not f["missing"]:
                    failed.add((part["id"], f["rule"]))
        self.assertEqual(failed, {("0000:3b:00.0", "nvbandwidth-h2d-floor"),
                                  ("0000:3b:00.0", "nvbandwidth-d2h-floor")})

    def test_prometheus_files_carry_time_runs_and_one_file_per_node(self):
        # Two real nccl-tests logs of one cluster (a single node, and ten nodes as one group).
        real = ROOT / "tests" / "fixtures" / "verdicts" / "real"
        out = self.dir / "runs"
        for log in ("xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log",
                    "xxrjun_cluster01_h100_10node_8gpu_5coll_healthy.log"):
            r = railgauge("import", "nccl-tests", real / log, "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
        before = int(time.time())
        r = railgauge("check", "--rules", ROOT / "results" / "rules" / "h100-sxm-ib.yaml", out,
                      "--prometheus", self.dir / "all.prom", "--prometheus-dir",
                      self.dir / "nodes")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        text = (self.dir / "all.prom").read_text()
        stamp = int(re.search(r'^railgauge_check_time_seconds\{rules="h100-sxm-ib"\} (\d+)$',
                              text, re.M).group(1))
        self.assertTrue(before <= stamp <= int(time.time()) + 1, stamp)
        self.assertEqual(len(re.findall(r"^railgauge_check_run_info\{", text, re.M)), 2)
        # One file per machine: the ten-node log's group is in each of its nodes' files, and
        # cnode3-007's own log only in its own.
        files = sorted(p.name for p in (self.dir / "nodes").iterdir())
        self.assertEqual(files, [f"cnode3-{n:03}.prom" for n in range(2, 12)])
        group = "+".join(f"cnode3-{n:03}" for n in range(2, 12))
        self.assertEqual(len(re.findall(r"^railgauge_check_node_verdict\{", text, re.M)), 10)
        one = (self.dir / "nodes" / "cnode3-007.prom").read_text()
        self.assertIn('railgauge_check_node_verdict{host="cnode3-007",rules="h100-sxm-ib"} 0', one)
        self.assertIn(f'railgauge_check_part_verdict{{host="{group}",kind="node"', one)
        self.assertEqual(len(re.findall(r"^railgauge_check_run_info\{", one, re.M)), 2)
        other = (self.dir / "nodes" / "cnode3-003.prom").read_text()
        self.assertIn('railgauge_check_node_verdict{host="cnode3-003",rules="h100-sxm-ib"} 0',
                      other)
        self.assertNotIn('host="cnode3-007"', other)  # cnode3-007's own log is in its own file
        self.assertIn(f'railgauge_check_part_verdict{{host="{group}",kind="node"', other)

    def test_inventory_only_judges_this_machine_now_with_the_health_rules_alone(self):
        # The build machine has no GPU: the H100 profile's gpu-count rule fails it (exit 2),
        # named with its figure; no record rule is judged (none is listed as missing either).
        started = time.monotonic()
        r = railgauge("check", "--rules", "h100-sxm-ib", "--inventory-only", "--format", "json")
        elapsed_s = time.monotonic() - started
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        verdict = json.loads(r.stdout)
        self.assertEqual(verdict["verdict"], "fail")
        rules = {rule for p in verdict["parts"] for rule in p["rules"]}
        self.assertIn("gpu-count", rules)
        self.assertFalse({r for r in rules if r.startswith(("gemm", "hbm", "h2d", "rdma"))},
                         rules)
        self.assertLess(elapsed_s, 5, "the inventory-only check took too long for a prolog")
        # Runs given: only their run.json inventories are judged, their records are not.
        run = self.quick_run("runs")
        r = railgauge("check", "--rules", "host-only", "--inventory-only", run, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        checked = {rule for p in json.loads(r.stdout)["parts"] for rule in p["rules"]}
        self.assertFalse({r for r in checked if r.startswith("host-memory")}, checked)
        # A rules file without inventory rules cannot be judged this way.
        rules_file = self.dir / "records-only.yaml"
        rules_file.write_text("schema: railgauge.rules/1\nname: r\nrules:\n"
                              "  - {id: x, category: memory, severity: fail, "
                              "select: {key: 'memory.*'}, metric: metrics.verified, "
                              "compare: '==', value: 1}\n")
        r = railgauge("check", "--rules", rules_file, "--inventory-only")
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("no inventory rules", r.stderr)

    def test_warn_only_exits_1(self):
        fleet = self.fleet("fleet")  # only the bad pair: a warning
        r = railgauge("check", "--rules", HERE / "fixture_rules.yaml", fleet)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # Findings are grouped by rule, then one line per part
        self.assertIn("WARN rdma-pair-vs-fleet [nic]: 1 finding on 1 part\n  node04 mlx5_0:", r.stdout)

    def test_bad_rules_and_flags_exit_4_with_file_and_line(self):
        run = self.fleet("fleet")
        rules = self.dir / "bad.yaml"
        rules.write_text("schema: railgauge.rules/1\nname: bad\nrules:\n  - id: a\n"
                         "    category: compute\n    severity: fail\n"
                         "    select: {key: gemm.x}\n    metric: metrics.tflops\n"
                         "    compare: \">=\"\n    fleet: {mads: -1}\n")
        r = railgauge("check", "--rules", rules, run)
        self.assertEqual(r.returncode, 4)
        self.assertIn(f"{rules}:10: 'mads' must not be negative", r.stderr)
        r = railgauge("check", "--rules", HERE / "fixture_rules.yaml", run, "--bogus")
        self.assertEqual(r.returncode, 4)
        self.assertIn("unknown argument '--bogus'", r.stderr)
        self.assertNotIn("did you mean", r.stderr)  # nothing near: no guess at random
        # A misspelt option: the one it most likely meant, whichever command.
        r = railgauge("check", "--rules", HERE / "fixture_rules.yaml", run, "--rule=x")
        self.assertEqual(r.returncode, 4)
        self.assertIn("fix: did you mean '--rules'? see railgauge check --help", r.stderr)
        r = railgauge("compare", run, run, "--lable", "a")
        self.assertEqual(r.returncode, 4)
        self.assertIn("did you mean '--label'?", r.stderr)
        r = railgauge("check", "--rules", HERE / "fixture_rules.yaml", self.dir / "nope")
        self.assertEqual(r.returncode, 4)
        r = railgauge("compare", run)
        self.assertEqual(r.returncode, 4)
        self.assertIn("at least two runs", r.stderr)
        # The profiles a message or --help offers are the shipped ones, read from the rules
        # directory, not a list kept by hand (which lacked the -1gpu profiles).
        shipped = ", ".join(sorted(p.stem for p in (ROOT / "results" / "rules").glob("*.yaml")))
        self.assertIn("h200-sxm-1gpu", shipped)
        r = railgauge("check", run)
        self.assertEqual(r.returncode, 4)
        self.assertIn(f"give --rules NAME ({shipped}), auto, or the path", r.stderr)
        r = railgauge("check", "--help")
        self.assertIn(shipped, " ".join(r.stdout.split()))

    def test_compare_two_real_runs_and_report_the_comparison(self):
        a, b = self.quick_run("a"), self.quick_run("b")
        cmp_json = self.dir / "cmp.json"
        r = railgauge("compare", a, b, "--label", "before", "--label", "after",
                      "--json", cmp_json)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("after/before", r.stdout)
        c = json.loads(cmp_json.read_text())
        self.assertEqual(c["labels"], ["before", "after"])
        self.assertEqual(len(c["points"]), 8)  # quick: 4 kernels x 2 sizes, all matched
        for p in c["points"]:
            self.assertIsNotNone(p["ratio"][0])
            self.assertIn(p["verdict"][0], ["better", "worse", "within noise"])
        self.assertEqual([f["group"] for f in c["families"]], ["memory"])
        html, md = self.dir / "cmp.html", self.dir / "cmp.md"
        r = railgauge("report", cmp_json, "--html", html, "--markdown", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        page = html.read_text()
        self.assertIn("<svg", page)
        self.assertNotIn("<script", page)
        self.assertIn("| memory | after vs before |", md.read_text())
        self.assertIn("| only in before | only in after |", md.read_text())  # not "the compared"
        # One label for two inputs named both columns and their ratio x/x; a check's verdict
        # given as the comparison said "not a comparison" without the file or --check.
        r = railgauge("compare", a, b, "--label", "x", "--label", "x")
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("label 'x' names inputs 1 and 2", r.stderr)
        verdict = self.dir / "verdict.json"
        railgauge("check", "--rules", "host-only", a, "--json", verdict)
        r = railgauge("report", verdict)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn(f"'{verdict}' is a check's verdict (railgauge.check/1)", r.stderr)
        self.assertIn(f"--check {verdict}", r.stderr)
        # A verdict of other hosts' runs drew "Verdict: pass" above runs it never judged.
        other = self.dir / "other.json"
        railgauge("check", "--rules", HERE / "fixture_rules.yaml", self.fleet("fleet"), "--json",
                  other)
        r = railgauge("report", a, "--check", other, "--markdown", md)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("judged hosts node01, node02, node03, ...; the runs given are of hosts",
                      r.stderr)
        # ... and beside a comparison: a verdict of a third run above the comparison of a and b.
        third = self.quick_run("c")
        of_third = self.dir / "third.json"
        railgauge("check", "--rules", "host-only", third, "--json", of_third)
        r = railgauge("report", cmp_json, "--check", of_third, "--markdown", md)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("; the comparison is of runs", r.stderr)
        r = railgauge("report", cmp_json, "--check", verdict, "--markdown", md)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # The charts are the HTML's: the markdown's chart heading says where they are.
        self.assertIn("## Ratio versus size\n\nThe charts of this section are in the HTML page",
                      md.read_text())
        # `-` was written as a file named '-' in the working directory; it is refused, naming
        # the command's own way to standard output, and nothing is written.
        for args, instead in ((("compare", a, b, "--markdown", "-"), "--format markdown"),
                              (("check", "--rules", "host-only", a, "--json", "-"),
                               "--format json"),
                              (("report", cmp_json, "--html", "-"), "neither --html nor")):
            r = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True,
                               timeout=120, cwd=self.dir)
            self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
            self.assertIn("'-' would be a file named '-', not standard output", r.stderr)
            self.assertIn(instead, r.stderr)
            self.assertFalse((self.dir / "-").exists())
        # A hand-edited comparison whose size is text, and a --check file whose list of missing
        # values holds a number: bad input, exit 4 naming the file, never a crash (exit 3).
        c["points"][0]["params"]["size_bytes"] = "1GiB"
        edited = self.dir / "edited.json"
        edited.write_text(json.dumps(c))
        r = railgauge("report", edited, "--markdown", md)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn(f"{edited}: a field of the input has a type the report cannot read", r.stderr)
        bad_check = self.dir / "bad_check.json"
        bad_check.write_text(json.dumps({"schema": "railgauge.check/1", "verdict": "fail",
                                         "missing_unlisted": [1]}))
        r = railgauge("report", a, "--check", bad_check, "--markdown", md)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn(str(bad_check), r.stderr)

    def test_compare_two_fleets_and_report_runs_with_verdict(self):
        ib, roce = self.fleet("ib"), self.fleet("roce", "--busbw-scale", "0.8")
        r = railgauge("compare", ib, roce, "--label", "ib", "--label", "roce",
                      "--format", "markdown")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| collectives | roce vs ib |", r.stdout)
        check = self.dir / "check.json"
        railgauge("check", "--rules", HERE / "fixture_rules.yaml", ib, "--json", check)
        html, md = self.dir / "r.html", self.dir / "r.md"
        r = railgauge("report", ib, "--check", check, "--html", html, "--markdown", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        page = html.read_text()
        for part in ("Verdict", "GEMM efficiency versus tensor parallelism t",
                     "collectives: bus bandwidth GB/s versus size", "Pair matrices"):
            self.assertIn(part, page)
        self.assertIn("| node04 | node02 |", md.read_text())  # the bad pair, listed

    def test_a_fleets_comparison_page_shows_the_spread_and_the_worst_pairs(self):
        # 60 nodes each side measure 3,540 node pairs; one cable of the second fleet reads half.
        # The page once drew a line and wrote a row per pair (24.6 MB at 200 + 200 nodes): now
        # the pairs (one size each) are bars of the 16 lowest, and the 200 worst rows,
        # the bad cable first, with a line that counts the rest.
        a, b = self.fleet("a", "--nodes", "60"), self.fleet("b", "--nodes", "60")
        records, lines, edited = b / "node07" / "records.jsonl", [], 0
        for line in records.read_text().splitlines():
            r = json.loads(line)
            if r["key"] == "rdma.write_bw" and r["params"].get("dst") in ("node33", "node41"):
                # a cable at half its rate, and one that carried nothing (a rate of 0)
                r["metrics"]["bandwidth_gbits_per_s"] *= 0.5 if r["params"]["dst"] == "node33" else 0
                edited += 1
            lines.append(json.dumps(r))
        records.write_text("\n".join(lines) + "\n")
        self.assertEqual(edited, 2)
        cmp_json = self.dir / "cmp.json"
        r = railgauge("compare", a, b, "--label", "a", "--label", "b", "--json", cmp_json)
        self.assertEqual(r.returncode, 0, r.stderr)
        # The terminal's table too: the 200 worst pairs, the bad cable first, the rest counted.
        pairs = [line for line in r.stdout.splitlines() if line.startswith("rdma.write_bw ")]
        self.assertEqual(len(pairs), 200)
        self.assertIn("dst=node41 size_bytes=8388608 src=node07", pairs[0])  # nothing carried
        self.assertIn("dst=node33 size_bytes=8388608 src=node07", pairs[1])
        self.assertIn("rdma.write_bw: the 200 worst of 3540 points are listed; the other 3340 "
                      "read 3340 within noise (--all-points lists every one)", r.stdout)
        every = railgauge("compare", a, b, "--all-points", "--format", "markdown")
        self.assertEqual(every.stdout.count("| rdma.write_bw |"), 3540)
        self.assertEqual(len(json.loads(cmp_json.read_text())["points"]), 3562)
        html, md = self.dir / "c.html", self.dir / "c.md"
        r = railgauge("report", cmp_json, "--html", html, "--markdown", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        page, twin = html.read_text(), md.read_text()
        self.assertLess(len(page), 200_000)
        # One size per pair: a bar per pair, the lowest first, those judged worse in red.
        bars = re.search(r'<svg class="bars"[^>]*><title>rdma\.write_bw: ratio b/a, the 16 '
                         r'lowest of 3540</title>.*?</svg>', page, flags=re.S).group(0)
        red = re.findall(r'<rect [^>]*fill="#d62728"><title>([^<]*)</title>', bars)
        self.assertEqual(red, ["dst=node41 src=node07: 0 ratio",
                               "dst=node33 src=node07: 0.5 ratio"])  # the others are fine
        self.assertIn("rdma.write_bw: the 200 worst of 3540 points are listed; the other 3340 "
                      "read 3340 within noise", twin)
        rows = [line for line in twin.splitlines() if line.startswith("| rdma.write_bw |")]
        self.assertEqual(len(rows), 200)
        self.assertIn("dst=node41 size_bytes=8388608 src=node07", rows[0])
        self.assertIn("dst=node33 size_bytes=8388608 src=node07", rows[1])
        self.assertIn("| worse", rows[1])
        # Against two candidates each has its own chart: one band over both would be neither's.
        c = self.fleet("c", "--nodes", "60")
        r = railgauge("compare", a, b, c, "--label", "a", "--label", "b", "--label", "c",
                      "--json", cmp_json)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = railgauge("report", cmp_json, "--html", html, "--markdown", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        page = html.read_text()
        for title in ("rdma.write_bw: ratio b/a, the 16 lowest of 3540",
                      "rdma.write_bw: ratio c/a, the 16 lowest of 3540"):
            self.assertIn(title, page)

    def test_a_fleets_run_page_draws_its_pairs_and_curves_as_a_fleet(self):
        # A fleet of 70 nodes: 70 runs, 4,830 node pairs. The page once drew a 70 x 70 heat map
        # per pair test and a bandwidth line per run (523 MB for two fleets of 2,000): now each
        # endpoint's slowest pair as bars, the bad pairs slowest first, and one line per
        # benchmark over all runs with the lowest part named.
        fleet = self.fleet("a", "--nodes", "70")
        # node13's all_reduce ran over 8 nodes, every other node's over its own 8 GPUs: another
        # setting, never the slow part of the one-node curve
        for records in fleet.glob("node*/records.jsonl"):
            lines = []
            for line in records.read_text().splitlines():
                r = json.loads(line)
                if r["key"] == "collectives.nccl_all_reduce":
                    eight = records.parent.name == "node13"
                    r["params"].update(world_size=64 if eight else 8, group_hosts=8 if eight else 1)
                    r["metrics"]["busbw_gbytes_per_s"] *= 0.2 if eight else 1
                lines.append(json.dumps(r))
            records.write_text("\n".join(lines) + "\n")
        html, md = self.dir / "f.html", self.dir / "f.md"
        r = railgauge("report", fleet, "--html", html, "--markdown", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        page, twin = html.read_text(), md.read_text()
        self.assertLess(len(page), 1_000_000)
        self.assertNotIn("<title>rdma.write_bw size 8 MiB</title>", page)  # no heat map
        self.assertIn("rdma.write_bw size 8 MiB: the 20 endpoints of 70 with the slowest pairs",
                      page)
        bad = twin.split("**rdma.write_bw size 8 MiB**")[1].split("\n\n")[1].splitlines()
        self.assertTrue(bad[2].startswith("| node04 | node02 |"), bad[:3])  # the bad cable
        self.assertIn("over all 70 runs", page)
        bars = twin.split("**rdma.write_bw size 8 MiB: the 20 endpoints of 70 with the slowest "
                          "pairs**")[1].split("\n\n")[1].splitlines()
        self.assertTrue(bars[2].startswith("| node02 | 273.7 | 69% |"), bars[:3])  # the twin's too
        self.assertIn(">69%</text>", page)  # of the best pair (394), as the twin says
        collectives = twin.split("**collectives**")[1].split("\n\n")[1]
        self.assertIn("| nccl_all_reduce group_hosts=8 world_size=64 | 1 GiB |", collectives)
        self.assertIn("| nccl_all_reduce group_hosts=1 world_size=8 | 1 GiB |", collectives)
        self.assertNotIn("node13", collectives.split("group_hosts=8")[0])
        memory = twin.split("**memory** (GB/s)")[1]
        rows = [line for line in memory.split("\n\n")[1].splitlines() if "hbm_copy" in line]
        self.assertEqual(len(rows), 3, rows)  # one line per size, not per run
        self.assertIn("| 560 |", rows[0])  # 70 runs x 8 GPUs

    def test_a_setting_only_some_records_carry_names_its_curve(self):
        # Each node's all_reduce once by default and once with algo=tree at half the rate: the
        # records of the default carry no algo. One curve over both was a median of neither.
        fleet = self.fleet("sp", "--nodes", "2")
        for records in fleet.glob("node*/records.jsonl"):
            lines = []
            for line in records.read_text().splitlines():
                lines.append(line)
                r = json.loads(line)
                if r["key"] == "collectives.nccl_all_reduce":
                    r["params"]["algo"] = "tree"
                    r["metrics"]["busbw_gbytes_per_s"] /= 2
                    lines.append(json.dumps(r))
            records.write_text("\n".join(lines) + "\n")
        for runs in ([fleet], [fleet / "node01"]):
            md = self.dir / "sp.md"
            r = railgauge("report", *runs, "--markdown", md)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = [line for line in md.read_text().split("**collectives**")[1].splitlines()
                    if "| 1 GiB |" in line]
            # two settings, in each of the two runs (labelled) or in the one
            self.assertEqual(len(rows), 4 if runs[0] == fleet else 2, rows)
            self.assertTrue(any("algo=tree" in row and "| 235 |" in row for row in rows), rows)
            self.assertTrue(any("algo" not in row and "| 470 |" in row for row in rows), rows)

    def test_report_counts_the_missing_values_check_only_counted(self):
        # Past its first 100 missing values a rule's are counted, not listed: the report's
        # table of missing values must still give all of them.
        fleet = self.fleet("fleet")
        rules = self.dir / "absent.yaml"
        rules.write_text(
            "schema: railgauge.rules/1\nname: absent\nrules:\n"
            "- {id: absent-metric, category: health, severity: warn, select: {key: '*'},\n"
            "   metric: metrics.absent_counter, compare: '<=', value: 0}\n")
        check = self.dir / "check.json"
        railgauge("check", "--rules", rules, fleet, "--json", check)
        verdict = json.loads(check.read_text())
        total = verdict["summary"]["missing"]
        self.assertGreater(verdict["summary"]["missing_unlisted"], 0)
        md = self.dir / "r.md"
        r = railgauge("report", fleet, "--check", check, "--markdown", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(md.read_text(), rf"\| absent-metric \| warn \| {total} \|")


if __name__ == "__main__":
    BINARY = sys.argv[1]
    unittest.main(argv=[sys.argv[0], *sys.argv[2:]])
