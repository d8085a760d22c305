#!/usr/bin/env bash
# The closing check of docs/calibrate.md ("A block predicted"), on this machine's CPU backend:
# for t = 1, 2, 4, 8 ranks, the TP GEMMs (gemm.cpu_blas, in lockstep across the ranks) and the
# TP collectives (collectives.mpi_*), then block.transformer_tp itself, for two models; then
# `railgauge calibrate` fits on the first two and predicts the third.
#
#   scripts/block_prediction.sh OUT_DIR [t ...]      (default t: 1 2 4 8)
#
# Ranks are MPI processes (mpirun), one core each: t = 1 is one process bound to one core
# (taskset), so that every t runs its GEMMs on the same processor, as Calculon's one efficiency
# table assumes (a t = 1 process on both cores is a processor twice as large, and the table then
# fits neither t). Where t exceeds the cores, the block's ranks take turns on them, and the GEMMs
# are measured at t's shapes by one rank per core: calibrate scales them by the ranks per core
# (docs/calibrate.md). Run it on a
# quiet machine: anything else on the cores lands in one measurement and not in the other. A VM's
# speed drifts over minutes (one GEMM's median moved by up to 50 % between rounds on this 2-core
# VM), so the whole sequence runs ROUNDS times (default 3), GEMMs and blocks alternating:
# calibrate takes the median over the rounds of each, so one slow round does not decide it.
# BLOCK_ITERATIONS (default 40) sets each block point's timed iterations: the host's slow
# stretches last seconds, and a point longer than twice a stretch keeps its median out of it.
# RAILGAUGE names the binary (default build/bin/railgauge). Writes OUT_DIR/runs and OUT_DIR/cal
# (fit_report.md, "A block predicted").
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/block_prediction.sh OUT_DIR [t ...]}
shift
tps=("$@")
[ ${#tps[@]} -gt 0 ] || tps=(1 2 4 8)
bin=${RAILGAUGE:-build/bin/railgauge}
[ -x "$bin" ] || { echo "block_prediction: no railgauge at '$bin' (scripts/build.sh?)" >&2; exit 2; }
models=("-a model=cpu-small -a seq=256"
        "-a model=custom -a hidden=512 -a heads=8 -a seq=512 -a ffn=2048")
runs=$out/runs
cores=$(nproc)
# mpirun for n ranks, bound one to a core (several to a core where n exceeds them); for 1, the
# process bound to core 0.
launch_of() {
  if [ "$1" -gt 1 ]; then
    echo mpirun --oversubscribe --allow-run-as-root --bind-to core:overload-allowed -np "$1"
  else
    echo taskset -c 0
  fi
}
rounds=${ROUNDS:-3}
block_iterations=${BLOCK_ITERATIONS:-40}
for round in $(seq "$rounds"); do
  echo "block_prediction: round $round of $rounds" >&2
  for t in "${tps[@]}"; do
    read -ra launch <<<"$(launch_of "$t")"
    read -ra gemm_launch <<<"$(launch_of $((t < cores ? t : cores)))"
    for model in "${models[@]}"; do
      # shellcheck disable=SC2086 # each model is several -a options
      "${gemm_launch[@]}" "$bin" gemm --filter gemm.cpu_blas -a tp="$t" -a dtype=fp32 $model \
        --time-budget 0.4 --out "$runs" -q
      # The CPU block alone: on a GPU machine an unfiltered `block` also runs the GPU one.
      # shellcheck disable=SC2086
      "${launch[@]}" "$bin" block --filter block.transformer_tp $model -a sequence_parallel=0,1 \
        -a iterations="$block_iterations" -a warmup=3 --out "$runs" -q
    done
    if [ "$t" -gt 1 ]; then
      for op in all_reduce all_gather reduce_scatter; do
        "${launch[@]}" "$bin" collectives --filter "collectives.mpi_$op" \
          -a size_bytes=128KiB:8MiB:*2 --out "$runs" -q
      done
    fi
  done
done
# One host's runs measure no scale-out tier: Calculon's A100 figures fill it, asked for by name
# and listed at the top of the fit report.
"$bin" calibrate "$runs" --out "$out/cal" --borrow a100_80g
echo "block_prediction: $out/cal/fit_report.md, section 'A block predicted'"
