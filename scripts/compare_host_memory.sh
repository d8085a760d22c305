#!/usr/bin/env bash
# Host DRAM bandwidth: railgauge's memory.host_* against likwid-bench (and mbw for copy), run
# alternately on this machine at the same array size, thread count and NUMA node, and a table
# of both figures and their ratio. docs/memory.md says how the units and sizes line up.
#
#   scripts/compare_host_memory.sh [--size-bytes 1000000000] [--threads "1 2"]
#       [--kernels "read write copy triad"] [--numa 0] [--repeat 3] [--railgauge build/bin/railgauge]
#
# Our side runs `railgauge memory --filter memory.host_<kernel> -a ...` and reads the record
# from its run directory. RAILGAUGE_POINT_CMD replaces that with any command that takes
# "KERNEL SIZE_BYTES THREADS NUMA" and prints one record (JSON with .metrics) on stdout.
#
# Units: everything is converted to GB/s = 1e9 bytes/s, counting reads + writes once and no
# write-allocate (STREAM's convention, also likwid's). likwid prints MByte/s = 1e6 bytes/s and
# its -W size is the total of all its streams; mbw prints MiB/s = 2^20 bytes/s of the array
# copied, counted once, so its figure is doubled here to count the read and the write.
set -euo pipefail

size_bytes=1000000000
threads_list="1 2"
kernels="read write copy triad"
numa=0
repeat=3
here="$(cd "$(dirname "$0")/.." && pwd)"
railgauge="${here}/build/bin/railgauge"

while [[ $# -gt 0 ]]; do
  case "$1" in
  --size-bytes) size_bytes="$2"; shift 2 ;;
  --threads) threads_list="$2"; shift 2 ;;
  --kernels) kernels="$2"; shift 2 ;;
  --numa) numa="$2"; shift 2 ;;
  --repeat) repeat="$2"; shift 2 ;;
  --railgauge) railgauge="$2"; shift 2 ;;
  -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
  *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

for tool in likwid-bench jq python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool on PATH" >&2; exit 2; }
done
if (( size_bytes % 1000 != 0 )); then
  echo "--size-bytes must be a multiple of 1000: likwid-bench takes sizes in kB (1e3)" >&2
  exit 2
fi
if [[ -z "${RAILGAUGE_POINT_CMD:-}" && ! -x "$railgauge" ]]; then
  echo "no railgauge binary at $railgauge: build it or pass --railgauge PATH" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# likwid-bench kernel and number of streams (arrays) for each of ours. -W (not -w): every
# thread allocates and first-touches its own chunk, as railgauge does. Plain stores, no
# non-temporal variants (*_mem_*), so both sides pay the same write-allocate.
likwid_test() {
  case "$1" in
  read) echo "load_avx512 1" ;;
  write) echo "store_avx512 1" ;;
  copy) echo "copy_avx512 2" ;;
  triad) echo "stream_avx512_fma 3" ;; # A = B*s + C: STREAM's triad traffic
  esac
}

ours_gbytes_per_s() { # kernel threads
  local out
  if [[ -n "${RAILGAUGE_POINT_CMD:-}" ]]; then
    out="$($RAILGAUGE_POINT_CMD "$1" "$size_bytes" "$2" "$numa")"
  else
    rm -rf "$work/run"
    "$railgauge" memory --filter "memory.host_$1" -a "size_bytes=$size_bytes" -a "threads=$2" \
      -a "numa_node=$numa" --out "$work/run" -q >/dev/null
    out="$(cat "$work"/run/*/records.jsonl)"
  fi
  local status
  status="$(jq -r '.status // "ok"' <<<"$out")"
  [[ "$status" == ok ]] || { echo "railgauge point $1 threads=$2: $status $(jq -r .reason <<<"$out")" >&2; exit 1; }
  jq -r '.metrics.bandwidth_gbytes_per_s' <<<"$out"
}

likwid_gbytes_per_s() { # kernel threads
  local test streams
  read -r test streams <<<"$(likwid_test "$1")"
  local total_kb=$(( size_bytes * streams / 1000 ))
  likwid-bench -t "$test" -W "M${numa}:${total_kb}kB:$2" 2>&1 |
    awk '/^MByte\/s:/ { printf "%.4f\n", $2 / 1000 }'
}

mbw_gbytes_per_s() { # method (0 memcpy, 1 dumb loop); single thread, copy only
  local mib=$(( size_bytes / 1048576 ))
  mbw -q -n 5 -t "$1" "$mib" | awk '/^AVG/ { for (i = 1; i <= NF; i++) if ($i == "Copy:") printf "%.4f\n", 2 * $(i+1) * 1048576 / 1e9 }'
}

results="$work/results.tsv"
for kernel in $kernels; do
  for threads in $threads_list; do
    for (( r = 0; r < repeat; r++ )); do
      # Alternate the tools so that drift (other tenants, thermal) hits both alike.
      printf '%s\t%s\tours\t%s\n' "$kernel" "$threads" "$(ours_gbytes_per_s "$kernel" "$threads")" >>"$results"
      printf '%s\t%s\tlikwid\t%s\n' "$kernel" "$threads" "$(likwid_gbytes_per_s "$kernel" "$threads")" >>"$results"
      if [[ "$kernel" == copy && "$threads" == 1 ]] && command -v mbw >/dev/null; then
        printf '%s\t%s\tmbw_memcpy\t%s\n' "$kernel" "$threads" "$(mbw_gbytes_per_s 0)" >>"$results"
        printf '%s\t%s\tmbw_dumb\t%s\n' "$kernel" "$threads" "$(mbw_gbytes_per_s 1)" >>"$results"
      fi
    done
  done
done

python3 - "$results" "$size_bytes" "$numa" "$repeat" <<'PY'
import statistics, sys
from collections import defaultdict
path, size_bytes, numa, repeat = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs = defaultdict(list)
for line in open(path):
    kernel, threads, tool, value = line.split("\t")
    runs[(kernel, int(threads), tool)].append(float(value))
print(f"Host DRAM bandwidth, GB/s (1e9 B/s), reads + writes counted once, no write-allocate; "
      f"{size_bytes} bytes per array, NUMA node {numa}; median of {repeat} runs [min-max]; "
      f"ratio = railgauge / peer")
print(f"{'kernel':<7}{'thr':>4}  {'peer':<12}{'railgauge':>22}{'peer GB/s':>22}{'ratio':>8}{'peer spread':>13}")
for (kernel, threads, tool), peer in sorted(runs.items(), key=lambda kv: kv[0]):
    if tool == "ours":
        continue
    ours = runs[(kernel, threads, "ours")]
    mo, mp = statistics.median(ours), statistics.median(peer)
    spread = (max(peer) - min(peer)) / mp
    fmt = lambda xs, m: f"{m:7.2f} [{min(xs):.2f}-{max(xs):.2f}]"
    print(f"{kernel:<7}{threads:>4}  {tool:<12}{fmt(ours, mo):>22}{fmt(peer, mp):>22}"
          f"{mo / mp:8.3f}{spread:12.1%}")
PY
