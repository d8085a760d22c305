#!/usr/bin/env python3
"""Measure torch.matmul on the shapes of a railgauge GEMM run, on the same GPU, as peer records.

    scripts/gemm_vs_torch.py RUN_DIR [--out DIR] [--keys gemm.cublaslt,gemm.cublaslt_size]

    scripts/gemm_vs_torch.py RUN_DIR --interleave 3 --railgauge BIN [--railgauge-lib DIR]
                             [--railgauge-arg ARG ...]

For every `ok` record of a cuBLASLt key in RUN_DIR/records.jsonl, the same GEMMs (M, N, K,
batch, dtype, layout, GPU; both GEMMs of a BMM's dgrad) are run through PyTorch and timed the
way railgauge times them: CUDA events around a batch of calls launched one by one on a stream
behind a sleep kernel (--launch stream, the default; railgauge's records say `launch: stream`),
the enqueue checked to be ahead of the GPU (so Python's launch loop is never timed;
metrics.enqueue_ahead counts the samples that passed), warm-up, the median of many samples, and
as many rotated operand sets, each with its own output, as the railgauge record used
(params.operand_sets), every call on the next set, so both read their operands from HBM and
write their outputs alike. --launch graph replays one captured batch instead (params.peer_timer
cuda_graph), as the runs before issue 55 did: its rotation is frozen to the batch's first sets
and one output, which at small shapes stays in L2. torch's math flags are pinned
(TF32 only for tf32; no reduced-precision reduction for fp16 and bf16, as railgauge's cuBLASLt
computes in fp32) and recorded in params.torch_math, and the kernels torch ran, from
torch.profiler, in params.torch_kernels; railgauge's are in the source record's
metrics.launched_kernels (named by CUPTI as the driver launched them), and params.same_kernels says
whether the two sides ran the same kernels (true, false, or "unknown: why").

With --interleave N (N >= 3) the two tools alternate N rounds. By sweep (the default):
railgauge runs the source run's command again (its run.json argv), then torch measures every
point, each round (scripts/peer_sweeps.py). By point (--interleave-by point): railgauge measures
the point alone (BIN with --filter and the record's axes), then torch, seconds apart; one process
per point and round, about 8.5 s a GEMM point on an H100. Before its samples, torch runs each
point's graph untimed for --torch-warm-s (0.2 s), as railgauge's points run before they are
timed, so both meet the GPU at the power state a sustained GEMM sets, and its samples go on
until they add up to the span railgauge timed the point over (the record's
steady_state.least_timed_s, else --min-timed-s): both sides time the same span. metrics then hold each
side's rounds, the per-round ratios, the ratio with its p10-p90, each side's spread and the
verdict (scripts/peer_pairs.py: parity when the interval holds 1 or
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
import statistics
import sys

import gemm_aa_control
import peer_pairs
import peer_records
import peer_sweeps
from peer_records import least_timed_s, summary

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


# The output's storage per dtype, as railgauge's C (gemm/cuda/lt_matmul.h: fp8 writes bf16).
OUTPUT_STORAGE = {"bf16": "bfloat16", "fp16": "float16", "tf32": "float32", "fp32": "float32",
                  "fp8_e4m3": "bfloat16"}


def make_operands(torch, dtype, layout, m, n, k, batch, sets, device):
    """`sets` operand sets (a, b, c): A and B in the layout's storage, and an output C of its
    own per set, as railgauge rotates all three (gemm/operand_rotation.h): one output reused by
    every call stays in L2 where railgauge's does not."""
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
        c = torch.empty(*lead, m, n, dtype=getattr(torch, OUTPUT_STORAGE[dtype]), device=device)
        out.append((a, b, c))
    return out


def make_call(torch, dtype, operands):
    sets = len(operands)
    state = {"i": 0}
    if dtype == "fp8_e4m3":
        scale_a = torch.tensor(0.5, device=operands[0][0].device)
        scale_b = torch.tensor(0.25, device=operands[0][0].device)

        def call():
            a, b, c = operands[state["i"]]
            state["i"] = (state["i"] + 1) % sets
            torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16,
                             out=c)
    else:
        def call():
            a, b, c = operands[state["i"]]
            state["i"] = (state["i"] + 1) % sets
            torch.matmul(a, b, out=c)
    return call


# How torch's calls are launched and timed (--launch): `stream` as railgauge launches, one call
# after another on a stream behind a gate, every call on the next operand set; `graph` replays
# one captured batch, which freezes the rotation to the batch's first sets (the earlier runs').
LAUNCH_TIMERS = {"stream": "cuda_event_stream", "graph": "cuda_graph"}


class TorchPoint:
    """torch's side of one railgauge GEMM record: its GEMMs made and timed on demand (operands
    are made again for each round, so a sweep never holds every point's at once)."""

    def __init__(self, torch, args, source):
        p = source["params"]
        self.torch, self.args, self.source = torch, args, source
        self.dtype = p["dtype"]
        self.device = torch.device("cuda", int(p.get("gpu", 0)))
        self.shapes = gemms_of(source)
        self.sets = max(1, min(int(p.get("operand_sets", 1)), args.max_sets))
        self.batch = int(source["metrics"].get("batch", 1))
        self.min_timed_s = least_timed_s(source, args.min_timed_s)
        self.rounds_s, self.pooled, self.ahead, self.kernels = [], [], 0, None

    def calls(self):
        self.torch.cuda.set_device(self.device)
        return [make_call(self.torch, self.dtype,
                          make_operands(self.torch, self.dtype, layout, m, n, k, b, self.sets,
                                        self.device))
                for (m, n, k, b, layout) in self.shapes]

    def measure(self, _=None):
        """One round: seconds per call (the median of its samples)."""
        pin_math(self.torch, self.dtype)
        calls = self.calls()
        if self.kernels is None:
            names, why_not = peer_records.kernel_names(self.torch, lambda: [c() for c in calls])
            self.kernels = "; ".join(names) or f"unknown: {why_not}"
        timed = (peer_records.time_stream_batches if self.args.launch == "stream"
                 else peer_records.time_graph_batches)
        times, passed = timed(self.torch, calls, self.batch, self.args.samples, self.args.warmup,
                              warm_s=self.args.torch_warm_s, min_timed_s=self.min_timed_s)
        self.pooled.extend(times)
        self.ahead += passed
        self.rounds_s.append(summary(times)["median"])
        return self.rounds_s[-1]

    def metrics(self, pair=None):
        flops = sum(2.0 * m * n * k * b for (m, n, k, b, _) in self.shapes)
        s = summary(self.pooled)
        tflops = flops / s["median"] / 1e12
        ours = self.source["metrics"].get("tflops", 0.0)
        metrics = {"time_s": s, "batch": self.batch, "timer": LAUNCH_TIMERS[self.args.launch],
                   "flops_per_call": flops, "tflops": tflops, "ours_tflops": ours,
                   "ours_best_tflops": self.source["metrics"].get("best_tflops", ours),
                   "ours_vs_torch": ours / tflops if tflops > 0 else 0.0,
                   "operand_sets": self.sets, "enqueue_ahead": self.ahead,
                   "samples": len(self.pooled)}
        if pair:
            # Every column from the same interleaved rounds: each side's median of its rounds'
            # seconds per call, and the median of the rounds' ratios. ours was once the source
            # run's figure alone and torch the pooled samples of every round, so that their
            # quotient and the ratio column disagreed on 26 of 32 rows.
            metrics.update(pair)
            metrics["ours_tflops"] = flops / statistics.median(pair["ours_rounds_s"]) / 1e12
            metrics["tflops"] = flops / statistics.median(pair["peer_rounds_s"]) / 1e12
            metrics["ours_vs_torch"] = pair["ratio"]  # same-clock rounds, not a run minutes apart
        return metrics


def measure_points(args, points, work_dir, resolution=0.0):
    """Every point's metrics, or the error that stopped it: [(metrics, error)]. With
    --interleave, railgauge's rounds beside torch's (by sweep or by point); a ratio within
    `resolution` of 1 (the A/A control's) is parity."""
    if not args.interleave:
        out = []
        for pt in points:
            try:
                pt.measure()
                out.append((pt.metrics(), None))
            except (ValueError, RuntimeError) as e:  # record it, go on with the next point
                out.append(({}, f"{type(e).__name__}: {e}"))
        return out
    if args.interleave_by == "sweep":
        runner = peer_sweeps.RailgaugeSweepRunner(
            args.railgauge, os.path.join(work_dir, "railgauge-rounds"), [args.run_dir],
            args.railgauge_lib, source_first=getattr(args, "first_round_is_source", False))
        rows = peer_sweeps.interleave_sweeps(points, runner, lambda pt: pt.measure(),
                                             args.interleave, lambda pt: pt.source)
    else:
        runner = peer_pairs.RailgaugeRunner(
            args.railgauge, os.path.join(work_dir, "railgauge-rounds"), args.railgauge_arg,
            args.railgauge_lib)
        rows = []
        for pt in points:
            try:
                ((_, ours_s, peer_s),) = peer_pairs.interleave([pt.source], runner, pt.measure,
                                                               args.interleave)
                rows.append((pt, ours_s, peer_s, None))
            except (ValueError, RuntimeError) as e:
                rows.append((pt, [], [], f"{type(e).__name__}: {e}"))
    out = []
    for pt, ours_s, peer_s, error in rows:
        if error:
            out.append(({}, error))
        else:
            out.append((pt.metrics(peer_pairs.interleaved_metrics(ours_s, peer_s, resolution)),
                        None))
    return out


def print_row(rec, shapes):
    p = rec["params"]
    shape = " + ".join(f"{m}x{n}x{k}" + (f" ({b})" if b > 1 else "")
                       for (m, n, k, b, _) in shapes)
    head = f"{p.get('peer_of', ''):<20} {p.get('op', ''):<14} {shape:<28} {p['dtype']:<9} "
    m = rec["metrics"]
    if rec["status"] == "ok":
        print(head + f"{m['ours_tflops']:>9.1f} {m['ours_best_tflops']:>9.1f} "
              f"{m['tflops']:>9.1f} {m['ours_vs_torch']:>10.3f}"
              + (f" [{m['ratio_p10']:.3f}, {m['ratio_p90']:.3f}] {m['verdict']}"
                 if "verdict" in m else ""))
    else:
        print(head + f"{rec['status']}: {rec['reason']}")


def read_control(path):
    """The A/A summary of the peer.railgauge_aa records under `path` (a directory or a
    records.jsonl), or None when none is given; ValueError when it holds none."""
    if not path:
        return None
    records = [r for f in peer_records.find_record_files(path)
               for r in peer_records.read_records(f)]
    control = gemm_aa_control.control_of(records)
    if control is None:
        raise ValueError(f"--aa-control {path}: no ok {gemm_aa_control.AA_KEY} record there "
                         "(scripts/gemm_aa_control.py writes them)")
    return control


def same_kernels(source, torch_kernels):
    """Whether railgauge's heuristic pick and torch ran the same kernels: True, False, or
    "unknown: why" when either side could not name them. torch_kernels is the peer record's
    "; "-joined names (or "unknown: ..."); railgauge's are the source record's
    metrics.launched_kernels.heuristic (a list, or "unknown: ...")."""
    ours = source.get("metrics", {}).get("launched_kernels", {}).get("heuristic")
    if not isinstance(ours, list):
        return f"unknown: railgauge: {ours or 'the record names no launched kernel'}"
    if not torch_kernels or torch_kernels.startswith("unknown"):
        return f"unknown: torch: {torch_kernels or 'never measured'}"
    return sorted(set(ours)) == sorted(set(torch_kernels.split("; ")))


def fill_peer_records(recs, measured):
    """Yields (record, shapes) for each (peer record, torch point or None, shapes, source record)
    in `recs`, each measured one given the next of `measured` ((metrics, error), in the points'
    order) and the kernels torch ran beside those its own source record launched."""
    measured = iter(measured)
    for rec, pt, shapes, source in recs:
        if pt is not None:
            rec["metrics"], error = next(measured)
            rec["params"]["torch_kernels"] = pt.kernels or "unknown: never measured"
            rec["params"]["same_kernels"] = same_kernels(source, rec["params"]["torch_kernels"])
            if error:
                rec["status"], rec["reason"] = "error", error
        yield rec, shapes


def print_table_summary(records, control):
    """The ratio table's last lines: ours/torch over its ok points, whether the same kernels ran
    on both sides, and the table's resolution."""
    ratios = [r["metrics"]["ours_vs_torch"] for r in records
              if r["status"] == "ok" and r["metrics"].get("ours_vs_torch")]
    if ratios:
        print(f"ours/torch over {len(ratios)} points: median "
              f"{peer_pairs.quantile(ratios, 0.5):.3f}, p10 {peer_pairs.quantile(ratios, 0.1):.3f}"
              f", p90 {peer_pairs.quantile(ratios, 0.9):.3f}")
    same = [r["params"].get("same_kernels") for r in records
            if r["status"] == "ok" and "same_kernels" in r.get("params", {})]
    if same:
        print(f"same kernels on both sides: {sum(1 for v in same if v is True)} of {len(same)}"
              f" points ({sum(1 for v in same if v is False)} differ,"
              f" {sum(1 for v in same if not isinstance(v, bool))} unknown)")
    print(gemm_aa_control.describe(control))


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
    ap.add_argument("--max-sets", type=int, default=4096,
                    help="cap on rotated operand sets (railgauge's own cap, so every set it "
                         "rotated is rotated here)")
    ap.add_argument("--launch", choices=sorted(LAUNCH_TIMERS), default="stream",
                    help="stream: each call launched on the stream as railgauge does, rotating "
                         "every set (default); graph: one captured batch replayed (its sets "
                         "frozen at capture)")
    ap.add_argument("--first-round-is-source", action="store_true",
                    help="interleaved by sweep: the source run is railgauge's first round (when "
                         "torch starts the moment it ends, as in a reference run)")
    ap.add_argument("--min-timed-s", type=float, default=0.2,
                    help="torch's least timed span per point when the railgauge record states "
                         "none (its steady_state.least_timed_s is used where it does): samples "
                         "go on until their batches add up to it (0: --samples alone)")
    ap.add_argument("--torch-warm-s", type=float, default=0.2,
                    help="seconds torch runs each point's graph untimed before its samples, as "
                         "railgauge's point runs (its quick --time-budget) before the GPU is "
                         "measured at its power state (0: off)")
    ap.add_argument("--aa-control", help="peer.railgauge_aa records (scripts/gemm_aa_control.py "
                    "of this sweep): their resolution is stated under the table and a ratio "
                    "within it is parity")
    peer_pairs.add_interleave_args(ap)
    args = ap.parse_args()
    problem = peer_pairs.interleave_error(args)
    try:
        control = read_control(args.aa_control)
    except (OSError, ValueError) as e:
        problem = problem or str(e)
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
    if args.interleave:
        print(f"ours and torch: each side's median over its {args.interleave} interleaved rounds; "
              "ours/torch: the median of the rounds' ratios, [its p10-p90, the lowest and "
              "highest below 5 rounds]; best: the source run's algorithm search")
    with peer_records.PeerRun(args.out, "torch") as out:
        recs, points = [], []
        for r in selected:
            rec = peer_records.peer_record(out.run_id, out.host, "peer.torch_matmul", r,
                                           {"torch_version": torch.__version__,
                                            "torch_math": pin_math(torch, r["params"]["dtype"]),
                                            "peer_timer": LAUNCH_TIMERS[args.launch]})
            shapes = gemms_of(r)
            if r["params"]["dtype"] == "fp8_e4m3" and any(b > 1 for (_, _, _, b, _) in shapes):
                rec["status"] = "waived"
                rec["reason"] = "torch._scaled_mm has no batched form"
                recs.append((rec, None, shapes, r))
            else:
                pt = TorchPoint(torch, args, r)
                recs.append((rec, pt, shapes, r))
                points.append(pt)
        measured = measure_points(args, points, out.dir,
                                  control["resolution"] if control else 0.0)
        for rec, shapes in fill_peer_records(recs, measured):
            out.write(rec)
            print_row(rec, shapes)
        print_table_summary([rec for rec, _, _, _ in recs], control)
    print(f"records: {out.path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
