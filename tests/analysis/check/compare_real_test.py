#!/usr/bin/env python3
"""`railgauge compare` on real published peer-tool output (tests/fixtures/verdicts/real, cited in
its README.md): what a user comparing two clusters, two GPUs or two tools' runs sees.

  compare_real_test.py RAILGAUGE [unittest args]

Each case imports the files with `railgauge import`, runs `railgauge compare --format json` and
the table, and asserts which points match, the ratio at a named point, the params set aside as
context, and the warning when most points cannot match.
"""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
REAL = ROOT / "tests" / "fixtures" / "verdicts" / "real"
RAILGAUGE = None
READ_BW_GPU0 = "moc_oc_h100_roce_ib_read_bw_8qp_mlx5_2_gpu0_client_healthy.log"
H200_BURNIN = ROOT / "results" / "reference" / "h200-burnin-2026-11-27" / "burnin"
H200_BURNIN_28 = ROOT / "results" / "reference" / "h200-burnin-2026-11-28" / "burnin"
H100_BURNIN = ROOT / "results" / "reference" / "h100-burnin-2026-11-26" / "burnin"
H200_PCI = "0000:00:06.0"  # the one GPU's bus id in the committed burn-ins


def railgauge(*args):
    return subprocess.run([RAILGAUGE, *map(str, args)], capture_output=True, text=True,
                          timeout=300)


class CompareRealTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def imported(self, tool, name):
        out = pathlib.Path(self.tmp.name) / name
        r = railgauge("import", tool, REAL / name, "--out", out)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        return out

    def compare(self, a, b, *extra):
        r = railgauge("compare", a, b, "--label", "a", "--label", "b", "--format", "json", *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        table = railgauge("compare", a, b, "--label", "a", "--label", "b", *extra)
        self.assertEqual(table.returncode, 0, table.stderr)
        return json.loads(r.stdout), table.stdout

    @staticmethod
    def point(c, key, **params):
        for p in c["points"]:
            if p["key"] == key and all(p["params"].get(k) == v for k, v in params.items()):
                return p
        raise AssertionError(f"no {key} {params}")

    def test_a_burnin_beside_a_cotenant_shows_each_gpus_drop(self):
        # The committed H200 burn-ins: healthy, then beside a process holding half the SMs. Each
        # GPU of each phase is a point of its own, matched to the same GPU of the other run.
        c, table = self.compare(H200_BURNIN / "healthy", H200_BURNIN / "cotenant")
        gemm = self.point(c, "gemm.burn", pci=H200_PCI, part="gpu")
        self.assertEqual(gemm["metric"], "metrics.tflops")
        values = [side["value"] for side in gemm["sides"]]
        self.assertAlmostEqual(values[0], 716.96, delta=0.01)
        self.assertAlmostEqual(values[1], 396.51, delta=0.01)
        hbm = self.point(c, "memory.burn", pci=H200_PCI, part="gpu")
        self.assertEqual(hbm["metric"], "metrics.bandwidth_gbytes_per_s")
        self.assertAlmostEqual(hbm["sides"][0]["value"], 4273.9, delta=0.1)
        self.assertAlmostEqual(hbm["sides"][1]["value"], 1978.1, delta=0.1)
        self.assertTrue(hbm["verdict"][-1].startswith("worse"), hbm["verdict"])
        self.assertRegex(table, r"gemm\.burn .*part=gpu.* tflops +717 +396\.5 +0\.553")
        self.assertRegex(table, r"memory\.burn .*part=gpu.* 4274 +1978 +0\.463")

    def test_every_dtypes_burn_and_the_pattern_test_show_the_cotenants_drop(self):
        # The H200 run of 2026-11-28: each GEMM dtype is a point of its own per GPU, and the HBM
        # pattern test's rate falls with the copy's; the host copies, which the co-tenant does not
        # touch, stay within 5 %.
        burnin = ROOT / "results" / "reference" / "h200-burnin-2026-11-28" / "burnin"
        c, table = self.compare(burnin / "healthy", burnin / "cotenant-15")
        for dtype, healthy, shared in (("bf16", 717.7, 397.6), ("fp64", 60.52, 29.34),
                                       ("tf32", 353.3, 209.6)):
            p = self.point(c, "gemm.burn", pci=H200_PCI, part="gpu", dtype=dtype)
            self.assertEqual([round(s["value"], 1 if dtype != "fp64" else 2)
                              for s in p["sides"]], [healthy, shared], dtype)
            # Judged against the spread of its seconds, not as a single sample.
            self.assertEqual(p["verdict"][-1], "worse", p["verdict"])
        pattern = self.point(c, "memory.pattern", pci=H200_PCI, part="gpu")
        self.assertLess(pattern["sides"][1]["value"] / pattern["sides"][0]["value"], 0.5)
        h2d = self.point(c, "offload.all_gpus_h2d", pci=H200_PCI, part="gpu")
        self.assertGreater(h2d["sides"][1]["value"] / h2d["sides"][0]["value"], 0.95)
        self.assertRegex(table, r"gemm\.burn +dtype=fp64 .*part=gpu.* tflops +60\.52 +29\.34 +0\.485")

    def edited_copy(self, run, name, edit):
        """A copy of a committed run with edit(record) applied to each record (None drops it)."""
        out = pathlib.Path(self.tmp.name) / name
        shutil.copytree(run, out)
        for records in out.rglob("records.jsonl"):
            kept = [edit(json.loads(line)) for line in records.read_text().splitlines() if line]
            records.write_text("".join(json.dumps(r) + "\n" for r in kept if r is not None))
        return out

    def test_burns_of_other_durations_are_matched_and_the_durations_said(self):
        # The H100 burn-in of 2026-11-26 burned bf16 for 48 s, the H200's of 2026-11-28 for 33 s
        # (the plan sizes each phase): the GEMM burn was "only in" each, compared nowhere.
        c, table = self.compare(H100_BURNIN / "cotenant", H200_BURNIN_28 / "cotenant-15")
        gemm = self.point(c, "gemm.burn", pci=H200_PCI, part="gpu", dtype="bf16")
        self.assertNotIn("duration_s", gemm["params"])
        self.assertEqual([round(s["value"], 1) for s in gemm["sides"]], [398.4, 397.6])
        context = {d["param"]: d["values"] for d in c["context"]}
        self.assertEqual(context["duration_s"], ["24.0, 48.0", "15.0, 16.0, 33.0"])
        self.assertIn("duration_s (a: 24.0, 48.0; b: 15.0, 16.0, 33.0)", table)
        gemm_family = next(f for f in c["families"] if f["group"] == "gemm")
        self.assertEqual(gemm_family["points"], 1)  # bf16; fp64 and tf32 only in b

    def test_one_gpus_all_reduce_is_compared_by_its_algorithm_bandwidth(self):
        # One rank's bus bandwidth is 0 by definition: "baseline is zero" hid the co-tenant's
        # 40 % slower all_reduce (7.99 ms against 13.36 ms of the 16 GiB buffer).
        c, table = self.compare(H200_BURNIN_28 / "healthy", H200_BURNIN_28 / "cotenant-15")
        p = self.point(c, "collectives.nccl_all_reduce", in_place="out_of_place")
        self.assertEqual(p["metric"], "metrics.algbw_gbytes_per_s")
        self.assertAlmostEqual(p["ratio"][0], 0.598, places=3)
        self.assertEqual(p["verdict"], ["worse"])
        self.assertNotIn("baseline is zero", table)
        # In place, one rank moves no data (16 GiB in 1.4 us): listed, not counted; counted, its
        # ratio of launch overheads lifted the family's 0.598 to 0.787.
        p = self.point(c, "collectives.nccl_all_reduce", in_place="in_place")
        self.assertEqual(p["verdict"], ["moves no data (one rank, in place)"])
        family = next(f for f in c["families"] if f["group"] == "collectives")
        self.assertEqual((family["points"], family["unrated"]), (1, 1))
        self.assertAlmostEqual(family["geomean_speedup"], 0.598, places=3)

    def test_one_gpu_against_sixteen_ranks_reads_one_metric_either_way(self):
        # The H200's one-GPU all_reduce against GCP's 16-rank one: the metric was the first
        # record's, so the table read algbw one way and busbw (0 on one rank) the other, and a
        # size one side lacked read that side's curve in the other metric.
        one = pathlib.Path(self.tmp.name) / "one"
        r = railgauge("import", "nccl-tests", ROOT / "tests" / "fixtures" / "nccl-tests" /
                      "h200" / "all_reduce.txt", "--out", one)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        many = self.imported("nccl-tests", "gcp_a3mega_h100_2node_tcpxo_all_reduce_EXTRACT.txt")
        forward, _ = self.compare(one, many)
        backward, _ = self.compare(many, one)
        for c in (forward, backward):
            metrics = {p["metric"] for p in c["points"] if p["key"] == "collectives.nccl_all_reduce"
                       and p["ratio"][0] is not None}
            self.assertEqual(metrics, {"metrics.algbw_gbytes_per_s"})
        for p in forward["points"]:
            if p["ratio"][0] is None:
                continue
            q = self.point(backward, p["key"], **p["params"])
            self.assertAlmostEqual(p["ratio"][0] * q["ratio"][0], 1.0, places=6, msg=p["params"])

    def test_bidirectional_perftest_runs_compare_their_both_ways_rate(self):
        # ib_write_bw -b holds its both-ways sum only: compare printed a header and no row.
        log = ROOT / "tests" / "fixtures" / "rdma" / "perftest" / \
            "ib_write_bw_bidir_ionic_4qp_client_published.txt"
        runs = []
        for name in ("a", "b"):
            out = pathlib.Path(self.tmp.name) / name
            r = railgauge("import", "perftest", log, "--out", out)
            self.assertIn(r.returncode, (0, 1), r.stderr)
            runs.append(out)
        c, table = self.compare(*runs)
        rated = [p for p in c["points"] if p["ratio"][0] is not None]
        self.assertEqual(len(rated), 23, table)
        self.assertEqual({p["metric"] for p in rated}, {"metrics.bidirectional_gbits_per_s"})

    def test_one_gpus_nccl_tests_are_compared_by_their_algorithm_bandwidth(self):
        # nccl-tests on one H200, two days: its import states no bus factor, and every one-GPU
        # all_reduce, all_gather, reduce_scatter and alltoall read "baseline is zero", uncounted.
        peers = ROOT / "results" / "reference"
        c, table = self.compare(peers / "h200-2026-11-26" / "peers" / "nccl-tests",
                                peers / "h200-2026-11-26b" / "peers" / "nccl-tests")
        p = self.point(c, "collectives.nccl_all_reduce", in_place="out_of_place",
                       size_bytes=16777216)
        self.assertEqual(p["metric"], "metrics.algbw_gbytes_per_s")
        self.assertIsNotNone(p["ratio"][0])
        family = next(f for f in c["families"] if f["group"] == "collectives")
        self.assertEqual(family["points"], 45)
        self.assertEqual((family["missing"], family["added"]), (16, 16))
        # The smallest size of four collectives rounds to 0 GB/s in nccl-tests' table; the rest
        # of the uncounted are in place.
        zero = [q for q in c["points"] if q["verdict"] == ["baseline is zero"]]
        self.assertEqual(len(zero), 6)
        self.assertEqual(family["unrated"], 51)

    def test_a_node_total_and_its_one_gpu_are_counted_once(self):
        # On one GPU the node's host copy and its GPU's are the same figure: the summary counted
        # it twice. The total, timed with repetitions, is counted; the GPU's one value without a
        # spread is listed only (it read "single sample" beside the total's "+-3.0 % worse").
        c, table = self.compare(H200_BURNIN_28 / "healthy", H200_BURNIN_28 / "cotenant-15")
        rows = [p for p in c["points"] if p["key"].startswith("offload.")]
        self.assertEqual(len(rows), 4)
        self.assertEqual({p["counted"] for p in rows if "part" in p["params"]}, {False})
        self.assertEqual({p["counted"] for p in rows if "part" not in p["params"]}, {True})
        offload = next(f for f in c["families"] if f["group"] == "offload")
        self.assertEqual((offload["points"], offload["worse"], offload["within_noise"]), (2, 1, 1))
        self.assertIn("2 one-GPU parts (part=gpu) are listed but not counted", table)

    def test_of_two_gpus_each_is_counted_not_their_total(self):
        # Two GPUs' host copies, the second 20 % slow in the candidate: the total hides half of
        # it, so each GPU is counted and the total is listed only.
        def two_gpus(scale):
            def edit(r):
                if r["key"].startswith("offload.all_gpus_") and r["metrics"].get("per_gpu"):
                    first = r["metrics"]["per_gpu"][0]
                    second = json.loads(json.dumps(first))
                    second.update(gpu=1, uuid=first["uuid"][:-2] + "07", pci="0000:00:07.0")
                    second["bandwidth_gbytes_per_s"] *= scale
                    r["metrics"]["per_gpu"].append(second)
                return r
            return edit
        before = self.edited_copy(H200_BURNIN_28 / "healthy", "two", two_gpus(1.0))
        after = self.edited_copy(H200_BURNIN_28 / "healthy", "two-slow", two_gpus(0.8))
        c, table = self.compare(before, after)
        slow = self.point(c, "offload.all_gpus_h2d", pci="0000:00:07.0", part="gpu")
        self.assertTrue(slow["counted"])
        self.assertEqual(slow["verdict"], ["worse (single sample, > 10 %)"])
        totals = [p for p in c["points"]
                  if p["key"].startswith("offload.") and "part" not in p["params"]]
        self.assertEqual({p["counted"] for p in totals}, {False})
        offload = next(f for f in c["families"] if f["group"] == "offload")
        self.assertEqual((offload["points"], offload["worse"]), (4, 2))

    def test_a_gpu_is_its_slot_renumbered_or_replaced(self):
        # The same slot (bus id) with another CUDA index, as after a GPU before it fell off the
        # bus, and another uuid, as after an RMA: matched, and the new uuid named.
        def moved(r):
            for gpu in r["metrics"].get("per_gpu", []) + r["metrics"].get("gpus", []):
                gpu["gpu"] = 3
                gpu["uuid"] = "GPU-00000000-0000-0000-0000-00000000beef"
            return r
        after = self.edited_copy(H200_BURNIN_28 / "cotenant-15", "rma", moved)
        before = self.edited_copy(H200_BURNIN_28 / "healthy", "before", lambda r: r)
        for run in (before, after):  # one machine (its id), as --match-device tells it
            for manifest in run.rglob("run.json"):
                m = json.loads(manifest.read_text())
                m["inventory"]["machine_id"] = "4c4c4544005a3510804bb9c04f4e3732"
                manifest.write_text(json.dumps(m))
        for extra in ((), ("--match-device",)):
            c, table = self.compare(before, after, *extra)
            gemm = self.point(c, "gemm.burn", pci=H200_PCI, part="gpu", dtype="bf16")
            self.assertEqual(gemm["verdict"], ["worse"], extra)
            self.assertNotIn("only in", table)
            context = {d["param"]: d["values"] for d in c["context"]}
            self.assertEqual(context[f"uuid at vm 4c4c4544 {H200_PCI}"][1],
                             "GPU-00000000-0000-0000-0000-00000000beef")
        # Without a machine id two runs named "vm" may be two machines: told apart by uuid.
        c, table = self.compare(H200_BURNIN_28 / "healthy",
                                self.edited_copy(H200_BURNIN_28 / "cotenant-15", "rma2", moved),
                                "--match-device")
        self.assertIn("only in", table)

    def test_gpus_of_another_board_match_by_index(self):
        # Bus ids of another board share no slot with the baseline's (a node of another vendor,
        # or records without bus ids): the GPUs match by CUDA index, as before slots, and
        # --ignore-param pci says so too.
        def other_board(r):
            for gpu in r["metrics"].get("per_gpu", []) + r["metrics"].get("gpus", []):
                gpu["pci"] = "0000:19:00.0"
            return r
        after = self.edited_copy(H200_BURNIN_28 / "cotenant-15", "board", other_board)
        for extra in ((), ("--ignore-param", "pci")):
            c, table = self.compare(H200_BURNIN_28 / "healthy", after, *extra)
            gemm = self.point(c, "gemm.burn", gpu=0, part="gpu", dtype="bf16")
            self.assertEqual(gemm["verdict"], ["worse"], extra)
            self.assertNotIn("pci", gemm["params"])

    def test_a_family_whose_figures_vanished_is_still_summed_up(self):
        # The candidate lost its HBM phases (a GPU that dropped off the bus before them): the
        # memory family vanished from the summary and the two points were nowhere counted.
        after = self.edited_copy(H200_BURNIN_28 / "cotenant-15", "nomem",
                                 lambda r: None if r["key"].startswith("memory.") else r)
        c, table = self.compare(H200_BURNIN_28 / "healthy", after)
        memory = next(f for f in c["families"] if f["group"] == "memory")
        self.assertEqual((memory["points"], memory["missing"]), (0, 2))
        self.assertIsNone(memory["geomean_speedup"])  # not the 1.0 of an empty mean
        self.assertRegex(table, r"memory +b vs a: - over 0 points .*; 2 only in a")
        # The other way round the two points are the candidate's only: counted too (they were in
        # no count of the console, markdown, page or JSON).
        c, table = self.compare(after, H200_BURNIN_28 / "healthy")
        memory = next(f for f in c["families"] if f["group"] == "memory")
        self.assertEqual((memory["points"], memory["added"]), (0, 2))
        self.assertRegex(table, r"memory +b vs a: - over 0 points .*; 2 only in b")

    def test_a_burns_noise_is_the_spread_of_its_settled_seconds(self):
        # The FP64 burn 1.5 % slower, second by second. Its noise was the spread of every second,
        # the warm-up's 63 TFLOP/s before the settled 60.5 included (+-1.7 %, "within noise");
        # the figure is the median of the settled seconds, and so is its noise now.
        def slower(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "fp64":
                for gpu in r["metrics"]["gpus"]:
                    gpu["tflops"] *= 0.985
                    for second in gpu["series"]:
                        second["tflops"] *= 0.985
            return r
        after = self.edited_copy(H200_BURNIN_28 / "healthy", "fp64slow", slower)
        c, _ = self.compare(H200_BURNIN_28 / "healthy", after)
        p = self.point(c, "gemm.burn", pci=H200_PCI, part="gpu", dtype="fp64")
        self.assertAlmostEqual(p["ratio"][0], 0.985, places=4)
        self.assertLess(p["sides"][0]["noise"] + p["sides"][1]["noise"], 0.01)
        self.assertEqual(p["verdict"], ["worse"])

    def test_burnins_of_two_gpu_models_say_so(self):
        # The healthy H100 beside the healthy H200, matched GPU by GPU: the H200's HBM read 1.416
        # x "better" and nothing named the models. A ratio of two models is no change of one.
        c, table = self.compare(H100_BURNIN / "healthy", H200_BURNIN_28 / "healthy")
        said = ("the inputs ran on different GPUs (a: NVIDIA H100 80GB HBM3; b: NVIDIA H200): "
                "a ratio compares two models, not a change of one")
        self.assertTrue(c["hint"].startswith(said), c["hint"])
        self.assertIn("WARNING: " + said, table)
        # One model on both sides says nothing of models.
        c, _ = self.compare(H200_BURNIN_28 / "healthy", H200_BURNIN_28 / "cotenant-15")
        self.assertNotIn("different GPUs", c.get("hint", ""))

    def test_a_hotter_gpu_is_worse_and_judged_by_its_own_seconds(self):
        # --metric of a telemetry figure: a GPU 1 C hotter read "better", against the TFLOP/s
        # spread (+-0.9 %) rather than the temperature's own seconds.
        metric = "metrics.telemetry.during.temperature_c.median"

        def hotter(by):
            def edit(r):
                if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                    during = r["metrics"]["gpus"][0]["telemetry"]["during"]
                    during["temperature_c"]["median"] += by
                    for second in during["series"]:
                        second["temperature_c"] += by
                return r
            return edit
        for by, verdict in ((1, "within noise"), (6, "worse")):
            after = self.edited_copy(H200_BURNIN_28 / "healthy", f"hotter{by}", hotter(by))
            c, _ = self.compare(H200_BURNIN_28 / "healthy", after, "--metric", metric)
            p = self.point(c, "gemm.burn", pci=H200_PCI, part="gpu", dtype="bf16")
            self.assertFalse(p["higher_is_better"])
            self.assertEqual(p["verdict"], [verdict], (by, p))
            # The noise is the spread of the GPU's temperature second by second.
            seconds = sorted(s["temperature_c"] for s in json.loads(
                next((H200_BURNIN_28 / "healthy").iterdir()).joinpath("records.jsonl")
                .read_text().splitlines()[0])["metrics"]["gpus"][0]["telemetry"]["during"]
                ["series"])
            def percentile(q):
                rank = q * (len(seconds) - 1)
                lo = int(rank)
                return seconds[lo] + (seconds[min(lo + 1, len(seconds) - 1)] - seconds[lo]) * (
                    rank - lo)
            self.assertAlmostEqual(p["sides"][0]["noise"],
                                   (percentile(0.9) - percentile(0.1)) / (2 * percentile(0.5)),
                                   places=6)

    def test_a_figure_derived_from_the_time_keeps_the_records_noise(self):
        # --metric metrics.efficiency of a GPU 8 % slow: with the noise kept for the stated
        # figure and telemetry alone, it lost its band and read "single sample", within the
        # 10 % tolerance. Efficiency is TFLOP/s over a peak: the times' noise is its noise.
        tmp = pathlib.Path(self.tmp.name)
        for name, extra in (("fa", []), ("fb", ["--slow", "node01:0"])):
            subprocess.run([sys.executable, str(ROOT / "tests" / "analysis" / "check" /
                                                "make_fleet.py"), str(tmp / name), "--nodes",
                            "1", "--gpus", "1", *extra], check=True, capture_output=True,
                           timeout=120)
        c, _ = self.compare(tmp / "fa" / "node01", tmp / "fb" / "node01", "--metric",
                            "metrics.efficiency")
        verdicts = {p["verdict"][0] for p in c["points"]}
        self.assertEqual(verdicts, {"worse"}, c["points"][0])

    def test_one_node_against_ten_nodes_matches_every_collective_and_size(self):
        # The same cluster's 8-GPU node and its 10-node, 80-rank run: the scale differs, the
        # collectives and sizes are the same (all_gather's sizes rounded to 80 ranks).
        one = self.imported("nccl-tests", "xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log")
        ten = self.imported("nccl-tests", "xxrjun_cluster01_h100_10node_8gpu_5coll_healthy.log")
        c, table = self.compare(one, ten)
        self.assertEqual(c["matched"], len(c["points"]))
        self.assertEqual(len(c["points"]), 100)
        self.assertEqual(c["hint"], "")
        context = {d["param"]: d["values"] for d in c["context"]}
        self.assertEqual(context["world_size"], ["8", "80"])
        self.assertEqual(context["group_hosts"], ["1", "10"])
        p = self.point(c, "collectives.nccl_all_reduce", size_bytes=8589934592,
                       in_place="out_of_place")
        self.assertAlmostEqual(p["ratio"][0], 316.3 / 480.8, places=3)
        # The text log's mean, no -I: no spread, but 34 % is past the 10 % tolerance.
        self.assertEqual(p["verdict"], ["worse (single sample, > 10 %)"])
        self.assertIn("world_size (a: 8; b: 80)", table)
        self.assertNotIn("only in", table)

    def test_gpu_far_from_the_nic_is_less_than_half_the_near_one(self):
        near = self.imported("perftest", READ_BW_GPU0)
        far = self.imported("perftest",
                            "moc_oc_h100_roce_ib_read_bw_8qp_mlx5_2_gpu2_client_slow.log")
        c, table = self.compare(near, far)
        self.assertEqual(c["matched"], 23)
        context = {d["param"]: d["values"] for d in c["context"]}
        self.assertEqual(context["memory"], ["gpu:0", "gpu:2"])  # from perftest's CUDA lines
        self.assertIn("source", context)  # the file paths differ, the points do not
        p = self.point(c, "rdma.read_bw", size_bytes=8388608)
        self.assertAlmostEqual(p["ratio"][0], 104.8 / 226.2, places=2)
        self.assertIn("Every point has:", table)
        self.assertIn("link_layer=Ethernet", table)

    def test_single_samples_far_apart_are_worse_and_close_ones_have_no_verdict(self):
        # Two clusters' 2-node alltoall and sendrecv, nccl-tests text logs (one average per size):
        # cluster00 runs at a quarter and a third of cluster01's busbw, which a user must see.
        fast = self.imported("nccl-tests",
                             "xxrjun_cluster01_h100_2node_8gpu_alltoall_sendrecv_healthy.log")
        slow = self.imported("nccl-tests",
                             "xxrjun_cluster00_h100_2node_8gpu_alltoall_sendrecv_healthy.log")
        c, table = self.compare(fast, slow)
        p = self.point(c, "collectives.nccl_alltoall", size_bytes=17179869184,
                       in_place="out_of_place")
        self.assertAlmostEqual(p["ratio"][0], 23.61 / 92.04, places=3)
        self.assertEqual(p["verdict"], ["worse (single sample, > 10 %)"])
        family = {s["group"]: s for s in c["families"]}["collectives"]
        self.assertEqual((family["worse"], family["single_sample"]), (12, 0))
        self.assertIn("12 worse, 0 within noise, 0 single samples within 10 %", table)
        # The same log against itself: every difference is 0, within the tolerance.
        c, _ = self.compare(fast, fast)
        family = {s["group"]: s for s in c["families"]}["collectives"]
        self.assertEqual((family["worse"], family["better"], family["single_sample"]), (0, 0, 12))
        # A tolerance above the difference takes the verdict back.
        c, _ = self.compare(fast, slow, "--single-sample-tolerance", "80")
        family = {s["group"]: s for s in c["families"]}["collectives"]
        self.assertEqual(family["single_sample"], 12)

    def test_small_sizes_compare_by_their_times_not_their_rounded_rates(self):
        # Two 2-node H100 all_reduce logs, EFA and GPUDirect-TCPXO, 16 ranks each. nccl-tests
        # prints rates with two decimals: at 256 B the busbw read 0.01 against 0.00, a ratio of
        # 0 that made the family's geometric mean 0.000; at 512 B 0.01 against 0.01, "1.000"
        # where the times (66.49 and 126.6 us) say TCPXO took 1.9 times as long.
        efa = self.imported("nccl-tests", "keitaw_aws_p5_h100_2node_efa_all_reduce_tagged.log")
        tcpxo = self.imported("nccl-tests", "gcp_a3mega_h100_2node_tcpxo_all_reduce_EXTRACT.txt")
        c, table = self.compare(efa, tcpxo)
        for size, efa_us, tcpxo_us in ((256, 71.01, 123.6), (512, 66.49, 126.6)):
            p = self.point(c, "collectives.nccl_all_reduce", size_bytes=size,
                           in_place="out_of_place")
            self.assertAlmostEqual(p["ratio"][0], efa_us / tcpxo_us, places=3)
        # Large sizes keep the rates the log printed: 16 MiB out of place, 111.13 against 32.18.
        p = self.point(c, "collectives.nccl_all_reduce", size_bytes=16777216,
                       in_place="out_of_place")
        self.assertAlmostEqual(p["ratio"][0], 32.18 / 111.13, places=3)
        family = {s["group"]: s for s in c["families"]}["collectives"]
        self.assertGreater(family["geomean_speedup"], 0.5)
        self.assertLess(family["geomean_speedup"], 0.6)
        self.assertNotIn(" 0.000 ", table)

    def test_a_run_that_aborted_is_named_as_why_points_are_missing(self):
        # The 2-node alltoall that a peer's exit aborted after 20 sizes, beside a whole one: the
        # warning blamed other devices or other points, and the abort was a row far below.
        whole = self.imported("nccl-tests",
                              "xxrjun_cluster00_h100_2node_8gpu_alltoall_sendrecv_healthy.log")
        aborted = self.imported("nccl-tests",
                                "xxrjun_h100_2node_4gpu_alltoall_abort_sendrecv_degrading.log")
        c, table = self.compare(whole, aborted, "--ignore-param", "group_size", "--ignore-param",
                                "world_size")
        self.assertIn("b holds 1 point that failed or broke", c["hint"])
        self.assertIn("b holds 1 point that failed or broke", table.splitlines()[1])
        self.assertIn("error in b", table)

    def test_different_tools_say_why_nothing_matches(self):
        nccl = self.imported("nccl-tests", "xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log")
        perf = self.imported("perftest", READ_BW_GPU0)
        c, table = self.compare(nccl, perf)
        self.assertEqual(c["matched"], 0)
        self.assertIn("different keys", c["hint"])
        self.assertTrue(table.splitlines()[1].startswith("WARNING: only 0 of"))

    def test_a_run_that_cannot_be_read_is_said_in_every_output(self):
        # The committed H200 runs twice, one run's records lost on b: said on stderr only, and
        # the JSON, markdown and report counted it among the runs compared.
        runs = ROOT / "results" / "reference" / "h200-2026-11-26" / "runs"
        out = pathlib.Path(self.tmp.name)
        shutil.copytree(runs, out / "a")
        shutil.copytree(runs, out / "b")
        lost = next((out / "b" / "gemm-size").glob("*/records.jsonl"))
        lost.unlink()
        c, table = self.compare(out / "a", out / "b")
        self.assertTrue(any(p.startswith("b: ") and str(lost) in p for p in c["problems"]),
                        c["problems"])
        self.assertIn(f"problem: b: {lost}", table)
        # A records file cut inside its first line is no run compared: "b (15 runs)" counted it.
        cut = next((out / "b" / "offload").glob("*/records.jsonl"))
        cut.write_text(cut.read_text()[:40])
        c, table = self.compare(out / "a", out / "b")
        self.assertIn("Comparison of a (15 runs), b (13 runs)", table)
        self.assertNotIn(str(cut.parent), c["inputs"][1])
        self.assertTrue(any(str(cut) in p for p in c["problems"]), c["problems"])
        r = railgauge("compare", out / "a", out / "b", "--json", out / "c.json")
        r = railgauge("report", out / "c.json", "--markdown", out / "r.md")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(str(lost), (out / "r.md").read_text())

    def test_railgauge_beside_nccl_tests_names_the_flag_that_matches_them(self):
        # railgauge's NCCL records say group_type=world, an nccl-tests import nothing: 0 of 208
        # points matched, and the warning offered no flag (group_type is what a point is).
        ref = ROOT / "results" / "reference" / "h200-2026-11-26"
        c, _ = self.compare(ref / "runs" / "collectives-nccl", ref / "peers" / "nccl-tests")
        self.assertEqual(c["matched"], 0)
        self.assertIn("--ignore-param group_type", c["hint"])
        c, _ = self.compare(ref / "runs" / "collectives-nccl", ref / "peers" / "nccl-tests",
                            "--ignore-param", "group_type")
        self.assertGreater(c["matched"], 0)

    def test_no_size_is_judged_across_a_wide_gap(self):
        # b keeps all_reduce at 32 MiB and 16 GiB of a's real sweep, a's own figures: a line
        # between them judged ten sizes b never measured "worse".
        full = self.imported("nccl-tests", "xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log")
        ends = pathlib.Path(self.tmp.name) / "ends"
        shutil.copytree(full, ends)
        for records in ends.glob("*/records.jsonl"):
            kept = [line for line in records.read_text().splitlines()
                    if json.loads(line)["key"] != "collectives.nccl_all_reduce"
                    or json.loads(line)["params"].get("size_bytes") in (33554432, 17179869184)]
            records.write_text("\n".join(kept) + "\n")
        c, _ = self.compare(full, ends)
        worse = [p for p in c["points"] if p["key"] == "collectives.nccl_all_reduce"
                 and p["verdict"][0].startswith("worse")]
        self.assertEqual(worse, [])
        self.assertEqual(self.point(c, "collectives.nccl_all_reduce", size_bytes=134217728,
                                    in_place="in_place")["verdict"], ["only in a"])

    def test_a_loaded_probe_is_compared_by_its_latency(self):
        # The committed Soft-RoCE fabric run, and a copy whose bulk-loaded probe (1 QP) took twice
        # as long per round trip: compare read the probe's load bandwidth, the same in both, with
        # its round trips' p50..p90 as noise (+-26454 %), and could never say worse.
        fabric = ROOT / "results" / "reference" / "softroce-2026-11-29" / "runs_fabric"
        slower = pathlib.Path(self.tmp.name) / "slower"
        shutil.copytree(fabric, slower)
        for records in slower.glob("*/*/records.jsonl"):
            lines = []
            for line in records.read_text().splitlines():
                r = json.loads(line)
                if (r["key"] == "rdma.latency_under_load" and r["params"].get("role") == "probe"
                        and r["params"]["load"] == "bulk" and r["params"]["qps"] == 1):
                    r["metrics"]["latency"] = {k: v * 2 if k.endswith("_s") else v
                                               for k, v in r["metrics"]["latency"].items()}
                lines.append(json.dumps(r))
            records.write_text("\n".join(lines) + "\n")
        c, table = self.compare(fabric, slower)
        probe = self.point(c, "rdma.latency_under_load", role="probe", load="bulk", qps=1)
        self.assertEqual(probe["metric"], "metrics.latency.p50_s")
        self.assertFalse(probe["higher_is_better"])
        self.assertLess(probe["sides"][0]["noise"], 0.3)  # the body's span, not the tail's
        self.assertTrue(probe["verdict"][0].startswith("worse"), probe["verdict"])
        other = self.point(c, "rdma.latency_under_load", role="probe", load="incast", qps=4)
        self.assertEqual(other["verdict"], ["within noise"])
        # Asked for, the load bandwidth has no noise borrowed from the round trips.
        c, _ = self.compare(fabric, slower, "--metric", "metrics.bandwidth_gbits_per_s")
        load = self.point(c, "rdma.latency_under_load", role="probe", load="bulk", qps=1)
        self.assertIsNone(load["sides"][0].get("noise"))

    def test_two_runs_of_one_script_with_stalled_round_trips_are_within_noise(self):
        # The committed Soft-RoCE rep1 and rep2, the same script run twice: rep1's write_lat
        # stalled (p50 11.5 us, p90 40 ms) and its median sat 22 % above rep2's. Its p90 made
        # +-347120 %; the spread below the median alone, +-9.5 %, read "better".
        reps = ROOT / "results" / "reference" / "softroce-2026-11-29"
        c, _ = self.compare(reps / "rep1" / "runs", reps / "rep2" / "runs")
        self.assertEqual(self.point(c, "rdma.write_lat")["metric"], "metrics.latency.p50_s")
        for key in ("rdma.write_lat", "rdma.read_lat", "rdma.send_lat"):
            for p in (p for p in c["points"] if p["key"] == key):
                self.assertEqual(p["verdict"], ["within noise"], (key, p["params"], p["sides"]))
                self.assertLess(p["sides"][0]["noise"], 1.0, (key, p["sides"]))

    def test_bare_metal_against_vm_of_other_sizes_reads_each_off_the_others_curve(self):
        # The same two H200 nodes over RoCE, bare metal (1, 3, 9 GiB) and in VMs (32 MB to
        # 7.6 GB, its own -b/-e/-f): no size in common, yet the VMs' 2.7 and 7.6 GB and the bare
        # metal's 1 and 3 GiB each lie inside the other's sweep.
        bm = self.imported("nccl-tests", "issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt")
        vm = self.imported("nccl-tests", "issue256_h200_2node_roce_vm_all_reduce_slow_EXTRACT.txt")
        c, table = self.compare(bm, vm)
        self.assertEqual(c["matched"], 0)
        self.assertIn("8 comparison(s) of a size that only one input measured", c["hint"])
        # The sizes each input holds, smallest first (as text, 100663296 came before 33554432).
        self.assertIn("b: 33554432, 100663296, 301989888, ...", c["hint"])
        p = self.point(c, "collectives.nccl_all_reduce", size_bytes=8153726976,
                       in_place="in_place")
        self.assertIsNone(p["sides"][0])
        # Bare metal between 3 GiB (471.8) and 9 GiB (486.8), linear in log size.
        self.assertAlmostEqual(p["interpolated"][0]["value"], 484.5, places=1)
        self.assertAlmostEqual(p["ratio"][0], 52.1 / 484.5, places=3)
        p = self.point(c, "collectives.nccl_all_reduce", size_bytes=9663676416,
                       in_place="in_place")
        self.assertEqual(p["verdict"], ["only in a"])  # past the VMs' largest: not extrapolated
        family = {s["group"]: s for s in c["families"]}["collectives"]
        self.assertEqual(family["points"], 8)
        self.assertEqual(family["read_off_curve"], 8)  # no size in common: all 8, and said so
        self.assertIn("8 of them read one side off a curve (≈)", table)
        self.assertLess(family["geomean_speedup"], 0.12)  # the VMs' tenth of bare metal
        self.assertIn("≈484.5", table)

    def test_latency_noise_comes_from_perftest_spread(self):
        lat = self.imported("perftest", "moc_oc_h100_roce_ib_read_lat_gpumem_client_healthy.log")
        tail = self.imported("perftest", "moc_oc_roce_ib_read_lat_hostmem_client_latency_tail.log")
        c, _ = self.compare(lat, tail)
        self.assertGreater(c["matched"], 0)
        for p in c["points"]:
            if all(p["sides"]):
                self.assertIsNotNone(p["sides"][0]["noise"], p)
                self.assertNotEqual(p["verdict"], ["single sample"])
        # The tail log's 524288 B point: its median is 1 % above its minimum and its maximum 84 x
        # the median, so its stdev (70.75 us about a 33.62 us mean) made +-270 % around a 7 %
        # difference of medians, "within noise". The body, read below the median, is the band.
        p = self.point(c, "rdma.read_lat", size_bytes=524288)
        self.assertAlmostEqual(p["ratio"][0], 2.596 / 2.782, places=3)
        self.assertLess(p["sides"][1]["noise"], 0.01)
        self.assertEqual(p["verdict"], ["better"])

    def test_one_batch_of_round_trips_is_as_noisy_as_its_round_trips(self):
        # railgauge's own RDMA latency points (the committed Soft-RoCE run, two repetitions) time
        # one batch of 2,000 round trips: one sample, whose p10 and p90 are itself, read +-0.0 %
        # and a 1.4 % move was "worse". The round trips' p50..p90 is the spread (17 % here).
        runs = ROOT / "results" / "reference" / "softroce-2026-11-29"
        c, table = self.compare(runs / "rep1", runs / "rep2")
        p = self.point(c, "rdma.read_lat", mode="loopback")
        self.assertAlmostEqual(p["ratio"][0], 1.014, places=3)
        self.assertGreater(p["sides"][0]["noise"], 0.15)
        self.assertEqual(p["verdict"], ["within noise"])
        self.assertNotIn("±0.0%", table)

    def test_a_metric_is_named_as_the_table_names_it_or_refused(self):
        # --metric tflops (the table's column) compared nothing, said nothing and exited 0.
        healthy, shared = H200_BURNIN_28 / "healthy", H200_BURNIN_28 / "cotenant-15"
        c, _ = self.compare(healthy, shared, "--metric", "tflops")
        self.assertEqual({p["metric"] for p in c["points"]}, {"metrics.tflops"})
        r = railgauge("compare", healthy, shared, "--metric", "bogus")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("no record of the inputs holds the metric 'metrics.bogus'", r.stderr)
        # The tolerance is a percentage, and its fix says so (it offered 0.1, read as 0.1 %).
        r = railgauge("compare", healthy, shared, "--single-sample-tolerance", "-5")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("give a percentage above 0, e.g. --single-sample-tolerance 10", r.stderr)
        # A comparison's JSON among run directories was read as records, exit 0.
        out = pathlib.Path(self.tmp.name)
        railgauge("compare", healthy, shared, "--json", out / "c.json")
        r = railgauge("report", out / "c.json", healthy, "--html", out / "r.html")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("a JSON file among 2 inputs", r.stderr)


if __name__ == "__main__":
    RAILGAUGE = sys.argv.pop(1)
    unittest.main()
