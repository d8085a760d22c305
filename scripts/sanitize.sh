#!/usr/bin/env bash
# Builds railgauge with AddressSanitizer and UndefinedBehaviorSanitizer into ./build-sanitize,
# or BUILD_DIR (scripts/configure_sanitized.sh: clang, the same build scripts/fuzz.sh fuzzes), and
# runs under them the C++ tests that need no GPU and a few end-to-end tests chosen to drive each
# command of the sanitized railgauge. Any sanitizer report fails the test that caused it.
#
# What runs, and what not:
#   - every GoogleTest test and every fuzz target's replay of its seeds and regressions (the tests
#     without the python label), and the MPI collectives test under mpirun (label mpi), less the
#     label simulation (the fabric localiser's 100-trial rates: 30 s each unsanitized, their code
#     run under the sanitizers by the fabric tests beside them) and the label postgresql (the
#     fleet history against a PostgreSQL server: libpq's and libssl's own allocations, untried
#     here, are not this code's; the same history code runs sanitized against SQLite);
#   - of the python tests, only those labelled sanitize-e2e (railgauge_python_tests' SANITIZE in
#     tests/**/CMakeLists.txt), a few quick ones that drive each command of railgauge once: the
#     others drive the same code again, most of their time under the sanitizers goes to the
#     benchmarks' own sampling and to starting sanitized processes, and they all run unsanitized
#     in the default tier;
#   - never the `package` tests: they pack and install what a cluster gets, a build without
#     sanitizers, and run it with a bare environment (env -i), where the sanitizers' options are
#     lost.
# Only what these tests run is built: the target host_test_programs (tests/CMakeLists.txt), which
# holds the fuzz targets too, so that scripts/fuzz.sh after this builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-sanitize}
./scripts/configure_sanitized.sh "$build_dir"
cmake --build "$build_dir" -j "$(nproc)" --target host_test_programs
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
# hwloc's PCI plugin leaks through libpciaccess and is unloaded before LeakSanitizer looks; loaded
# from the start, libpciaccess stays and its leaks are named, and suppressed (tests/lsan.supp).
# Without this, malloc would need the slow unwinder everywhere (ten times slower tests).
# awk reads ldconfig's whole list: leaving early would kill ldconfig with SIGPIPE, and pipefail
# would end this script with 141.
pciaccess=$(ldconfig -p | awk '/libpciaccess\.so\.0 / && !path {path = $NF} END {print path}')
export LD_PRELOAD=${pciaccess}${LD_PRELOAD:+:$LD_PRELOAD}
ctest --test-dir "$build_dir" -LE 'gpu|package|mpi|python|simulation|postgresql' \
  --output-on-failure -j "$(nproc)"
ctest --test-dir "$build_dir" -L sanitize-e2e -LE 'gpu|package|mpi' --output-on-failure \
  -j "$(nproc)"
# OpenMPI keeps what its dlopen'ed components allocate, and unloads them before LeakSanitizer
# looks: only the slow unwinder reaches MPI_Init_thread below them (tests/lsan.supp).
ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0 \
  ctest --test-dir "$build_dir" -L mpi -LE 'gpu|package|python' --output-on-failure -j "$(nproc)"
