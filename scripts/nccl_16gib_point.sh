#!/usr/bin/env bash
# One 16 GiB NCCL all_reduce point on one GPU, timed end to end: the process starts, opens the
# NCCL session, allocates 32 GiB (send and receive), fills the inputs on the GPU, runs the warm-up
# and timed iterations, refills, checks every element of the output on the GPU and writes the
# record. The budget a burn-in gives such a point is 30 s (docs/collectives.md, "Data check").
#
#   scripts/nccl_16gib_point.sh [OUT_DIR]       (default: a temporary directory)
#
# RAILGAUGE names the binary (default build/bin/railgauge); GPU picks the device (default 0).
# DTYPE (default float32) and SIZE (default 16GiB) change the point. Prints the wall time, the
# record's status, wrong_elements and busbw; exits 1 when the point is not ok and verified or
# took longer than 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${RAILGAUGE:-build/bin/railgauge}
[ -x "$bin" ] || { echo "nccl_16gib_point: no railgauge at '$bin' (scripts/build.sh?)" >&2; exit 2; }
out=${1:-$(mktemp -d)}
size=${SIZE:-16GiB}
dtype=${DTYPE:-float32}
budget_s=30
start=$(date +%s.%N)
CUDA_VISIBLE_DEVICES=${GPU:-0} "$bin" collectives --quiet --out "$out" \
  --filter collectives.nccl_all_reduce -a size_bytes="$size" -a dtype="$dtype" \
  -a in_place=out_of_place -a iterations=5 -a warmup=1
end=$(date +%s.%N)
records=$(ls -d "$out"/*/records.jsonl | tail -n 1)
python3 - "$records" "$start" "$end" "$budget_s" <<'PY'
import json, sys
path, start, end, budget = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
wall = end - start
ok = True
for line in open(path):
    r = json.loads(line)
    m = r.get("metrics", {})
    print(f"{r['key']} {r['params'].get('dtype')} {r['params'].get('size_bytes')} bytes: "
          f"status {r['status']}, verified {m.get('verified')}, "
          f"wrong_elements {m.get('wrong_elements')}, "
          f"busbw {m.get('busbw_gbytes_per_s')} GB/s, median {m.get('time_s', {}).get('median')} s"
          + (f" ({r.get('reason')})" if r.get("reason") else ""))
    ok = ok and r["status"] == "ok" and m.get("verified") is True
print(f"wall time, process start to end: {wall:.1f} s (budget {budget:.0f} s)")
sys.exit(0 if ok and wall <= budget else 1)
PY
