#!/usr/bin/env bash
# The GEMM TP sweep against torch.matmul on this node's GPU 0, interleaved by sweep, then its A/A
# control (docs/gemm.md, "Comparison with PyTorch"): a GPT-3 175B TP sweep
# at seq 2048 and micro-batch 1 at the TP degrees TPS (the reference runs' shapes), then
# scripts/gemm_vs_torch.py alternates railgauge's sweep and torch on every point for ROUNDS
# rounds (default 3; the source sweep is railgauge's first), then, when AA is not 0,
# scripts/gemm_aa_control.py runs the same sweep again as two railgauge sides, ROUNDS rounds.
# The torch comparison comes first: it is the table, the A/A control its resolution, and a call
# that runs out of time keeps the table.
#
#   scripts/gemm_torch_round.sh OUT_DIR [TPS]        (default TPS: 1,8,32; 16 points a degree)
#
# WINDOW_S, when set, is each GPU point's least timed span (--measure gpu_min_timed_s, default
# 0.2 s); torch times the span each record states (gemm_vs_torch.py, steady_state.least_timed_s).
# RAILGAUGE names the binary (default build/bin/railgauge); cuBLASLt comes from the node's
# PyTorch when the binary was built without it (scripts/torch_lib_path.sh). Writes OUT_DIR/runs
# (the source sweep), OUT_DIR/torch (peer.torch_matmul records), OUT_DIR/aa (peer.railgauge_aa
# records) and OUT_DIR/*.log; `gemm_vs_torch.py --aa-control OUT_DIR/aa` states the resolution
# under the table afterwards, on any machine. Time, TPS=1,8 on one H200 (2026-11-28): the source
# sweep 41 s, the torch comparison 111 s, the A/A control over 200 s (cut by a 360 s deadline):
# one 10-minute call holds two degrees with the A/A control, not the default three.
# Only reads the GPU: no clock, power or MIG setting is changed. Exit status: the first failing
# command's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gemm_torch_round.sh OUT_DIR [TPS]}
tps=${2:-1,8,32}
rounds=${ROUNDS:-3}
bin=${RAILGAUGE:-build/bin/railgauge}
[ -x "$bin" ] || { echo "gemm_torch_round: no railgauge at '$bin'" >&2; exit 2; }
lib=$(scripts/torch_lib_path.sh)
mkdir -p "$out"
measure=(--time-budget 0.2 --point-timeout 60)
[[ -n "${WINDOW_S:-}" ]] && measure+=(--measure "gpu_min_timed_s=$WINDOW_S")
LD_LIBRARY_PATH="${lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$bin" gemm --model gpt3-175b --tp "$tps" -a seq=2048 -a micro_batch=1 -a gpu=0 \
  "${measure[@]}" --out "$out/runs" -q
run_dir=$(ls -d "$out"/runs/*/ | tail -n 1)
echo "[$(date -u +%H:%M:%S)] source sweep: $run_dir"
python3 scripts/gemm_vs_torch.py "$run_dir" --out "$out/torch" --samples 10 \
  --interleave "$rounds" --railgauge "$bin" ${lib:+--railgauge-lib "$lib"} \
  --first-round-is-source 2>&1 | tee "$out/gemm-vs-torch.log"
echo "[$(date -u +%H:%M:%S)] torch pairs done"
if [[ "${AA:-1}" != 0 ]]; then
  python3 scripts/gemm_aa_control.py "$run_dir" --railgauge "$bin" \
    ${lib:+--railgauge-lib "$lib"} --rounds "$rounds" --out "$out/aa" 2>&1 | tee "$out/aa.log"
  echo "[$(date -u +%H:%M:%S)] A/A control done"
fi
