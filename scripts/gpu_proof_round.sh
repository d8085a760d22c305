#!/usr/bin/env bash
# One short GPU session's proofs, in the order that keeps the first results if time runs out
# (docs/burnin.md, "Proof on a GPU"): the burn-in healthy and with a co-tenant
# (scripts/burnin_proof.sh), the 16 GiB NCCL point (scripts/nccl_16gib_point.sh), then the GPU
# test executables, each under its own time limit and all within --deadline-s. Everything it
# writes goes to OUT/work, packed at the end into OUT/round.tar.xz; OUT itself holds only that,
# round.log and gpu.csv (a runner that brings back a bounded number of files keeps them).
#
#   scripts/gpu_proof_round.sh --kit DIR --out OUT [--deadline-s S] [--budget-s S]
#
#   --kit DIR       an unpacked scripts/node_kit.sh kit (DIR/build/bin/railgauge, DIR/lib) with
#                   cotenant_spin copied into DIR/build/bin and the source commit in
#                   DIR/source-commit.txt (the node's copy of the tree may have no .git)
#   --out OUT       output directory (new or empty)
#   --deadline-s S  the whole round's limit (default 560); a step that would start with less
#                   time left than it needs is skipped and says so
#   --budget-s S    each burn-in's --budget (default 150)
#
# Never changes clocks, power limits or any GPU setting. Exit status: 0 when every step that ran
# held; 1 otherwise; 2 bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
kit=
out=
deadline_s=560
budget_s=150
while (($#)); do
  case "$1" in
  --kit) kit=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --deadline-s) deadline_s=$2; shift 2 ;;
  --budget-s) budget_s=$2; shift 2 ;;
  *) echo "gpu_proof_round.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ -n "$kit" && -x "$kit/build/bin/railgauge" ]] || {
  echo "gpu_proof_round.sh: --kit DIR must hold build/bin/railgauge (scripts/node_kit.sh)" >&2
  exit 2
}
[[ -n "$out" ]] || { echo "gpu_proof_round.sh: --out OUT is required" >&2; exit 2; }
kit=$(cd "$kit" && pwd)
mkdir -p "$out/work"
export LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RAILGAUGE_DATA_DIR="$kit/build/share/railgauge" # the test executables' data
export SOURCE_COMMIT_FILE="$kit/source-commit.txt"
cp "$SOURCE_COMMIT_FILE" "$out/work/" 2>/dev/null || true
start=$SECONDS
status=0
left() { echo $((deadline_s - (SECONDS - start))); }
step() { # NAME NEED_S CMD...: runs CMD under a limit of what is left, logs to OUT/NAME.log
  local name=$1 need=$2
  shift 2
  if (($(left) < need)); then
    echo "$name: skipped, $(left) s left of the round and it needs $need s" | tee -a "$out/round.log"
    status=1
    return
  fi
  local t0=$SECONDS rc=0
  timeout "$(left)" "$@" >"$out/work/$name.log" 2>&1 || rc=$?
  echo "$name: exit $rc after $((SECONDS - t0)) s" | tee -a "$out/round.log"
  ((rc == 0)) || status=1
}
nvidia-smi --query-gpu=name,pci.bus_id,power.limit,clocks.max.sm,driver_version \
  --format=csv >"$out/gpu.csv" 2>&1 || true
step burnin_proof $((2 * budget_s + 60)) \
  scripts/burnin_proof.sh --build-dir "$kit/build" --out "$out/work/burnin" --budget-s "$budget_s"
step nccl_16gib 60 env RAILGAUGE="$kit/build/bin/railgauge" scripts/nccl_16gib_point.sh \
  "$out/work/nccl-16gib"
for t in analysis/check/burnin_gpu_tests collectives/nccl_gpu_tests harness/cuda/cuda_tests \
  harness/cuda/cublaslt_gpu_tests offload/offload_gpu_tests reliability/reliability_gpu_tests \
  block/block_gpu_tests; do
  exe="$kit/build/tests/$t"
  [[ -x "$exe" ]] && step "$(basename "$t")" 30 "$exe" --gtest_brief=1
done
echo "round: $((SECONDS - start)) s, exit $status" | tee -a "$out/round.log"
cp "$out/round.log" "$out/work/"
tar -cJf "$out/round.tar.xz" -C "$out/work" . 2>/dev/null || true
exit "$status"
