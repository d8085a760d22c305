"""scripts/peer_pairs.py without torch or a GPU: the interleaving order, the ratio's interval, the
parity verdict, the A/A resolution and the flags, on made-up times and on the committed
reference runs' records (results/reference/h200-2026-11-26b), where issue 44 found the ratios
the README quoted to be within the peers' noise.

Usage: peer_pairs_test.py SOURCE_DIR [TestName ...]
"""
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_script_tests  # noqa: E402

sys.modules["torch"] = None  # importing torch raises: the logic must not need it

SOURCE = None
peer_pairs = nccl_pairs = None


def times(median, p10, p90):
    return {"median": median, "p10": p10, "p90": p90}


class PeerPairsTest(unittest.TestCase):
    def committed(self, name="h200-2026-11-26b"):
        return os.path.join(SOURCE, "results", "reference", name)

    def test_overlapping_spreads_are_parity_not_a_win(self):
        # railgauge 4 % faster at the median, but the peer's p10-p90 reaches railgauge's.
        pair = peer_pairs.pair_summaries(times(1.00, 0.98, 1.02), times(1.04, 1.00, 1.08))
        self.assertAlmostEqual(pair["ratio"], 1.04)
        self.assertLessEqual(pair["ratio_lo"], 1.0)
        self.assertEqual(pair["verdict"], "parity")

    def test_separated_spreads_name_the_faster_side_only_when_interleaved(self):
        # Two runs minutes apart: outside parity the pair is unresolved, never a win.
        apart = peer_pairs.pair_summaries(times(1.00, 0.99, 1.01), times(1.20, 1.19, 1.21))
        self.assertEqual(apart["verdict"], "unresolved")
        self.assertAlmostEqual(apart["ratio_lo"], 1.19 / 1.01)
        faster = peer_pairs.pair_rounds([1.0, 1.01, 0.99], [1.20, 1.21, 1.19])
        self.assertEqual(faster["verdict"], "railgauge faster")
        slower = peer_pairs.pair_rounds([1.20, 1.21, 1.19], [1.0, 1.01, 0.99])
        self.assertEqual(slower["verdict"], "railgauge slower")

    def test_a_ratio_inside_the_peers_noise_is_parity(self):
        # The intervals do not overlap, but the peer alone spreads 18 %: a 10 % ratio is noise.
        pair = peer_pairs.pair_summaries(times(1.00, 0.995, 1.005), times(1.10, 1.02, 1.20))
        self.assertGreater(pair["ratio_lo"], 1.0)
        self.assertAlmostEqual(pair["peer_spread"], 1.20 / 1.02 - 1)
        self.assertEqual(pair["verdict"], "parity")
        # And within an A/A control's resolution.
        tight = peer_pairs.pair_summaries(times(1.0, 0.999, 1.001), times(1.05, 1.049, 1.051),
                                          resolution=0.06)
        self.assertEqual(tight["verdict"], "parity")
        # Equal times that differ in the last bit of a float are equal, not a win.
        same = peer_pairs.pair_rounds([0.1] * 3, [0.3 / 3] * 3)
        self.assertNotEqual(same["ratio"], 1.0)
        self.assertEqual(same["verdict"], "parity")

    def test_rounds_alternate_abab_point_by_point(self):
        order = []

        def ours(point):
            order.append(("railgauge", point))
            return 1.0

        def peer(point):
            order.append(("peer", point))
            return 1.1

        out = peer_pairs.interleave(["p1", "p2"], ours, peer, rounds=3)
        self.assertEqual(order, [("railgauge", "p1"), ("peer", "p1")] * 3 +
                         [("railgauge", "p2"), ("peer", "p2")] * 3)
        self.assertEqual(out[0], ("p1", [1.0] * 3, [1.1] * 3))
        with self.assertRaisesRegex(ValueError, "at least 3 rounds"):
            peer_pairs.interleave(["p1"], ours, peer, rounds=2)

    def test_interleaved_interval_is_that_of_the_round_ratios(self):
        # The clock drifts between rounds; each round's pair is taken at the same clock.
        ours = [1.00, 1.10, 1.20, 1.05, 1.15]
        peer = [1.01, 1.11, 1.21, 1.06, 1.16]
        pair = peer_pairs.pair_rounds(ours, peer)
        self.assertTrue(pair["interleaved"])
        self.assertEqual(pair["rounds"], 5)
        self.assertTrue(all(1.008 < r < 1.011 for r in pair["round_ratios"]))
        self.assertLess(pair["ratio_hi"] - pair["ratio_lo"], 0.003)
        # Each side spreads 20 % over the rounds, so 1 % is parity.
        self.assertGreater(pair["peer_spread"], 0.1)
        self.assertEqual(pair["verdict"], "parity")
        steady = peer_pairs.pair_rounds([1.0, 1.0, 1.0], [1.3, 1.31, 1.29])
        self.assertEqual(steady["verdict"], "railgauge faster")
        with self.assertRaisesRegex(ValueError, "rounds differ"):
            peer_pairs.pair_rounds([1.0, 1.0, 1.0], [1.0, 1.0])

    def test_committed_peer_records_find_their_sources(self):
        pairs = peer_pairs.committed_pairs(self.committed())
        ok = [(p, s) for p, s in pairs if p["status"] == "ok"]
        self.assertGreater(len(ok), 150)
        missing = [p["params"].get("peer_of") for p, s in ok if s is None]
        self.assertEqual(missing, [])

    def test_committed_copy_ratios_are_parity_within_the_a_a_control(self):
        # memory.hbm_memcpy_d2d and torch's copy_ are one cudaMemcpyAsync: their spread is the
        # copy table's resolution (issue 44: 0.88-1.04), and the hbm_copy ratios that
        # docs/reference-runs.md quotes (1.011-1.045 from 256 MiB to 4 GiB) lie inside it.
        pairs = peer_pairs.committed_pairs(self.committed())
        resolution, n = peer_pairs.control_resolution(pairs)
        self.assertEqual(n, 11)
        self.assertGreater(resolution, 0.05)
        rows, _ = peer_pairs.assess(pairs)
        plateau = [r for r in rows if r["group"] == "memory.hbm_copy copy_"
                   and 256 << 20 <= r["size"] / 2 <= 4 << 30]
        self.assertEqual(len(plateau), 3)  # 256 MiB, 1 GiB, 4 GiB
        for r in plateau:
            self.assertTrue(1.010 < r["ratio"] < 1.046, r)
            self.assertEqual(r["verdict"], "parity", r)

    def test_committed_small_gemm_is_flagged_launch_bound(self):
        # torch.matmul at 256^3 timed Python's launch loop: 2.74x, flagged, never a plateau row.
        rows, _ = peer_pairs.assess(peer_pairs.committed_pairs(self.committed()))
        small = [r for r in rows if r["group"] == "gemm.cublaslt_size bf16"
                 and r["size"] == 2 * 256 ** 3]
        self.assertEqual(len(small), 1)
        self.assertAlmostEqual(small[0]["ratio"], 2.741, places=2)
        self.assertIn("launch-bound", small[0]["flags"])
        groups = {g["group"]: g for g in peer_pairs.group_rows(rows)}
        self.assertLess(groups["gemm.cublaslt_size bf16"]["clean_hi"], 1.1)

    def test_first_point_and_under_l2_are_flagged(self):
        rec = {"key": "peer.torch_copy", "params": {"peer_of": "memory.hbm_copy",
                                                    "size_bytes": 16 << 20},
               "metrics": {"bytes_per_call": 32 << 20}}
        self.assertEqual(peer_pairs.flags(rec, 1e-3, first=True), ["first point", "under L2"])
        rec["metrics"]["bytes_per_call"] = 8 << 30
        self.assertEqual(peer_pairs.flags(rec, 5e-6, first=False), ["launch-bound"])

    def test_verdicts_print_the_caveat_and_bad_input_exits_2(self):
        out = io.StringIO()
        groups = peer_pairs.print_verdicts(self.committed(), out=out)
        text = out.getvalue()
        self.assertIn("not interleaved", text)
        self.assertIn("copy A/A control (memory.hbm_memcpy_d2d vs copy_, 11 points)", text)
        self.assertTrue(any(g["group"] == "memory.hbm_copy copy_" for g in groups))
        with redirect_stderr(io.StringIO()) as err:
            self.assertEqual(peer_pairs.main(["verdicts", os.path.join(SOURCE, "docs")]), 2)
        self.assertIn("has no peers/ directory", err.getvalue())

    def test_nccl_pairs_rebuild_the_h100_rounds_it_measured(self):
        # results/reference/h100-2026-11-27: 7 kinds x 3 interleaved rounds on one H100, the
        # table made afterwards from the rounds (the step was cut before it wrote it).
        rounds = os.path.join(SOURCE, "results", "reference", "h100-2026-11-27", "nccl",
                              "compare", "nccl-pairs")
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(rounds, "rounds"), os.path.join(tmp, "rounds"))
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
                status = nccl_pairs.main(["--from-rounds", "--out", tmp, "--sizes",
                                          "8,4KiB,64KiB,1MiB,16MiB,32MiB,64MiB",
                                          "--buffers", "cuda_malloc"])
            with open(os.path.join(tmp, "nccl-pairs.json")) as f:
                rows = json.load(f)
        # nccl-tests names its 8-byte point size 0 for all_gather, reduce_scatter and alltoall.
        self.assertEqual(status, 1)
        self.assertEqual(err.getvalue().count("no ok out-of-place record from nccl-tests"), 9)
        self.assertEqual(len(rows), 7 * 7 - 3)
        by = {(r["kind"], r["size_bytes"]): r for r in rows}
        big = by[("all_reduce", 64 << 20)]
        self.assertEqual(big["rounds"], 3)
        self.assertAlmostEqual(big["ratio"], 1.021, delta=0.002)
        self.assertEqual(big["verdict"], "railgauge faster")
        # The L2-sized gap: 16 MiB back to back in L2 for railgauge, not for nccl-tests.
        self.assertGreater(by[("all_reduce", 16 << 20)]["ratio"], 1.6)
        self.assertLess(by[("alltoall", 64 << 20)]["ratio"], 0.9)
        # Those rounds predate params.alltoall_call: grouped send/recv against ncclAlltoAll.
        self.assertIn("ncclAlltoAll", by[("alltoall", 64 << 20)]["note"])
        self.assertEqual(big["railgauge_buffers"], "cuda_malloc")
        same_call = {"params": {"alltoall_call": "ncclAlltoAll"}}
        self.assertIsNone(nccl_pairs.note_of("alltoall", same_call))
        with redirect_stderr(io.StringIO()) as err:
            self.assertEqual(nccl_pairs.main(["--from-rounds", "--out", "x", "--buffers",
                                              "malloc"]), 2)
        self.assertIn("--buffers malloc", err.getvalue())

    def test_nccl_pairs_compare_back_to_back_out_of_place_only(self):
        ref = self.committed()
        rows = nccl_pairs.pairs(
            nccl_pairs.records_under(os.path.join(ref, "runs", "collectives-nccl")),
            nccl_pairs.records_under(os.path.join(ref, "peers", "nccl-tests")))
        by = {(r["kind"], r["size_bytes"]): r for r in rows}
        # 16 MiB all_reduce (issue 44): railgauge back to back 6.9 us, nccl-tests 12 us; the
        # isolated, gated 7.7 us is a column of its own, not the ratio.
        r = by[("all_reduce", 16 << 20)]
        self.assertAlmostEqual(r["railgauge_back_to_back_s"], 6.90e-6, delta=0.01e-6)
        self.assertAlmostEqual(r["nccl_tests_s"], 11.97e-6, delta=0.01e-6)
        self.assertAlmostEqual(r["railgauge_isolated_gpu_s"], 7.73e-6, delta=0.01e-6)
        self.assertAlmostEqual(r["ratio"], r["nccl_tests_s"] / r["railgauge_back_to_back_s"])
        self.assertEqual(r["verdict"], "one round: no interval")
        self.assertIn("ncclAlltoAll", by[("alltoall", 16 << 20)]["note"])
        self.assertIsNone(r["note"])
        self.assertIn("| all_reduce | 16777216 | 6.90 | 11.97 |", nccl_pairs.markdown(rows))
        # Out of place only: every row's railgauge record is the out-of-place one.
        self.assertEqual(len(rows), len({(r["kind"], r["size_bytes"]) for r in rows}))
        with redirect_stderr(io.StringIO()) as err:
            self.assertEqual(nccl_pairs.main(["--rounds", "2", "--kinds", "bogus"]), 2)
        for part in ("--kinds bogus", "--rounds 2", "--nccl-tests", "--railgauge", "--out"):
            self.assertIn(part, err.getvalue())


def main():
    run_script_tests(globals(), "peer_pairs", "nccl_pairs")


if __name__ == "__main__":
    main()
