#!/usr/bin/env python3
"""railgauge vs perftest in the same Soft-RoCE VM: prints a markdown table of both figures and
their ratio. Usage: ratios.py OUT_DIR (the directory scripts/softroce_vm.sh filled).

Reads OUT_DIR/runs/*/records.jsonl (railgauge) and OUT_DIR/perftest_*.jsonl (perftest output
imported by rdma_perftest_import). Exit 1 when a figure is missing on either side."""
import glob
import json
import sys


def load(pattern):
    records = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            records += [json.loads(line) for line in f if line.strip()]
    return records


def pick(records, key, size, **params):
    for r in records:
        p = r.get("params", {})
        if (r.get("key") == key and r.get("status") == "ok" and p.get("size_bytes") == size
                and all(p.get(k, v) == v for k, v in params.items())):
            return r
    return None


def rows_of(ours, theirs, how, verbs):
    rows = []
    for verb in verbs:
        bw_ours = pick(ours, f"rdma.{verb}_bw", 65536, direction="uni", qps=1)
        bw_theirs = pick(theirs, f"rdma.{verb}_bw", 65536)
        if bw_ours and bw_theirs:
            rows.append((f"ib_{verb}_bw 64 KiB, Gb/s (higher is better), railgauge {how}",
                         bw_ours["metrics"]["bandwidth_gbits_per_s"],
                         bw_theirs["metrics"]["bandwidth_gbits_per_s"]))
        lat_ours = pick(ours, f"rdma.{verb}_lat", 8)
        lat_theirs = pick(theirs, f"rdma.{verb}_lat", 8)
        if lat_ours and lat_theirs:
            for stat, label in (("min_s", "min"), ("p50_s", "median"), ("p99_s", "p99")):
                rows.append((f"ib_{verb}_lat 8 B {label}, us (lower is better), railgauge {how}",
                             lat_ours["metrics"]["latency"][stat] * 1e6,
                             lat_theirs["metrics"]["latency"][stat] * 1e6))
    return rows


def main(out_dir):
    theirs = [r for r in load(f"{out_dir}/perftest_*.jsonl")
              if not r["params"]["source"].endswith("_server.txt")]
    # Both ends in one process (loopback), and each end in its own process as perftest runs.
    verbs = ("write", "read", "send")
    rows = rows_of(load(f"{out_dir}/runs/*/records.jsonl"), theirs, "loopback", verbs)
    ranks = rows_of(load(f"{out_dir}/runs_ranks/*/rank-00000/records.jsonl"), theirs, "2 ranks",
                    verbs)
    print("Soft-RoCE (rdma_rxe) under QEMU TCG, 4 vCPUs on the host's cores: emulation is "
          "about 100x slower than hardware; compare only these ratios, measured in one VM.")
    print()
    print("| figure | railgauge | perftest | railgauge / perftest |")
    print("|---|---|---|---|")
    for label, a, b in rows + ranks:
        print(f"| {label} | {a:.4g} | {b:.4g} | {a / b:.2f} |")
    return 0 if len(rows) == len(ranks) == 4 * len(verbs) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
