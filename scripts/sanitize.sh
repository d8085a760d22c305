#!/usr/bin/env bash
# Builds railgauge with AddressSanitizer and UndefinedBehaviorSanitizer into ./build-sanitize
# (CUDA off: device code is not what the sanitizers check) and runs every test that needs no
# GPU under them. Any sanitizer report fails the test that caused it. GCC's -fsanitize=undefined
# leaves out float-cast-overflow (a JSON 1e300 read as an int), so it is asked for by name.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-sanitize}
flags="-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DRAILGAUGE_ENABLE_CUDA=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build "$build_dir" -j "$(nproc)"
# Full unwinding, so that the hwloc suppression sees hwloc_topology_load below its plugins.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
ctest --test-dir "$build_dir" -LE gpu --output-on-failure -j "$(nproc)"
