#!/usr/bin/env python3
"""What the peer scripts (gemm_vs_torch.py, copy_vs_torch.py, nvbandwidth_vs_ours.py) share:
reading a railgauge run's records, timing a batch of GPU calls the way railgauge's CUDA-event
timer does, writing peer records, and summarising the ratios of several peer runs.

    scripts/peer_records.py summary [--runs DIR] PEER_DIR...

`summary` prints, per peer key and source benchmark (and dtype, host memory, placement, peer
testcase), the number of points and the median, lowest, highest and largest-size value of the
ratio `ours_vs_<peer>` (ours_vs_torch, ours_vs_nvbandwidth);
with --runs, the record count per status of every railgauge run directory under DIR first.

Importing this module needs neither torch nor a GPU: the functions that time GPU work take the
torch module as an argument.
"""
import argparse
import datetime
import json
import math
import os
import socket
import statistics
import sys
import time

RECORD_SCHEMA = "railgauge.record/1"


def summary(samples):
    """The distribution of `samples` in railgauge's time_s form (harness/stats.h)."""
    s = sorted(samples)
    n = len(s)

    def pct(p):
        x = p * (n - 1)
        lo = int(math.floor(x))
        hi = min(lo + 1, n - 1)
        return s[lo] + (s[hi] - s[lo]) * (x - lo)

    mean = sum(s) / n
    stdev = math.sqrt(sum((v - mean) ** 2 for v in s) / (n - 1)) if n > 1 else 0.0
    return {"n": n, "min": s[0], "max": s[-1], "mean": mean, "stdev": stdev,
            "median": pct(0.5), "p10": pct(0.1), "p90": pct(0.9), "p99": pct(0.99)}


def ratio(ours, theirs):
    """ours / theirs, or None when either side is missing or not positive."""
    if ours is None or theirs is None or ours <= 0 or theirs <= 0:
        return None
    return ours / theirs


def records_path(path):
    """A run directory's records.jsonl, or `path` itself when it names a file."""
    return os.path.join(path, "records.jsonl") if os.path.isdir(path) else path


def read_records(path):
    """Every record of a run directory (or of a records.jsonl file)."""
    with open(records_path(path), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def least_timed_s(source, otherwise):
    """The span railgauge timed a GPU point over at the least (its record's
    metrics.steady_state.least_timed_s, gpu_min_timed_s when it ran), else `otherwise`: a peer
    times the same span, so neither side reads a burst the other does not (issue 55)."""
    steady = source.get("metrics", {}).get("steady_state")
    value = steady.get("least_timed_s") if isinstance(steady, dict) else None
    return float(value) if isinstance(value, (int, float)) and value >= 0 else otherwise


def ok_records(records, keys):
    """The `ok` records whose key is one of `keys`, in file order."""
    keys = set(keys)
    return [r for r in records if r.get("key") in keys and r.get("status") == "ok"]


def utc_now():
    """railgauge's time_utc form: 2026-11-22T04:53:19.249Z."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def host_name():
    return socket.gethostname().split(".")[0]


def new_run_id(host, suffix):
    """<UTC time>-<host>-<suffix>, the form of railgauge's run ids plus what made the run."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    return f"{stamp}-{host}-{suffix}"


def peer_record(run_id, host, key, source, extra_params):
    """A peer record for `source` (a railgauge record): its params and device, plus peer_of and
    `extra_params`; metrics empty and status ok until the caller fills them in."""
    return {"schema": RECORD_SCHEMA, "run": run_id, "host": host, "rank": 0, "key": key,
            "params": dict(source.get("params", {}), peer_of=source["key"], **extra_params),
            "device": source.get("device", {}), "metrics": {}, "status": "ok", "reason": None}


class PeerRun:
    """DIR/<run-id>/records.jsonl, written one line per record as each point finishes (like
    railgauge, so an interrupted peer run keeps every point measured so far)."""

    def __init__(self, out_dir, suffix, host=None):
        self.host = host or host_name()
        self.run_id = new_run_id(self.host, suffix)
        self.dir = os.path.join(out_dir, self.run_id)
        os.makedirs(self.dir, exist_ok=True)
        self.path = os.path.join(self.dir, "records.jsonl")
        self._file = open(self.path, "w", encoding="utf-8")

    def write(self, record):
        record["time_utc"] = utc_now()
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def import_torch_cuda(prog, purpose):
    """torch when it is installed and sees a CUDA GPU; else prints why to stderr and returns
    None (the peer scripts then exit 2)."""
    try:
        import torch
    except ImportError:
        print(f"{prog}: PyTorch is not installed. This script {purpose} on a GPU machine; it is "
              "not part of CI. Install torch there (pip install torch) and run it again.",
              file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"{prog}: torch.cuda.is_available() is False: no CUDA GPU here, nothing to "
              "compare.", file=sys.stderr)
        return None
    return torch


# GPU clock cycles that torch.cuda._sleep holds the stream per enqueued call: at least the
# host's enqueue time of one call, so that the whole batch is queued before the first call runs
# (about 10 us at H100 clocks; Python enqueues a matmul or a copy in a few microseconds).
GATE_CYCLES_PER_CALL = 20_000


def time_gated_batch(torch, calls, batch, gate_cycles_per_call=GATE_CYCLES_PER_CALL):
    """Seconds per call of `calls` (run in turn) on the current stream: a CUDA event before and
    after `batch` rounds, the stream held by a sleep kernel while the batch is enqueued (so
    Python's launch cost is excluded, as railgauge's blocking kernel does)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(int(gate_cycles_per_call * batch * len(calls)))
    start.record()
    for _ in range(batch):
        for c in calls:
            c()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) * 1e-3 / batch


def time_batches(torch, calls, batch, samples, warmup,
                 gate_cycles_per_call=GATE_CYCLES_PER_CALL):
    """`samples` timings of time_gated_batch after `warmup` untimed rounds of `calls`."""
    for _ in range(warmup):
        for c in calls:
            c()
    torch.cuda.synchronize()
    return [time_gated_batch(torch, calls, batch, gate_cycles_per_call) for _ in range(samples)]


# The most samples a least timed span may ask for (a span of small calls is many samples).
MAX_SPAN_SAMPLES = 20000


def time_behind_gate(torch, launch, batch, samples, warm_s, gate, max_doublings,
                     min_timed_s=0.0):
    """`samples` timings (seconds per call) of `launch()` (which enqueues `batch` calls) between
    CUDA events, each behind a sleep of `gate` cycles so that Python's enqueue is not timed: an
    event after the sleep is queried once everything is enqueued, and a sample whose gate had
    already opened is taken again behind a gate twice as long. With `warm_s`, `launch` runs
    untimed for that many seconds first (a large GEMM's rate depends on the power state a
    sustained run sets). With `min_timed_s`, samples go on until the timed batches add up to
    that span, as railgauge's GPU points do (gpu_min_timed_s, the record's
    steady_state.least_timed_s): a GPU at its power limit runs the first milliseconds after a
    prelude faster than it sustains, so both sides must time the same span (issue 55). Returns
    (times, enqueue checks passed)."""
    warm_until = time.monotonic() + warm_s
    while time.monotonic() < warm_until:
        launch()
        torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    gate_open = torch.cuda.Event()
    times, ahead, timed_s = [], 0, 0.0
    while len(times) < samples or (timed_s < min_timed_s and len(times) < MAX_SPAN_SAMPLES):
        for attempt in range(max_doublings + 1):
            torch.cuda._sleep(gate)
            gate_open.record()
            start.record()
            launch()
            stop.record()
            enqueued_in_time = not gate_open.query()
            torch.cuda.synchronize()
            if enqueued_in_time:
                ahead += 1
                break
            if attempt < max_doublings:
                gate *= 2
        times.append(start.elapsed_time(stop) * 1e-3 / batch)
        timed_s += times[-1] * batch
    return times, ahead


def time_graph_batches(torch, calls, batch, samples, warmup,
                       gate_cycles_per_call=GATE_CYCLES_PER_CALL, max_doublings=4, warm_s=0.0,
                       min_timed_s=0.0):
    """`samples` timings (seconds per call) of `batch` rounds of `calls` captured in one CUDA
    graph, so that Python's launch loop cannot be timed (issue 44: a fixed sleep of ~10 us per
    call was as short as Python's enqueue, and torch timed its own loop at small shapes). The
    capture freezes what each call reads: a call that rotates operand sets replays the first
    `batch` of them (issue 55). Returns (times, enqueue checks passed)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):  # warm-up outside capture, as torch's graph docs require
        for _ in range(max(1, warmup)):
            for c in calls:
                c()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(batch):
            for c in calls:
                c()
    graph.replay()
    torch.cuda.synchronize()
    # One graph launch to enqueue, not batch x calls launches.
    return time_behind_gate(torch, graph.replay, batch, samples, warm_s,
                            int(gate_cycles_per_call * 4), max_doublings, min_timed_s)


def time_stream_batches(torch, calls, batch, samples, warmup,
                        gate_cycles_per_call=GATE_CYCLES_PER_CALL, max_doublings=6, warm_s=0.0,
                        min_timed_s=0.0):
    """`samples` timings (seconds per call) of `batch` rounds of `calls` launched one by one on
    the stream, as railgauge launches its GEMMs (CUDA events around a batch behind a blocking
    kernel). Unlike a captured graph, every call runs again each time, so a call that rotates
    through its operand sets reads the next one on every call of every sample, never the first
    `batch` sets frozen at capture (issue 55: at 256^3 a graph kept 38 of railgauge's 640 sets
    in L2). The gate is sized for every launch Python enqueues. Returns (times, enqueue checks
    passed)."""
    def run_batch():
        for _ in range(batch):
            for c in calls:
                c()

    for _ in range(max(1, warmup)):
        for c in calls:
            c()
    torch.cuda.synchronize()
    return time_behind_gate(torch, run_batch, batch, samples, warm_s,
                            int(gate_cycles_per_call * batch * len(calls)), max_doublings,
                            min_timed_s)


def kernel_names(torch, call, repeats=3):
    """The CUDA kernels `call` launches, from torch.profiler (sorted), or [] with the reason
    when the profiler cannot say (an old torch, no CUPTI)."""
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(repeats):
                call()
            torch.cuda.synchronize()
        names = {e.key for e in prof.key_averages()
                 if getattr(e, "device_type", None) is not None
                 and str(e.device_type).endswith("CUDA") and "Memcpy" not in e.key
                 and "Memset" not in e.key}
        return sorted(names), None
    except Exception as e:  # the record says why there is no kernel name
        return [], f"{type(e).__name__}: {e}"


# ---------------------------------------------------------------------------- summary

def peer_ratio(record):
    """railgauge / peer: the record's ours_vs_<peer> metric (ours_vs_torch, ours_vs_nvbandwidth),
    or None."""
    for name, value in record.get("metrics", {}).items():
        if name.startswith("ours_vs_"):
            return value
    return None


def group_label(record):
    """What a ratio row is about: the source key plus the params that change its meaning."""
    p = record.get("params", {})
    parts = [p.get("peer_of", "?")]
    for name in ("dtype", "host_memory", "placement", "torch_op", "nvbandwidth_testcase"):
        if p.get(name) not in (None, ""):
            parts.append(str(p[name]))
    return " ".join(parts)


def point_size(record):
    """The size that orders a group's points: bytes per call, else FLOPs per call."""
    m = record.get("metrics", {})
    return m.get("bytes_per_call") or m.get("flops_per_call") or record["params"].get(
        "size_bytes", 0)


def ratio_rows(records):
    """[(peer key, group label, n, median, min, max, ratio at the largest size, not ok)]."""
    groups = {}
    for r in records:
        if r.get("key", "").startswith("peer."):  # not the imported peer runs beside them
            groups.setdefault((r["key"], group_label(r)), []).append(r)
    rows = []
    for (key, label), recs in sorted(groups.items()):
        ok = [r for r in recs if r.get("status") == "ok" and peer_ratio(r) is not None]
        not_ok = len(recs) - len(ok)
        if not ok:
            rows.append((key, label, 0, None, None, None, None, not_ok))
            continue
        values = [peer_ratio(r) for r in ok]
        largest = peer_ratio(max(ok, key=point_size))
        rows.append((key, label, len(ok), statistics.median(values), min(values), max(values),
                     largest, not_ok))
    return rows


def find_record_files(root):
    """Every records.jsonl under `root` (or `root` itself when it is one), sorted."""
    if os.path.isfile(root):
        return [root]
    found = []
    for dirpath, _, files in os.walk(root):
        if "records.jsonl" in files:
            found.append(os.path.join(dirpath, "records.jsonl"))
    return sorted(found)


def status_counts(path):
    counts = {}
    for r in read_records(path):
        counts[r.get("status", "?")] = counts.get(r.get("status", "?"), 0) + 1
    return counts


def print_summary(runs_root, peer_roots, out=sys.stdout):
    def fmt(v):
        return "-" if v is None else f"{v:.3f}"

    if runs_root:
        print("Records per run (status counts):", file=out)
        for path in find_record_files(runs_root):
            counts = status_counts(path)
            text = ", ".join(f"{counts[s]} {s}" for s in sorted(counts)) or "no records"
            print(f"  {os.path.relpath(os.path.dirname(path), runs_root)}: {text}", file=out)
    peers = []
    for root in peer_roots:
        for path in find_record_files(root):
            peers.extend(read_records(path))
    print("Peer ratios ours_vs_<peer> (railgauge / the peer on the same GPU; 1.0 = equal):",
          file=out)
    rows = ratio_rows(peers)
    if not rows:
        print("  no peer records", file=out)
        return
    label_width = max(len(r[1]) for r in rows)
    print(f"  {'peer':<18} {'source':<{label_width}} {'n':>4} {'median':>7} {'min':>7} "
          f"{'max':>7} {'largest':>7} {'not ok':>6}", file=out)
    for key, label, n, med, lo, hi, largest, not_ok in rows:
        print(f"  {key:<18} {label:<{label_width}} {n:>4} {fmt(med):>7} {fmt(lo):>7} "
              f"{fmt(hi):>7} {fmt(largest):>7} {not_ok:>6}", file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("summary", help="ratio table of peer runs")
    s.add_argument("peers", nargs="*", help="peer run directories, or directories holding them")
    s.add_argument("--runs", help="also count the records of the railgauge runs under this")
    args = ap.parse_args(argv)
    print_summary(args.runs, args.peers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
