#!/usr/bin/env python3
"""Measure torch copies on the points of railgauge HBM and offload runs, on the same GPU, as
peer records.

    scripts/copy_vs_torch.py RUN_DIR [RUN_DIR ...] [--out DIR] [--keys KEY,KEY...]

For every `ok` record of a mapped key in the run directories, the same copy (bytes, GPU, host
memory kind) is run through PyTorch and timed the way railgauge times it: after the warm-up
calls, as many samples as the railgauge record took (at least 10, at most --max-samples) of
the record's batch of calls, and the median per call. Pinned-memory and device copies are timed
by CUDA events around the batch, with the stream held by torch.cuda._sleep while Python enqueues
it (railgauge holds it with a blocking kernel); pageable copies on the host clock around copy
and synchronisation, as railgauge does.

Mapping (only what has a faithful torch equivalent; torch's copy_ of contiguous tensors of one
dtype is one cudaMemcpyAsync):
  memory.hbm_memcpy_d2d  dst.copy_(src) on the GPU: the same cudaMemcpyAsync (device to device)
  memory.hbm_copy        the same torch copy: railgauge's SM copy kernel against the library copy
                         (both count the bytes read + written: 2x the array)
  offload.h2d, d2h       device.copy_(host, non_blocking=True) / host.copy_(device, ...) from a
                         pinned host tensor; pageable: a plain host tensor, non_blocking=False
                         (torch then synchronises the stream after the copy, as railgauge does)
  offload.bidir          both directions at once from pinned tensors, one stream each, both
                         held by their own sleep and released together; per sample the slower
                         stream's time, as railgauge's lanes timer (bytes counted once per
                         direction)
Not mapped: memory.hbm_read (torch has no read-only op: sum is a reduction with its own kernel
shape), memory.hbm_write and hbm_triad (elementwise kernels, not copies), offload.zero_copy_*
(an SM kernel on mapped host memory), offload.all_gpus_* and offload.with_gemm.

Host placement: the process is pinned to the record's cpu_pu while the host tensor is allocated,
filled and copied, so its pages land on that CPU's NUMA node (first touch) as railgauge's bound
buffers do; params.torch_cpu_pu says which CPU was used (null: that CPU is not available here).

Writes DIR/<run-id>/records.jsonl, one record per point with key `peer.torch_copy`, the source
record's params (plus peer_of, torch_op and torch_version) and metrics bandwidth_gbytes_per_s
(torch's, GB = 1e9 bytes, counted like the source key), ours_gbytes_per_s and ours_vs_torch
(railgauge's GB/s / torch's), then prints the ratios. Each copy's destination is checked after
the timing (metrics.verified).

With --interleave N --railgauge BIN (N >= 3) the two tools alternate N rounds: by sweep (the
default), railgauge runs each source run's command again (its run.json argv), then torch measures
every point; by point (--interleave-by point), railgauge measures each point alone, then torch.
The records then hold both sides' rounds, the ratio's interval and its verdict
(scripts/peer_pairs.py, scripts/peer_sweeps.py).

Needs a CUDA GPU and PyTorch; it is not part of CI and exits with status 2 and a message when
either is missing, or when no run holds an ok record of a mapped key.
"""
import argparse
import contextlib
import os
import sys
import time

import peer_pairs
import peer_records
import peer_sweeps

PEER_KEY = "peer.torch_copy"

# Source key -> (kind, torch op as recorded in params.torch_op).
MAPPED = {
    "memory.hbm_memcpy_d2d": ("d2d", "copy_"),
    "memory.hbm_copy": ("d2d", "copy_"),
    "offload.h2d": ("h2d", "copy_ non_blocking"),
    "offload.d2h": ("d2h", "copy_ non_blocking"),
    "offload.bidir": ("bidir", "copy_ non_blocking, two streams"),
}
MAX_BATCH = 256  # railgauge's CUDA-event timers hold at most this many calls behind the gate


class PlanError(ValueError):
    """A record that cannot be turned into a peer point (the peer record says why)."""


class Point:
    """One torch measurement planned from a railgauge record."""

    def __init__(self, source, max_samples):
        key = source["key"]
        if key not in MAPPED:
            raise PlanError(f"{key} has no torch peer in this script")
        p, m = source.get("params", {}), source.get("metrics", {})
        self.source = source
        self.kind, self.torch_op = MAPPED[key]
        self.size_bytes = int(p["size_bytes"])
        self.gpu = int(p.get("gpu", 0))
        self.pinned = p.get("host_memory", "pinned") == "pinned"
        if self.kind == "d2d":
            self.pinned = True  # no host memory: timed by CUDA events
            self.torch_op = "copy_"
        elif not self.pinned:
            self.torch_op = "copy_ blocking (pageable)"
        self.cpu_pu = p.get("cpu_pu")
        # Bytes counted as railgauge counts them for this key (memory/stream_kernel.h,
        # offload/offload_types.h): a device copy reads and writes, bidir moves size_bytes
        # each way, h2d and d2h count the bytes copied once.
        self.bytes_per_call = self.size_bytes * (2 if self.kind in ("d2d", "bidir") else 1)
        recorded = m.get("bytes_per_call")
        if recorded is not None and int(recorded) != self.bytes_per_call:
            raise PlanError(f"{key} counts {recorded} bytes per call at size_bytes "
                            f"{self.size_bytes}, this script {self.bytes_per_call}: the byte "
                            "accounting of the key changed; update MAPPED in copy_vs_torch.py")
        self.ours_gbytes_per_s = m.get("bandwidth_gbytes_per_s")
        if self.ours_gbytes_per_s is None:
            raise PlanError(f"{key} record has no metrics.bandwidth_gbytes_per_s")
        self.batch = max(1, min(int(m.get("batch", 1)), MAX_BATCH))
        taken = int(m.get("time_s", {}).get("n", 10))
        self.samples = max(10, min(taken, max_samples))
        # The span railgauge timed this GPU point over at the least (gpu_min_timed_s): torch's
        # graph-timed samples go on until they add up to it (peer_records.time_behind_gate).
        self.least_timed_s = peer_records.least_timed_s(source, 0.0)

    @property
    def timer(self):
        if self.kind == "bidir":
            return "cuda_event_lanes"
        return "cuda_graph" if self.pinned else "host_perf_counter"


def peer_metrics(point, measured):
    """The peer record's metrics from `measured`: {"samples_s": seconds per call, one per
    sample, "verified": bool, and for bidir "lanes_s": {"h2d": [...], "d2h": [...]}}."""
    s = peer_records.summary(measured["samples_s"])
    bw = point.bytes_per_call / s["median"] / 1e9 if s["median"] > 0 else 0.0
    metrics = {"time_s": s, "batch": point.batch, "timer": point.timer,
               "bytes_per_call": point.bytes_per_call,
               "bandwidth_gbytes_per_s": bw,
               "bandwidth_max_gbytes_per_s":
                   point.bytes_per_call / s["min"] / 1e9 if s["min"] > 0 else 0.0,
               "ours_gbytes_per_s": point.ours_gbytes_per_s,
               "ours_vs_torch": peer_records.ratio(point.ours_gbytes_per_s, bw),
               "verified": bool(measured.get("verified", False))}
    if measured.get("enqueue_ahead") is not None:
        metrics["enqueue_ahead"] = measured["enqueue_ahead"]
    lanes = measured.get("lanes_s")
    if lanes:
        src = point.source.get("metrics", {})
        for lane in ("h2d", "d2h"):
            median = peer_records.summary(lanes[lane])["median"]
            metrics[f"{lane}_gbytes_per_s"] = point.size_bytes / median / 1e9 if median > 0 else 0.0
            metrics[f"ours_{lane}_gbytes_per_s"] = src.get(f"{lane}_gbytes_per_s")
        metrics["sum_gbytes_per_s"] = metrics["h2d_gbytes_per_s"] + metrics["d2h_gbytes_per_s"]
    return metrics


class Pooled:
    """torch's measurements of one point over its rounds, pooled (samples and lanes joined,
    verified only if every round was)."""

    def __init__(self, point, measurer):
        self.point, self.measurer, self.measured = point, measurer, {}

    def __call__(self, _=None):
        """One round; returns its seconds per call (the median of its samples)."""
        measured = self.measurer.measure(self.point)
        for name, value in measured.items():
            if name == "samples_s":
                self.measured.setdefault(name, []).extend(value)
            elif name == "lanes_s":
                for lane, times in value.items():
                    self.measured.setdefault(name, {}).setdefault(lane, []).extend(times)
            elif name == "verified":
                self.measured[name] = self.measured.get(name, True) and bool(value)
            else:
                self.measured[name] = value
        return peer_records.summary(measured["samples_s"])["median"]


def measure_point(point, measurer, rounds=0, ours_runner=None):
    """torch's measurement of `point` (the samples of every round pooled) and, with `rounds`
    and `ours_runner` (railgauge on the point alone: seconds per call), the interleaved pair's
    metrics (peer_pairs.interleaved_metrics), else {}."""
    if not rounds:
        return measurer.measure(point), {}
    pooled = Pooled(point, measurer)
    ((_, ours_s, peer_s),) = peer_pairs.interleave([point.source], ours_runner, pooled, rounds)
    return pooled.measured, peer_pairs.interleaved_metrics(ours_s, peer_s)


def measure_sweeps(points, measurer, rounds, sweep_runner):
    """By sweep (scripts/peer_sweeps.py): each round railgauge's sweep, then torch on every
    point. Returns {id(point): (measured, pair, error)}."""
    pooled = {id(p): Pooled(p, measurer) for p in points}
    rows = peer_sweeps.interleave_sweeps(points, sweep_runner, lambda p: pooled[id(p)](),
                                         rounds, lambda p: p.source)
    out = {}
    for point, ours_s, peer_s, error in rows:
        pair = {} if error else peer_pairs.interleaved_metrics(ours_s, peer_s)
        out[id(point)] = (pooled[id(point)].measured, pair, error)
    return out


def compare(records, measurer, run, torch_version, max_samples, out=sys.stdout, rounds=0,
            ours_runner=None, sweep_runner=None):
    """Measures a peer for every record (selected already) and writes one peer record each to
    `run` (a peer_records.PeerRun). With `rounds`, railgauge and torch alternate: on each point
    (`ours_runner`, measure_point), or by sweep (`sweep_runner`, measure_sweeps). Returns the
    peer records."""
    planned = {}
    for source in records:
        try:
            planned[id(source)] = Point(source, max_samples)
        except PlanError as e:
            planned[id(source)] = e
    swept = {}
    if rounds and sweep_runner is not None:
        swept = measure_sweeps([p for p in planned.values() if isinstance(p, Point)], measurer,
                               rounds, sweep_runner)
    print(f"{'key':<22} {'memory':<9} {'place':<5} {'size_bytes':>12} {'ours':>9} {'torch':>9} "
          f"{'ours/torch':>10}  (GB/s)", file=out)
    written = []
    for source in records:
        p = source.get("params", {})
        rec = peer_records.peer_record(run.run_id, run.host, PEER_KEY, source,
                                       {"torch_version": torch_version})
        try:
            point = planned[id(source)]
            if isinstance(point, PlanError):
                raise point
            rec["params"]["torch_op"] = point.torch_op
            if id(point) in swept:
                measured, pair, error = swept[id(point)]
                if error:
                    raise RuntimeError(error)
            else:
                measured, pair = measure_point(point, measurer, rounds, ours_runner)
            rec["params"]["torch_cpu_pu"] = measured.get("cpu_pu")
            rec["metrics"] = peer_metrics(point, measured)
            if pair:
                rec["metrics"].update(pair)
                rec["metrics"]["ours_vs_torch"] = pair["ratio"]  # same-clock rounds
            if not rec["metrics"]["verified"]:
                rec["status"] = "failed"
                rec["reason"] = "the torch copy's destination does not hold the source's bytes"
        except PlanError as e:
            rec["status"], rec["reason"] = "error", str(e)
        except Exception as e:  # a failed allocation or CUDA error: record it, go on
            rec["status"], rec["reason"] = "error", f"{type(e).__name__}: {e}"
        run.write(rec)
        written.append(rec)
        place = p.get("placement", "")
        memory = p.get("host_memory", "pinned" if source["key"].startswith("offload") else "hbm")
        if rec["status"] == "ok" or rec["metrics"]:
            m = rec["metrics"]
            ratio = m["ours_vs_torch"]
            print(f"{source['key']:<22} {memory:<9} {place:<5} {p.get('size_bytes', 0):>12} "
                  f"{m['ours_gbytes_per_s']:>9.1f} {m['bandwidth_gbytes_per_s']:>9.1f} "
                  f"{'-' if ratio is None else format(ratio, '.3f'):>10}"
                  + ("" if rec["status"] == "ok" else f"  {rec['status']}: {rec['reason']}"),
                  file=out)
        else:
            print(f"{source['key']:<22} {memory:<9} {place:<5} {p.get('size_bytes', 0):>12} "
                  f"{rec['status']}: {rec['reason']}", file=out)
    return written


class TorchMeasurer:
    """Runs a Point with torch on the point's GPU (see the module's docstring for how)."""

    def __init__(self, torch, warmup, gate_cycles_per_call):
        self.torch = torch
        self.warmup = warmup
        self.gate = gate_cycles_per_call
        self.enqueue_ahead = None  # samples of the last point whose enqueue beat the GPU

    def release(self):
        """Returns cached device and pinned host memory, so the next point starts clean (and
        a pinned block allocated near one CPU is not reused for a point placed elsewhere)."""
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()
        empty_host_cache = getattr(self.torch._C, "_host_emptyCache", None)
        if empty_host_cache:
            empty_host_cache()

    @contextlib.contextmanager
    def _on_cpu(self, pu):
        """The process pinned to CPU `pu` when it may run there; yields the CPU used or None."""
        before = os.sched_getaffinity(0)
        if pu is None or int(pu) not in before:
            yield None
            return
        os.sched_setaffinity(0, {int(pu)})
        try:
            yield int(pu)
        finally:
            os.sched_setaffinity(0, before)

    def measure(self, point):
        torch = self.torch
        self.enqueue_ahead = None
        device = torch.device("cuda", point.gpu)
        torch.cuda.set_device(device)
        try:
            with self._on_cpu(None if point.kind == "d2d" else point.cpu_pu) as pu:
                if point.kind == "d2d":
                    result = self._d2d(point, device)
                elif point.kind == "bidir":
                    result = self._bidir(point, device)
                else:
                    result = self._one_way(point, device)
            result["cpu_pu"] = pu
            result["enqueue_ahead"] = self.enqueue_ahead
            return result
        finally:
            self.release()

    def _timed(self, point, call):
        if point.pinned:  # a CUDA graph: Python's launch loop is never timed (issue 44)
            times, self.enqueue_ahead = peer_records.time_graph_batches(
                self.torch, [call], point.batch, point.samples, self.warmup, self.gate,
                min_timed_s=point.least_timed_s)
            return times
        for _ in range(self.warmup):
            call()
        times = []
        for _ in range(point.samples):
            start = time.perf_counter()
            for _ in range(point.batch):
                call()  # pageable: the copy returns after the stream is synchronised
            times.append((time.perf_counter() - start) / point.batch)
        return times

    def _d2d(self, point, device):
        torch = self.torch
        src = torch.randint(0, 256, (point.size_bytes,), dtype=torch.uint8, device=device)
        dst = torch.zeros_like(src)
        times = self._timed(point, lambda: dst.copy_(src))
        return {"samples_s": times, "verified": bool(torch.equal(dst, src))}

    def _host(self, n, fill):
        """A host tensor filled from this thread (so its pages are local to its CPU)."""
        t = self.torch.empty(n, dtype=self.torch.uint8, pin_memory=False)
        return t.fill_(fill)

    def _pinned(self, n, fill):
        return self.torch.empty(n, dtype=self.torch.uint8, pin_memory=True).fill_(fill)

    def _one_way(self, point, device):
        torch = self.torch
        value = 1 + point.size_bytes % 251  # a value per point: a stale buffer cannot pass
        n = point.size_bytes
        host = self._pinned(n, value if point.kind == "h2d" else 0) if point.pinned else \
            self._host(n, value if point.kind == "h2d" else 0)
        dev = torch.full((n,), 0 if point.kind == "h2d" else value, dtype=torch.uint8,
                         device=device)
        blocking = not point.pinned
        if point.kind == "h2d":
            times = self._timed(point, lambda: dev.copy_(host, non_blocking=not blocking))
        else:
            times = self._timed(point, lambda: host.copy_(dev, non_blocking=not blocking))
        torch.cuda.synchronize()
        target = dev if point.kind == "h2d" else host
        return {"samples_s": times, "verified": bool((target == value).all())}

    def _bidir(self, point, device):
        torch = self.torch
        n, value_in, value_out = point.size_bytes, 1 + point.size_bytes % 251, 7
        host_in, host_out = self._pinned(n, value_in), self._pinned(n, 0)
        dev_in = torch.zeros(n, dtype=torch.uint8, device=device)
        dev_out = torch.full((n,), value_out, dtype=torch.uint8, device=device)
        lanes = {"h2d": (torch.cuda.Stream(device),
                         lambda: dev_in.copy_(host_in, non_blocking=True)),
                 "d2h": (torch.cuda.Stream(device),
                         lambda: host_out.copy_(dev_out, non_blocking=True))}
        for _ in range(self.warmup):
            for stream, call in lanes.values():
                with torch.cuda.stream(stream):
                    call()
        torch.cuda.synchronize()
        events = {lane: (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for lane in lanes}
        samples, lane_samples = [], {lane: [] for lane in lanes}
        for _ in range(point.samples):
            # Both gates first, so both streams are released at (nearly) the same moment;
            # each holds long enough for both batches to be enqueued.
            for stream, _ in lanes.values():
                with torch.cuda.stream(stream):
                    torch.cuda._sleep(int(self.gate * point.batch * len(lanes)))
            for lane, (stream, call) in lanes.items():
                with torch.cuda.stream(stream):
                    events[lane][0].record(stream)
                    for _ in range(point.batch):
                        call()
                    events[lane][1].record(stream)
            torch.cuda.synchronize()
            per_lane = {lane: events[lane][0].elapsed_time(events[lane][1]) * 1e-3 / point.batch
                        for lane in lanes}
            for lane, t in per_lane.items():
                lane_samples[lane].append(t)
            samples.append(max(per_lane.values()))
        verified = bool((dev_in == value_in).all()) and bool((host_out == value_out).all())
        return {"samples_s": samples, "lanes_s": lane_samples, "verified": verified}


def select(run_dirs, keys):
    """The ok records of `keys` in every run directory, in order."""
    selected = []
    for run_dir in run_dirs:
        selected.extend(peer_records.ok_records(peer_records.read_records(run_dir), keys))
    return selected


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                    help="railgauge run directories (or their records.jsonl)")
    ap.add_argument("--out", default="runs", help="directory that receives <run-id>/")
    ap.add_argument("--keys", default=",".join(MAPPED),
                    help="source keys to compare (default: every mapped key)")
    ap.add_argument("--max-samples", type=int, default=100,
                    help="most samples per point (railgauge's own count, at least 10, below it)")
    ap.add_argument("--warmup", type=int, default=3,
                    help="untimed calls first: railgauge's 2 warm-up calls and its one "
                         "batch-sizing call")
    ap.add_argument("--gate-cycles", type=int, default=peer_records.GATE_CYCLES_PER_CALL,
                    help="GPU clock cycles the stream is held per enqueued call")
    peer_pairs.add_interleave_args(ap)
    args = ap.parse_args(argv)
    problem = peer_pairs.interleave_error(args)
    if problem:
        print(f"copy_vs_torch.py: {problem}", file=sys.stderr)
        return 2

    keys = [k for k in args.keys.split(",") if k]
    unknown = [k for k in keys if k not in MAPPED]
    if unknown:
        print(f"copy_vs_torch.py: --keys {','.join(unknown)}: no torch peer for "
              f"{'it' if len(unknown) == 1 else 'them'}; mapped keys: {', '.join(MAPPED)}",
              file=sys.stderr)
        return 2
    try:
        selected = select(args.run_dirs, keys)
    except (OSError, ValueError) as e:
        print(f"copy_vs_torch.py: cannot read the run's records: {e}; give a railgauge run "
              "directory <out>/<run-id> (or its records.jsonl)", file=sys.stderr)
        return 2
    if not selected:
        print(f"copy_vs_torch.py: no ok record of {', '.join(keys)} in "
              f"{', '.join(args.run_dirs)}", file=sys.stderr)
        return 2
    torch = peer_records.import_torch_cuda(
        "copy_vs_torch.py", "compares railgauge's HBM and host<->GPU copies with torch copies")
    if torch is None:
        return 2
    measurer = TorchMeasurer(torch, args.warmup, args.gate_cycles)
    with peer_records.PeerRun(args.out, "torch-copy") as run:
        rounds_dir = os.path.join(run.dir, "railgauge-rounds")
        runner = sweeps = None
        if args.interleave and args.interleave_by == "point":
            runner = peer_pairs.RailgaugeRunner(args.railgauge, rounds_dir, args.railgauge_arg,
                                                args.railgauge_lib)
        elif args.interleave:
            sweeps = peer_sweeps.RailgaugeSweepRunner(args.railgauge, rounds_dir,
                                                      args.run_dirs, args.railgauge_lib)
        compare(selected, measurer, run, torch.__version__, args.max_samples,
                rounds=args.interleave, ours_runner=runner, sweep_runner=sweeps)
    print(f"records: {run.path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
