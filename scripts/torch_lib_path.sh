#!/usr/bin/env bash
# Prints the library path of the CUDA libraries a node's PyTorch install carries (torch/lib and
# site-packages/nvidia/*/lib: libcublasLt.so.13, libnccl.so.2), colon-separated, for railgauge
# built elsewhere and carried without them; prints nothing when PYTHON (default python3) has no
# torch. Exit status 0 either way.
#
#   LD_LIBRARY_PATH="$(scripts/torch_lib_path.sh)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
set -uo pipefail
torch_dir=$(timeout 60 "${PYTHON:-python3}" -c \
  'import torch, os; print(os.path.dirname(torch.__file__))' 2>/dev/null | tail -n 1 || true)
[[ -n "$torch_dir" && -d "$torch_dir" ]] || exit 0
dirs="$torch_dir/lib"
for d in "$torch_dir"/../nvidia/*/lib; do [[ -d "$d" ]] && dirs="$dirs:$(cd "$d" && pwd)"; done
echo "$dirs"
