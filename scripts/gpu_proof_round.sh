#!/usr/bin/env bash
# One short GPU session's proofs, part by part in the order given, so that the first results are
# kept if time runs out. Each part is packed into OUT/<part>.tar.xz as soon as it ends (a runner
# that brings back a bounded number of files keeps them); OUT also holds round.log and gpu.csv.
#
#   scripts/gpu_proof_round.sh --kit DIR --out OUT [--deadline-s S] [--budget-s S]
#                              [--parts P[,P...]]
#
#   --kit DIR       an unpacked scripts/node_kit.sh kit (DIR/build/bin/railgauge, DIR/lib; for
#                   the peers DIR/peers/nccl-tests and DIR/peers/nvbandwidth/nvbandwidth) with
#                   cotenant_spin copied into DIR/build/bin and the source commit in
#                   DIR/source-commit.txt (the node's copy of the tree may have no .git)
#   --out OUT       output directory (new or empty)
#   --deadline-s S  the whole round's limit (default 560); a part that would start with less time
#                   left than it needs is skipped and says so, and `gemm` gets what is left
#   --budget-s S    each burn-in's --budget (default 100, so that three burn-ins and the tests fit
#                   one 10-minute call; the plan refuses less than 88)
#   --parts LIST    the parts, run in this order (default burnin,nccl16,tests):
#     burnin  the burn-in healthy and beside co-tenants holding 50 and 15 % of the SMs, and all
#             of them 20 % of the time (a GPU about a tenth slow: time-slicing halves it while
#             the co-tenant runs), scripts/burnin_proof.sh; docs/burnin.md
#     nccl16  the 16 GiB NCCL point (scripts/nccl_16gib_point.sh)
#     tests   the GPU test executables, each under its own limit
#     block   the GPU block measured and predicted (scripts/gpu_block_prediction.sh)
#     copy    the HBM copies against torch with the A/A control, interleaved 3 rounds
#     nccl    NCCL against nccl-tests and the copies against nvbandwidth, interleaved 3 rounds
#     gemm    the GEMM TP sweep (and the square and dtype sweeps) against torch, interleaved
#     gemm-aa the GEMM tables' A/A control: railgauge against itself (scripts/gemm_aa_round.sh)
#     gemm-tp the GEMM TP sweep at the degrees in $TPS (default 1,8,32) against torch, then its
#             A/A control, in one part (scripts/gemm_torch_round.sh)
#     attention  fused attention (torch's SDPA backends, causal bf16, forward and backward) at
#             the shapes of the published runs, 3 rounds of 1 s windows
#             (scripts/attention_rate.py; calibrate_predict.py --attention reads it)
#     gemm-fp8  the GEMMs of NeMo's GPT-3 175B at t = 4 and 8 (seq 2048) in bf16 and fp8_e4m3,
#             and the square size sweep in fp8_e4m3, each point over a 1 s window: the FP8
#             table calibrate lacks (docs/calibrate.md, "Predicting published runs")
#   (copy, nccl and gemm are quick reference runs, docs/reference-runs.md, "interleaved pairs")
#
# Beside the whole round, an independent `nvidia-smi -l 1` writes OUT/work/smi.csv (packed with
# each part) and `nvidia-smi -q` before and after, for checking the records' telemetry against
# (scripts/telemetry_vs_smi.py). Never changes clocks, power limits or any GPU setting. Exit status: 0 when every part that ran
# exited 0; 1 otherwise; 2 bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
kit=
out=
deadline_s=560
budget_s=100
parts=burnin,nccl16,tests
while (($#)); do
  case "$1" in
  --kit) kit=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --deadline-s) deadline_s=$2; shift 2 ;;
  --budget-s) budget_s=$2; shift 2 ;;
  --parts) parts=$2; shift 2 ;;
  *) echo "gpu_proof_round.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ -n "$kit" && -x "$kit/build/bin/railgauge" ]] || {
  echo "gpu_proof_round.sh: --kit DIR must hold build/bin/railgauge (scripts/node_kit.sh)" >&2
  exit 2
}
[[ -n "$out" ]] || { echo "gpu_proof_round.sh: --out OUT is required" >&2; exit 2; }
IFS=, read -ra wanted <<<"$parts"
for p in "${wanted[@]}"; do
  [[ " burnin nccl16 tests block copy nccl gemm gemm-aa gemm-tp attention gemm-fp8 " == \
    *" $p "* ]] || {
    echo "gpu_proof_round.sh: no part '$p' (burnin nccl16 tests block copy nccl gemm gemm-aa" \
      "gemm-tp attention gemm-fp8)" >&2
    exit 2
  }
done
kit=$(cd "$kit" && pwd)
mkdir -p "$out/work"
out=$(cd "$out" && pwd)
rg_bin="$kit/build/bin/railgauge"
export LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RAILGAUGE_DATA_DIR="$kit/build/share/railgauge" # the test executables' data
export SOURCE_COMMIT_FILE="$kit/source-commit.txt"
cp "$SOURCE_COMMIT_FILE" "$out/work/" 2>/dev/null || true
start=$SECONDS
status=0
left() { echo $((deadline_s - (SECONDS - start))); }
pack() { # NAME: OUT/work/NAME* into OUT/NAME.tar.xz
  local packed=()
  # nvidia-smi is still appending to smi.csv: pack a copy, which tar reads whole.
  cp "$out/work/smi.csv" "$out/work/smi-$1.csv" 2>/dev/null
  for f in "$1" "$1.log" source-commit.txt round.log "smi-$1.csv" smi-q-before.txt; do
    [[ -e "$out/work/$f" ]] && packed+=("$f")
  done
  tar -cJf "$out/$1.tar.xz" -C "$out/work" "${packed[@]}" ||
    echo "$1: packing failed" | tee -a "$out/round.log"
}
step() { # NAME NEED_S CMD...: runs CMD under a limit of what is left, logs to OUT/work/NAME.log
  local name=$1 need=$2
  shift 2
  if (($(left) < need)); then
    echo "$name: skipped, $(left) s left of the round and it needs $need s" |
      tee -a "$out/round.log"
    status=1
    return
  fi
  local t0=$SECONDS rc=0
  timeout --kill-after=5 "$(($(left) - 10))" "$@" >"$out/work/$name.log" 2>&1 || rc=$?
  echo "$name: exit $rc after $((SECONDS - t0)) s" | tee -a "$out/round.log"
  ((rc == 0)) || status=1
}
# reference NAME BUDGET_S ONLY [ARGS...]: an interleaved quick reference run into OUT/work/NAME.
reference() {
  local name=$1 budget=$2 only=$3
  shift 3
  step "$name" 90 scripts/reference_run.sh --build-dir "$kit/build" --lib-dir "$kit/lib" \
    --quick --interleave 3 --budget-s "$budget" --only "$only" --out "$out/work/$name" "$@"
  pack "$name"
}
nvidia-smi --query-gpu=name,pci.bus_id,power.limit,clocks.max.sm,driver_version \
  --format=csv >"$out/gpu.csv" 2>&1 || true
nvidia-smi -q >"$out/work/smi-q-before.txt" 2>&1 || true
nvidia-smi --query-gpu=index,timestamp,power.draw,power.limit,clocks.sm,clocks.mem,\
temperature.gpu,utilization.gpu,clocks_event_reasons.active --format=csv -l 1 \
  >"$out/work/smi.csv" 2>&1 &
smi_pid=$!
trap 'kill "$smi_pid" 2>/dev/null' EXIT
for p in "${wanted[@]}"; do
  case "$p" in
  burnin)
    step burnin 60 scripts/burnin_proof.sh --build-dir "$kit/build" --out "$out/work/burnin" \
      --budget-s "$budget_s" --share 50,15,100@20
    pack burnin ;;
  nccl16)
    step nccl16 60 env RAILGAUGE="$rg_bin" scripts/nccl_16gib_point.sh "$out/work/nccl16"
    pack nccl16 ;;
  tests)
    mkdir -p "$out/work/tests"
    for t in analysis/check/burnin_gpu_tests collectives/nccl_gpu_tests harness/cuda/cuda_tests \
      harness/cuda/cublaslt_gpu_tests offload/offload_gpu_tests reliability/reliability_gpu_tests \
      block/block_gpu_tests; do
      exe="$kit/build/tests/$t"
      [[ -x "$exe" ]] && step "tests/$(basename "$t")" 30 "$exe" --gtest_brief=1
    done
    pack tests ;;
  block)
    # cuBLASLt from the node's PyTorch, as reference_run.sh finds it.
    step block 90 env RAILGAUGE="$rg_bin" RAILGAUGE_GPU_PEAKS="$PWD/results/peaks/gpu_peaks.yaml" \
      LD_LIBRARY_PATH="$(scripts/torch_lib_path.sh):$LD_LIBRARY_PATH" \
      scripts/gpu_block_prediction.sh "$out/work/block"
    pack block ;;
  # Budgets as shares are sized (docs/reference-runs.md): on an H100 the quick HBM sweep takes
  # about 45 s (8 % of 600), and the NCCL pairs' cap is their own; the round's deadline still
  # bounds each part.
  copy) reference copy 600 memory,torch ;;
  nccl)
    reference nccl 300 collectives,nccl-tests,nvbandwidth --nccl-tests "$kit/peers/nccl-tests" \
      --nvbandwidth "$kit/peers/nvbandwidth/nvbandwidth" ;;
  gemm) reference gemm "$(($(left) - 30))" gemm,torch ;;
  gemm-aa)
    step gemm-aa 300 env RAILGAUGE="$rg_bin" scripts/gemm_aa_round.sh "$out/work/gemm-aa"
    pack gemm-aa ;;
  gemm-tp)
    step gemm-tp 120 env RAILGAUGE="$rg_bin" scripts/gemm_torch_round.sh "$out/work/gemm-tp" \
      "${TPS:-1,8,32}"
    pack gemm-tp ;;
  attention)
    step attention 200 python3 scripts/attention_rate.py \
      --table results/published/h100_training_runs.json --out "$out/work/attention"
    pack attention ;;
  gemm-fp8)
    mkdir -p "$out/work/gemm-fp8"
    lib="$(scripts/torch_lib_path.sh):$LD_LIBRARY_PATH"
    for sweep in \
      "tp --model gpt3-175b --tp 4,8 -a seq=2048 -a micro_batch=1 -a dtype=bf16,fp8_e4m3" \
      "size --filter gemm.cublaslt_size -a dtype=fp8_e4m3"; do
      # shellcheck disable=SC2086 # each sweep's words are its arguments, after its name
      step "gemm-fp8/${sweep%% *}" 120 env LD_LIBRARY_PATH="$lib" \
        "$rg_bin" gemm ${sweep#* } -a gpu=0 --time-budget 0.2 --measure gpu_min_timed_s=1 \
        --point-timeout 60 --out "$out/work/gemm-fp8" -q
    done
    pack gemm-fp8 ;;
  esac
done
echo "round: $((SECONDS - start)) s, exit $status" | tee -a "$out/round.log"
nvidia-smi -q >"$out/smi-q-after.txt" 2>&1 || true
kill "$smi_pid" 2>/dev/null || true
cp "$out/work/smi.csv" "$out/smi.csv" 2>/dev/null || true
exit "$status"
