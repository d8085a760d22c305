#!/usr/bin/env python3
"""railgauge vs perftest in the same Soft-RoCE VM: a markdown table of both tools' figures over
alternating runs, each as median [min-max], and the ratio of the medians.

Usage: ratios.py OUT_DIR   (the directory scripts/softroce_vm.sh filled)

Reads every run OUT_DIR/rep*/ (the guest alternates railgauge and perftest, rep1, rep2, ...):
railgauge's records in rep*/runs/*/records.jsonl (both ends in one process) and
rep*/runs_ranks/*/rank-00000/records.jsonl (each end in its own process), perftest's client
output imported by rdma_perftest_import in rep*/perftest_*.jsonl.

A figure that a run lacks, or that is zero (perftest prints 0.00 for a figure it did not
measure), is left out of that side's median and the row says why; a figure no run has is shown
as missing with the reasons. Exit status: 0 when every figure is in every run, 1 when some are
missing (the table is complete all the same), 2 on an error of this script's own (an
unreadable directory or record) with the error on stderr."""
import glob
import json
import math
import os
import statistics
import sys
import traceback

VERBS = ("write", "read", "send")
LATENCY_STATS = (("min_s", "min"), ("p50_s", "median"), ("p99_s", "p99"))


class InputError(Exception):
    """Input this script cannot read: exit 2."""


def load_records(paths):
    records = []
    for path in paths:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{number}: not a JSON record ({e.msg})") from e
    return records


def pick(records, key, size, **params):
    """The first record of `key` at `size` whose params match (a param a record lacks matches),
    or (None, why)."""
    found = [r for r in records if r.get("key") == key
             and r.get("params", {}).get("size_bytes") == size
             and all(r["params"].get(k, v) == v for k, v in params.items())]
    for r in found:
        if r.get("status") == "ok":
            return r, None
    if found:
        r = found[0]
        return None, f"{key} {size} B {r.get('status')}: {r.get('reason')}"
    return None, f"no {key} record at {size} B"


def figure(record, path):
    """The number at `path` (a tuple of keys) in the record's metrics, or (None, why)."""
    value = record.get("metrics", {})
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None, f"{record.get('key')} has no metrics.{'.'.join(path)}"
        value = value[part]
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return None, f"{record.get('key')} metrics.{'.'.join(path)} is {value!r}"
    if value <= 0:
        return None, f"{record.get('key')} metrics.{'.'.join(path)} is {value:g}"
    return float(value), None


class Run:
    """One alternating run: railgauge's two modes and perftest, as the guest left them."""

    def __init__(self, directory):
        self.name = os.path.basename(directory.rstrip("/"))
        self.sides = {
            "loopback": load_records(sorted(glob.glob(f"{directory}/runs/*/records.jsonl"))),
            "2 ranks": load_records(
                sorted(glob.glob(f"{directory}/runs_ranks/*/rank-00000/records.jsonl"))),
        }
        self.perftest_files = sorted(glob.glob(f"{directory}/perftest_*.jsonl"))
        self.sides["perftest"] = [
            r for r in load_records(self.perftest_files)
            if not str(r.get("params", {}).get("source", "")).endswith("_server.txt")]

    def value(self, side, key, size, path, **params):
        records = self.sides[side]
        if not records:
            what = "perftest output imported" if side == "perftest" else f"railgauge {side} record"
            return None, f"{self.name}: no {what}"
        record, why = pick(records, key, size, **params)
        if record is None:
            return None, f"{self.name}: {why}"
        value, why = figure(record, path)
        return value, (f"{self.name}: {why}" if why else None)


def spread_text(values, unit_format):
    if not values:
        return None
    return (f"{unit_format(statistics.median(values))} "
            f"[{unit_format(min(values))}-{unit_format(max(values))}]")


def row_of(runs, label, ours_side, key, size, path, ours_params, scale=1.0):
    """One table row: label, ours, theirs, ratio, overlap, notes (figures times `scale`); and
    whether every run had both figures."""
    ours, theirs, notes = [], [], []
    for run in runs:
        for side, out, params in ((ours_side, ours, ours_params), ("perftest", theirs, {})):
            value, why = run.value(side, key, size, path, **params)
            if value is None:
                notes.append(f"{'railgauge' if side != 'perftest' else 'perftest'} {why}")
            else:
                out.append(value * scale)
    fmt = lambda v: f"{v:.4g}"  # noqa: E731
    ours_text = spread_text(ours, fmt) or "missing"
    theirs_text = spread_text(theirs, fmt) or "missing"
    if ours and theirs:
        ratio = f"{statistics.median(ours) / statistics.median(theirs):.2f}"
        overlap = "yes" if min(ours) <= max(theirs) and min(theirs) <= max(ours) else "no"
    else:
        ratio, overlap = "missing", "-"
    counts = f"n={len(ours)}/{len(theirs)}"
    return ((label, ours_text, theirs_text, ratio, overlap, "; ".join([counts] + notes)),
            not notes)


def table(runs):
    rows, complete = [], True
    for mode in ("loopback", "2 ranks"):
        for verb in VERBS:
            rows.append(row_of(runs, f"ib_{verb}_bw 64 KiB, Gb/s, {mode}", mode,
                               f"rdma.{verb}_bw", 65536, ("bandwidth_gbits_per_s",),
                               {"direction": "uni", "qps": 1}))
            for stat, name in LATENCY_STATS:
                rows.append(row_of(runs, f"ib_{verb}_lat 8 B {name}, us, {mode}", mode,
                                   f"rdma.{verb}_lat", 8, ("latency", stat), {}, scale=1e6))
    lines = [
        "| figure | railgauge median [min-max] | perftest median [min-max] | "
        "railgauge / perftest | ranges overlap | runs (railgauge/perftest), notes |",
        "|---|---|---|---|---|---|"]
    for (label, ours, theirs, ratio, overlap, notes), whole in rows:
        lines.append(f"| {label} | {ours} | {theirs} | {ratio} | {overlap} | {notes} |")
        complete = complete and whole
    return lines, complete


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = argv[1]
    if not os.path.isdir(out_dir):
        raise InputError(f"{out_dir} is not a directory")
    reps = sorted(d for d in glob.glob(f"{out_dir}/rep*") if os.path.isdir(d))
    runs = [Run(d) for d in reps]
    print(f"Soft-RoCE (rdma_rxe) under QEMU TCG, {len(runs)} alternating run(s) of each tool: "
          "emulation is about 100x slower than hardware; compare only ratios measured in one VM. "
          "Latency is round trip / 2 for WRITE and SEND, the round trip for READ (as perftest).")
    print()
    if not runs:
        print(f"no runs: {out_dir} has no rep* directory")
        return 1
    lines, complete = table(runs)
    print("\n".join(lines))
    return 0 if complete else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (InputError, OSError) as e:
        print(f"ratios.py: {e}", file=sys.stderr)
        sys.exit(2)
    except Exception:  # a bug here: never mistaken for a table with missing figures (exit 1)
        traceback.print_exc()
        sys.exit(2)
