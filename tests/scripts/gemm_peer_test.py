"""The GEMM peers like for like, without torch or a GPU (issue 55): gemm_vs_torch.py's stream
launch rotates every operand set and output as railgauge does, the A/A control
(scripts/gemm_aa_control.py) alternates railgauge with itself and states the resolution that the
ratio tables print. torch is a stand-in that logs what each call was given.

Usage: gemm_peer_test.py SOURCE_DIR [TestName ...]
"""
import io
import json
import os
import statistics
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_script_tests  # noqa: E402

sys.modules["torch"] = None  # importing torch raises: the logic must not need it

SOURCE = None
gemm_vs_torch = gemm_aa_control = peer_pairs = peer_records = None


class FakeTensor:
    """Enough of a tensor for make_operands: arithmetic, .to, .transpose; each has an id."""
    count = 0

    def __init__(self, shape, dtype="float32", transposed=False):
        FakeTensor.count += 1
        self.id, self.shape, self.dtype, self.transposed = FakeTensor.count, shape, dtype, transposed

    def _same(self, *_):
        return FakeTensor(self.shape, self.dtype)

    __mul__ = __add__ = __neg__ = __rmul__ = __radd__ = _same

    def __lt__(self, _):
        return FakeTensor(self.shape, "bool")

    def to(self, dtype):
        return FakeTensor(self.shape, dtype)

    def transpose(self, *_):
        t = FakeTensor(self.shape[:-2] + (self.shape[-1], self.shape[-2]), self.dtype, True)
        t.id = self.id  # a view of the same storage
        return t


class FakeCuda:
    """torch.cuda: a gate event that opens while the first `late` samples are enqueued."""

    def __init__(self, log, late=0):
        self.log, self.late, self.sleeps = log, late, []

    def synchronize(self):
        pass

    def _sleep(self, cycles):
        self.sleeps.append(cycles)

    def Event(self, enable_timing=False):  # noqa: N802 (torch's name)
        cuda = self

        class Event:
            def record(self):
                cuda.log.append(("event", enable_timing))

            def query(self):
                cuda.late -= 1
                return cuda.late >= 0  # True: the gate had opened, the sample is taken again

            def elapsed_time(self, _):
                return 1.0

        return Event()


def fake_torch(log, late=0):
    t = types.SimpleNamespace(bfloat16="bfloat16", float16="float16", float32="float32",
                              float8_e4m3fn="float8_e4m3fn", cuda=FakeCuda(log, late))
    t.rand = lambda *shape, device=None: FakeTensor(shape)
    t.where = lambda cond, a, b: FakeTensor(b.shape, b.dtype)
    t.empty = lambda *shape, dtype=None, device=None: FakeTensor(shape, dtype)

    def matmul(a, b, out=None):
        log.append(("matmul", a.id, b.id, out.id if out is not None else None))
    t.matmul = matmul
    return t


def measured_point(log, params, metrics, samples):
    """torch's side of a bf16 nt record of `params` on the fake GPU, measured once."""
    torch = fake_torch(log)
    torch.backends = types.SimpleNamespace(cuda=types.SimpleNamespace(
        matmul=types.SimpleNamespace()))
    torch.device = lambda kind, index: f"{kind}:{index}"
    torch.cuda.set_device = lambda device: None
    source = {"key": "gemm.cublaslt", "status": "ok",
              "params": dict(params, dtype="bf16", layout="nt", gpu=0), "metrics": metrics}
    args = types.SimpleNamespace(max_sets=4096, samples=samples, warmup=1, torch_warm_s=0.0,
                                 min_timed_s=0.0, launch="stream")
    point = gemm_vs_torch.TorchPoint(torch, args, source)
    point.measure()
    return point


def aa_record(ratio, key="peer.railgauge_aa", status="ok"):
    return {"key": key, "status": status, "params": {"peer_of": "gemm.cublaslt"},
            "metrics": {"ours_vs_railgauge": ratio}}


class GemmPeerTest(unittest.TestCase):
    def test_every_set_has_its_own_output_in_the_records_dtype(self):
        log = []
        torch = fake_torch(log)
        sets = gemm_vs_torch.make_operands(torch, "bf16", "nt", 4, 8, 16, 1, 3, "cuda:0")
        self.assertEqual(len(sets), 3)
        outputs = {c.id for _, _, c in sets}
        self.assertEqual(len(outputs), 3)
        for a, b, c in sets:
            self.assertEqual((a.shape, b.shape, c.shape), ((4, 16), (16, 8), (4, 8)))
            self.assertTrue(b.transposed)  # nt: B stored [N x K]
            self.assertEqual(c.dtype, "bfloat16")
        fp8 = gemm_vs_torch.make_operands(torch, "fp8_e4m3", "nt", 4, 8, 16, 1, 1, "cuda:0")
        self.assertEqual(fp8[0][2].dtype, "bfloat16")  # as railgauge's C
        batched = gemm_vs_torch.make_operands(torch, "bf16", "nn", 4, 8, 16, 6, 1, "cuda:0")
        self.assertEqual(batched[0][2].shape, (6, 4, 8))

    def test_stream_launch_rotates_every_set_and_output_across_samples(self):
        # A graph would replay the first `batch` sets for ever (issue 55: 38 of 640 at 256^3);
        # launched on the stream, every call takes the next set and writes its own output.
        log = []
        torch = fake_torch(log)
        sets = gemm_vs_torch.make_operands(torch, "bf16", "nn", 4, 4, 4, 1, 5, "cuda:0")
        call = gemm_vs_torch.make_call(torch, "bf16", sets)
        times, ahead = peer_records.time_stream_batches(torch, [call], batch=2, samples=4,
                                                        warmup=1)
        calls = [e for e in log if e[0] == "matmul"]
        self.assertEqual(len(calls), 1 + 2 * 4)  # warm-up, then batch x samples
        timed = calls[1:]
        self.assertEqual({c[3] for c in timed}, {c.id for _, _, c in sets})
        self.assertEqual({c[1] for c in timed}, {a.id for a, _, _ in sets})
        for (_, a_id, b_id, out_id) in calls:  # each set's A, B and C together
            self.assertIn((a_id, b_id, out_id), {(a.id, b.id, c.id) for a, b, c in sets})
        self.assertEqual((len(times), ahead), (4, 4))
        self.assertEqual(times[0], 1.0 * 1e-3 / 2)
        # The gate holds the stream for the whole batch's enqueue.
        self.assertEqual(torch.cuda.sleeps[0], peer_records.GATE_CYCLES_PER_CALL * 2)

    def test_torch_times_the_span_the_railgauge_record_timed(self):
        # On one H200 (2026-11-28) railgauge timed each GEMM point over 0.21 s and torch over 10
        # samples, 26 ms at the largest shape, right after its warm-up: a power-capped GPU's
        # burst on one side only. Samples now go on until the batches add up to the record's
        # least timed span (each fake sample times 1 ms: 2 calls of 0.5 ms).
        log = []
        torch = fake_torch(log)
        times, _ = peer_records.time_stream_batches(torch, [lambda: None], batch=2, samples=4,
                                                    warmup=1, min_timed_s=0.05)
        self.assertEqual(len(times), 50)
        times, _ = peer_records.time_stream_batches(torch, [lambda: None], batch=2, samples=4,
                                                    warmup=1)
        self.assertEqual(len(times), 4, "no span asked: --samples alone")
        source = {"metrics": {"steady_state": {"least_timed_s": 0.2, "timed_s": 0.214}}}
        self.assertEqual(gemm_vs_torch.least_timed_s(source, 0.5), 0.2)
        self.assertEqual(gemm_vs_torch.least_timed_s({"metrics": {}}, 0.5), 0.5)
        self.assertEqual(gemm_vs_torch.least_timed_s(
            {"metrics": {"steady_state": {"least_timed_s": "x"}}}, 0.5), 0.5)

    def test_a_gate_that_opened_too_soon_is_doubled_and_the_sample_taken_again(self):
        log = []
        torch = fake_torch(log, late=2)
        times, ahead = peer_records.time_stream_batches(torch, [lambda: None], batch=3,
                                                        samples=2, warmup=1)
        base = peer_records.GATE_CYCLES_PER_CALL * 3
        self.assertEqual(torch.cuda.sleeps, [base, 2 * base, 4 * base, 4 * base])
        self.assertEqual((len(times), ahead), (2, 2))

    def test_the_launch_mode_is_recorded(self):
        log = []
        point = measured_point(log, {"m": 4, "n": 4, "k": 4, "operand_sets": 640},
                               {"batch": 38, "tflops": 1.0}, samples=17)
        metrics = point.metrics()
        self.assertEqual(metrics["timer"], "cuda_event_stream")
        self.assertEqual(metrics["operand_sets"], 640)  # every set railgauge rotated
        outputs = {e[3] for e in log if e[0] == "matmul"}
        # 1 + 38 x 17 = 647 calls went through all 640 sets, each with its own output (a graph
        # of one batch would have written 38 outputs, again and again).
        self.assertEqual(len(outputs), 640)
        self.assertIn("unknown", point.kernels)  # no profiler here: the record says so

    def test_ours_torch_and_their_ratio_come_from_the_same_rounds(self):
        # ours was the source run's figure (round 1 alone), torch the pooled samples of every
        # round, and the ratio the rounds' median: 26 of 32 rows disagreed with their own
        # columns (745.7 / 666.9 printed beside a ratio of 1.026).
        point = measured_point([], {"m": 1000, "n": 1000, "k": 1000},
                               {"batch": 1, "tflops": 745.7}, samples=5)
        ours_s, torch_s = [2.0e-6, 2.2e-6, 2.1e-6], [2.1e-6, 2.1e-6, 2.4e-6]
        m = point.metrics(peer_pairs.interleaved_metrics(ours_s, torch_s))
        flops = 2.0e9
        self.assertAlmostEqual(m["ours_tflops"], flops / 2.1e-6 / 1e12)
        self.assertAlmostEqual(m["tflops"], flops / 2.1e-6 / 1e12)
        self.assertAlmostEqual(m["ours_vs_torch"], statistics.median(
            [t / o for o, t in zip(ours_s, torch_s)]))

    def test_aa_rounds_alternate_a_then_b_and_give_the_ratio(self):
        order = []

        class Side:
            def __init__(self, name, seconds):
                self.name, self.seconds, self.rounds = name, seconds, 0

            def run_round(self):
                self.rounds += 1
                order.append(self.name)

            def time_of(self, point):
                if point == "lost":
                    raise ValueError("no ok record of the point")
                return self.seconds[self.rounds - 1]

        a = Side("a", [1.0, 1.0, 1.0])
        b = Side("b", [1.01, 0.99, 1.02])
        rows = gemm_aa_control.alternate(["p", "lost"], a, b, 3)
        self.assertEqual(order, ["a", "b"] * 3)
        (_, a_s, b_s, err), (_, _, _, lost) = rows
        self.assertIsNone(err)
        self.assertIn("no ok record", lost)
        m = peer_pairs.interleaved_metrics(a_s, b_s)
        self.assertAlmostEqual(m["ratio"], 1.01)
        with self.assertRaises(ValueError):
            gemm_aa_control.alternate(["p"], a, b, 2)

    def test_resolution_is_the_reach_of_the_p10_p90(self):
        ratios = [0.95] + [1.0] * 8 + [1.02]
        records = [aa_record(r) for r in ratios] + [aa_record(2.0, status="error"),
                                                    aa_record(3.0, key="peer.torch_matmul")]
        control = gemm_aa_control.control_of(records)
        self.assertEqual(control["n"], 10)
        self.assertAlmostEqual(control["p10"], 0.995)
        self.assertAlmostEqual(control["p90"], 1.002)
        self.assertAlmostEqual(control["resolution"], 0.005)
        self.assertIn("resolution +/-0.005", gemm_aa_control.describe(control))
        self.assertIn("unknown", gemm_aa_control.describe(None))
        self.assertIsNone(gemm_aa_control.control_of([]))

    def test_the_torch_table_reads_the_control_and_states_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "records.jsonl")
            with open(path, "w") as f:
                for r in (0.99, 1.0, 1.01):
                    f.write(json.dumps(aa_record(r)) + "\n")
            control = gemm_vs_torch.read_control(tmp)
            self.assertEqual(control["n"], 3)
            with open(path, "w") as f:
                f.write(json.dumps(aa_record(1.0, key="peer.torch_matmul")) + "\n")
            with self.assertRaises(ValueError):
                gemm_vs_torch.read_control(tmp)
        self.assertIsNone(gemm_vs_torch.read_control(None))
        out = io.StringIO()
        stdout, sys.stdout = sys.stdout, out
        try:
            gemm_vs_torch.print_table_summary(
                [{"status": "ok", "metrics": {"ours_vs_torch": v}} for v in (0.9, 1.0, 1.1)],
                control)
        finally:
            sys.stdout = stdout
        self.assertIn("ours/torch over 3 points: median 1.000, p10 0.920, p90 1.080",
                      out.getvalue())
        self.assertIn("A/A control (railgauge against itself, 3 points)", out.getvalue())
        # Within the control's resolution a ratio is parity, outside it a verdict.
        self.assertEqual(peer_pairs.verdict(1.008, 1.005, 1.012, 0.0, 0.01), "parity")
        self.assertEqual(peer_pairs.verdict(1.008, 1.005, 1.012, 0.0, 0.0), "railgauge faster")

    def test_same_kernels_compares_the_names_both_sides_launched(self):
        nvjet = "nvjet_tst_192x192_64x3_2x1_v_bz_coopB_NNT"
        src = {"metrics": {"launched_kernels": {"heuristic": [nvjet], "best": [nvjet]}}}
        self.assertIs(gemm_vs_torch.same_kernels(src, nvjet), True)
        self.assertIs(gemm_vs_torch.same_kernels(src, "nvjet_tst_128x256_64x4_1x2_h_bz_NNT"),
                      False)
        self.assertIs(gemm_vs_torch.same_kernels(src, nvjet + "; splitKreduce_kernel"), False)
        unknown = gemm_vs_torch.same_kernels(
            {"metrics": {"launched_kernels": {"heuristic": "unknown: libcupti could not be "
                                                           "opened"}}}, nvjet)
        self.assertTrue(unknown.startswith("unknown: railgauge: unknown: libcupti"), unknown)
        self.assertTrue(gemm_vs_torch.same_kernels({"metrics": {}}, nvjet).startswith(
            "unknown: railgauge"))
        self.assertTrue(gemm_vs_torch.same_kernels(src, "unknown: RuntimeError: no CUPTI")
                        .startswith("unknown: torch"))
        out = io.StringIO()
        stdout, sys.stdout = sys.stdout, out
        try:
            gemm_vs_torch.print_table_summary(
                [{"status": "ok", "params": {"same_kernels": v}, "metrics": {"ours_vs_torch": 1}}
                 for v in (True, True, False, "unknown: torch: x")], None)
        finally:
            sys.stdout = stdout
        self.assertIn("same kernels on both sides: 2 of 4 points (1 differ, 1 unknown)",
                      out.getvalue())

    def test_each_point_is_matched_with_its_own_sources_kernels(self):
        # The H200 sweep of 2026-11-28 (results/reference/h200-gemm-tp-2026-11-28): torch ran
        # the kernel railgauge's heuristic pick launched on every point, but the table read
        # "same kernels: 8 of 32" because each point was matched with the last source record.
        root = os.path.join(SOURCE, "results", "reference", "h200-gemm-tp-2026-11-28", "gemm-tp")
        runs = [os.path.join(root, d, sorted(os.listdir(os.path.join(root, d)))[0])
                for d in ("runs", "torch")]
        sources = peer_records.ok_records(
            peer_records.read_records(peer_records.records_path(runs[0])),
            set(gemm_vs_torch.GPU_KEYS))
        peers = peer_records.read_records(peer_records.records_path(runs[1]))
        self.assertEqual(len(sources), len(peers))
        recs = []
        for src, peer in zip(sources, peers):
            self.assertEqual(src["params"]["gemm"], peer["params"]["gemm"])
            point = types.SimpleNamespace(kernels=peer["params"]["torch_kernels"])
            recs.append(({"params": {}, "status": "ok"}, point, [], src))
        filled = [rec for rec, _ in gemm_vs_torch.fill_peer_records(
            recs, [({"ours_vs_torch": 1.0}, None)] * len(recs))]
        same = [rec["params"]["same_kernels"] for rec in filled]
        self.assertEqual(same.count(True), len(same), same)
        # A point whose own source launched another kernel still reads False.
        other = dict(sources[0], metrics={"launched_kernels": {"heuristic": ["other_kernel"]}})
        rec, _ = next(gemm_vs_torch.fill_peer_records(
            [({"params": {}, "status": "ok"}, recs[0][1], [], other)], [({}, None)]))
        self.assertIs(rec["params"]["same_kernels"], False)


def main():
    run_script_tests(globals(), "gemm_vs_torch", "gemm_aa_control", "peer_pairs", "peer_records")


if __name__ == "__main__":
    main()
