"""scripts/attention_rate.py without torch or a GPU: the shapes it measures for a published-runs
table, the FLOPs it counts as Megatron-LM does, and its timing, which rotates every operand set
and samples the telemetry over the timed window only. torch is a stand-in that logs each call.

Usage: attention_rate_test.py SOURCE_DIR [TestName ...]
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_script_tests  # noqa: E402

sys.modules["torch"] = None  # importing torch raises: the logic must not need it

SOURCE = None
attention_rate = predict_inputs = None


def table():
    with open(os.path.join(SOURCE, "results", "published", "h100_training_runs.json")) as f:
        return json.load(f)


class FakeTensor:
    count = 0

    def __init__(self, shape):
        FakeTensor.count += 1
        self.id, self.shape = FakeTensor.count, shape


def fake_torch(log):
    """Enough of torch for attention_rate.measure: tensors with ids, events that time 1 ms, a
    gate that is always ahead, autograd.grad and the SDPA call logged with the set they read."""
    cuda = types.SimpleNamespace(
        synchronize=lambda: log.append(("sync",)), _sleep=lambda cycles: None,
        get_device_properties=lambda device: types.SimpleNamespace(L2_cache_size=50 << 20))

    def event(enable_timing=False):
        return types.SimpleNamespace(record=lambda: log.append(("event",)),
                                     query=lambda: False, elapsed_time=lambda other: 1.0)
    cuda.Event = event
    torch = types.SimpleNamespace(bfloat16="bf16", cuda=cuda, __version__="fake")
    torch.device = lambda kind, index: f"{kind}:{index}"
    torch.randn = lambda *shape, device=None, dtype=None, requires_grad=False: FakeTensor(shape)
    torch.randn_like = lambda t: FakeTensor(t.shape)
    torch.no_grad = contextlib.nullcontext
    torch.autograd = types.SimpleNamespace(
        grad=lambda out, inputs, grad, retain_graph: log.append(("backward", out.id)))
    return torch


class FakeSdpa:
    def __init__(self, log):
        self.log = log

    def attention(self, q, k, v, is_causal):
        self.log.append(("forward", q.id))
        return FakeTensor(q.shape)

    def pinned(self, backend):
        self.log.append(("pinned", backend))
        return contextlib.nullcontext()


class FakeTelemetry:
    """Opens and closes around the timed window; its samples are what NVML would read."""

    def __init__(self, log, samples):
        self.log, self.samples, self.source = log, samples, "fake"

    def __enter__(self):
        self.log.append(("telemetry", "open"))
        return self

    def __exit__(self, *exc):
        self.log.append(("telemetry", "close"))


def args(**kw):
    base = dict(gpu=0, samples=4, warm_s=0.0, min_timed_s=0.0)
    base.update(kw)
    return types.SimpleNamespace(**base)


class AttentionRateTest(unittest.TestCase):
    def test_each_published_run_is_one_gpus_shape(self):
        shapes = attention_rate.shapes_of(table())
        self.assertEqual(len(shapes), 8)
        # 177B: 96 heads over t = 8; 16B: 48 over t = 4: the same 12 heads a GPU.
        self.assertEqual(shapes[(1, 12, 4096, 128)],
                         ["megatron-16b-192gpu", "megatron-177b-2304gpu"])
        self.assertEqual(shapes[(2, 24, 2048, 128)], ["nemo-gpt3-175b-fp8-512gpu"])
        only = attention_rate.shapes_of(table(), ["megatron-32b-384gpu"])
        self.assertEqual(list(only), [(1, 7, 4096, 128)])
        with self.assertRaisesRegex(attention_rate.InputError, "no run nope"):
            attention_rate.shapes_of(table(), ["nope"])
        odd = {"runs": [{"id": "odd", "model": {"attn_heads": 12, "seq_size": 8, "attn_size": 4},
                         "layout": {"tensor_par": 8, "micro_batch": 1}}]}
        with self.assertRaisesRegex(attention_rate.InputError, "12 heads do not divide"):
            attention_rate.shapes_of(odd)

    def test_flops_are_megatrons_attention_share(self):
        # Forward plus backward over every head of a block is what Megatron-LM's FLOPs per
        # token count for the scores (predict_inputs.megatron_flops_per_token, s/h term).
        run = next(r for r in table()["runs"] if r["id"] == "megatron-177b-2304gpu")
        m, t = run["model"], run["layout"]["tensor_par"]
        shape = attention_rate.run_shape(run)
        self.assertEqual(attention_rate.flops_megatron(shape, "forward"),
                         4 * 12 * 4096 ** 2 * 128)
        per_block = t * sum(attention_rate.flops_megatron(shape, p)
                            for p in attention_rate.PASSES)
        h, s, l = m["hidden"], m["seq_size"], m["num_blocks"]
        scores_share = 12 * l * h * h * (s / h) * (m["attn_heads"] * m["attn_size"] / h)
        self.assertAlmostEqual(per_block * l / s, scores_share)

    def test_operand_sets_hold_four_l2s(self):
        l2 = 50 << 20
        self.assertEqual(attention_rate.operand_sets((1, 7, 4096, 128), l2), 6)
        self.assertEqual(attention_rate.operand_sets((2, 24, 2048, 128), l2), 2)  # least 2
        self.assertEqual(attention_rate.operand_sets((1, 1, 64, 8), l2), 64)  # most 64

    def test_every_call_reads_the_next_set_and_telemetry_spans_the_timed_window(self):
        for pass_ in attention_rate.PASSES:
            log = []
            tele = FakeTelemetry(log, [(1500, 690.0), (1600, 700.0), (1700, None)])
            metrics, params = attention_rate.measure(fake_torch(log), FakeSdpa(log), args(),
                                                     (1, 7, 4096, 128), "cudnn", pass_, tele)
            self.assertEqual(log[0], ("pinned", "cudnn"))
            made = [e[1] for e in log if e[0] == "forward"][:6]  # one forward per set made
            timed = log.index(("telemetry", "open"))
            self.assertEqual(log[-1], ("telemetry", "close"))
            calls = [e[1] for e in log[timed:] if e[0] == pass_]
            self.assertEqual(len(calls), metrics["batch"] * metrics["samples"])
            if pass_ == "forward":
                self.assertEqual(set(calls), set(made))
            else:
                self.assertEqual(len(set(calls)), 6)  # each set's output, in turn
            self.assertEqual(params["operand_sets"], 6)
            self.assertEqual(metrics["enqueue_ahead"], metrics["samples"])
            self.assertEqual((metrics["sm_clock_mhz"], metrics["power_w"]), (1600, 695.0))
            per_call = 1e-3 / metrics["batch"]
            self.assertAlmostEqual(metrics["time_s"]["median"], per_call)
            flops = attention_rate.flops_megatron((1, 7, 4096, 128), pass_)
            self.assertAlmostEqual(metrics["tflops_megatron"], flops / per_call / 1e12)
            self.assertAlmostEqual(metrics["tflops_causal"], metrics["tflops_megatron"] / 2)

    def test_the_kernels_are_profiled_once_per_shape_backend_and_pass(self):
        # The profiler's run costs device time; a pinned backend launches the same kernels in
        # every round, so the rounds after the first reuse the names.
        profiled = []
        real = attention_rate.peer_records.kernel_names
        attention_rate.peer_records.kernel_names = lambda torch, call: (
            profiled.append(1) or (["flash_fwd_kernel"], None))
        try:
            kernels = {}
            for pass_ in ("forward", "forward", "forward", "backward"):
                log = []
                _, params = attention_rate.measure(
                    fake_torch(log), FakeSdpa(log), args(min_timed_s=0.001), (1, 7, 4096, 128),
                    "flash", pass_, FakeTelemetry(log, []), kernels=kernels)
                self.assertEqual(params["kernels"], "flash_fwd_kernel")
        finally:
            attention_rate.peer_records.kernel_names = real
        self.assertEqual(len(profiled), 2)  # one forward, one backward

    def test_the_telemetry_names_the_gpu_by_its_pci_bus_id(self):
        # NVML and nvidia-smi number GPUs in their own order; CUDA_VISIBLE_DEVICES renumbers
        # CUDA's: the bus id is the one name all three share.
        props = types.SimpleNamespace(pci_domain_id=0, pci_bus_id=0x18, pci_device_id=0)
        torch = types.SimpleNamespace(
            cuda=types.SimpleNamespace(get_device_properties=lambda gpu: props))
        self.assertEqual(attention_rate.pci_bus_id(torch, 3), "0000:18:00.0")
        torch.cuda.get_device_properties = lambda gpu: types.SimpleNamespace()
        self.assertIsNone(attention_rate.pci_bus_id(torch, 3))

    def test_samples_go_on_until_the_window_is_timed(self):
        log = []
        metrics, _ = attention_rate.measure(fake_torch(log), FakeSdpa(log), args(min_timed_s=0.05),
                                            (1, 7, 4096, 128), "flash", "forward",
                                            FakeTelemetry(log, []))
        self.assertEqual(metrics["samples"], 50)  # 1 ms a sample
        self.assertAlmostEqual(metrics["timed_s"], 0.05)
        self.assertIsNone(metrics["sm_clock_mhz"])

    def test_records_read_back_for_the_prediction(self):
        # What attention_rate writes is what calibrate_predict.py --attention reads.
        shape, runs = (1, 12, 4096, 128), ["megatron-177b-2304gpu"]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "records.jsonl")
            with open(path, "w") as f:
                for pass_, seconds in (("forward", 2e-4), ("backward", 5e-4)):
                    rec = attention_rate.record("r", "h", {"gpu_name": "GPU"}, shape, runs,
                                                "cudnn", pass_, 0, "fake")
                    rec["metrics"] = {"time_s": {"median": seconds}}
                    f.write(json.dumps(rec) + "\n")
            figures = predict_inputs.read_attention(tmp)
        self.assertEqual(figures["shapes"][shape]["cudnn"],
                         {"forward": [2e-4], "backward": [5e-4]})
        self.assertEqual(figures["gpus"], ["GPU"])

    def test_without_torch_or_with_bad_arguments_it_exits_2(self):
        path = os.path.join(SOURCE, "results", "published", "h100_training_runs.json")
        for argv, says in ((["--table", path], "PyTorch is not installed"),
                           (["--table", path, "--backends", "math"], "--backends math"),
                           (["--table", path, "--rounds", "0"], "--rounds"),
                           (["--table", path, "--run", "nope"], "no run nope"),
                           (["--table", "/nonexistent.json"], "/nonexistent.json")):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(attention_rate.main(argv), 2, argv)
            self.assertIn(says, err.getvalue())


def main():
    run_script_tests(globals(), "attention_rate", "predict_inputs")


if __name__ == "__main__":
    main()
