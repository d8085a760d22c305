#!/usr/bin/env bash
# A whole rack with Open MPI's mpirun: one rank per GPU (8 per node), each bound to the cores of
# its NUMA node, GPU chosen from the node-local rank. HOSTFILE lists one line per node with
# "slots=8".
#   HOSTFILE=hosts.txt scripts/mpirun_rack.sh                       # collectives suite
#   HOSTFILE=hosts.txt scripts/mpirun_rack.sh --filter 'collectives.nccl_all_reduce'
# On one machine without GPUs (host-memory MPI backend only):
#   mpirun --oversubscribe -np 4 build/bin/railgauge collectives
set -euo pipefail
: "${HOSTFILE:?set HOSTFILE to a file with one 'host slots=8' line per node}"
RAILGAUGE=${RAILGAUGE:-$(dirname "$0")/../build/bin/railgauge}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
NODES=$(grep -c . "$HOSTFILE")
# --map-by ppr:4:numa places 4 ranks on each NUMA node (2 sockets x 4 GPUs) and --bind-to numa
# pins each to all the cores of that NUMA node; the wrapper selects the GPU of the same local
# rank, so on H100 boxes (GPUs 0-3 on socket 0, 4-7 on socket 1) rank and GPU share a NUMA node.
# mpirun -x forwards only the variables it names: every NCCL_* variable set here is named, so a
# forced NCCL_ALGO or NCCL_PROTO reaches every rank (NCCL_DEBUG defaults to WARN).
nccl_env=(-x "NCCL_DEBUG=${NCCL_DEBUG:-WARN}")
while IFS= read -r name; do
  [[ $name == NCCL_DEBUG ]] || nccl_env+=(-x "$name")
done < <(compgen -e | grep '^NCCL_' || true)
exec mpirun --hostfile "$HOSTFILE" -np $((NODES * GPUS_PER_NODE)) \
  --map-by "ppr:$((GPUS_PER_NODE / 2)):numa" --bind-to numa \
  "${nccl_env[@]}" -x PATH -x LD_LIBRARY_PATH \
  bash -c 'export CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK; exec "$0" "$@"' \
  "$RAILGAUGE" run collectives "$@"
