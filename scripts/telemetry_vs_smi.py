#!/usr/bin/env python3
"""A burn-in's GPU telemetry against an independent nvidia-smi over the same windows.

    scripts/telemetry_vs_smi.py SMI_CSV RUN_DIR [RUN_DIR ...] [--tolerance 0.03] [--json OUT]

SMI_CSV is what `nvidia-smi --query-gpu=timestamp,power.draw,power.limit,clocks.sm,... --format=csv
-l 1` wrote beside the runs (scripts/gpu_proof_round.sh does); RUN_DIR a railgauge run directory.
For every record that holds a GPU's telemetry over its timed window (metrics.gpus[i],
metrics.per_gpu[i] or, for a rank's collective, metrics .telemetry.during), the window in UTC is taken from the record: it ends at the
record's time_utc less what the GPU spent after it (elapsed_s - window_s.to), or, where the
record states no window_s, it is the duration_s that ends at time_utc. nvidia-smi's samples
inside the window give a median power and SM clock; each is compared with the record's median. A
window that holds fewer than 2 of them (nvidia-smi samples once a second) is listed as too short
to describe, not judged: one reading cannot stand for a window whose power swings. The timestamps must share a clock: nvidia-smi prints its
local time, which is UTC on the nodes the rounds ran on (a TZ offset would show as every window
failing).

Also prints the highest power in any record and in nvidia-smi against the power limit.

Exit status: 0 every judged window within the tolerance; 1 one is not, or nothing could be
judged; 2 bad input (what and where on stderr).
"""
import argparse
import csv
import datetime
import json
import os
import statistics
import sys

MIN_SAMPLES = 2


class InputError(Exception):
    pass


def utc(text, where):
    for fmt in ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ", "%Y/%m/%d %H:%M:%S.%f"):
        try:
            return datetime.datetime.strptime(text.strip(), fmt).replace(
                tzinfo=datetime.timezone.utc).timestamp()
        except ValueError:
            pass
    raise InputError(f"{where}: '{text}' is not a time this script reads")


def number(text):
    """'692.33 W' or '1605 MHz' -> 692.33; '[N/A]' -> None."""
    head = text.strip().split(" ")[0]
    try:
        return float(head)
    except ValueError:
        return None


def read_smi(path):
    """[(t, power_w, sm_mhz, limit_w)] from nvidia-smi's csv (one GPU)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f, skipinitialspace=True))
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    if not rows or "timestamp" not in rows[0]:
        raise InputError(f"{path}: no nvidia-smi header with a timestamp column "
                         "(write it with --format=csv)")
    head = rows[0]
    need = {"power": "power.draw [W]", "clock": "clocks.current.sm [MHz]",
            "limit": "power.limit [W]"}
    for name in need.values():
        if name not in head:
            raise InputError(f"{path}: no '{name}' column: query power.draw, power.limit and "
                             "clocks.sm")
    col = {k: head.index(v) for k, v in need.items()}
    t_col = head.index("timestamp")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(head) or row[0] == "timestamp":
            continue  # a second header (nvidia-smi restarted) or a cut last line
        out.append((utc(row[t_col], f"{path}:{n}"), number(row[col["power"]]),
                    number(row[col["clock"]]), number(row[col["limit"]])))
    return out


def gpu_parts(record):
    """The GPU parts of a record that hold telemetry: its per-GPU list, or the record itself (a
    rank's all_reduce keeps one GPU's telemetry in metrics.telemetry)."""
    metrics = record.get("metrics") or {}
    for name in ("gpus", "per_gpu"):
        parts = metrics.get(name)
        if isinstance(parts, list):
            return [p for p in parts if isinstance(p, dict)]
    if isinstance(metrics.get("telemetry"), dict):
        return [dict(metrics, gpu=(record.get("params") or {}).get("gpu", record.get("rank")))]
    return []


def phase_name(record):
    dtype = (record.get("params") or {}).get("dtype")
    key = record.get("key", "?")
    return key if key != "gemm.burn" or dtype in (None, "bf16") else f"{key} {dtype}"


def window_of(record, part, during):
    end = utc(record["time_utc"], "time_utc")
    window = during.get("window_s")
    elapsed = part.get("elapsed_s")
    if isinstance(window, dict) and isinstance(elapsed, (int, float)):
        start_of_point = end - elapsed
        return start_of_point + window["from"], start_of_point + window["to"]
    return end - during["duration_s"], end


def compare(records, smi, tolerance):
    rows = []
    for r in records:
        for part in gpu_parts(r):
            during = ((part.get("telemetry") or {}).get("during") or {})
            if not during.get("available") or "duration_s" not in during:
                continue
            start, end = window_of(r, part, during)
            inside = [s for s in smi if start <= s[0] <= end]
            power = [s[1] for s in inside if s[1] is not None]
            clock = [s[2] for s in inside if s[2] is not None]
            row = {"phase": phase_name(r), "gpu": part.get("gpu", part.get("index")),
                   "window_s": round(end - start, 2), "smi_samples": len(inside),
                   "power_w": during["power_w"]["median"],
                   "sm_clock_mhz": during["sm_clock_mhz"]["median"],
                   "power_max_w": during["power_w"]["max"]}
            if len(power) < MIN_SAMPLES or len(clock) < MIN_SAMPLES:
                row["verdict"] = "too short: under 2 samples of a 1 s sampler"
            else:
                row["smi_power_w"] = statistics.median(power)
                row["smi_sm_clock_mhz"] = statistics.median(clock)
                row["power_ratio"] = row["power_w"] / row["smi_power_w"]
                row["clock_ratio"] = row["sm_clock_mhz"] / row["smi_sm_clock_mhz"]
                worst = max(abs(row["power_ratio"] - 1), abs(row["clock_ratio"] - 1))
                row["verdict"] = "within" if worst <= tolerance else "outside"
            rows.append(row)
    return rows


def read_records(run_dir):
    path = os.path.join(run_dir, "records.jsonl")
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror} (give a railgauge run directory)")
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{n}: not JSON ({e.msg})")
    return out


def print_table(name, rows):
    print(f"{name}")
    print(f"  {'phase':<28} {'gpu':>3} {'window s':>8} {'smi n':>5} {'W':>7} {'smi W':>7} "
          f"{'ratio':>6} {'MHz':>6} {'smi MHz':>7} {'ratio':>6}  verdict")
    for r in rows:
        if "power_ratio" in r:
            print(f"  {r['phase']:<28} {r['gpu']:>3} {r['window_s']:>8.1f} {r['smi_samples']:>5} "
                  f"{r['power_w']:>7.1f} {r['smi_power_w']:>7.1f} {r['power_ratio']:>6.3f} "
                  f"{r['sm_clock_mhz']:>6.0f} {r['smi_sm_clock_mhz']:>7.0f} "
                  f"{r['clock_ratio']:>6.3f}  {r['verdict']}")
        else:
            print(f"  {r['phase']:<28} {r['gpu']:>3} {r['window_s']:>8.1f} {r['smi_samples']:>5} "
                  f"{r['power_w']:>7.1f} {'-':>7} {'-':>6} {r['sm_clock_mhz']:>6.0f} {'-':>7} "
                  f"{'-':>6}  {r['verdict']}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("smi_csv")
    ap.add_argument("run_dirs", nargs="+")
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--json", help="write every row here")
    args = ap.parse_args(argv)
    try:
        smi = read_smi(args.smi_csv)
        runs = {d: compare(read_records(d), smi, args.tolerance) for d in args.run_dirs}
    except (InputError, KeyError, TypeError) as e:
        print(f"telemetry_vs_smi.py: {e}", file=sys.stderr)
        return 2
    judged = outside = 0
    for name, rows in runs.items():
        print_table(name, rows)
        judged += sum(1 for r in rows if "power_ratio" in r)
        outside += sum(1 for r in rows if r["verdict"] == "outside")
    limit = max((s[3] for s in smi if s[3]), default=None)
    record_max = max((r["power_max_w"] for rows in runs.values() for r in rows), default=None)
    smi_max = max((s[1] for s in smi if s[1] is not None), default=None)
    if limit and record_max is not None and smi_max is not None:
        print(f"highest power: {record_max:.1f} W in a record ({record_max / limit:.3f} x the "
              f"{limit:.0f} W limit), {smi_max:.1f} W in nvidia-smi ({smi_max / limit:.3f} x)")
    print(f"{judged} window(s) judged, {outside} outside {args.tolerance:.0%}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f, indent=1)
    return 0 if judged and not outside else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
