#!/usr/bin/env bash
# Builds railgauge with AddressSanitizer and UndefinedBehaviorSanitizer into ./build-sanitize
# (CUDA off: device code is not what the sanitizers check) and runs every test that needs no
# GPU under them. Any sanitizer report fails the test that caused it.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-sanitize}
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DRAILGAUGE_ENABLE_CUDA=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build "$build_dir" -j "$(nproc)"
# Full unwinding, so that the hwloc suppression sees hwloc_topology_load below its plugins.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
ctest --test-dir "$build_dir" -LE gpu --output-on-failure -j "$(nproc)"
