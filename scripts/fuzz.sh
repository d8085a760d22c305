#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang into ./build-sanitize, or BUILD_DIR
# (scripts/configure_sanitized.sh: ASan + UBSan + coverage instrumentation, the build that
# scripts/sanitize.sh tests), and runs each one for FUZZ_SECONDS (default 60) starting from its
# committed seed corpus tests/fuzz/corpus/<name>/ and the inputs that once crashed it,
# tests/fuzz/regressions/<name>/.
# New inputs go to a scratch corpus under the build directory, never into the source tree. Fails
# when any target crashes, leaks, trips a sanitizer or times out on one input; the input is kept
# as <build dir>/artifacts/<name>-crash-* (turn it into a regression: copy it to
# tests/fuzz/regressions/<name>/ and fix the parser). Prints the executions per target.
#
#   scripts/fuzz.sh                      # every target, 60 s each
#   FUZZ_SECONDS=10 scripts/fuzz.sh suite_yaml axis_values
#   BUILD_DIR=build-fuzz FUZZ_BUILD_JOBS=2 scripts/fuzz.sh   # another build directory
#   FUZZ_JOBS=1 scripts/fuzz.sh          # one target at a time (default: one per core)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-sanitize}
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_BUILD_JOBS:-$(nproc)}
./scripts/configure_sanitized.sh "$build_dir"
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets <"$build_dir/fuzz_targets.txt"; fi
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
artifacts="$build_dir/artifacts"
mkdir -p "$artifacts"
# One target per core at once (FUZZ_JOBS): each is one process fuzzing for a fixed time, so the
# tier takes the targets' time divided by the cores instead of their sum.
fuzz_jobs=${FUZZ_JOBS:-$(nproc)}
fuzz_one() {
  local name=$1 scratch="$build_dir/fuzz_corpus/$1" log="$build_dir/fuzz_$1.log" status=0
  mkdir -p "$scratch"
  "$build_dir/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$name-" "$scratch" "tests/fuzz/corpus/$name" \
    $(ls -d "tests/fuzz/regressions/$name" 2>/dev/null) \
    >"$log" 2>&1 || status=$?
  echo "$status" >"$build_dir/fuzz_$name.status"
}
running=0
for name in "${targets[@]}"; do
  echo "== fuzz_$name: ${seconds}s"
  rm -f "$build_dir/fuzz_$name.status"
  fuzz_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$fuzz_jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
summary=()
failed=0
for name in "${targets[@]}"; do
  log="$build_dir/fuzz_$name.log"
  status=$(cat "$build_dir/fuzz_$name.status" 2>/dev/null || echo "?")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$status" != 0 ]; then
    failed=1
    tail -60 "$log"
    summary+=("$(printf '%-20s FAILED (exit %s) after %s executions; see %s' "$name" "$status" "${runs:-?}" "$log")")
  else
    summary+=("$(printf '%-20s ok  %12s executions in %ss' "$name" "${runs:-?}" "$seconds")")
  fi
done
echo "== fuzzing summary (executions per target, clang libFuzzer, ASan+UBSan)"
printf '%s\n' "${summary[@]}"
exit $failed
