"""scripts/copy_vs_torch.py and scripts/peer_records.py without torch or a GPU: which railgauge
records get a torch peer, how bytes and ratios are counted, and the peer records written (checked
against results/schema/record.schema.json). The torch measurement itself is replaced by a fake
with known times; torch is made unimportable, so the modules are shown to load without it.

Usage: copy_vs_torch_test.py SOURCE_DIR [TestName ...]
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_script_tests  # noqa: E402

sys.modules["torch"] = None  # `import torch` now raises ImportError, as on a machine without it

SOURCE = None
copy_vs_torch = peer_records = gemm_vs_torch = validate_run = peer_pairs = None


def record(key, status="ok", **params):
    """A railgauge record as the HBM and offload benchmarks write them."""
    size = params.get("size_bytes", 1 << 20)
    params.setdefault("size_bytes", size)
    params.setdefault("gpu", 0)
    factor = 2 if key in ("memory.hbm_copy", "memory.hbm_memcpy_d2d", "offload.bidir") else 1
    metrics = {}
    if status == "ok":
        metrics = {"bandwidth_gbytes_per_s": 100.0, "bytes_per_call": factor * size, "batch": 4,
                   "time_s": {"n": 25, "median": factor * size / 100e9}, "timer": "cuda_event"}
    return {"schema": "railgauge.record/1", "run": "2026-11-22T00-00-00Z-node", "host": "node",
            "rank": 0, "key": key, "params": params, "axes": dict(params),
            "device": {"gpu": "GPU-x"}, "metrics": metrics, "status": status,
            "reason": None if status == "ok" else "no CUDA driver",
            "time_utc": "2026-11-22T00:00:00.000Z"}


class FakeMeasurer:
    """Returns fixed per-call times instead of timing torch; records what it was asked."""

    def __init__(self, seconds=1e-3, verified=True, fail_on=None):
        self.seconds, self.verified, self.fail_on = seconds, verified, fail_on
        self.points = []

    def measure(self, point):
        self.points.append(point)
        if self.fail_on == point.source["key"]:
            raise RuntimeError("CUDA out of memory")
        out = {"samples_s": [self.seconds] * point.samples, "verified": self.verified,
               "cpu_pu": 3}
        if point.kind == "bidir":
            out["lanes_s"] = {"h2d": [self.seconds / 2] * point.samples,
                              "d2h": [self.seconds] * point.samples}
        return out


def write_run(directory, records):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "records.jsonl"), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    return directory


class PeerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge_peer_")
        self.addCleanup(self.tmp.cleanup)

    def compare(self, records, measurer, max_samples=100):
        with peer_records.PeerRun(self.tmp.name, "torch-copy", host="node") as run:
            written = copy_vs_torch.compare(records, measurer, run, "0.0-test", max_samples,
                                            out=io.StringIO())
        with open(run.path) as f:
            on_disk = [json.loads(line) for line in f]
        self.assertEqual(on_disk, written)
        schemas, store = validate_run.load_schemas()
        check = validate_run.validator("record", schemas, store)
        for r in on_disk:
            problems = [e.message for e in check.iter_errors(r)]
            self.assertEqual(problems, [], r)
        return on_disk

    def test_modules_load_without_torch(self):
        self.assertIsNone(sys.modules["torch"])
        with self.assertRaises(ImportError):
            import torch  # noqa: F401
        self.assertTrue(callable(copy_vs_torch.main))
        self.assertTrue(callable(gemm_vs_torch.main))

    def test_only_ok_records_of_mapped_keys_are_selected(self):
        run = write_run(os.path.join(self.tmp.name, "run"), [
            record("memory.hbm_copy"),
            record("memory.hbm_read"),
            record("memory.hbm_copy", status="waived"),
            record("offload.h2d", host_memory="pinned"),
            record("offload.zero_copy_read"),
            record("offload.with_gemm"),
            record("memory.hbm_memcpy_d2d"),
            record("offload.bidir"),
            record("gemm.cublaslt"),
        ])
        keys = [r["key"] for r in copy_vs_torch.select([run], copy_vs_torch.MAPPED)]
        self.assertEqual(keys, ["memory.hbm_copy", "offload.h2d", "memory.hbm_memcpy_d2d",
                                "offload.bidir"])
        only = copy_vs_torch.select([run], ["offload.h2d"])
        self.assertEqual([r["key"] for r in only], ["offload.h2d"])

    def test_points_count_bytes_and_time_like_railgauge(self):
        mib = 1 << 20
        d2d = copy_vs_torch.Point(record("memory.hbm_copy", size_bytes=mib), 100)
        self.assertEqual((d2d.kind, d2d.bytes_per_call, d2d.timer),
                         ("d2d", 2 * mib, "cuda_graph"))
        h2d = copy_vs_torch.Point(record("offload.h2d", size_bytes=mib, host_memory="pinned",
                                         cpu_pu=5), 100)
        self.assertEqual((h2d.kind, h2d.bytes_per_call, h2d.timer, h2d.cpu_pu),
                         ("h2d", mib, "cuda_graph", 5))
        pageable = copy_vs_torch.Point(record("offload.d2h", size_bytes=mib,
                                              host_memory="pageable"), 100)
        self.assertFalse(pageable.pinned)
        self.assertEqual(pageable.timer, "host_perf_counter")
        self.assertIn("pageable", pageable.torch_op)
        bidir = copy_vs_torch.Point(record("offload.bidir", size_bytes=mib), 100)
        self.assertEqual((bidir.bytes_per_call, bidir.timer), (2 * mib, "cuda_event_lanes"))
        # The record's batch and sample count, within railgauge's limits and --max-samples.
        self.assertEqual((d2d.batch, d2d.samples), (4, 25))
        self.assertEqual(copy_vs_torch.Point(record("memory.hbm_copy"), 12).samples, 12)
        few = record("memory.hbm_copy")
        few["metrics"]["time_s"]["n"] = 3
        few["metrics"]["batch"] = 100000
        self.assertEqual((copy_vs_torch.Point(few, 100).samples,
                          copy_vs_torch.Point(few, 100).batch), (10, copy_vs_torch.MAX_BATCH))
        # torch times at least the span railgauge's GPU point did (issue 55), none without one.
        self.assertEqual(d2d.least_timed_s, 0.0)
        sustained = record("memory.hbm_copy")
        sustained["metrics"]["steady_state"] = {"least_timed_s": 0.2, "timed_s": 0.23}
        self.assertEqual(copy_vs_torch.Point(sustained, 100).least_timed_s, 0.2)

    def test_ratio_is_ours_over_torch_in_the_peer_record(self):
        gb = 10 ** 9
        source = record("offload.h2d", size_bytes=gb, host_memory="pinned", placement="near")
        source["metrics"]["bandwidth_gbytes_per_s"] = 50.0
        (peer,) = self.compare([source], FakeMeasurer(seconds=0.01))  # torch: 100 GB/s
        self.assertEqual(peer["key"], "peer.torch_copy")
        self.assertEqual(peer["status"], "ok")
        self.assertEqual(peer["params"]["peer_of"], "offload.h2d")
        self.assertEqual(peer["params"]["size_bytes"], gb)
        self.assertEqual(peer["params"]["placement"], "near")
        self.assertEqual(peer["params"]["torch_version"], "0.0-test")
        self.assertEqual(peer["params"]["torch_cpu_pu"], 3)
        self.assertEqual(peer["device"], source["device"])
        m = peer["metrics"]
        self.assertAlmostEqual(m["bandwidth_gbytes_per_s"], 100.0)
        self.assertAlmostEqual(m["ours_gbytes_per_s"], 50.0)
        self.assertAlmostEqual(m["ours_vs_torch"], 0.5)
        self.assertEqual((m["batch"], m["time_s"]["n"], m["timer"]), (4, 25, "cuda_graph"))
        self.assertTrue(m["verified"])

    def test_device_copy_counts_read_and_write(self):
        source = record("memory.hbm_memcpy_d2d", size_bytes=10 ** 9)
        source["metrics"]["bandwidth_gbytes_per_s"] = 300.0
        (peer,) = self.compare([source], FakeMeasurer(seconds=0.01))  # 2e9 bytes in 10 ms
        self.assertAlmostEqual(peer["metrics"]["bandwidth_gbytes_per_s"], 200.0)
        self.assertAlmostEqual(peer["metrics"]["ours_vs_torch"], 1.5)
        self.assertEqual(peer["params"]["torch_op"], "copy_")

    def test_bidir_reports_each_direction(self):
        source = record("offload.bidir", size_bytes=10 ** 9)
        source["metrics"].update({"h2d_gbytes_per_s": 40.0, "d2h_gbytes_per_s": 30.0})
        (peer,) = self.compare([source], FakeMeasurer(seconds=0.02))
        m = peer["metrics"]
        self.assertAlmostEqual(m["bandwidth_gbytes_per_s"], 100.0)  # 2e9 bytes, slower lane
        self.assertAlmostEqual(m["h2d_gbytes_per_s"], 100.0)
        self.assertAlmostEqual(m["d2h_gbytes_per_s"], 50.0)
        self.assertAlmostEqual(m["sum_gbytes_per_s"], 150.0)
        self.assertEqual((m["ours_h2d_gbytes_per_s"], m["ours_d2h_gbytes_per_s"]), (40.0, 30.0))
        self.assertEqual(m["timer"], "cuda_event_lanes")

    def test_wrong_copy_fails_and_errors_do_not_stop_the_run(self):
        records = [record("offload.d2h"), record("memory.hbm_copy"), record("offload.h2d")]
        peers = self.compare(records, FakeMeasurer(fail_on="memory.hbm_copy"))
        self.assertEqual([p["status"] for p in peers], ["ok", "error", "ok"])
        self.assertIn("CUDA out of memory", peers[1]["reason"])
        (bad,) = self.compare([record("offload.d2h")], FakeMeasurer(verified=False))
        self.assertEqual(bad["status"], "failed")
        self.assertIn("destination", bad["reason"])

    def test_changed_byte_accounting_is_an_error_not_a_ratio(self):
        source = record("memory.hbm_copy", size_bytes=4096)
        source["metrics"]["bytes_per_call"] = 4096  # railgauge counting the copy once
        measurer = FakeMeasurer()
        (peer,) = self.compare([source], measurer)
        self.assertEqual(peer["status"], "error")
        self.assertIn("byte accounting", peer["reason"])
        self.assertEqual(measurer.points, [])  # nothing was measured

    def test_main_exits_2_with_a_message(self):
        ok_run = write_run(os.path.join(self.tmp.name, "ok"), [record("memory.hbm_copy")])
        waived_run = write_run(os.path.join(self.tmp.name, "waived"),
                               [record("memory.hbm_copy", status="waived")])
        cases = [([ok_run], "PyTorch is not installed"),
                 ([waived_run], "no ok record"),
                 ([os.path.join(self.tmp.name, "missing")], "cannot read the run's records"),
                 ([ok_run, "--keys", "memory.hbm_read"], "no torch peer"),
                 ([ok_run, "--interleave", "2"], "at least 3 rounds"),
                 ([ok_run, "--interleave", "3"], "needs --railgauge BIN")]
        for argv, message in cases:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(copy_vs_torch.main(argv + ["--out", self.tmp.name]), 2, argv)
            self.assertIn(message, err.getvalue(), argv)

    def test_interleaved_rounds_alternate_and_give_the_pair(self):
        order = []

        class Measurer(FakeMeasurer):
            def measure(self, point):
                order.append("torch")
                return super().measure(point)

        def railgauge(source):
            order.append("railgauge")
            return 1.25e-3  # torch takes 1e-3 s per call: railgauge 0.8x, steady

        src = record("memory.hbm_memcpy_d2d", size_bytes=1 << 30)
        with peer_records.PeerRun(self.tmp.name, "torch-copy", host="node") as run:
            (rec,) = copy_vs_torch.compare([src], Measurer(seconds=1e-3), run, "0.0-test", 100,
                                           out=io.StringIO(), rounds=3, ours_runner=railgauge)
        self.assertEqual(order, ["railgauge", "torch"] * 3)
        m = rec["metrics"]
        self.assertEqual((m["rounds"], m["verdict"]), (3, "railgauge slower"))
        self.assertAlmostEqual(m["ours_vs_torch"], 0.8)
        self.assertEqual(m["time_s"]["n"], 3 * 25)  # every round's samples, pooled
        schemas, store = validate_run.load_schemas()
        check = validate_run.validator("record", schemas, store)
        self.assertEqual([e.message for e in check.iter_errors(rec)], [])

    def test_one_point_command_pins_the_records_axes(self):
        src = record("memory.hbm_copy", size_bytes=4096)
        src["axes"] = {"gpu": 0, "size_bytes": 4096}
        cmd = peer_pairs.one_point_command("rg", src, "out", ["--time-budget", "0.2"])
        self.assertEqual(cmd, ["rg", "memory", "--filter", "memory.hbm_copy", "--out", "out",
                               "-q", "-a", "gpu=0", "-a", "size_bytes=4096", "--time-budget",
                               "0.2"])

    def test_railgauge_runner_reads_the_points_time_or_says_why_not(self):
        fake = os.path.join(self.tmp.name, "railgauge")
        with open(fake, "w") as f:  # writes the point it was given, 2 ms per call
            f.write("#!/bin/sh\nout=$5; mkdir -p $out/r1\n"
                    "echo '{\"key\": \"'$3'\", \"axes\": {\"size_bytes\": 64}, "
                    "\"status\": \"'${RG_STATUS:-ok}'\", \"reason\": null, "
                    "\"metrics\": {\"time_s\": {\"median\": 0.002}}}' > $out/r1/records.jsonl\n")
        os.chmod(fake, 0o755)
        src = record("memory.hbm_copy", size_bytes=64)
        src["axes"] = {"size_bytes": 64}
        runner = peer_pairs.RailgaugeRunner(fake, os.path.join(self.tmp.name, "rounds"))
        self.assertEqual(runner(src), 0.002)
        os.environ["RG_STATUS"] = "waived"
        try:
            with self.assertRaisesRegex(ValueError, "no ok record of the point"):
                runner(src)
        finally:
            del os.environ["RG_STATUS"]
        self.assertEqual(sorted(os.listdir(os.path.join(self.tmp.name, "rounds"))),
                         ["round-0001", "round-0002"])

    def test_summary_groups_ratios_and_takes_the_largest_size(self):
        def peer(key, ratio, size, **params):
            return {"key": key, "status": "ok", "params": dict(params, size_bytes=size),
                    "metrics": {"ours_vs_torch": ratio, "bytes_per_call": size}}
        peers = [peer("peer.torch_copy", 0.9, 4096, peer_of="offload.h2d", host_memory="pinned"),
                 peer("peer.torch_copy", 1.1, 1 << 30, peer_of="offload.h2d",
                      host_memory="pinned"),
                 peer("peer.torch_copy", 1.0, 2048, peer_of="offload.h2d",
                      host_memory="pageable"),
                 {"key": "peer.torch_copy", "status": "error", "params": {
                     "peer_of": "offload.h2d", "host_memory": "pinned"}, "metrics": {}}]
        rows = {r[1]: r for r in peer_records.ratio_rows(peers)}
        self.assertEqual(set(rows), {"offload.h2d pinned", "offload.h2d pageable"})
        _, _, n, median, lo, hi, largest, not_ok = rows["offload.h2d pinned"]
        self.assertEqual((n, not_ok), (2, 1))
        self.assertAlmostEqual(median, 1.0)
        self.assertEqual((lo, hi, largest), (0.9, 1.1, 1.1))
        write_run(os.path.join(self.tmp.name, "peers", "p1"), peers)
        out = io.StringIO()
        peer_records.print_summary(None, [os.path.join(self.tmp.name, "peers")], out=out)
        self.assertIn("offload.h2d pageable", out.getvalue())
        self.assertIn("1.100", out.getvalue())


def main():
    run_script_tests(globals(), "copy_vs_torch", "peer_records", "gemm_vs_torch", "validate_run",
                     "peer_pairs")


if __name__ == "__main__":
    main()
