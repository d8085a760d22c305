#!/usr/bin/env python3
"""A burn-in's GPU telemetry against an independent nvidia-smi over the same windows.

    scripts/telemetry_vs_smi.py SMI_CSV RUN_DIR [RUN_DIR ...] [--tolerance 0.03] [--json OUT]

SMI_CSV is what `nvidia-smi --query-gpu=index,timestamp,power.draw,power.limit,clocks.sm,...
--format=csv -l 1` wrote beside the runs (scripts/gpu_proof_round.sh does); RUN_DIR a railgauge run
directory. With an index (or pci.bus_id) column each GPU's record is compared with that GPU's
readings; without one the file must hold one GPU (a file of several without it is refused).
nvidia-smi reads the same NVML sensors in another process: agreement checks the records' windows
and medians, not the sensors.
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
import collections
import csv
import datetime
import json
import os
import statistics
import sys

MIN_SAMPLES = 2


class InputError(Exception):
    pass


class Reading(collections.namedtuple("Reading", "t power_w sm_mhz limit_w gpu")):
    """One nvidia-smi line: UTC seconds, W, MHz, W, and the GPU's index or bus id (None when the
    file has no such column)."""


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
    gpu_col = next((head.index(c) for c in ("index", "pci.bus_id") if c in head), None)
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(head) or row == head:
            continue  # a second header (nvidia-smi restarted) or a cut last line
        gpu = row[gpu_col].strip() if gpu_col is not None else None
        out.append(Reading(utc(row[t_col], f"{path}:{n}"), number(row[col["power"]]),
                           number(row[col["clock"]]), number(row[col["limit"]]), gpu))
    if gpu_col is None and any(b.t - a.t < 0.5 for a, b in zip(out, out[1:])):
        raise InputError(f"{path}: readings less than 0.5 s apart, as nvidia-smi -l 1 writes for "
                         "several GPUs, and no index column to tell them apart: query "
                         "--query-gpu=index,timestamp,...")
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


def readings_of(smi, part):
    """The readings of the GPU `part` is, by index or PCI bus id where the file has them (nvidia-smi
    writes bus ids as 00000000:06:00.0, NVML's records as 0000:06:00.0)."""
    if not smi or smi[0].gpu is None:
        return smi
    index = str(part.get("gpu", part.get("index")))
    bus = str(part.get("pci", "")).lower()[-12:]
    return [s for s in smi if s.gpu == index or (bus and s.gpu.lower().endswith(bus))]


def compare(records, smi, tolerance):
    rows = []
    for r in records:
        for part in gpu_parts(r):
            during = ((part.get("telemetry") or {}).get("during") or {})
            if not during.get("available") or "duration_s" not in during:
                continue
            try:
                rows.append(judged(r, part, during, readings_of(smi, part), tolerance))
            except (KeyError, TypeError, ValueError) as e:
                raise InputError(f"record {r.get('key')} of {r.get('time_utc')}, gpu "
                                 f"{part.get('gpu')}: its telemetry lacks {e} (a record of "
                                 "another schema?)")
    return rows


def judged(r, part, during, smi, tolerance):
    """One window: the record's medians against the readings inside it."""
    start, end = window_of(r, part, during)
    inside = [s for s in smi if start <= s.t <= end]
    power = [s.power_w for s in inside if s.power_w is not None]
    clock = [s.sm_mhz for s in inside if s.sm_mhz is not None]
    row = {"phase": phase_name(r), "gpu": part.get("gpu", part.get("index")),
           "window_s": round(end - start, 2), "smi_samples": len(inside),
           "power_w": during["power_w"]["median"],
           "sm_clock_mhz": during["sm_clock_mhz"]["median"],
           "power_max_w": during["power_w"]["max"]}
    if len(power) < MIN_SAMPLES or len(clock) < MIN_SAMPLES:
        row["verdict"] = "too short: under 2 samples of a 1 s sampler"
        return row
    row["smi_power_w"] = statistics.median(power)
    row["smi_sm_clock_mhz"] = statistics.median(clock)
    row["power_ratio"] = row["power_w"] / row["smi_power_w"]
    row["clock_ratio"] = row["sm_clock_mhz"] / row["smi_sm_clock_mhz"]
    worst = max(abs(row["power_ratio"] - 1), abs(row["clock_ratio"] - 1))
    row["verdict"] = "within" if worst <= tolerance else "outside"
    return row


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
    except InputError as e:
        print(f"telemetry_vs_smi.py: {e}", file=sys.stderr)
        return 2
    judged = outside = 0
    for name, rows in runs.items():
        print_table(name, rows)
        judged += sum(1 for r in rows if "power_ratio" in r)
        outside += sum(1 for r in rows if r["verdict"] == "outside")
    limit = max((s.limit_w for s in smi if s.limit_w), default=None)
    record_max = max((r["power_max_w"] for rows in runs.values() for r in rows), default=None)
    smi_max = max((s.power_w for s in smi if s.power_w is not None), default=None)
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
