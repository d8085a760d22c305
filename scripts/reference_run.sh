#!/usr/bin/env bash
# One command for a reference run on a GPU node: the GPU tests, railgauge's GPU families, the
# torch peers, check and calibrate, all into one output directory that can be committed under
# results/reference/<gpu>-<date>/ (docs/reference-runs.md).
#
#   scripts/reference_run.sh [--build-dir DIR] [--out DIR] [--quick] [--budget-s S]
#                            [--rules FILE] [--lib-dir DIR] [--nccl-tests DIR]
#                            [--nvbandwidth FILE] [--only GROUP[,GROUP...]]
#                            [--interleave ROUNDS]
#
#   --build-dir DIR  the railgauge build: DIR/bin/railgauge, and the GPU tests when the build's
#                    ctest files or test executables are there (default: build/)
#   --out DIR        the output directory; must not exist or be empty
#                    (default: runs/reference-<UTC time>)
#   --quick          smaller sweeps and --time-budget 0.2 s per point, to fit about 8 minutes;
#                    the default budget becomes 480 s
#   --budget-s S     total seconds for all steps (default 480 with --quick, 3600 without); each
#                    step runs under `timeout` with its share, the last steps (validate, check,
#                    calibrate, summary) keep a reserve
#   --rules FILE     rules for `railgauge check` (default results/rules/h200-sxm-ib.yaml when
#                    nvidia-smi names an H200, else results/rules/h100-sxm-ib.yaml)
#   --lib-dir DIR    shared libraries copied with a build from another machine (the Debian
#                    libraries railgauge links); searched by railgauge and the GPU tests only
#   --nccl-tests DIR nccl-tests binaries (all_reduce_perf, ...) built for this node: each runs
#                    on the GPUs here beside railgauge's NCCL collective of the same kind, sizes
#                    and iterations, and `railgauge compare` sets them side by side
#                    (docs/reference-runs.md says how to build them; this script never does)
#   --nvbandwidth FILE an nvbandwidth binary built for this node: its copy-engine testcases run
#                    at its default 512 MiB buffer, railgauge's same copies at that size, and
#                    scripts/nvbandwidth_vs_ours.py pairs them by GPU (built as the
#                    nccl-tests are, never by this script)
#
#   --only GROUPS    run only these groups of steps (the inventory and the analysis always run):
#                    gpu-tests, gemm, memory, offload, collectives, nccl-tests, torch (compares
#                    the gemm, memory and offload runs of the same output: give one or more),
#                    nvbandwidth, block; to split a reference run over several shorter sessions,
#                    each into its own --out
#   --interleave N   the torch peers alternate with railgauge by sweep, N rounds (>= 3):
#                    railgauge's source sweep again, then torch on every point, ABAB... (the
#                    GEMM peers' first round is their source run), and each peer record holds
#                    the ratio's interval and a parity verdict (scripts/peer_sweeps.py,
#                    peer_pairs.py); off by default. Each torch step gets N times its share plus
#                    its source steps' share per sweep, and a default budget grows to hold them
#                    (N = 3, --quick: 480 s becomes 1286 s); nccl-pairs is added (below)
#
# Environment: PYTHON (default python3) is the Python that holds PyTorch. For railgauge and the
# GPU tests, LD_LIBRARY_PATH becomes torch/lib and site-packages/nvidia/*/lib (libcublasLt,
# libnccl), then --lib-dir, then the caller's; the Python steps keep the caller's.
# RAILGAUGE_GPU_PEAKS is set to this tree's results/peaks/gpu_peaks.yaml unless already set.
#
# Read-only on the GPU: nvidia-smi is only queried; clocks, power limits and MIG are never
# changed. A failing or timed-out step is logged and the next one runs.
#
# Output: manifest.json (command, machine, versions, every step's command, exit status, seconds
# and run directory), reference_run.log (this script's output), summary.txt, gpu/ (nvidia-smi
# excerpts), logs/NN-step.log, runs/<step>/<run-id>/ (railgauge runs), peers/<step>/<run-id>/
# (peer.torch_matmul and peer.torch_copy records), check/, calibrate/, inventory.json.
#
# Exit status: 0 a GPU was seen and every step finished (check's pass, warn and fail are
# verdicts, written to check/); 1 some step failed, timed out or had no time left; 2 bad
# arguments, nothing ran; 3 no GPU here: every step that needs none ran, the GPU points are
# waived records, the GPU-only steps say "no GPU" (not a reference run).
set -uo pipefail

script_args=("$@")
repo="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="$repo/build"
out=""
quick=0
budget_s=""
rules="$repo/results/rules/h100-sxm-ib.yaml"
rules_given=0
lib_dir=""
nccl_tests=""
nvbandwidth=""
only=""
interleave=0
python="${PYTHON:-python3}"

usage_error() {
  echo "reference_run.sh: $1 (see --help)" >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case "$1" in
  --quick) quick=1; shift; continue ;;
  -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
  --build-dir | --out | --budget-s | --rules | --lib-dir | --nccl-tests | --nvbandwidth | --only | \
    --interleave)
    [[ $# -ge 2 ]] || usage_error "$1 needs a value"
    ;;
  *) usage_error "unknown argument '$1'" ;;
  esac
  case "$1" in
  --build-dir) build_dir="$2" ;;
  --out) out="$2" ;;
  --budget-s) budget_s="$2" ;;
  --rules) rules="$2" rules_given=1 ;;
  --lib-dir) lib_dir="$2" ;;
  --nccl-tests) nccl_tests="$2" ;;
  --nvbandwidth) nvbandwidth="$2" ;;
  --only) only="$2" ;;
  --interleave) interleave="$2" ;;
  esac
  shift 2
done

if [[ -n "$budget_s" && ! "$budget_s" =~ ^[0-9]+$ ]]; then
  usage_error "--budget-s '$budget_s' is not a whole number of seconds"
fi
budget_given=$((${#budget_s} > 0))
[[ -z "$budget_s" ]] && budget_s=$((quick ? 480 : 3600))
if [[ ! "$interleave" =~ ^[0-9]+$ ]] || ((interleave == 1 || interleave == 2)); then
  usage_error "--interleave '$interleave': give a number of rounds, at least 3 (0: off)"
fi
# The torch peers' shares (gemm-vs-torch 7, 4 and 2 %, copy-vs-torch 8 %) are sized for one torch
# pass. Interleaved by sweep (scripts/peer_sweeps.py), a peer step runs N torch passes and N
# railgauge sweeps of its source steps (gemm 25, 5 and 3 %, memory and offload 20 %), the GEMM
# peers N - 1 of them (their first round is the source run, which ends just before them): each
# peer step gets that, and a default budget grows by what they add, so the steps after them keep
# theirs. A budget given with --budget-s is kept; the steps run in order within it.
peer_pct=21
source_pct=53
if ((interleave && !budget_given)); then
  budget_s=$((budget_s + budget_s * (peer_pct + source_pct) * (interleave - 1) / 100 \
    + budget_s * 20 / 100))
fi
if ((budget_s < 60)); then
  usage_error "--budget-s $budget_s is too short: the last steps alone keep 30 s; give 60 or more"
fi
build_dir="$(cd "$build_dir" 2>/dev/null && pwd)" ||
  usage_error "--build-dir: no such directory; build first (scripts/build.sh) or name the build"
railgauge="$build_dir/bin/railgauge"
[[ -x "$railgauge" ]] ||
  usage_error "no railgauge binary at $railgauge: build it (scripts/build.sh) or give --build-dir"
[[ -f "$rules" ]] || usage_error "--rules: no file $rules (results/rules/ lists the profiles)"
rules="$(cd "$(dirname "$rules")" && pwd)/$(basename "$rules")"
if [[ -n "$lib_dir" ]]; then
  lib_dir="$(cd "$lib_dir" 2>/dev/null && pwd)" || usage_error "--lib-dir: no such directory"
fi
if [[ -n "$nccl_tests" ]]; then
  nccl_tests="$(cd "$nccl_tests" 2>/dev/null && pwd)" || usage_error "--nccl-tests: no such directory"
  [[ -x "$nccl_tests/all_reduce_perf" ]] ||
    usage_error "--nccl-tests: no all_reduce_perf in $nccl_tests (give nccl-tests' build directory)"
fi
step_groups=(gpu-tests gemm memory offload collectives nccl-tests torch nvbandwidth block)
# Whether the steps of GROUP run (--only); the inventory and the analysis always do.
selected() { [[ -z "$only" || $1 == always || ",$only," == *",$1,"* ]]; }
if [[ -n "$only" ]]; then
  IFS=, read -ra only_groups <<<"$only"
  for g in "${only_groups[@]}"; do
    known=0
    for k in "${step_groups[@]}"; do [[ $g == "$k" ]] && known=1; done
    ((known)) || usage_error "--only: no group '$g' (groups, comma-separated: ${step_groups[*]})"
  done
  # A selection that could run nothing of what it names is refused before anything runs.
  # The torch peers compare the gemm, memory and offload runs of the same output: those selected.
  if selected torch && ! { selected gemm || selected memory || selected offload; }; then
    usage_error "--only torch needs gemm, memory or offload too: the peers compare their runs"
  fi
  selected nccl-tests && [[ -z "$nccl_tests" ]] &&
    usage_error "--only nccl-tests needs --nccl-tests DIR"
  selected nvbandwidth && [[ -z "$nvbandwidth" ]] &&
    usage_error "--only nvbandwidth needs --nvbandwidth FILE"
fi
if [[ -n "$nvbandwidth" ]]; then
  [[ -f "$nvbandwidth" && -x "$nvbandwidth" ]] ||
    usage_error "--nvbandwidth: $nvbandwidth is not an executable file (give nvbandwidth's binary)"
  nvbandwidth="$(cd "$(dirname "$nvbandwidth")" && pwd)/$(basename "$nvbandwidth")"
fi
command -v timeout >/dev/null || usage_error "needs timeout (GNU coreutils) on PATH"
command -v "$python" >/dev/null || usage_error "no $python on PATH: set PYTHON"
[[ -z "$out" ]] && out="$repo/runs/reference-$(date -u +%Y-%m-%dT%H-%M-%SZ)"
if [[ -e "$out" && -n "$(ls -A "$out" 2>/dev/null)" ]]; then
  usage_error "--out $out exists and is not empty: give a new directory (runs are never mixed)"
fi
mkdir -p "$out/logs" "$out/runs" "$out/peers" "$out/gpu" ||
  usage_error "cannot create the output directory $out"
out="$(cd "$out" && pwd)"
# Python (and torch inside it) runs with the caller's library path: libraries copied for
# railgauge from another distribution must not shadow the ones torch was built against.
if [[ -n "${LD_LIBRARY_PATH:-}" ]]; then
  py_env=(env "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" PYTHONUNBUFFERED=1)
else
  py_env=(env -u LD_LIBRARY_PATH PYTHONUNBUFFERED=1)
fi
py=("${py_env[@]}" "$python")

# Everything this script prints also goes to reference_run.log.
exec > >(tee -a "$out/reference_run.log") 2>&1
tee_pid=$!

start_s=$(date +%s)
start_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
tail_reserve_s=$((budget_s / 16 > 30 ? budget_s / 16 : 30)) # validate, check, calibrate, summary
min_step_s=5
steps_tsv="$out/logs/steps.tsv"
: >"$steps_tsv"
step_no=0
failed=0
have_gpu=0

log() { echo "[reference_run $(date -u +%H:%M:%S)] $*"; }
elapsed_s() { echo $(($(date +%s) - start_s)); }

# record NN NAME STATUS RC SECONDS LIMIT LOG RUN_DIR NOTE COMMAND...: one line of steps.tsv.
record() {
  local nn=$1 name=$2 status=$3 rc=$4 secs=$5 limit=$6 logf=$7 rundir=$8 note=$9
  shift 9
  local cmd="" arg
  for arg in "$@"; do # quoted only where a shell needs it
    if [[ $arg =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
      cmd+="$arg "
    else
      cmd+="$(printf '%q' "$arg") "
    fi
  done
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$nn" "$name" "$status" "$rc" "$secs" \
    "$limit" "$logf" "$rundir" "$note" "$cmd" >>"$steps_tsv"
  log "step $nn $name: $status${note:+ ($note)}, exit $rc, $secs s of $limit s -> $logf"
  write_summary
}

# summary.txt, the one page to read first: what ran, what failed, the ratios against the peers
# measured so far. Rewritten after every step, so a run cut short (killed, out of budget, the
# machine taken back) still leaves it, saying so.
summary_final=0
write_summary() {
  local page="$out/summary.txt.part" state="IN PROGRESS (cut short if this is the last word)"
  ((summary_final)) && state="finished"
  {
    echo "Reference run $(basename "$out"): $state, $(elapsed_s) s of a $budget_s s budget$mode"
    echo "GPU: $(grep -m1 '^GPU 0' "$out/gpu/nvidia-smi-L.txt" 2>/dev/null || echo 'none seen')"
    local failed_steps
    failed_steps=$(awk -F'\t' '$3 == "failed" || $3 == "timed out" {printf "%s%s", sep, $2; sep=", "}' \
      "$steps_tsv")
    echo "Failed or timed out: ${failed_steps:-none}"
    echo
    echo "Steps, in the order they ran (logs/NN-step.log):"
    awk -F'\t' '{printf "  %s %-26s %-12s %5s s  exit %-2s %s\n", $1, $2, $3, $5, $4, $9}' \
      "$steps_tsv"
    echo
    echo "Against the peers (railgauge / peer, same GPU, same run):"
    timeout 120 "${py[@]}" "$repo/scripts/peer_records.py" summary --runs "$out/runs" \
      "$out/peers" 2>&1
    if [[ -f "$out/check/verdict.json" ]]; then
      echo
      echo "check ($(basename "$rules")): see check/verdict.md"
      # The verdict line, then each violated rule with its first finding (from the step's log).
      local check_logs=("$out"/logs/*-check.log)
      local check_log=${check_logs[-1]}
      [[ -f "$check_log" ]] && awk '/^(PASS|WARN|FAIL): [0-9]+ node/ {verdict = $0}
        /^(FAIL|WARN) [^:]+ \[/ {print "  " $0; getline; print "  " $0}
        END {if (verdict != "") print "  " verdict}' "$check_log"
    fi
    local gpu_name
    gpu_name=$(sed -n 's/^GPU 0: \(.*\) (UUID.*/\1/p' "$out/gpu/nvidia-smi-L.txt" 2>/dev/null |
      tr '[:upper:]' '[:lower:]' | sed -e 's/nvidia //' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//;s/-$//')
    echo
    if ((have_gpu)); then
      echo "To commit: results/reference/${gpu_name:-gpu}-$(date -u +%Y-%m-%d)/" \
        "(docs/reference-runs.md)"
    else
      echo "No GPU here: this is not a reference run; nothing to commit."
    fi
  } >"$page" 2>&1
  mv -f "$page" "$out/summary.txt"
}

group_of() {
  case $1 in
  gpu-tests*) echo gpu-tests ;;
  gemm-vs-torch* | copy-vs-torch) echo torch ;;
  gemm-model | gemm-size | gemm-dtypes) echo gemm ;;
  block) echo block ;;
  memory-hbm | hbm-copy-variants) echo memory ;;
  offload) echo offload ;;
  collectives) echo collectives ;;
  nccl-tests* | import-nccl-tests* | collectives-nccl-* | compare-nccl-tests | nccl-pairs)
    echo nccl-tests ;;
  nvbandwidth* | import-nvbandwidth | offload-nvbandwidth-size | memory-nvbandwidth-size)
    echo nvbandwidth ;;
  inventory | validate | check | calibrate) echo always ;;
  *) echo unmapped ;; # a new step must be given its group here, or --only skips it
  esac
}

# step NAME CAP_S MODE CMD...: runs CMD under timeout with min(CAP_S, what the budget leaves),
# output in logs/NN-NAME.log (stdout to $STEP_STDOUT instead when set). MODE: plain (exit 0 is
# ok), verdict (railgauge check: 0/1/2 are pass/warn/fail), tail (may use the reserve).
# $STEP_RUN_DIR, when set, is the directory the step writes its run into (for the manifest).
step() {
  local name=$1 cap=$2 mode=$3
  shift 3
  if ! selected "$(group_of "$name")"; then
    skip "$name" "not in --only $only"
    return 0
  fi
  step_no=$((step_no + 1))
  local nn
  nn=$(printf '%02d' "$step_no")
  local logf="logs/$nn-$name.log"
  local left=$((budget_s - $(elapsed_s)))
  [[ $mode != tail ]] && left=$((left - tail_reserve_s))
  local limit=$((cap < left ? cap : left))
  if ((limit < min_step_s)); then
    echo "skipped: the budget of $budget_s s is spent ($(elapsed_s) s elapsed)" >"$out/$logf"
    record "$nn" "$name" skipped - 0 0 "$logf" "${STEP_RUN_DIR:-}" "no time left" "$@"
    failed=1
    return 0
  fi
  log "step $nn $name (limit $limit s): $*"
  local t0 rc
  t0=$(date +%s)
  if [[ -n "${STEP_STDOUT:-}" ]]; then
    timeout -k 10 "$limit" "$@" >"$STEP_STDOUT" 2>"$out/$logf"
  else
    timeout -k 10 "$limit" "$@" >"$out/$logf" 2>&1
  fi
  rc=$?
  local secs=$(($(date +%s) - t0)) status
  if ((rc == 124 || rc == 137)); then
    status="timed out"
    failed=1
  elif [[ $mode == verdict ]] && ((rc <= 2)); then
    local verdicts=(pass warn fail)
    status="verdict ${verdicts[$rc]}"
  elif ((rc == 0)); then
    status="ok"
  else
    status="failed"
    failed=1
  fi
  local note=""
  if ((!have_gpu)) && [[ $status == ok ]]; then
    case $(group_of "$name") in
    gemm | memory | offload | collectives | nccl-tests | nvbandwidth)
      note="no GPU: its GPU points are waived records" ;;
    esac
  fi
  if [[ $status == "timed out" ]]; then
    note="killed after $limit s"
  elif [[ $status == failed ]]; then # ctest's count, else the last line the tool printed
    note=$(grep -m 1 'tests passed, ' "$out/$logf" ||
      grep -v '^[[:space:]]*$' "$out/$logf" | tail -n 1)
    note=$(echo "$note" | cut -c1-160 | tr '\t' ' ')
  fi
  record "$nn" "$name" "$status" "$rc" "$secs" "$limit" "$logf" "${STEP_RUN_DIR:-}" "$note" "$@"
}

# skip NAME WHY: a step that does not run here, with the reason in its log.
skip() {
  step_no=$((step_no + 1))
  local nn
  nn=$(printf '%02d' "$step_no")
  echo "$2" >"$out/logs/$nn-$1.log"
  record "$nn" "$1" skipped - 0 0 "logs/$nn-$1.log" "" "$2"
}

# The one run directory a railgauge step wrote under runs/STEP (empty when none).
run_dir_of() {
  local d
  for d in "$out/runs/$1"/*/; do
    [[ -f "$d/records.jsonl" ]] && { echo "${d%/}"; return; }
  done
}

write_manifest() {
  local exit_status=$1
  "${py[@]}" - "$out" "$exit_status" "$start_utc" "$quick" "$budget_s" "$build_dir" "$rules" \
    "$have_gpu" "$repo" "${LD_LIBRARY_PATH:-}" "$0" "${script_args[@]}" <<'EOF'
import datetime, glob, json, os, socket, subprocess, sys
(out, exit_status, start_utc, quick, budget_s, build_dir, rules, have_gpu, repo,
 railgauge_ld) = sys.argv[1:11]
command = sys.argv[11:]

def text(path):
    try:
        with open(os.path.join(out, path)) as f:
            return f.read().strip()
    except OSError:
        return None

def git(*args):
    try:
        p = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, timeout=30)
        return p.stdout.strip() if p.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None

def commit_file():
    path = os.environ.get("SOURCE_COMMIT_FILE")
    try:
        with open(path) as f:
            return f.read().split()[0]
    except (OSError, TypeError, IndexError):
        return None

def run_json_commit(step_dirs):
    """The commit the binary was built from, as the first run.json of the steps' runs states it
    (railgauge.source_commit): what ran, whatever tree the node holds."""
    for path in sorted(p for d in step_dirs for p in glob.glob(os.path.join(d, "*", "run.json"))):
        try:
            with open(path) as f:
                commit = json.load(f).get("railgauge", {}).get("source_commit")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(commit, str) and commit:
            return commit
    return None

steps = []
with open(os.path.join(out, "logs/steps.tsv")) as f:
    for line in f:
        nn, name, status, rc, secs, limit, log, run_dir, note, cmd = \
            line.rstrip("\n").split("\t")
        steps.append({"step": int(nn), "name": name, "status": status, "note": note or None,
                      "exit": None if rc == "-" else int(rc), "seconds": int(secs),
                      "limit_s": int(limit), "log": log,
                      "run_dir": os.path.relpath(run_dir, out) if run_dir else None,
                      "command": cmd.strip() or None})
dirty = git("status", "--porcelain")
manifest = {
    "schema": "railgauge.reference_run/1",
    "command": " ".join(command),
    "host": socket.gethostname().split(".")[0],
    "start_utc": start_utc,
    "end_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "quick": quick == "1", "budget_s": int(budget_s), "gpu_seen": have_gpu == "1",
    "exit_status": int(exit_status),
    "build_dir": build_dir, "rules": os.path.relpath(rules, repo),
    "railgauge_version": text("logs/railgauge-version.txt"),
    # The kit names the commit its build came from; a node's copy of the tree may have no .git,
    # or a stale one (on 2026-11-27 an H100's copy said 55ead39 for a kit built at 1cbf068).
    "source_commit": (commit_file()
                      or run_json_commit(os.path.join(out, s["run_dir"]) for s in steps
                                         if s["run_dir"])
                      or git("rev-parse", "HEAD")),
    "source_modified_files": None if dirty is None else len(dirty.splitlines()),
    "gpus": text("gpu/nvidia-smi-L.txt"),
    "torch": text("logs/torch.txt"),
    "railgauge_ld_library_path": railgauge_ld,
    "files": {"log": "reference_run.log", "summary": "summary.txt", "nvidia_smi": "gpu/",
              "runs": "runs/", "peers": "peers/", "compare": "compare/", "check": "check/",
              "calibrate": "calibrate/",
              "inventory": "inventory.json"},
    "steps": steps,
}
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
    f.write("\n")
EOF
}

finish() {
  local status=0
  if ((failed)); then
    status=1
  elif ((!have_gpu)); then
    status=3
  fi
  write_manifest "$status" || log "could not write manifest.json"
  log "exit status $status (0 reference run complete, 1 a step failed or ran out of time, 3 no GPU)"
  log "output: $out"
  exec >&- 2>&- # let tee write the last lines of the log before the script returns
  wait "$tee_pid" 2>/dev/null
  # The output names its files relative to itself and the source tree, never by this machine's
  # absolute paths, so it reads the same once committed elsewhere (issue 44); PYTHON given by
  # its path is named by its file name.
  local strip=(--strip "$out" --strip "$repo")
  [[ "$python" == /* ]] && strip+=(--strip "$(dirname "$python")")
  "${py[@]}" "$repo/scripts/relative_paths.py" "$out" "${strip[@]}" >/dev/null 2>&1
  exit "$status"
}
# shellcheck disable=SC2317 # called by the trap below
on_signal() {
  log "interrupted: writing the manifest and the summary of the steps so far"
  failed=1
  write_summary
  finish
}
trap on_signal INT TERM

mode=""
((quick)) && mode=", --quick"
log "railgauge reference run: $railgauge -> $out (budget $budget_s s$mode)"

# ------------------------------------------------------------------ environment
# PyTorch's CUDA libraries (cuBLASLt, NCCL) for railgauge: the node has no CUDA runtime of its
# own beyond the driver and what the torch install brings.
torch_libs=$(PYTHON="$python" "${py_env[@]}" "$repo/scripts/torch_lib_path.sh")
if [[ -n "$torch_libs" ]]; then
  IFS=: read -ra lib_dirs <<<"$torch_libs"
  torch_dir=${lib_dirs[0]%/lib}
  [[ -n "$lib_dir" ]] && lib_dirs+=("$lib_dir")
  joined=$(IFS=:; echo "${lib_dirs[*]}")
  export LD_LIBRARY_PATH="$joined${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  timeout 60 "${py[@]}" -c 'import torch; print("torch", torch.__version__, "cuda",
                                        torch.version.cuda, "gpus", torch.cuda.device_count())' \
    >"$out/logs/torch.txt" 2>&1
  log "PyTorch at $torch_dir: $(tail -n 1 "$out/logs/torch.txt")"
  for lib in libcublasLt.so.13 libnccl.so.2; do
    found=$(for d in "${lib_dirs[@]}"; do [[ -e "$d/$lib" ]] && echo "$d/$lib"; done | head -n 1)
    log "  $lib: ${found:-not in the torch install}"
  done
else
  echo "no PyTorch for $python" >"$out/logs/torch.txt"
  log "no PyTorch for $python: the CUDA libraries come from LD_LIBRARY_PATH and the system;" \
    "the torch peers cannot run"
  [[ -n "$lib_dir" ]] && export LD_LIBRARY_PATH="$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
# After the library path is set: a build copied with --lib-dir does not start before it.
"$railgauge" --version >"$out/logs/railgauge-version.txt" 2>&1
log "LD_LIBRARY_PATH for railgauge and the GPU tests: $LD_LIBRARY_PATH"
if [[ -z "${RAILGAUGE_GPU_PEAKS:-}" && -f "$repo/results/peaks/gpu_peaks.yaml" ]]; then
  export RAILGAUGE_GPU_PEAKS="$repo/results/peaks/gpu_peaks.yaml"
fi
missing=$(ldd "$railgauge" 2>&1 | grep 'not found' || true)
if [[ -n "$missing" ]]; then
  log "railgauge cannot find these shared libraries (its GPU or MPI steps will fail):"
  echo "$missing"
fi

# ------------------------------------------------------------------ the GPU, read only
smi=$(command -v nvidia-smi || true)
[[ -z "$smi" && -x /usr/local/nvidia/bin/nvidia-smi ]] && smi=/usr/local/nvidia/bin/nvidia-smi
if [[ -n "$smi" ]]; then
  timeout 60 "$smi" -L >"$out/gpu/nvidia-smi-L.txt" 2>&1
  fields=index,name,uuid,pci.bus_id,driver_version,vbios_version,pstate,temperature.gpu
  fields+=,power.draw,power.limit,power.default_limit,power.max_limit
  fields+=,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem
  fields+=,clocks.applications.graphics,clocks.applications.memory
  fields+=,ecc.mode.current,mig.mode.current,persistence_mode,memory.total
  fields+=,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current
  timeout 60 "$smi" --query-gpu="$fields" --format=csv >"$out/gpu/nvidia-smi-query.csv" 2>&1
  timeout 60 "$smi" -q -d CLOCK,POWER,ECC,PERFORMANCE,TEMPERATURE >"$out/gpu/nvidia-smi-q.txt" 2>&1
  grep -q '^GPU [0-9]' "$out/gpu/nvidia-smi-L.txt" && have_gpu=1
  log "nvidia-smi ($smi):"
  cat "$out/gpu/nvidia-smi-L.txt" "$out/gpu/nvidia-smi-query.csv"
  grep -E 'Driver Version|CUDA Version' "$out/gpu/nvidia-smi-q.txt" | head -n 2
else
  echo "no nvidia-smi on PATH or in /usr/local/nvidia/bin" >"$out/gpu/nvidia-smi-L.txt"
fi
if ((!have_gpu)) && grep -q 'gpus [1-9]' "$out/logs/torch.txt" 2>/dev/null; then
  have_gpu=1 # torch sees one even though nvidia-smi is missing
fi
if ((!have_gpu)); then
  log "no GPU: nvidia-smi lists none and torch sees none. The railgauge steps still run" \
    "(their GPU points are waived records); the GPU tests and the torch peers are skipped."
fi
# An H200 node is judged by the H200 profile (NHC's H200 floors) unless --rules says otherwise.
if ((!rules_given)) && grep -q '^GPU 0: NVIDIA H200' "$out/gpu/nvidia-smi-L.txt" 2>/dev/null; then
  rules="$repo/results/rules/h200-sxm-ib.yaml"
  log "GPU 0 is an H200: check judges by $rules"
fi
write_summary # the page exists from here on, before any step runs

# ------------------------------------------------------------------ sweeps and step shares
if ((quick)); then
  measure=(--time-budget 0.2 --point-timeout 60)
  hbm_sizes=(-a 'size_bytes=4KiB:4GiB:*4')
  offload_sizes=(-a 'size_bytes=4KiB:256MiB:*4' -a placement=near)
  ctest_per_test_s=120
  gemm_peer_args=(--samples 10)
  copy_peer_args=(--max-samples 30)
  block_iterations=5
else
  measure=(--point-timeout 300)
  hbm_sizes=()
  offload_sizes=()
  ctest_per_test_s=600
  gemm_peer_args=()
  copy_peer_args=()
  block_iterations=20
fi
if ((interleave)); then
  # railgauge's one-point runs take this run's measurement settings and library path.
  peer_interleave=(--interleave "$interleave" --railgauge "$railgauge"
    --railgauge-lib "${LD_LIBRARY_PATH:-}")
  for a in "${measure[@]}"; do peer_interleave+=("--railgauge-arg=$a"); done
  gemm_peer_args+=("${peer_interleave[@]}" --first-round-is-source)
  copy_peer_args+=("${peer_interleave[@]}")
fi
# Seconds for a step: a percentage of the budget, at least 10.
share() { echo $((budget_s * $1 / 100 > 10 ? budget_s * $1 / 100 : 10)); }
# peer_share PCT SOURCE_PCT SOURCE_ROUNDS: a torch peer step's seconds: its share, N times
# when interleaved, plus SOURCE_ROUNDS sweeps of its source steps' share.
peer_share() {
  if ((interleave)); then
    echo $(($(share "$1") * interleave + $(share "$2") * $3))
  else
    share "$1"
  fi
}
# The GPUs nvidia-smi lists (1 when it lists none, as torch may still see one): the steps that
# run once per GPU get a cap that grows with them.
gpu_count=$(grep -c '^GPU [0-9]' "$out/gpu/nvidia-smi-L.txt" 2>/dev/null)
[[ $gpu_count =~ ^[1-9][0-9]*$ ]] || gpu_count=1
# Seconds for a step that runs per GPU: BASE + PER_GPU x GPUs.
per_gpu_cap() { echo $(($1 + $2 * gpu_count)); }

# ------------------------------------------------------------------ GPU tests
if ! selected gpu-tests; then
  skip gpu-tests "not in --only $only"
elif ((!have_gpu)); then
  skip gpu-tests "no GPU: the gpu-labelled tests fail by design without one"
elif [[ -f "$build_dir/CTestTestfile.cmake" ]] &&
  grep -qx "CMAKE_CACHEFILE_DIR:INTERNAL=$build_dir" "$build_dir/CMakeCache.txt" 2>/dev/null; then
  step gpu-tests "$(share 12)" plain ctest --test-dir "$build_dir" -L gpu --no-tests=error \
    --output-on-failure --timeout "$ctest_per_test_s" --output-junit "$out/logs/gpu-tests.xml"
else
  # A build copied from elsewhere: its ctest files name the directory it was built in, so the
  # GPU test executables (the targets labelled gpu in tests/) run directly.
  mapfile -t gpu_tests < <(find "$build_dir" -type f -perm -u+x \
    \( -name '*_gpu_tests' -o -name cuda_tests \) 2>/dev/null | sort)
  if ((${#gpu_tests[@]} == 0)); then
    skip gpu-tests "no ctest files for $build_dir and no GPU test executables in it"
  else
    # Each executable gets at least 30 s: on the H200 the NCCL tests took 7 s, and a small
    # --budget-s (an --only gpu-tests call of 200 s left each 4 s) must not skip them all.
    per_test_s=$(($(share 12) / ${#gpu_tests[@]}))
    ((per_test_s < 30)) && per_test_s=30
    for t in "${gpu_tests[@]}"; do
      step "gpu-tests-$(basename "$t")" "$per_test_s" plain \
        "$t" --gtest_output="xml:$out/logs/$(basename "$t").xml"
    done
  fi
fi

# ------------------------------------------------------------------ railgauge beside its peers
# The most informative first, each family next to its peer, so that a run cut short has the
# headline: (1) the GPU tests above, (2) the GEMM TP sweep against torch.matmul, (3) HBM (and the
# host copies) against torch copies, (4) H2D/D2H against nvbandwidth, (5) NCCL against
# nccl-tests; then the square GEMM sweep and the collectives suite.
STEP_STDOUT="$out/inventory.json" step inventory "$(share 2)" plain \
  "$railgauge" inventory --format json

# torch_peer_skip NAME: why the torch peer NAME does not run here, or nothing when it does.
torch_peer_skip() {
  if ! selected torch; then
    echo "not in --only $only"
  elif ((!have_gpu)); then
    echo "no GPU: nothing measured to compare with torch"
  fi
}
# gemm_vs_torch STEP PCT: torch.matmul on the shapes of the railgauge run of STEP.
gemm_vs_torch() { # STEP PCT SOURCE_PCT
  local s=$1 pct=$2 source_pct=$3 rd
  rd=$(run_dir_of "$s")
  if [[ -z "$rd" ]]; then
    skip "gemm-vs-torch-${s#gemm-}" "no run directory from step $s"
    return
  fi
  STEP_RUN_DIR="$out/peers/$s" step "gemm-vs-torch-${s#gemm-}" \
    "$(peer_share "$pct" "$source_pct" $((interleave ? interleave - 1 : 0)))" plain \
    "${py[@]}" "$repo/scripts/gemm_vs_torch.py" "$rd" \
    --out "$out/peers/$s" "${gemm_peer_args[@]}"
}

STEP_RUN_DIR="$out/runs/gemm-model" step gemm-model "$(share 25)" plain \
  "$railgauge" gemm --model gpt3-175b --tp 1,2,4,8,16,32 -a seq=2048 -a micro_batch=1 \
  --out "$out/runs/gemm-model" "${measure[@]}"
why_no_torch=$(torch_peer_skip)
if [[ -n "$why_no_torch" ]]; then
  if selected torch; then
    skip gemm-vs-torch "$why_no_torch"
  else
    skip torch-peers "$why_no_torch"
  fi
else
  gemm_vs_torch gemm-model 7 25
fi

STEP_RUN_DIR="$out/runs/memory-hbm" step memory-hbm "$(share 8)" plain \
  "$railgauge" memory --filter 'memory.hbm_*' --out "$out/runs/memory-hbm" "${hbm_sizes[@]}" \
  "${measure[@]}"
# The copy kernel's launch variants against cudaMemcpyAsync (memory/cuda/hbm_copy_variants.cu):
# what memory.hbm_copy's launch was chosen by, timed again on this GPU.
copy_probe="$build_dir/bin/hbm_copy_variants"
if ! selected memory; then
  skip hbm-copy-variants "not in --only $only"
elif [[ ! -x "$copy_probe" ]]; then
  skip hbm-copy-variants "no $copy_probe in the build (a build without CUDA)"
elif ((!have_gpu)); then
  skip hbm-copy-variants "no GPU: the probe has nothing to time"
else
  STEP_STDOUT="$out/logs/hbm-copy-variants.txt" step hbm-copy-variants 30 plain "$copy_probe"
fi
STEP_RUN_DIR="$out/runs/offload" step offload "$(share 12)" plain \
  "$railgauge" offload --out "$out/runs/offload" "${offload_sizes[@]}" "${measure[@]}"
if [[ -n "$why_no_torch" ]]; then
  selected torch && skip copy-vs-torch "$why_no_torch"
else
  copy_runs=()
  for s in memory-hbm offload; do
    rd=$(run_dir_of "$s")
    [[ -n "$rd" ]] && copy_runs+=("$rd")
  done
  if ((${#copy_runs[@]} == 0)); then
    skip copy-vs-torch "no run directory from the memory-hbm and offload steps"
  else
    STEP_RUN_DIR="$out/peers/copy" step copy-vs-torch "$(peer_share 8 20 "$interleave")" plain \
      "${py[@]}" "$repo/scripts/copy_vs_torch.py" "${copy_runs[@]}" \
      --out "$out/peers/copy" "${copy_peer_args[@]}"
  fi
fi

# ------------------------------------------------------------------ nvbandwidth beside railgauge
# nvbandwidth's host<->GPU testcases (copy engine and SM) and its local copy at its default
# buffer (512 MiB, 16 copies per sample; 3 samples with --quick, as its default, else 10) and
# railgauge's same copies at that size, pinned, near (nvbandwidth pins its host buffers and
# thread on the GPU's NUMA node); scripts/nvbandwidth_vs_ours.py pairs them by GPU. Each step
# runs once per GPU, so its cap grows with them; nvbandwidth prints its JSON only when it ends,
# so a killed run leaves nothing to import.
nvb_testcases=(host_to_device_memcpy_ce device_to_host_memcpy_ce
  host_to_device_bidirectional_memcpy_ce device_to_host_bidirectional_memcpy_ce
  host_to_all_memcpy_ce all_to_host_memcpy_ce host_to_device_memcpy_sm device_to_host_memcpy_sm
  device_local_copy)
nvb_mib=512
if ((quick)); then
  nvb_samples=3
  nvb_caps=("$(per_gpu_cap 30 20)" "$(per_gpu_cap 20 15)" "$(per_gpu_cap 10 5)")
else
  nvb_samples=10
  nvb_caps=("$(per_gpu_cap 60 60)" "$(per_gpu_cap 30 30)" "$(per_gpu_cap 20 10)")
fi
if ! selected nvbandwidth; then
  skip nvbandwidth "not in --only $only"
elif [[ -z "$nvbandwidth" ]]; then
  skip nvbandwidth \
    "no --nvbandwidth FILE: nvbandwidth is built beside railgauge first (docs/reference-runs.md)"
elif ((!have_gpu)); then
  skip nvbandwidth "no GPU: nvbandwidth has nothing to run on"
else
  mkdir -p "$out/peers/nvbandwidth-output" "$out/peers/nvbandwidth-import"
  nvb_json="$out/peers/nvbandwidth-output/nvbandwidth.json"
  STEP_STDOUT="$nvb_json" step nvbandwidth "${nvb_caps[0]}" plain "$nvbandwidth" -j \
    -b "$nvb_mib" -i "$nvb_samples" -t "${nvb_testcases[@]}"
  if [[ -s "$nvb_json" ]]; then
    step import-nvbandwidth 30 plain "$railgauge" import nvbandwidth "$nvb_json" \
      --out "$out/peers/nvbandwidth-import"
  else
    skip import-nvbandwidth "nvbandwidth wrote nothing (see its step's log)"
  fi
  STEP_RUN_DIR="$out/runs/offload-nvbandwidth-size" step offload-nvbandwidth-size \
    "${nvb_caps[1]}" plain "$railgauge" offload --filter 'offload.[!w]*' \
    --out "$out/runs/offload-nvbandwidth-size" \
    -a "size_bytes=${nvb_mib}MiB" -a placement=near -a host_memory=pinned "${measure[@]}"
  STEP_RUN_DIR="$out/runs/memory-nvbandwidth-size" step memory-nvbandwidth-size "${nvb_caps[2]}" \
    plain "$railgauge" memory --filter memory.hbm_memcpy_d2d \
    --out "$out/runs/memory-nvbandwidth-size" -a "size_bytes=${nvb_mib}MiB" "${measure[@]}"
  STEP_RUN_DIR="$out/peers/nvbandwidth" step nvbandwidth-vs-ours 60 plain \
    "${py[@]}" "$repo/scripts/nvbandwidth_vs_ours.py" \
    --nvbandwidth "$out/peers/nvbandwidth-import" \
    --size-bytes $((nvb_mib << 20)) --out "$out/peers/nvbandwidth" \
    "$out/runs/offload-nvbandwidth-size" "$out/runs/memory-nvbandwidth-size"
fi

# ------------------------------------------------------------------ nccl-tests beside railgauge
# Each kind twice on the same GPUs, same sizes, warm-up and iterations: nccl-tests with per-
# iteration CUDA-event times (-I 1) into JSON (-J), imported as records, and railgauge's NCCL
# collective; `railgauge compare` matches them by kind, size, dtype, op and placement. On one GPU
# both use a single-rank communicator (nccl-tests -g 1 with one process).
nccl_kinds=(all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv)
if ((quick)); then
  nccl_size_args=(-b 8 -e 64M -f 8)
  nccl_size_axis='size_bytes=8:64MiB:*8'
else
  nccl_size_args=(-b 8 -e 1G -f 4)
  nccl_size_axis='size_bytes=8:1GiB:*4'
fi
if ! selected nccl-tests; then
  skip nccl-tests "not in --only $only"
elif [[ -z "$nccl_tests" ]]; then
  skip nccl-tests "no --nccl-tests DIR: nccl-tests is built on the node first (docs/reference-runs.md)"
elif ((!have_gpu)); then
  skip nccl-tests "no GPU: nccl-tests has nothing to run on"
else
  mkdir -p "$out/peers/nccl-tests-output" "$out/peers/nccl-tests" "$out/runs/collectives-nccl"
  for kind in "${nccl_kinds[@]}"; do
    [[ -x "$nccl_tests/${kind}_perf" ]] || { skip "nccl-tests-$kind" "no ${kind}_perf"; continue; }
    json="$out/peers/nccl-tests-output/$kind.json"
    STEP_STDOUT="$out/peers/nccl-tests-output/$kind.txt" step "nccl-tests-$kind" "$(share 1)" \
      plain "$nccl_tests/${kind}_perf" "${nccl_size_args[@]}" -g "$gpu_count" -w 5 -n 20 -c 1 \
      -I 1 -J "$json"
    if [[ -s "$json" ]]; then
      step "import-nccl-tests-$kind" 30 plain \
        "$railgauge" import nccl-tests "$json" --out "$out/peers/nccl-tests"
    else
      skip "import-nccl-tests-$kind" "${kind}_perf wrote no JSON (see its step's log)"
    fi
    axes=(-a "$nccl_size_axis" -a dtype=float32 -a warmup=5 -a iterations=20)
    case $kind in all_reduce | reduce_scatter | reduce) axes+=(-a op=sum) ;; esac
    STEP_RUN_DIR="$out/runs/collectives-nccl" step "collectives-nccl-$kind" "$(share 1)" plain \
      "$railgauge" collectives --filter "collectives.nccl_$kind" --out \
      "$out/runs/collectives-nccl" "${axes[@]}" "${measure[@]}"
  done
  mkdir -p "$out/compare"
  step compare-nccl-tests 60 plain "$railgauge" compare "$out/runs/collectives-nccl" \
    "$out/peers/nccl-tests" --label railgauge --label nccl-tests --metric metrics.time_s.median \
    --ignore-param cuda_graph buffers alltoall_call group_type groups iterations warmup \
    link_gbytes_per_s timeout_s count source source_format --markdown "$out/compare/nccl-tests.md" \
    --json "$out/compare/nccl-tests.json"
  if ((interleave)); then
    # Like for like (scripts/nccl_pairs.py): back to back against nccl-tests, out of place,
    # the two alternating per kind, every size in one launch of each. Its cap is a base plus a
    # time per round (7 kinds, two process starts each: 20 s a round on one H100), not a share.
    nccl_pair_sizes=8,4KiB,64KiB,1MiB,16MiB,32MiB,64MiB
    ((quick)) || nccl_pair_sizes+=,256MiB,1GiB
    mkdir -p "$out/compare/nccl-pairs"
    step nccl-pairs $((30 + 25 * interleave)) plain "${py[@]}" "$repo/scripts/nccl_pairs.py" \
      --nccl-tests "$nccl_tests" --railgauge "$railgauge" --railgauge-lib "$LD_LIBRARY_PATH" \
      --out "$out/compare/nccl-pairs" --rounds "$interleave" --gpus "$gpu_count" \
      --sizes "$nccl_pair_sizes"
  fi
fi

# ------------------------------------------------------------------ the rest of the sweeps
STEP_RUN_DIR="$out/runs/gemm-size" step gemm-size "$(share 5)" plain \
  "$railgauge" gemm --filter gemm.cublaslt_size --out "$out/runs/gemm-size" "${measure[@]}"
[[ -z "$why_no_torch" ]] && gemm_vs_torch gemm-size 4 5
# Every dtype and layout at 8192³: the peak each reaches (the rules' sgemm-floor reads fp32), and
# a cuBLASLt that refuses a combination shows as its waiver.
STEP_RUN_DIR="$out/runs/gemm-dtypes" step gemm-dtypes "$(share 3)" plain \
  "$railgauge" gemm --filter gemm.cublaslt_size --out "$out/runs/gemm-dtypes" \
  -a m=8192 -a dtype=bf16,fp16,fp8_e4m3,tf32,fp32 -a layout=nt,nn,tn "${measure[@]}"
[[ -z "$why_no_torch" ]] && gemm_vs_torch gemm-dtypes 2 3
# One transformer block on the GPUs (block.transformer_tp_gpu; t = the GPUs here, one process
# driving them), the gemm-model step's model at its sequence length: calibrate predicts its time
# from gemm-model's records and the NCCL runs of this output (docs/calibrate.md).
STEP_RUN_DIR="$out/runs/block" step block "$(share 3)" plain \
  "$railgauge" block --filter block.transformer_tp_gpu --out "$out/runs/block" \
  -a model=gpt3-175b -a sequence_parallel=0,1 -a iterations="$block_iterations"
STEP_RUN_DIR="$out/runs/collectives" step collectives "$(share 2)" plain \
  "$railgauge" collectives --out "$out/runs/collectives" "${measure[@]}"

# ------------------------------------------------------------------ analysis (the reserve)
run_dirs=() # every railgauge run of this output (the nccl-tests steps write one per kind)
for s in gemm-model gemm-size gemm-dtypes block memory-hbm offload collectives collectives-nccl \
  offload-nvbandwidth-size memory-nvbandwidth-size; do
  for d in "$out/runs/$s"/*/; do
    [[ -f "$d/records.jsonl" ]] && run_dirs+=("${d%/}")
  done
done
schema_python=""
for p in "$python" /usr/bin/python3; do
  if command -v "$p" >/dev/null && "${py_env[@]}" "$p" -c 'import jsonschema' 2>/dev/null; then
    schema_python="$p"
    break
  fi
done
if ((${#run_dirs[@]} == 0)); then
  skip validate "no railgauge run directory to validate"
  skip check "no railgauge run directory to judge"
  skip calibrate "no railgauge run directory to fit"
  [[ -z "$only" ]] && failed=1 # with --only, a selection without railgauge runs is not a failure
else
  if [[ -n "$schema_python" ]]; then
    step validate 60 tail "${py_env[@]}" "$schema_python" "$repo/scripts/validate_run.py" \
      "${run_dirs[@]}"
  else
    skip validate "no Python with the jsonschema module here (Debian: python3-jsonschema)"
  fi
  mkdir -p "$out/check"
  # nvbandwidth's imported cells are this node's measurements too: the rules' nvbandwidth floors
  # judge them.
  check_dirs=("${run_dirs[@]}")
  for d in "$out/peers/nvbandwidth-import"/*/; do
    [[ -f "$d/records.jsonl" ]] && check_dirs+=("${d%/}")
  done
  step check 60 verdict "$railgauge" check --rules "$rules" --format table \
    --json "$out/check/verdict.json" --markdown "$out/check/verdict.md" "${check_dirs[@]}"
  if ((have_gpu)); then
    step calibrate 120 tail "$railgauge" calibrate --borrow a100_80g --out "$out/calibrate" \
      "${run_dirs[@]}"
  else
    skip calibrate "no GPU: the runs hold no ok GPU record to fit"
  fi
fi
if [[ -n "$smi" ]]; then
  timeout 60 "$smi" -q -d CLOCK,POWER,PERFORMANCE,TEMPERATURE \
    >"$out/gpu/nvidia-smi-q-after.txt" 2>&1
fi

# ------------------------------------------------------------------ summary
summary_final=1
write_summary
cat "$out/summary.txt"
finish
