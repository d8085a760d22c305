#!/usr/bin/env bash
# The burn-in's proof on a machine with one GPU (docs/burnin.md): `railgauge burnin` healthy,
# then again while a second process holds a share of the GPU (build/bin/cotenant_spin), once per
# share given, each judged by the GPU's SKU profile (--rules auto); then `railgauge compare` of
# the healthy run against each co-tenant run and the planned time of an 8-GPU node at the default
# budget. Never changes clocks, power limits or any GPU setting.
#
#   scripts/burnin_proof.sh [--build-dir DIR] [--out DIR] [--budget-s S]
#                          [--share PCT[@DUTY][,...]]
#
#   --build-dir DIR  the railgauge build (default build/): DIR/bin/railgauge, DIR/bin/cotenant_spin
#   --out DIR        output directory, new or empty (default runs/burnin-proof-<UTC time>)
#   --budget-s S     each burn-in's --budget (default 170)
#   --share PCT[@DUTY][,...]  the co-tenant's shares of the SMs, one co-tenant run each, in
#                    OUT/cotenant-PCT (default 50,15); @DUTY spins only DUTY % of the time
#                    (cotenant_spin's DUTY_PERCENT), in OUT/cotenant-PCTatDUTY: without MPS any
#                    share time-slices the GPU about in half, a duty cycle slows it by less
#
# Expected: the healthy run exits 0 (PASS); each co-tenant run exits 1 or 2, naming gpu0, the
# rule, the figure and the foreign process. The script's own exit status is 0 when both hold, 1 otherwise.
# LD_LIBRARY_PATH gets PyTorch's CUDA libraries (cuBLASLt, NCCL) when python3 has torch, as
# scripts/reference_run.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
out="runs/burnin-proof-$(date -u +%Y%m%dT%H%M%SZ)"
budget=170
share=50,15
while (($#)); do
  case "$1" in
  --build-dir) build=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --budget-s) budget=$2; shift 2 ;;
  --share) share=$2; shift 2 ;;
  *) echo "burnin_proof.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
railgauge="$build/bin/railgauge"
spin="$build/bin/cotenant_spin"
for f in "$railgauge" "$spin"; do
  [[ -x "$f" ]] || { echo "burnin_proof.sh: $f is not built (scripts/build.sh)" >&2; exit 2; }
done
if [[ -e "$out" && -n "$(ls -A "$out")" ]]; then
  echo "burnin_proof.sh: $out is not empty: give a new --out" >&2
  exit 2
fi
mkdir -p "$out/logs"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$out/logs/proof.log"; }

dirs=$(scripts/torch_lib_path.sh)
[[ -n "$dirs" ]] && export LD_LIBRARY_PATH="$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# SOURCE_COMMIT_FILE: the commit the build came from, written where it was built (a node's copy
# of the tree may carry another .git, or none).
if [[ -r "${SOURCE_COMMIT_FILE:-}" ]]; then
  cp "$SOURCE_COMMIT_FILE" "$out/commit.txt"
else
  { git rev-parse HEAD && git status --porcelain; } >"$out/commit.txt" 2>&1 || true
fi
nvidia-smi -q >"$out/logs/nvidia-smi-q.txt" 2>&1 || true
log "commit $(head -n 1 "$out/commit.txt"); GPU: $(nvidia-smi --query-gpu=name,power.limit \
  --format=csv,noheader 2>/dev/null | head -n 1)"

"$railgauge" burnin --plan-only --plan-gpus 8 >"$out/plan-8-gpus.txt"
log "planned for 8 GPUs at the default budget: $(tail -n 1 "$out/plan-8-gpus.txt")"

burnin() { # NAME: one burn-in into $out/NAME, its console in logs/NAME.txt; echoes its exit status
  local start=$SECONDS rc=0
  # --foreground keeps the burn-in in this script's process group, so that a limit on the whole
  # script (gpu_proof_round.sh's timeout) ends it too: in a group of its own it held the GPU
  # through the round's later parts. A point stuck past 120 s (the longest phase at budget 170
  # is 48 s) ends on the watchdog, not after the whole limit.
  timeout --foreground --kill-after=10 $((budget * 2 + 120)) "$railgauge" burnin \
    --budget "$budget" --point-timeout 120 --out "$out/$1" >"$out/logs/$1.txt" 2>&1 || rc=$?
  log "$1: exit $rc after $((SECONDS - start)) s" >&2 # stdout is the exit status alone
  echo "$rc"
}

log "healthy burn-in (--budget $budget)"
healthy=$(burnin healthy)

IFS=, read -ra shares <<<"$share"
cotenant_ok=1
for item in "${shares[@]}"; do
  pct=${item%@*} duty=100 name=$item
  [[ "$item" == *@* ]] && duty=${item#*@} name="${pct}at${duty}"
  [[ "$pct" =~ ^[0-9]+$ && "$duty" =~ ^[0-9]+$ ]] && ((pct > 0 && pct <= 100 && duty > 0 &&
    duty <= 100)) || {
    log "--share '$item' is not PCT[@DUTY], each a percentage (1 to 100): skipped"
    cotenant_ok=0
    continue
  }
  log "co-tenant: cotenant_spin holds $pct% of GPU 0's SMs $duty% of the time"
  "$spin" 0 "$pct" $((budget * 2 + 60)) "$duty" >"$out/logs/cotenant_spin-$name.txt" 2>&1 &
  spin_pid=$!
  sleep 3
  if ! kill -0 "$spin_pid" 2>/dev/null; then # no co-tenant: its burn-in would prove nothing
    log "co-tenant $name: cotenant_spin ended before the burn-in (logs/cotenant_spin-$name.txt)"
    cotenant_ok=0
    continue
  fi
  rc=$(burnin "cotenant-$name")
  kill "$spin_pid" 2>/dev/null || true
  wait "$spin_pid" 2>/dev/null || true
  "$railgauge" compare "$out"/healthy "$out/cotenant-$name" --label healthy \
    --label "cotenant-$name" --json "$out/compare-$name.json" >"$out/compare-$name.txt" 2>&1 ||
    true
  log "co-tenant $name: exit $rc (1 WARN or 2 FAIL expected)"
  [[ "$rc" == 1 || "$rc" == 2 ]] || cotenant_ok=0
  grep -h -E '^(PASS|WARN|FAIL):' "$out/logs/cotenant-$name.txt" | tee -a "$out/logs/proof.log" ||
    true
  grep -h -E 'gpu0' "$out/logs/cotenant-$name.txt" | head -n 12 | tee -a "$out/logs/proof.log" ||
    true
done

log "healthy: exit $healthy (0 = PASS expected)"
grep -h -E '^(PASS|WARN|FAIL):' "$out/logs/healthy.txt" | tee -a "$out/logs/proof.log" || true
sed -n '/Burn-in phases/,/^total/p' "$out/logs/healthy.txt" | tee -a "$out/logs/proof.log" || true
[[ "$healthy" == 0 && "$cotenant_ok" == 1 ]] && exit 0
exit 1
