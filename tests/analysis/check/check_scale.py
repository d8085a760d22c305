#!/usr/bin/env python3
"""Scale check of `railgauge check` (issue 43, item 7): a synthetic fleet of 1,500 nodes
(make_fleet.py, 8 GPUs, 8 RDMA peers each) judged by 1,000 rules (make_rules.py), most of which
cannot judge it, so millions of values are missing. Asserts the wall time, the peak resident
memory (/usr/bin/time -v) and that every missing value is counted.

  check_scale.py RAILGAUGE_BINARY [--nodes 1500] [--rules 1000] [--max-wall-s 60]
                 [--max-rss-mb 2048] [--keep DIR]

Not a CTest of the default tier: it takes minutes on a 2-core machine (the fleet alone is
written in about 30 s). Exit status 0 when both bounds hold, 1 otherwise.
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--nodes", type=int, default=1500)
    ap.add_argument("--rules", type=int, default=1000)
    ap.add_argument("--max-wall-s", type=float, default=60)
    ap.add_argument("--max-rss-mb", type=float, default=2048)
    ap.add_argument("--keep", help="write the fleet and rules here and keep them")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(a.keep or tmp)
        fleet, rules = out / f"fleet{a.nodes}", out / f"rules{a.rules}.yaml"
        if not fleet.exists():
            subprocess.run([sys.executable, HERE / "make_fleet.py", fleet, "--nodes",
                            str(a.nodes), "--rdma-peers", "8"], check=True)
        subprocess.run([sys.executable, HERE / "make_rules.py", rules, "--rules", str(a.rules)],
                       check=True)
        run = subprocess.run(["/usr/bin/time", "-v", a.binary, "check", "--rules", rules, fleet],
                             capture_output=True, text=True)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)",
                     run.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)
    if run.returncode not in (0, 1, 2) or not wall or not rss:
        print(f"check failed (exit {run.returncode}):\n{run.stderr[-2000:]}")
        return 1
    wall_s = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    rss_mb = int(rss.group(1)) / 1024
    print(f"{a.nodes} nodes x {a.rules} rules: {wall_s:.1f} s wall, {rss_mb:.0f} MB peak RSS")
    print(summary)
    ok = wall_s <= a.max_wall_s and rss_mb <= a.max_rss_mb
    if not re.search(r"\d+ missing", summary):
        print("no count of missing values in the summary line")
        ok = False
    if not ok:
        print(f"FAILED: bounds are {a.max_wall_s} s and {a.max_rss_mb} MB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
