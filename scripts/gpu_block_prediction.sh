#!/usr/bin/env bash
# The GPU block's closing check (docs/calibrate.md, "A block predicted"), on this node's GPUs:
# the HBM copies once, then ROUNDS times (default 3) the block's TP GEMMs (gemm.cublaslt --model
# MODEL --tp t, t = the GPUs one process drives) and block.transformer_tp_gpu at sequence_parallel
# 0 and 1, alternating, so that a clock drift between rounds lands in both; then `railgauge
# calibrate` predicts each block from the same rounds' GEMM records (per shape, and through the
# step table Calculon reads) and reports it beside the measured one.
#
#   scripts/gpu_block_prediction.sh OUT_DIR [MODEL]         (default MODEL: gpt3-175b)
#
# RAILGAUGE names the binary (default build/bin/railgauge), ROUNDS the rounds. Writes
# OUT_DIR/runs and OUT_DIR/cal (fit_report.md, "A block predicted"). Only reads the GPU: no clock,
# power or MIG setting is changed. Exit status: calibrate's, or the first failing command's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu_block_prediction.sh OUT_DIR [MODEL]}
model=${2:-gpt3-175b}
bin=${RAILGAUGE:-build/bin/railgauge}
[ -x "$bin" ] || { echo "gpu_block_prediction: no railgauge at '$bin'" >&2; exit 2; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$gpus" -gt 0 ] || { echo "gpu_block_prediction: nvidia-smi lists no GPU" >&2; exit 3; }
runs=$out/runs
rounds=${ROUNDS:-3}
# The HBM plateau once (mem1 of the coefficient file); the GEMMs and the block every round.
"$bin" memory --filter 'memory.hbm_*' -a 'size_bytes=256MiB:4GiB:*4' --time-budget 0.2 \
  --point-timeout 60 --out "$runs" -q
# seq and micro_batch 0: the model's own, as the block runs it (gemm.cublaslt's default sweep
# holds other shapes).
for round in $(seq "$rounds"); do
  echo "gpu_block_prediction: round $round of $rounds (t = $gpus, $model)" >&2
  "$bin" gemm --filter gemm.cublaslt --model "$model" --tp "$gpus" -a seq=0 -a micro_batch=0 \
    --time-budget 0.3 --point-timeout 60 --out "$runs" -q
  "$bin" block --filter block.transformer_tp_gpu -a model="$model" -a sequence_parallel=0,1 \
    -a iterations=20 --point-timeout 120 --out "$runs" -q
done
# One GPU measures no network: Calculon's A100 tiers fill them, asked for by name and listed at
# the top of the fit report.
"$bin" calibrate "$runs" --out "$out/cal" --borrow a100_80g
echo "gpu_block_prediction: $out/cal/fit_report.md, section 'A block predicted'"
