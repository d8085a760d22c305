#!/usr/bin/env python3
"""Pairs railgauge's points with a peer's and says what the ratio can claim: a ratio with its
interval, each side's spread, and a verdict that is `parity` whenever the ratio lies inside the
two sides' noise, never a win (issue 44).

    scripts/peer_pairs.py verdicts OUT_DIR [--json FILE]

`verdicts` reads a reference run's output (runs/ and peers/) and prints, per peer key and source
benchmark, the pairs it can make from the committed records: the ratio railgauge / peer
(throughput; > 1 railgauge faster), the lowest and highest end of the points' intervals, and how
many points are parity, faster, slower or unresolved (not interleaved), and how many are
flagged (the peer run's first point, a launch-bound time per call, a working set that fits in
L2).

The interleaved peer scripts (gemm_vs_torch.py and copy_vs_torch.py with --interleave,
nccl_pairs.py) call `interleave` and `pair_rounds`: the two tools alternate point by point,
ABAB... for several rounds, and the ratio's interval is that of the per-round ratios, each taken
from two measurements seconds apart at the same clock state. Without interleaving (the committed
runs of 2026-11-26) the interval is each side's p10-p90 within its own run: it does not bound
the drift between runs minutes apart, which every verdict then names.

Needs neither torch nor a GPU.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import peer_records

# Below this time per call a GPU time is launch-bound: Python enqueues one call in 5-10 us and
# railgauge's host loop in a few (the H200 VMs of issue 44, where torch timed its own loop at
# the 256^3 GEMM, 2.74x railgauge).
LAUNCH_BOUND_S = 20e-6
# H200's L2 (60 MiB) when a record does not give params.l2_bytes: sizes under it are reported
# apart from the HBM plateau.
DEFAULT_L2_BYTES = 60 * 2**20
# Params a peer record adds to its source record's (peer_records.peer_record, the scripts).
PEER_ONLY_PARAMS = {"peer_of", "torch_version", "torch_op", "torch_cpu_pu", "torch_kernels",
                    "torch_math", "interleave_rounds", "peer_timer"}


def quantile(values, q):
    """The q quantile of `values`, linear between order statistics (as peer_records.summary)."""
    s = sorted(values)
    x = q * (len(s) - 1)
    lo = int(x)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (x - lo)


def spread(time_s):
    """A side's relative spread: p90 / p10 - 1 of its time_s summary (0 when unknown)."""
    lo, hi = time_s.get("p10"), time_s.get("p90")
    if not lo or not hi or lo <= 0:
        return 0.0
    return hi / lo - 1.0


def verdict(ratio, lo, hi, peer_noise, resolution=0.0):
    """`parity` when the interval [lo, hi] holds 1, or the ratio is within the peer's own noise
    or the A/A control's resolution; else `railgauge faster` / `railgauge slower`."""
    if lo - 1e-9 <= 1.0 <= hi + 1e-9 or abs(ratio - 1.0) <= max(peer_noise, resolution, 1e-9):
        return "parity"
    return "railgauge faster" if ratio > 1.0 else "railgauge slower"


def pair_summaries(ours_time_s, peer_time_s, resolution=0.0):
    """The pair of two time_s summaries (seconds per call) of one point measured apart: the
    ratio of medians peer / ours (railgauge's throughput over the peer's), its interval from the
    two p10-p90 ranges, each side's spread and the verdict. Outside parity the verdict is
    `unresolved`, never a win: the two runs were minutes apart and torch's own median moved
    6.4 % between runs at one shape (issue 44), more than these within-run intervals hold."""
    ours_med, peer_med = ours_time_s["median"], peer_time_s["median"]
    ratio = peer_med / ours_med
    lo = peer_time_s.get("p10", peer_med) / ours_time_s.get("p90", ours_med)
    hi = peer_time_s.get("p90", peer_med) / ours_time_s.get("p10", ours_med)
    peer_noise = spread(peer_time_s)
    return {"ratio": ratio, "ratio_lo": lo, "ratio_hi": hi, "ours_spread": spread(ours_time_s),
            "peer_spread": peer_noise, "interleaved": False,
            "verdict": "parity" if verdict(ratio, lo, hi, peer_noise, resolution) == "parity"
            else "unresolved"}


def pair_rounds(ours_s, peer_s, resolution=0.0):
    """The pair of interleaved rounds: ours_s[i] and peer_s[i] are the two tools' seconds per
    call in round i (A then B, seconds apart). The ratio is the median of the per-round ratios
    peer / ours, its interval their p10-p90 (min-max below 5 rounds), each side's spread its
    rounds' p90 / p10 - 1."""
    if len(ours_s) != len(peer_s) or not ours_s:
        raise ValueError(f"rounds differ: {len(ours_s)} of railgauge, {len(peer_s)} of the peer")
    ratios = [p / o for o, p in zip(ours_s, peer_s)]
    tail = 0.1 if len(ratios) >= 5 else 0.0
    lo, hi = quantile(ratios, tail), quantile(ratios, 1 - tail)
    ours, peer = peer_records.summary(ours_s), peer_records.summary(peer_s)
    ratio = statistics.median(ratios)
    peer_noise = spread(peer)
    return {"ratio": ratio, "ratio_lo": lo, "ratio_hi": hi, "ours_spread": spread(ours),
            "peer_spread": peer_noise, "interleaved": True, "rounds": len(ratios),
            "round_ratios": ratios, "verdict": verdict(ratio, lo, hi, peer_noise, resolution)}


def resolution_of(control_ratios):
    """An A/A control's resolution: the largest distance from 1 of its ratios (the same call
    through both harnesses, so every difference is the harnesses')."""
    return max((abs(r - 1.0) for r in control_ratios), default=0.0)


def interleave(points, measure_ours, measure_peer, rounds):
    """For each point, `rounds` rounds of railgauge then the peer (ABAB...): returns
    [(point, [ours seconds per call], [peer seconds per call])]. A measure function takes the
    point and returns seconds per call (its median of that round)."""
    if rounds < 3:
        raise ValueError(f"--interleave {rounds}: give at least 3 rounds, so that a round's "
                         "drift shows in the interval")
    out = []
    for point in points:
        ours, peer = [], []
        for _ in range(rounds):
            ours.append(measure_ours(point))
            peer.append(measure_peer(point))
        out.append((point, ours, peer))
    return out


def flags(record, time_per_call_s, first):
    """Why a point's ratio is not a plateau figure: the peer run's first point (warm-up of the
    library and clocks), a launch-bound time per call, a working set that fits in L2."""
    out = []
    if first:
        out.append("first point")
    if time_per_call_s < LAUNCH_BOUND_S:
        out.append("launch-bound")
    p, m = record.get("params", {}), record.get("metrics", {})
    if str(record.get("key", "")).startswith("memory.") or p.get("peer_of", "").startswith(
            "memory."):
        working_set = m.get("bytes_per_call") or 2 * p.get("size_bytes", 0)
        if working_set and working_set < p.get("l2_bytes", DEFAULT_L2_BYTES):
            out.append("under L2")
    return out


# ---------------------------------------------------------------------- railgauge, one point

def family_of(key):
    """The railgauge subcommand that runs `key`: gemm.cublaslt -> gemm."""
    return key.split(".", 1)[0]


def axis_text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def one_point_command(binary, record, out_dir, extra_args=()):
    """The railgauge command that measures `record`'s point again, alone: its key as --filter
    and each of its axes pinned to the recorded value."""
    cmd = [binary, family_of(record["key"]), "--filter", record["key"], "--out", out_dir, "-q"]
    for name, value in sorted(record.get("axes", {}).items()):
        cmd += ["-a", f"{name}={axis_text(value)}"]
    return cmd + list(extra_args)


def point_time_s(records, source, metric="time_s"):
    """The median seconds per call of the ok record of `source`'s key and axes among
    `records` (a one-point run's), from metrics.<metric>; raises ValueError naming what is
    missing."""
    for r in records:
        if (r.get("key") == source["key"] and r.get("axes") == source.get("axes")
                and r.get("status") == "ok"):
            value = r.get("metrics", {}).get(metric)
            median = value.get("median") if isinstance(value, dict) else None
            if median:
                return median
            raise ValueError(f"{source['key']}: the record has no metrics.{metric}.median")
    statuses = sorted({f"{r.get('key')} {r.get('status')}: {r.get('reason')}" for r in records})
    raise ValueError(f"{source['key']}: no ok record of the point in railgauge's run "
                     f"({'; '.join(statuses) or 'no records'})")


def round_dir(work_dir, round_number):
    """A round's directory under `work_dir`, made."""
    out = os.path.join(work_dir, f"round-{round_number:04d}")
    os.makedirs(out, exist_ok=True)
    return out


def railgauge_env(lib_path):
    """The environment railgauge runs in: `lib_path` first on its library path (railgauge's
    libraries only, never the Python's)."""
    env = dict(os.environ)
    if lib_path:
        env["LD_LIBRARY_PATH"] = ":".join(p for p in (lib_path, env.get("LD_LIBRARY_PATH", ""))
                                          if p)
    return env


class RailgaugeRunner:
    """Measures one point with railgauge (one_point_command) and returns its median seconds
    per call; each round's run directory is kept under `work_dir` as evidence."""

    def __init__(self, binary, work_dir, extra_args=(), lib_path=None, timeout_s=600,
                 metric="time_s"):
        self.binary, self.work_dir, self.extra_args = binary, work_dir, list(extra_args)
        self.lib_path, self.timeout_s, self.metric = lib_path, timeout_s, metric
        self.rounds_run = 0

    def __call__(self, source):
        self.rounds_run += 1
        out = round_dir(self.work_dir, self.rounds_run)
        env = railgauge_env(self.lib_path)
        cmd = one_point_command(self.binary, source, out, self.extra_args)
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                               timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            raise ValueError(f"{source['key']}: railgauge ran past {self.timeout_s} s: "
                             f"{' '.join(cmd)}") from None
        records = []
        for path in peer_records.find_record_files(out):
            records.extend(peer_records.read_records(path))
        if not records:
            raise ValueError(f"{source['key']}: railgauge exited {p.returncode} without "
                             f"records: {(p.stderr or p.stdout).strip()[-300:]}")
        return point_time_s(records, source, self.metric)


def add_interleave_args(ap):
    """The options of the interleaved mode, of gemm_vs_torch.py and copy_vs_torch.py."""
    ap.add_argument("--interleave", type=int, default=0, metavar="ROUNDS",
                    help="alternate railgauge and torch point by point, this many rounds (>= 3)")
    ap.add_argument("--railgauge", help="with --interleave: the railgauge binary")
    ap.add_argument("--railgauge-lib", help="LD_LIBRARY_PATH first entries for railgauge only")
    ap.add_argument("--railgauge-arg", action="append", default=[],
                    help="with --interleave-by point: an argument for each railgauge run, e.g. "
                         "--railgauge-arg=--time-budget --railgauge-arg=0.2 (repeatable)")
    ap.add_argument("--interleave-by", choices=("sweep", "point"), default="sweep",
                    help="sweep (default): railgauge's whole sweep again (its run.json argv), "
                         "then the peer on every point, each round; point: one railgauge "
                         "process per point and round (scripts/peer_sweeps.py says why not)")


def interleave_error(args):
    """Why the interleave options cannot run, or None."""
    if not args.interleave:
        return None
    if args.interleave < 3:
        return f"--interleave {args.interleave}: give at least 3 rounds"
    if not args.railgauge or not os.access(args.railgauge, os.X_OK):
        return "--interleave needs --railgauge BIN, an executable railgauge"
    return None


def interleaved_metrics(ours_s, peer_s, resolution=0.0):
    """The metrics an interleaved peer record adds: both sides' rounds and the pair."""
    pair = pair_rounds(ours_s, peer_s, resolution)
    return {"ours_rounds_s": ours_s, "peer_rounds_s": peer_s, "rounds": pair["rounds"],
            "round_ratios": pair["round_ratios"], "ratio": pair["ratio"],
            "ratio_p10": pair["ratio_lo"], "ratio_p90": pair["ratio_hi"],
            "ours_spread": pair["ours_spread"], "peer_spread": pair["peer_spread"],
            "verdict": pair["verdict"]}


# ---------------------------------------------------------------------- committed records

def same_point(source, peer):
    """Whether `peer` (a peer record) was made from `source` (a railgauge record)."""
    if peer.get("params", {}).get("peer_of") != source.get("key"):
        return False
    sp, pp = source.get("params", {}), peer.get("params", {})
    return all(pp.get(k) == v for k, v in sp.items() if k not in PEER_ONLY_PARAMS)


def source_of(peer, sources):
    """The railgauge record `peer` was made from, or None."""
    for s in sources:
        if same_point(s, peer):
            return s
    return None


def committed_pairs(out_dir):
    """[(peer record, source record or None)] of every peer.* record under OUT_DIR/peers (the
    torch peers; nvbandwidth's records are paired already by nvbandwidth_vs_ours.py)."""
    sources = []
    for path in peer_records.find_record_files(os.path.join(out_dir, "runs")):
        sources.extend(peer_records.read_records(path))
    pairs = []
    for path in peer_records.find_record_files(os.path.join(out_dir, "peers")):
        for peer in peer_records.read_records(path):
            if str(peer.get("key", "")).startswith("peer.torch"):
                pairs.append((peer, source_of(peer, sources)))
    return pairs


def control_resolution(pairs):
    """The A/A resolution of the copy table: memory.hbm_memcpy_d2d against torch's copy_ is the
    same cudaMemcpyAsync through both harnesses."""
    ratios = [peer_records.peer_ratio(p) for p, _ in pairs
              if p.get("params", {}).get("peer_of") == "memory.hbm_memcpy_d2d"
              and p.get("status") == "ok" and peer_records.peer_ratio(p)]
    return resolution_of(ratios), len(ratios)


def gemm_control(out_dir):
    """The GEMM tables' A/A control: the summary of the peer.railgauge_aa records under
    OUT_DIR/peers (scripts/gemm_aa_control.py), or None."""
    import gemm_aa_control  # it imports this module
    records = [r for path in peer_records.find_record_files(os.path.join(out_dir, "peers"))
               for r in peer_records.read_records(path)]
    return gemm_aa_control.control_of(records)


def assess(pairs, gemm_resolution=0.0):
    """One row per pair that has both sides ok: {group, ratio, ratio_lo, ratio_hi, spreads,
    verdict, flags}. Copy points use the copy A/A control's resolution, GEMM points
    `gemm_resolution` (their own A/A control's)."""
    resolution, _ = control_resolution(pairs)
    rows, seen_runs = [], set()
    for peer, source in pairs:
        first = peer.get("run") not in seen_runs
        seen_runs.add(peer.get("run"))
        if peer.get("status") != "ok" or source is None or source.get("status") != "ok":
            continue
        ours_t, peer_t = source["metrics"].get("time_s"), peer["metrics"].get("time_s")
        if not ours_t or not peer_t or not ours_t.get("median") or not peer_t.get("median"):
            continue
        is_copy = peer["key"] == "peer.torch_copy"
        own = resolution if is_copy else gemm_resolution if peer["key"] == "peer.torch_matmul" \
            else 0.0
        pm = peer["metrics"]
        if pm.get("ours_rounds_s") and pm.get("peer_rounds_s"):  # interleaved: same-clock pairs
            pair = pair_rounds(pm["ours_rounds_s"], pm["peer_rounds_s"], own)
        else:
            pair = pair_summaries(ours_t, peer_t, own)
        pair["group"] = peer_records.group_label(peer)
        pair["key"] = peer["key"]
        pair["flags"] = flags(peer, min(ours_t["median"], peer_t["median"]), first)
        pair["size"] = peer_records.point_size(peer)
        rows.append(pair)
    return rows, resolution


def group_rows(rows):
    """Per (peer key, group): n, median ratio, lowest interval end, highest, verdict counts,
    flagged count, and the same over the unflagged points."""
    groups = {}
    for r in rows:
        groups.setdefault((r["key"], r["group"]), []).append(r)
    out = []
    for (key, label), rs in sorted(groups.items()):
        clean = [r for r in rs if not r["flags"]]
        count = {v: sum(1 for r in rs if r["verdict"] == v)
                 for v in ("parity", "railgauge faster", "railgauge slower", "unresolved")}
        out.append({"key": key, "group": label, "n": len(rs),
                    "median": statistics.median(r["ratio"] for r in rs),
                    "lo": min(r["ratio_lo"] for r in rs), "hi": max(r["ratio_hi"] for r in rs),
                    "parity": count["parity"], "faster": count["railgauge faster"],
                    "slower": count["railgauge slower"], "unresolved": count["unresolved"],
                    "flagged": len(rs) - len(clean),
                    "clean_median": statistics.median(r["ratio"] for r in clean)
                    if clean else None,
                    "clean_lo": min((r["ratio_lo"] for r in clean), default=None),
                    "clean_hi": max((r["ratio_hi"] for r in clean), default=None)})
    return out


def print_verdicts(out_dir, out=sys.stdout):
    import gemm_aa_control  # it imports this module
    gemm = gemm_control(out_dir)
    rows, resolution = assess(committed_pairs(out_dir), gemm["resolution"] if gemm else 0.0)
    _, controls = control_resolution(committed_pairs(out_dir))

    def fmt(v):
        return "-" if v is None else f"{v:.3f}"

    print("Peer pairs (railgauge / peer throughput; parity when the interval holds 1 or the "
          "ratio is within the peer's noise):", file=out)
    if controls:
        print(f"  copy A/A control (memory.hbm_memcpy_d2d vs copy_, {controls} points): "
              f"resolution +/-{resolution:.3f}", file=out)
    if any(r["key"] == "peer.torch_matmul" for r in rows):
        print(f"  GEMM {gemm_aa_control.describe(gemm)}", file=out)
    interleaved = any(r["interleaved"] for r in rows)
    if rows and not interleaved:
        print("  not interleaved: each interval is one run's p10-p90 and does not bound the "
              "drift between the two tools' runs; outside parity a pair is unresolved",
              file=out)
    groups = group_rows(rows)
    if not groups:
        print("  no pair with both sides ok", file=out)
        return groups
    width = max(len(g["group"]) for g in groups)
    print(f"  {'peer':<17} {'source':<{width}} {'n':>3} {'median':>7} {'lo':>6} {'hi':>6} "
          f"{'parity':>6} {'faster':>6} {'slower':>6} {'unres.':>6} {'flagged':>7}  "
          "unflagged median [lo, hi]",
          file=out)
    for g in groups:
        print(f"  {g['key']:<17} {g['group']:<{width}} {g['n']:>3} {fmt(g['median']):>7} "
              f"{fmt(g['lo']):>6} {fmt(g['hi']):>6} {g['parity']:>6} {g['faster']:>6} "
              f"{g['slower']:>6} {g['unresolved']:>6} {g['flagged']:>7}  "
              f"{fmt(g['clean_median'])} "
              f"[{fmt(g['clean_lo'])}, {fmt(g['clean_hi'])}]", file=out)
    return groups


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verdicts", help="the pairs a reference run's records can make")
    v.add_argument("out_dir", help="a reference run's output directory (runs/ and peers/)")
    v.add_argument("--json", help="also write the rows here")
    args = ap.parse_args(argv)
    if not os.path.isdir(os.path.join(args.out_dir, "peers")):
        print(f"peer_pairs.py: {args.out_dir} has no peers/ directory: give a reference run's "
              "output directory (results/reference/<gpu>-<date>)", file=sys.stderr)
        return 2
    groups = print_verdicts(args.out_dir)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(groups, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
