#!/usr/bin/env bash
# The A/A control of the GEMM ratio tables on this node's GPU 0 (docs/gemm.md, "Comparison with
# PyTorch"): a GPT-3 175B TP sweep at seq 2048 and micro-batch 1 (the reference runs' shapes, at
# the TP degrees TPS), then scripts/gemm_aa_control.py runs that sweep again as two sides,
# alternating ROUNDS times (default 3), and prints the resolution: how far from 1 the p10-p90 of
# railgauge's ratios against itself reaches.
#
#   scripts/gemm_aa_round.sh OUT_DIR [TPS]        (default TPS: 1,8,32; 48 points a sweep)
#
# RAILGAUGE names the binary (default build/bin/railgauge); cuBLASLt comes from the node's
# PyTorch when the binary was built without it (scripts/torch_lib_path.sh). Writes OUT_DIR/runs
# (the source sweep) and OUT_DIR/peers (the peer.railgauge_aa records and both sides' sweeps);
# `gemm_vs_torch.py --aa-control OUT_DIR/peers` states the resolution under its table. Time: the
# H200 run of 2026-11-27 measured 96 TP points in 81 s at --time-budget 0.2, so a 48-point sweep
# takes about 40 s plus at most 20 s of sustained windows: 7 sweeps, 5 to 7 minutes.
# Only reads the GPU: no clock, power or MIG setting is changed. Exit status: the first failing
# command's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gemm_aa_round.sh OUT_DIR [TPS]}
tps=${2:-1,8,32}
bin=${RAILGAUGE:-build/bin/railgauge}
[ -x "$bin" ] || { echo "gemm_aa_round: no railgauge at '$bin'" >&2; exit 2; }
lib=$(scripts/torch_lib_path.sh)
export LD_LIBRARY_PATH="${lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$bin" gemm --model gpt3-175b --tp "$tps" -a seq=2048 -a micro_batch=1 -a gpu=0 \
  --time-budget 0.2 --point-timeout 60 --out "$out/runs" -q
run_dir=$(ls -d "$out"/runs/*/ | tail -n 1)
python3 scripts/gemm_aa_control.py "$run_dir" --railgauge "$bin" \
  ${lib:+--railgauge-lib "$lib"} --rounds "${ROUNDS:-3}" --out "$out/peers"
