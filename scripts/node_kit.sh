#!/usr/bin/env bash
# Packs a built railgauge for a GPU node that has no package registry (the relocatable kit): the
# stripped binary with its data (suites, rules, GPU peaks, schemas), the GPU test executables,
# and the libraries they link that a node without the packages lacks: the Debian ones and the
# CUDA toolkit's (cuBLASLt, NCCL, cudart), not the C and C++ runtime or the driver's libcuda and
# NVML; plus prebuilt peer binaries when given. Then it checks that the packed binary starts, and
# finds its data, with only the packed libraries on its path.
#
#   scripts/node_kit.sh [--build-dir DIR] [--out DIR] [--peer NAME=PATH ...] [--tar]
#                       [--without-cuda-libs]
#
#   --build-dir DIR    a railgauge build (default: build/); its GPU test executables are packed
#                      when they were built (cmake --build DIR --target cuda_tests ...)
#   --out DIR          the kit directory, refused when it exists and is not empty (default:
#                      node/); it holds build/bin/railgauge, build/tests/.../*_gpu_tests,
#                      lib/, peers/NAME/ and kit.txt (what is inside, sizes, how it was checked)
#   --peer NAME=PATH   a peer built beside railgauge (a file, or a directory whose executables
#                      are taken), e.g. --peer nvbandwidth=../nvbandwidth/build/nvbandwidth
#                      --peer nccl-tests=../nccl-tests/build; this script never builds one
#   --tar              also write DIR.tar.xz (the kit compressed, for a carry with a size limit:
#                      OpenBLAS alone is 35 MB unpacked)
#   --without-cuda-libs  leave out the CUDA toolkit's libraries (cuBLASLt alone is 540 MB): for
#                      a node whose PyTorch or CUDA install has them on LD_LIBRARY_PATH
#
# On any node, from any directory: DIR/railgauge run burnin-h100 (the wrapper puts DIR/lib first
# on the library path). On a GPU node, in the source tree (docs/reference-runs.md):
#   scripts/reference_run.sh --build-dir node/build --lib-dir node/lib --quick \
#     [--nccl-tests node/peers/nccl-tests] [--nvbandwidth node/peers/nvbandwidth/nvbandwidth]
#
# Exit status: 0 packed, every library a packed executable (peers included) links resolves
# inside the kit (or is the C and C++ runtime, or CUDA's, which the node has), and the binary
# starts; 1 not so, or a copy or the tar failed (kit.txt says what); 2 bad arguments or nothing
# built.
set -uo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="$repo/build"
out="$repo/node"
peers=()
tar=0
cuda_libs=1

usage_error() {
  echo "node_kit.sh: $1 (see --help)" >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case "$1" in
  --tar) tar=1; shift; continue ;;
  --without-cuda-libs) cuda_libs=0; shift; continue ;;
  -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
  --build-dir | --out | --peer) [[ $# -ge 2 ]] || usage_error "$1 needs a value" ;;
  *) usage_error "unknown argument '$1'" ;;
  esac
  case "$1" in
  --build-dir) build_dir="$2" ;;
  --out) out="$2" ;;
  --peer)
    [[ "$2" =~ ^[A-Za-z0-9._-]+=.+$ ]] || usage_error "--peer '$2' is not NAME=PATH"
    [[ -e "${2#*=}" ]] || usage_error "--peer $2: no such file or directory"
    peers+=("$2")
    ;;
  esac
  shift 2
done

build_dir="$(cd "$build_dir" 2>/dev/null && pwd)" || usage_error "--build-dir: no such directory"
[[ -x "$build_dir/bin/railgauge" ]] ||
  usage_error "no railgauge at $build_dir/bin/railgauge: build first (scripts/build.sh)"
if [[ -e "$out" && -n "$(ls -A "$out" 2>/dev/null)" ]]; then
  usage_error "--out $out exists and is not empty: give a new directory"
fi
for tool in objcopy ldd; do
  command -v "$tool" >/dev/null || usage_error "needs $tool on PATH (Debian: binutils, libc-bin)"
done
mkdir -p "$out/build/bin" "$out/lib" "$out/peers" || usage_error "cannot create $out"
out="$(cd "$out" && pwd)"

# What went wrong while packing or checking: each line makes the exit status 1 (kit.txt lists
# them).
problems=()

# The executables: railgauge and the GPU tests, without their debug information (the kit is
# carried to the node; the build keeps the symbols).
pack() { # SOURCE DEST
  mkdir -p "$(dirname "$2")" && objcopy --strip-debug "$1" "$2" ||
    problems+=("cannot copy $1 into the kit")
}
pack "$build_dir/bin/railgauge" "$out/build/bin/railgauge"
# Its data, where the binary looks for it (bin/../share/railgauge; harness/data_paths.h).
mkdir -p "$out/build/share" && cp -rL "$build_dir/share/railgauge" "$out/build/share/" ||
  problems+=("cannot copy $build_dir/share/railgauge (the suites and rules) into the kit")
# Run from anywhere, by srun too: the kit's libraries first on the path.
cat >"$out/railgauge" <<'WRAPPER'
#!/bin/sh
# railgauge from this node kit: its own libraries first on the library path.
kit=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$kit/build/bin/railgauge" "$@"
WRAPPER
chmod +x "$out/railgauge"
executables=("$out/build/bin/railgauge")
# The probes built beside it (docs/memory.md, docs/gemm.md), when they were.
for probe in hbm_copy_variants lt_fp8_variants; do
  [[ -x "$build_dir/bin/$probe" ]] || continue
  pack "$build_dir/bin/$probe" "$out/build/bin/$probe"
  executables+=("$out/build/bin/$probe")
done
while IFS= read -r t; do
  pack "$build_dir/$t" "$out/build/$t"
  executables+=("$out/build/$t")
done < <(cd "$build_dir" &&
  find tests -type f -perm -u+x \( -name '*_gpu_tests' -o -name cuda_tests \) | sort)

for p in "${peers[@]}"; do
  name=${p%%=*}
  path=${p#*=}
  mkdir -p "$out/peers/$name"
  files=("$path")
  [[ -d "$path" ]] && mapfile -t files < <(find "$path" -maxdepth 1 -type f -perm -u+x | sort)
  for f in "${files[@]}"; do
    cp "$f" "$out/peers/$name/" || problems+=("cannot copy peer $f into the kit")
    executables+=("$out/peers/$name/$(basename "$f")")
  done
done

# ldd's lines as NAME<TAB>PATH ("name => /path (0x...)") or NAME<TAB>not found; paths may hold
# spaces, so the whole path between "=> " and the load address is taken.
resolved() {
  sed -n -e 's/^[[:space:]]*\([^ ]*\) => not found$/\1\tnot found/p' \
    -e 's/^[[:space:]]*\([^ ]*\) => \(\/.*\) (0x[0-9a-f]*)$/\1\t\2/p'
}
# The libraries every node has: the C and C++ runtime and the driver's (libcuda, NVML); with
# --without-cuda-libs also the toolkit's, which the node's PyTorch provides. Matched against a
# resolved path.
node_has='/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux-x86-64'
node_has+='|libcuda|libnvidia-ml'
((cuda_libs)) || node_has+='|libcublas|libcublasLt|libnccl|libcudart'
node_has+=')\.so[^/]*$'

# The shared libraries the executables link from this system, less those the node has.
while IFS= read -r lib; do
  cp -L "$lib" "$out/lib/" || problems+=("cannot copy $lib into the kit")
done < <(for exe in "${executables[@]}"; do ldd "$exe" 2>/dev/null | resolved; done |
  cut -f2 | grep '^/' | grep -vE "$node_has" | sort -u)

# Every library each packed executable links must resolve inside the kit or be one the node has
# (LD_LIBRARY_PATH only puts the kit first: ldd would still find this machine's copies, so each
# resolved path is checked). A script (a peer's wrapper) has none. Then the binary must start.
for exe in "${executables[@]}"; do
  rel=${exe#"$out"/}
  [[ -f "$exe" ]] || continue # its copy failed: already a problem
  if ! listing=$(env -i LD_LIBRARY_PATH="$out/lib" ldd "$exe" 2>&1); then
    [[ $listing == *"not a dynamic executable"* ]] && continue
    problems+=("ldd cannot read $rel: $listing")
    continue
  fi
  while IFS=$'\t' read -r name path; do
    if [[ $path == "not found" ]]; then
      # Not on this machine either; fine when it is one the node has (the driver's libcuda).
      [[ "/$name" =~ $node_has ]] || problems+=("not in the kit: $rel: $name not found")
    elif [[ $path != "$out/lib/"* && ! $path =~ $node_has ]]; then
      problems+=("not in the kit: $rel: $name from $path")
    fi
  done < <(resolved <<<"$listing")
done
check_log="$out/kit-check.txt"
if ! env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$out/lib" \
  "$out/build/bin/railgauge" --version >"$check_log" 2>&1; then
  problems+=("the packed railgauge does not start with only the kit's libraries")
elif ! (cd / && env -i PATH=/usr/bin:/bin "$out/railgauge" list) 2>&1 |
  grep -qF "read from $out/build/share/railgauge"; then
  problems+=("the kit's railgauge wrapper does not start, or does not find the kit's data")
fi

{
  echo "railgauge node kit, packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname -s)"
  echo "source commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "from build: $build_dir"
  echo
  echo "sizes:"
  (cd "$out" && du -sh build lib peers | sed 's/^/  /')
  echo "  total $(du -sh "$out" | cut -f1)"
  echo
  echo "executables:"
  (cd "$out" && find build peers -type f -perm -u+x | sort | sed 's/^/  /')
  echo
  echo "libraries:"
  (cd "$out/lib" && ls | sed 's/^/  /')
  echo
  echo "check: every linked library from lib/ or one the node has; then"
  echo "       env -i LD_LIBRARY_PATH=lib build/bin/railgauge --version, and"
  echo "       env -i ./railgauge list (from /), which must read the kit's share/railgauge"
  sed 's/^/  /' "$check_log"
  for p in "${problems[@]}"; do echo "  $p"; done
  if ((${#problems[@]} == 0)); then echo "  ok"; else echo "  FAILED: see the lines above"; fi
} >"$out/kit.txt"
rm -f "$check_log"
status=$((${#problems[@]} > 0))
if ((tar)); then
  if tar cJf "$out.tar.xz" -C "$(dirname "$out")" "$(basename "$out")"; then
    echo "compressed: $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1))" >>"$out/kit.txt"
  else
    echo "FAILED: tar could not write $out.tar.xz" >>"$out/kit.txt"
    rm -f "$out.tar.xz"
    status=1
  fi
fi
cat "$out/kit.txt"
exit "$status"
