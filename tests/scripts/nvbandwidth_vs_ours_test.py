"""scripts/nvbandwidth_vs_ours.py without a GPU: which railgauge record each imported nvbandwidth
cell is paired with (GPU by PCI bus id, size, pinned, near), the byte counting of
device_local_copy, the bidirectional figures, the all-GPU entries, waived records for cells
without a partner, and the whole script on the importer's real output of the format sample
tests/fixtures/nvbandwidth/two_gpus.json (peer records checked against the record schema).

Usage: nvbandwidth_vs_ours_test.py RAILGAUGE_BINARY SOURCE_DIR [TestName ...]
"""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = SOURCE = None
nvb = peer_records = validate_run = None
MIB512 = 512 << 20
PCI0, PCI1 = "0000:19:00.0", "0000:3b:00.0"


def ours(key, pci=PCI0, size=MIB512, status="ok", metrics=None, **params):
    """A railgauge record as the offload and HBM benchmarks write them."""
    p = {"size_bytes": size, "gpu": 0}
    if key in ("offload.h2d", "offload.d2h"):
        p["host_memory"] = "pinned"
    if key.startswith("offload."):
        p["placement"] = "near"
    p.update(params)
    return {"schema": "railgauge.record/1", "run": "2026-11-24T00-00-00Z-node", "host": "node",
            "rank": 0, "key": key, "params": p, "device": {"gpu": "GPU-x", "pci": pci},
            "metrics": metrics if metrics is not None else {"bandwidth_gbytes_per_s": 55.0},
            "status": status, "reason": None if status == "ok" else "no CUDA driver",
            "time_utc": "2026-11-24T00:00:00.000Z"}


def cell(testcase, value, pci=PCI0, **params):
    """A record of `railgauge import nvbandwidth`."""
    return {"key": "import.nvbandwidth." + testcase, "status": "ok", "device": {"pci": pci},
            "params": dict({"testcase": testcase, "nvbandwidth_version": "v0.8"}, **params),
            "metrics": {"bandwidth_gbytes_per_s": value}}


class NvbandwidthVsOursTest(unittest.TestCase):
    def test_a_cell_pairs_with_the_same_copy_on_the_same_gpu(self):
        candidates = [ours("offload.h2d", pci=PCI1, metrics={"bandwidth_gbytes_per_s": 1.0}),
                      ours("offload.h2d", placement="far", metrics={"bandwidth_gbytes_per_s": 2.0}),
                      ours("offload.h2d", host_memory="pageable",
                           metrics={"bandwidth_gbytes_per_s": 3.0}),
                      ours("offload.h2d", size=MIB512 // 2,
                           metrics={"bandwidth_gbytes_per_s": 4.0}),
                      ours("offload.h2d", status="waived", metrics={}),
                      ours("offload.d2h", metrics={"bandwidth_gbytes_per_s": 5.0}),
                      ours("offload.h2d", metrics={"bandwidth_gbytes_per_s": 52.0})]
        record, ratio = nvb.pair(cell("host_to_device_memcpy_ce", 50.0), candidates, MIB512)
        self.assertAlmostEqual(ratio, 52.0 / 50.0)
        m = record["metrics"]
        self.assertEqual((m["ours_gbytes_per_s"], m["bandwidth_gbytes_per_s"], m["ours_records"]),
                         (52.0, 50.0, 1))
        self.assertEqual(record["key"], "peer.nvbandwidth")
        self.assertEqual(record["params"]["peer_of"], "offload.h2d")
        self.assertEqual(record["params"]["nvbandwidth_testcase"], "host_to_device_memcpy_ce")
        self.assertEqual(record["device"]["pci"], PCI0)

    def test_repeated_points_give_their_median(self):
        candidates = [ours("offload.d2h", metrics={"bandwidth_gbytes_per_s": v})
                      for v in (50.0, 54.0, 51.0)]
        record, ratio = nvb.pair(cell("device_to_host_memcpy_ce", 50.0), candidates, MIB512)
        self.assertAlmostEqual(ratio, 51.0 / 50.0)
        self.assertEqual(record["metrics"]["ours_records"], 3)

    def test_device_local_copy_is_counted_like_railgauge(self):
        # nvbandwidth counts the bytes copied once, memory.hbm_memcpy_d2d read + written.
        record, ratio = nvb.pair(cell("device_local_copy", 1500.0),
                                 [ours("memory.hbm_memcpy_d2d",
                                       metrics={"bandwidth_gbytes_per_s": 2970.0})], MIB512)
        self.assertAlmostEqual(ratio, 2970.0 / 3000.0)
        self.assertEqual(record["metrics"]["nvbandwidth_reported_gbytes_per_s"], 1500.0)
        self.assertEqual(record["metrics"]["peer_counting_factor"], 2)

    def test_bidirectional_cells_take_the_figure_they_hold(self):
        bidir = [ours("offload.bidir", metrics={"bandwidth_gbytes_per_s": 80.0,
                                                "h2d_gbytes_per_s": 41.0,
                                                "d2h_gbytes_per_s": 39.0})]
        bidir[0]["metrics"]["sum_gbytes_per_s"] = 80.0
        bidir[0]["metrics"]["bandwidth_gbytes_per_s"] = 78.0  # all bytes / the slower lane
        one = "one_direction_under_reverse_traffic"
        _, h2d = nvb.pair(cell("host_to_device_bidirectional_memcpy_ce", 40.0,
                               bidirectional_figure=one), bidir, MIB512)
        _, d2h = nvb.pair(cell("device_to_host_bidirectional_memcpy_ce", 40.0,
                               bidirectional_figure=one), bidir, MIB512)
        _, total = nvb.pair(cell("host_to_device_bidirectional_memcpy_ce", 80.0,
                                 bidirectional_figure="sum_of_both_directions"), bidir, MIB512)
        self.assertEqual((h2d, d2h, total), (41.0 / 40.0, 39.0 / 40.0, 1.0))

    def test_all_gpus_cells_take_their_per_gpu_entry(self):
        # As offload/offload_all_gpus.cpp writes it: params.gpus is the count, metrics.per_gpu the
        # GPUs' entries.
        record = ours("offload.all_gpus_h2d", pci="", gpus=2, metrics={
            "bandwidth_gbytes_per_s": 100.0,
            "per_gpu": [{"gpu": 0, "pci": PCI0, "bandwidth_gbytes_per_s": 30.0},
                        {"gpu": 1, "pci": PCI1, "bandwidth_gbytes_per_s": 70.0}]})
        record["device"] = {"cpus": "0,1"}
        peer, ratio = nvb.pair(cell("host_to_all_memcpy_ce", 35.0, pci=PCI1), [record], MIB512)
        self.assertAlmostEqual(ratio, 2.0)
        self.assertEqual(peer["device"], {"pci": PCI1})

    def test_sm_cells_pair_with_the_zero_copy_kernels(self):
        _, read = nvb.pair(cell("host_to_device_memcpy_sm", 25.0),
                           [ours("offload.zero_copy_read",
                                 metrics={"bandwidth_gbytes_per_s": 24.0})],
                           MIB512)
        _, write = nvb.pair(cell("device_to_host_memcpy_sm", 20.0),
                            [ours("offload.zero_copy_write",
                                  metrics={"bandwidth_gbytes_per_s": 22.0})], MIB512)
        self.assertAlmostEqual(read, 24.0 / 25.0)
        self.assertAlmostEqual(write, 22.0 / 20.0)

    def test_a_cell_without_its_point_is_waived_and_says_what_was_looked_for(self):
        record, ratio = nvb.pair(cell("host_to_device_memcpy_ce", 50.0),
                                 [ours("offload.h2d", pci=PCI1)], MIB512)
        self.assertIsNone(ratio)
        self.assertEqual(record["status"], "waived")
        self.assertIn(f"size_bytes={MIB512}", record["reason"])
        self.assertIn(PCI0, record["reason"])
        self.assertIsNone(peer_records.peer_ratio(record))

    def test_script_on_the_importers_output(self):
        with tempfile.TemporaryDirectory(prefix="railgauge_nvb_vs_") as tmp:
            imported = os.path.join(tmp, "import")
            p = subprocess.run([BINARY, "import", "nvbandwidth",
                                os.path.join(SOURCE, "tests/fixtures/nvbandwidth/two_gpus.json"),
                                "--out", imported], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            run = os.path.join(tmp, "runs", "offload")
            os.makedirs(run)
            with open(os.path.join(run, "records.jsonl"), "w") as f:
                f.write(json.dumps(ours("offload.h2d", metrics={"bandwidth_gbytes_per_s": 51.0}))
                        + "\n")
            out = os.path.join(tmp, "peers")
            stdout = io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
                # A second run directory that a skipped step never wrote: warned about, the
                # other's pairs kept.
                rc = nvb.main([run, os.path.join(tmp, "runs", "skipped"), "--nvbandwidth",
                               imported, "--size-bytes", str(MIB512), "--out", out])
            self.assertEqual(rc, 0)
            records = [r for path in peer_records.find_record_files(out)
                       for r in peer_records.read_records(path)]
            # The sample's two host_to_device_memcpy_ce cells (50 and 40 GB/s); the GPU at 3b has
            # no railgauge point. Unmapped testcases (SM, GPU x GPU) are not peer records.
            self.assertEqual(len(records), 2, records)
            by_pci = {r["device"]["pci"]: r for r in records}
            self.assertAlmostEqual(by_pci[PCI0]["metrics"]["ours_vs_nvbandwidth"], 51.0 / 50.0)
            self.assertEqual(by_pci[PCI1]["status"], "waived")
            schemas, store = validate_run.load_schemas()
            check = validate_run.validator("record", schemas, store)
            for r in records:
                self.assertEqual(list(check.iter_errors(r)), [], r)
            rows = peer_records.ratio_rows(records)
            self.assertEqual([(r[0], r[2], r[7]) for r in rows], [("peer.nvbandwidth", 1, 1)])
            self.assertIn("1.020", stdout.getvalue())
            # Nothing to pair at another size: exit 2, with the waived records written.
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()) as err:
                rc = nvb.main([run, "--nvbandwidth", imported, "--size-bytes", "4096",
                               "--out", out])
            self.assertEqual(rc, 2)
            self.assertIn("no nvbandwidth cell found its railgauge point", err.getvalue())

    def test_unreadable_or_empty_input_exits_2(self):
        with tempfile.TemporaryDirectory(prefix="railgauge_nvb_vs_") as tmp:
            for args in ([tmp, "--nvbandwidth", os.path.join(tmp, "missing")],
                         [tmp, "--nvbandwidth", tmp],
                         [os.path.join(tmp, "a"), os.path.join(tmp, "b"), "--nvbandwidth", tmp]):
                with contextlib.redirect_stdout(io.StringIO()), \
                        contextlib.redirect_stderr(io.StringIO()) as err:
                    rc = nvb.main([*args, "--size-bytes", str(MIB512), "--out", tmp])
                self.assertEqual(rc, 2, args)
                self.assertIn("no records.jsonl", err.getvalue())


def main():
    global BINARY, SOURCE, nvb, peer_records, validate_run
    BINARY, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sys.path.insert(0, os.path.join(SOURCE, "scripts"))
    import nvbandwidth_vs_ours
    import peer_records as pr
    import validate_run as vr
    nvb, peer_records, validate_run = nvbandwidth_vs_ours, pr, vr
    run_named_tests(sys.argv[3:])


if __name__ == "__main__":
    main()
