#!/usr/bin/env python3
"""Measure torch.matmul on the shapes of a railgauge GEMM run, on the same GPU, as peer records.

    scripts/gemm_vs_torch.py RUN_DIR [--out DIR] [--keys gemm.cublaslt,gemm.cublaslt_size]

    scripts/gemm_vs_torch.py RUN_DIR --interleave 3 --railgauge BIN [--railgauge-lib DIR]
                             [--railgauge-arg ARG ...]

For every `ok` record of a cuBLASLt key in RUN_DIR/records.jsonl, the same GEMMs (M, N, K,
batch, dtype, layout, GPU; both GEMMs of a BMM's dgrad) are run through PyTorch and timed the
way railgauge times them: CUDA events around a batch of calls captured in one CUDA graph and
replayed behind a sleep kernel, the enqueue checked to be ahead of the GPU (so Python's launch
loop is never timed; metrics.enqueue_ahead counts the samples that passed), warm-up, the median
of many samples, and as many rotated operand sets as the railgauge record used
(params.operand_sets), so both read their operands from HBM alike. torch's math flags are pinned
(TF32 only for tf32; no reduced-precision reduction for fp16 and bf16, as railgauge's cuBLASLt
computes in fp32) and recorded in params.torch_math, and the kernels torch ran, from
torch.profiler, in params.torch_kernels; railgauge's are in the source record's heuristic_algos.

With --interleave N (N >= 3) the two tools alternate point by point: railgauge measures the
point alone (BIN with --filter and the record's axes), then torch, N rounds, at the same clock
state; metrics then hold each side's rounds, the per-round ratios, the ratio with its p10-p90,
each side's spread and the verdict (scripts/peer_pairs.py: parity when the interval holds 1 or
the ratio lies in torch's own spread; never a win inside the noise).

Writes DIR/<run-id>/records.jsonl, one record per point with key `peer.torch_matmul`, the
source record's params (plus peer_of and torch_version) and metrics tflops and
ours_vs_torch (railgauge's heuristic-pick TFLOP/s / torch's), then prints the ratios.

torch mapping: bf16/fp16 -> torch.matmul on that dtype (fp32 accumulation is cuBLAS's default);
tf32 -> float32 with torch.backends.cuda.matmul.allow_tf32 = True; fp32 -> allow_tf32 = False;
fp8_e4m3 -> torch._scaled_mm with per-tensor scales and bf16 output (unbatched only; a batched
fp8 point is written as waived). Each GEMM in the layout the record ran it in (params.layout, or
per GEMM in metrics.gemms): nt multiplies by a [N x K] tensor's transpose, nn by a [K x N]
tensor, tn takes A as a [K x M] tensor's transpose.

Needs a CUDA GPU and PyTorch; it is not part of CI and exits with status 2 and a message when
either is missing.
"""
import argparse
import os
import sys

import peer_pairs
import peer_records
from peer_records import summary

GPU_KEYS = ("gemm.cublaslt", "gemm.cublaslt_size")


def gemms_of(record):
    """(m, n, k, batch, layout) of each GEMM of a record: a BMM's dgrad has two, each in its
    own layout (metrics.gemms); else params, whose layout is the one GEMM's."""
    p = record["params"]
    default_layout = p.get("layout", "nn")
    gemms = record["metrics"].get("gemms")
    if gemms:
        return [(g["m"], g["n"], g["k"], g["batch"], g.get("layout", default_layout))
                for g in gemms]
    return [(p["m"], p["n"], p["k"], p.get("batch", 1), default_layout)]


def make_operands(torch, dtype, layout, m, n, k, batch, sets, device):
    def values(*shape):
        x = torch.rand(*shape, device=device) * 0.5 + 0.5  # |x| in [0.5, 1), never zero
        return torch.where(torch.rand(*shape, device=device) < 0.5, -x, x)

    lead = (batch,) if batch > 1 else ()
    storage = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32,
               "fp32": torch.float32, "fp8_e4m3": torch.float8_e4m3fn}[dtype]
    out = []
    for _ in range(sets):
        if layout == "tn":
            a = values(*lead, k, m).to(storage).transpose(-1, -2)  # column-major M x K
        else:
            a = values(*lead, m, k).to(storage)
        if layout == "nt":
            b = values(*lead, n, k).to(storage).transpose(-1, -2)  # column-major K x N
        else:
            b = values(*lead, k, n).to(storage)
        out.append((a, b))
    return out


def make_call(torch, dtype, operands):
    sets = len(operands)
    state = {"i": 0}
    if dtype == "fp8_e4m3":
        scale_a = torch.tensor(0.5, device=operands[0][0].device)
        scale_b = torch.tensor(0.25, device=operands[0][0].device)

        def call():
            a, b = operands[state["i"]]
            state["i"] = (state["i"] + 1) % sets
            torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
    else:
        def call():
            a, b = operands[state["i"]]
            state["i"] = (state["i"] + 1) % sets
            torch.matmul(a, b)
    return call


def measure_point(torch, args, source, calls, batch, shapes, sets, out_dir):
    """torch's metrics of one point; with --interleave, railgauge's rounds beside them."""
    torch_rounds, pooled, ahead = [], [], 0

    def torch_round(_):
        nonlocal ahead
        times, passed = peer_records.time_graph_batches(torch, calls, batch, args.samples,
                                                        args.warmup)
        pooled.extend(times)
        ahead += passed
        torch_rounds.append(summary(times)["median"])
        return torch_rounds[-1]

    pair = {}
    if args.interleave:
        runner = peer_pairs.RailgaugeRunner(
            args.railgauge, os.path.join(out_dir, "railgauge-rounds"), args.railgauge_arg,
            args.railgauge_lib)
        ((_, ours_s, peer_s),) = peer_pairs.interleave([source], runner, torch_round,
                                                       args.interleave)
        pair = peer_pairs.interleaved_metrics(ours_s, peer_s)
    else:
        torch_round(None)
    flops = sum(2.0 * m * n * k * b for (m, n, k, b, _) in shapes)
    s = summary(pooled)
    tflops = flops / s["median"] / 1e12
    ours = source["metrics"].get("tflops", 0.0)
    metrics = {"time_s": s, "batch": batch, "timer": "cuda_graph", "flops_per_call": flops,
               "tflops": tflops, "ours_tflops": ours,
               "ours_best_tflops": source["metrics"].get("best_tflops", ours),
               "ours_vs_torch": ours / tflops if tflops > 0 else 0.0, "operand_sets": sets,
               "enqueue_ahead": ahead, "samples": len(pooled)}
    if pair:
        metrics.update(pair)
        metrics["ours_vs_torch"] = pair["ratio"]  # same-clock rounds, not a run minutes apart
    return metrics


def pin_math(torch, dtype):
    """Sets torch's matmul flags for `dtype` the way railgauge computes, and returns them."""
    m = torch.backends.cuda.matmul
    m.allow_tf32 = dtype == "tf32"
    m.allow_fp16_reduced_precision_reduction = False
    m.allow_bf16_reduced_precision_reduction = False
    names = ("allow_tf32", "allow_fp16_reduced_precision_reduction",
             "allow_bf16_reduced_precision_reduction")
    return " ".join(f"{n}={int(getattr(m, n))}" for n in names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", help="a railgauge run directory (or its records.jsonl)")
    ap.add_argument("--out", default="runs", help="directory that receives <run-id>/")
    ap.add_argument("--keys", default=",".join(GPU_KEYS))
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--max-sets", type=int, default=256,
                    help="cap on rotated operand sets (Python objects per set)")
    peer_pairs.add_interleave_args(ap)
    args = ap.parse_args()
    problem = peer_pairs.interleave_error(args)
    if problem:
        print(f"gemm_vs_torch.py: {problem}", file=sys.stderr)
        return 2

    torch = peer_records.import_torch_cuda(
        "gemm_vs_torch.py", "compares railgauge's cuBLASLt numbers with torch.matmul")
    if torch is None:
        return 2

    path = peer_records.records_path(args.run_dir)
    keys = set(args.keys.split(","))
    selected = peer_records.ok_records(peer_records.read_records(path), keys)
    if not selected:
        print(f"gemm_vs_torch.py: no ok record of {sorted(keys)} in {path}", file=sys.stderr)
        return 2

    print(f"{'key':<20} {'op':<14} {'M x N x K (batch)':<28} {'dtype':<9} "
          f"{'ours':>9} {'best':>9} {'torch':>9} {'ours/torch':>10}  (TFLOP/s)")
    with peer_records.PeerRun(args.out, "torch") as out:
        for r in selected:
            p = r["params"]
            dtype = p["dtype"]
            device = torch.device("cuda", int(p.get("gpu", 0)))
            torch.cuda.set_device(device)
            math = pin_math(torch, dtype)
            rec = peer_records.peer_record(out.run_id, out.host, "peer.torch_matmul", r,
                                           {"torch_version": torch.__version__,
                                            "torch_math": math, "peer_timer": "cuda_graph"})
            shapes = gemms_of(r)
            if dtype == "fp8_e4m3" and any(b > 1 for (_, _, _, b, _) in shapes):
                rec["status"] = "waived"
                rec["reason"] = "torch._scaled_mm has no batched form"
            else:
                sets = max(1, min(int(p.get("operand_sets", 1)), args.max_sets))
                calls = [make_call(torch, dtype, make_operands(torch, dtype, layout, m, n, k, b,
                                                               sets, device))
                         for (m, n, k, b, layout) in shapes]
                batch = int(r["metrics"].get("batch", 1))
                kernels, why_not = peer_records.kernel_names(torch, lambda: [c() for c in calls])
                rec["params"]["torch_kernels"] = "; ".join(kernels) or f"unknown: {why_not}"
                try:
                    rec["metrics"] = measure_point(torch, args, r, calls, batch, shapes, sets,
                                                   out.dir)
                except (ValueError, RuntimeError) as e:  # record it, go on with the next point
                    rec["status"], rec["reason"] = "error", f"{type(e).__name__}: {e}"
            out.write(rec)
            shape = " + ".join(f"{m}x{n}x{k}" + (f" ({b})" if b > 1 else "")
                               for (m, n, k, b, _) in shapes)
            m = rec["metrics"]
            if rec["status"] == "ok":
                print(f"{r['key']:<20} {p.get('op', ''):<14} {shape:<28} {dtype:<9} "
                      f"{m['ours_tflops']:>9.1f} {m['ours_best_tflops']:>9.1f} "
                      f"{m['tflops']:>9.1f} {m['ours_vs_torch']:>10.3f}"
                      + (f" [{m['ratio_p10']:.3f}, {m['ratio_p90']:.3f}] {m['verdict']}"
                         if "verdict" in m else ""))
            else:
                print(f"{r['key']:<20} {p.get('op', ''):<14} {shape:<28} {dtype:<9} "
                      f"{rec['status']}: {rec['reason']}")
    print(f"records: {out.path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
