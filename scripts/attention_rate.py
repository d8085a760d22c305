#!/usr/bin/env python3
"""Measure fused (flash) attention on one GPU, at the shapes of published training runs.

    scripts/attention_rate.py --table results/published/h100_training_runs.json [--run ID]...
                              [--out DIR] [--backends flash,cudnn,efficient] [--rounds 3]
                              [--min-timed-s 1.0] [--warm-s 0.2] [--gpu 0]

Calculon has no fused attention (docs/calibrate.md, "Predicting published runs"): it times the
seq x seq scores through HBM, which is 16-53 % of its predicted step on those runs. This script
measures what a training step's attention takes instead: torch's
scaled_dot_product_attention, causal, in bf16, forward and backward, for each shape one GPU
holds in a published run (micro-batch, the heads of one tensor-parallel rank, the sequence, the
head size), through each SDPA backend torch has (flash: FlashAttention-2; cudnn: cuDNN's fused
attention, one of the kernels Transformer Engine chooses among; efficient: xFormers' kernel).
`calibrate_predict.py --attention DIR` then times the runs' attention with these figures.

How it is timed, as the GEMM peers are (issue 55): every call launched on a stream behind a
sleep kernel (so Python's launch and autograd are not timed; metrics.enqueue_ahead counts the
samples that passed), --warm-s untimed first, samples until they add up to --min-timed-s (a GPU
at its power limit runs the first milliseconds faster than it sustains), the operands rotated
through as many sets as hold 4 x the GPU's L2 (each call reads its inputs from HBM, as a
training step's do), the backends and shapes interleaved over --rounds rounds in a rotating
order. The SM clock and board power are sampled over each timed window (NVML through pynvml,
else nvidia-smi) and recorded with it. The backward is the kernels torch.autograd.grad launches
for the attention alone (its own recompute of the scores included, as a fused kernel's is).

Writes DIR/<run-id>/records.jsonl: one record per shape, backend, pass and round, key
`attention.torch_sdpa`, params (batch, heads, seq, head_dim, causal, dtype, backend, pass,
round, operand_sets, torch_version, kernels, runs: the table's runs of that shape) and metrics
(time_s, seconds per call as railgauge's summary; flops_megatron, the pass's FLOPs as
Megatron-LM counts them, the full seq x seq square: 4 b h s^2 d forward, twice that backward;
tflops_megatron; tflops_causal, half the square, as FlashAttention's own benchmarks count;
sm_clock_mhz and power_w over the window). A backend torch cannot run at a shape is a `waived`
record with torch's reason.

Needs a CUDA GPU and PyTorch; it is not part of CI and exits 2 with a message when either is
missing. Never changes clocks, power or any GPU setting.
"""
import argparse
import json
import math
import shutil
import subprocess
import sys
import threading
import time

import peer_records
from peer_records import summary

KEY = "attention.torch_sdpa"
BACKENDS = ("flash", "cudnn", "efficient")
BACKEND_ENUM = {"flash": "FLASH_ATTENTION", "cudnn": "CUDNN_ATTENTION",
                "efficient": "EFFICIENT_ATTENTION"}
PASSES = ("forward", "backward")
# GPU clock cycles a sleep kernel holds the stream per enqueued call: autograd.grad enqueues its
# kernels after tens of microseconds of Python, a forward after a few.
GATE_CYCLES = {"forward": 60_000, "backward": 300_000}


class InputError(Exception):
    pass


def shapes_of(table, ids=()):
    """{(batch, heads, seq, head_dim): [run ids]}: what one GPU's attention holds in each run
    (micro-batch, the heads of one tensor-parallel rank, the sequence, the head size)."""
    runs = table.get("runs")
    if not isinstance(runs, list) or not runs:
        raise InputError("the table has no 'runs' list")
    by_id = {r.get("id"): r for r in runs}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise InputError(f"no run {', '.join(missing)} in the table (it has: "
                         f"{', '.join(str(i) for i in by_id)})")
    out = {}
    for run in ([by_id[i] for i in ids] if ids else runs):
        try:
            shape = run_shape(run)
        except (KeyError, TypeError) as e:
            raise InputError(f"run {run.get('id')}: no {e} in its model or layout")
        out.setdefault(shape, []).append(run["id"])
    return out


def run_shape(run):
    """(batch, heads, seq, head_dim) of one GPU's attention in a published run."""
    model, lay = run["model"], run["layout"]
    heads, t = model["attn_heads"], lay["tensor_par"]
    if heads % t:
        raise InputError(f"run {run['id']}: {heads} heads do not divide over t = {t}")
    return (lay["micro_batch"], heads // t, model["seq_size"], model["attn_size"])


def flops_megatron(shape, pass_):
    """A pass's FLOPs as Megatron-LM counts them (the full seq x seq square, both score
    matmuls): 4 b h s^2 d forward, twice that backward."""
    b, h, s, d = shape
    forward = 4.0 * b * h * s * s * d
    return forward if pass_ == "forward" else 2.0 * forward


def operand_sets(shape, l2_bytes, bytes_per_value=2):
    """Rotated sets so that the inputs of the calls in turn span 4 x L2 (2 to 64): q, k, v, the
    output and its gradient, each b h s d values."""
    b, h, s, d = shape
    per_set = 5 * b * h * s * d * bytes_per_value
    return max(2, min(64, math.ceil(4 * l2_bytes / per_set)))


def window_telemetry(samples):
    """The median SM clock (MHz) and board power (W) of (clock, power) samples, or None each."""
    def med(values):
        values = sorted(v for v in values if v is not None)
        return summary(values)["median"] if values else None
    return {"sm_clock_mhz": med(c for c, _ in samples), "power_w": med(p for _, p in samples),
            "telemetry_samples": len(samples)}


def pci_bus_id(torch, gpu):
    """The PCI bus id ("0000:18:00.0") of CUDA device `gpu`, or None where this torch does not
    say: NVML and nvidia-smi number GPUs in their own order, which CUDA_VISIBLE_DEVICES (Slurm
    sets it) and CUDA's ordering make another GPU's."""
    p = torch.cuda.get_device_properties(gpu)
    try:
        return f"{p.pci_domain_id:04x}:{p.pci_bus_id:02x}:{p.pci_device_id:02x}.0"
    except AttributeError:  # a torch without them
        return None


class Telemetry:
    """Samples (SM clock MHz, power W) of one GPU, named by its PCI bus id (else its index as
    NVML numbers it), every `period_s` on a thread while open."""

    def __init__(self, gpu, period_s=0.05, bus_id=None):
        self.gpu, self.bus_id, self.period_s, self.samples = gpu, bus_id, period_s, []
        self._stop = threading.Event()
        self._read, self.source = self._reader()

    def _reader(self):
        try:
            import pynvml
            pynvml.nvmlInit()
            handle = (pynvml.nvmlDeviceGetHandleByPciBusId(self.bus_id) if self.bus_id
                      else pynvml.nvmlDeviceGetHandleByIndex(self.gpu))
            return (lambda: (pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                             pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0)), (
                f"nvml, GPU {self.bus_id or f'index {self.gpu}'}")
        except Exception:  # no pynvml, or NVML refused: nvidia-smi, else nothing
            pass
        if shutil.which("nvidia-smi"):
            def smi():
                out = subprocess.run(["nvidia-smi", "-i", self.bus_id or str(self.gpu),
                                      "--query-gpu="
                                      "clocks.sm,power.draw", "--format=csv,noheader,nounits"],
                                     capture_output=True, text=True, timeout=5).stdout
                clock, power = (float(x) for x in out.strip().split(","))
                return clock, power
            return smi, f"nvidia-smi, GPU {self.bus_id or f'index {self.gpu}'}"
        return None, "none: neither pynvml nor nvidia-smi"

    def _loop(self):
        while not self._stop.is_set():
            try:
                self.samples.append(self._read())
            except Exception:  # one unread sample is not the window's: the rest still count
                pass
            self._stop.wait(self.period_s)

    def __enter__(self):
        if self._read:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._read:
            self._thread.join(timeout=10)


class Sdpa:
    """torch's scaled_dot_product_attention and the context that pins its backend (an object of
    its own, so that the timing logic is tested with a stand-in)."""

    def __init__(self, torch):
        import torch.nn.attention
        import torch.nn.functional
        self.attention = torch.nn.functional.scaled_dot_product_attention
        self._backends, self._kernel = torch.nn.attention.SDPBackend, torch.nn.attention.sdpa_kernel

    def pinned(self, backend):
        """The context that runs only `backend`; RuntimeError where this torch has none."""
        enum = getattr(self._backends, BACKEND_ENUM[backend], None)
        if enum is None:
            raise RuntimeError(f"this torch has no SDPBackend.{BACKEND_ENUM[backend]}")
        return self._kernel([enum])


def make_calls(torch, sdpa, shape, sets, device, pass_):
    """The call timed for one pass: each call takes the next rotated operand set."""
    b, h, s, d = shape
    operands = []
    for _ in range(sets):
        q, k, v = (torch.randn(b, h, s, d, device=device, dtype=torch.bfloat16,
                               requires_grad=pass_ == "backward") for _ in range(3))
        out = sdpa.attention(q, k, v, is_causal=True)
        operands.append((q, k, v, out, torch.randn_like(out)))
    turn = [0]

    def forward():
        q, k, v, _, _ = operands[turn[0] % sets]
        turn[0] += 1
        with torch.no_grad():
            sdpa.attention(q, k, v, is_causal=True)

    def backward():
        q, k, v, out, grad = operands[turn[0] % sets]
        turn[0] += 1
        torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)

    return forward if pass_ == "forward" else backward


def measure(torch, sdpa, args, shape, backend, pass_, telemetry=None, kernels=None):
    """(metrics, params) of one window, or raises RuntimeError with torch's reason. `kernels`:
    the kernel names already profiled, by (shape, backend, pass): a pinned backend launches the
    same kernels every round, and the profiler costs GPU time the proof round has little of."""
    device = torch.device("cuda", args.gpu)
    l2 = torch.cuda.get_device_properties(device).L2_cache_size
    sets = operand_sets(shape, l2)
    with sdpa.pinned(backend):
        call = make_calls(torch, sdpa, shape, sets, device, pass_)
        known = kernels if kernels is not None else {}
        if (shape, backend, pass_) not in known:
            known[(shape, backend, pass_)] = peer_records.kernel_names(torch, call)
        names, why_not = known[(shape, backend, pass_)]
        # One batch is about 20 ms at the kernel's rate, from one untimed probe.
        probe = peer_records.time_batches(torch, [call], 2, 1, 1)[0]
        batch = max(1, min(200, round(0.02 / max(probe, 1e-6))))
        warm_until = time.monotonic() + args.warm_s
        while time.monotonic() < warm_until:  # untimed, and outside the telemetry's window
            call()
            torch.cuda.synchronize()
        with (telemetry or Telemetry(args.gpu, bus_id=pci_bus_id(torch, args.gpu))) as tele:
            times, ahead = peer_records.time_behind_gate(
                torch, lambda: [call() for _ in range(batch)], batch, args.samples, 0.0,
                GATE_CYCLES[pass_] * batch, 6, args.min_timed_s)
    s = summary(times)
    flops = flops_megatron(shape, pass_)
    metrics = {"time_s": s, "batch": batch, "samples": len(times), "enqueue_ahead": ahead,
               "timed_s": sum(times) * batch, "flops_megatron": flops,
               "tflops_megatron": flops / s["median"] / 1e12,
               "tflops_causal": flops / 2 / s["median"] / 1e12,
               "telemetry": tele.source, **window_telemetry(tele.samples)}
    params = {"operand_sets": sets, "kernels": "; ".join(names) or f"unknown: {why_not}"}
    return metrics, params


def record(run_id, host, device, shape, runs, backend, pass_, round_, torch_version):
    b, h, s, d = shape
    return {"schema": peer_records.RECORD_SCHEMA, "run": run_id, "host": host, "rank": 0,
            "key": KEY, "device": device, "metrics": {}, "status": "ok", "reason": None,
            "params": {"batch": b, "heads": h, "seq": s, "head_dim": d, "causal": True,
                       "dtype": "bf16", "backend": backend, "pass": pass_, "round": round_,
                       "launch": "stream", "torch_version": torch_version, "runs": runs}}


def rotated(items, by):
    by %= len(items)
    return items[by:] + items[:by]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", required=True, help="a published-runs table")
    ap.add_argument("--run", action="append", default=[], help="only this run (repeatable)")
    ap.add_argument("--out", default="runs", help="directory that receives <run-id>/")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--min-timed-s", type=float, default=1.0)
    ap.add_argument("--warm-s", type=float, default=0.2)
    ap.add_argument("--gpu", type=int, default=0)
    args = ap.parse_args(argv)
    prog = "attention_rate.py"
    backends = [b for b in args.backends.split(",") if b]
    unknown = [b for b in backends if b not in BACKENDS]
    try:
        if unknown or not backends:
            raise InputError(f"--backends {args.backends}: each of {', '.join(BACKENDS)}")
        if args.rounds < 1 or args.min_timed_s < 0 or args.warm_s < 0 or args.samples < 1:
            raise InputError("--rounds and --samples at least 1, --min-timed-s and --warm-s "
                             "not negative")
        with open(args.table, encoding="utf-8") as f:
            shapes = shapes_of(json.load(f), args.run)
    except (OSError, ValueError, InputError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    torch = peer_records.import_torch_cuda(prog, "measures fused attention")
    if torch is None:
        return 2
    torch.cuda.set_device(args.gpu)
    sdpa = Sdpa(torch)
    device = {"gpu_index": args.gpu, "gpu_name": torch.cuda.get_device_name(args.gpu)}
    work = [(shape, backend, pass_) for shape in sorted(shapes) for backend in backends
            for pass_ in PASSES]
    kernels = {}  # profiled once per shape, backend and pass, not every round
    with peer_records.PeerRun(args.out, "attention") as out:
        for round_ in range(args.rounds):
            for shape, backend, pass_ in rotated(work, round_ * max(1, len(work) // 3)):
                rec = record(out.run_id, out.host, device, shape, shapes[shape], backend, pass_,
                             round_, torch.__version__)
                try:
                    rec["metrics"], extra = measure(torch, sdpa, args, shape, backend, pass_,
                                                    kernels=kernels)
                    rec["params"].update(extra)
                    m = rec["metrics"]
                    print(f"round {round_} {backend:<9} {pass_:<8} b{shape[0]} h{shape[1]} "
                          f"s{shape[2]} d{shape[3]}: {1e3 * m['time_s']['median']:.3f} ms, "
                          f"{m['tflops_causal']:.0f} TFLOP/s causal, {m['sm_clock_mhz']} MHz, "
                          f"{m['power_w']} W", flush=True)
                except (RuntimeError, ValueError) as e:  # this backend cannot: say why, go on
                    rec["status"], rec["reason"] = "waived", f"{type(e).__name__}: {e}"
                    print(f"round {round_} {backend} {pass_} {shape}: waived, {e}", flush=True)
                out.write(rec)
                torch.cuda.empty_cache()
    print(f"records: {out.path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
