#!/usr/bin/env bash
# Configures the one sanitized build that scripts/sanitize.sh and scripts/fuzz.sh share (so that
# CI compiles it once): clang with AddressSanitizer, UndefinedBehaviorSanitizer (float-cast-
# overflow included: a JSON 1e300 read as an int) and libFuzzer's coverage instrumentation
# (RAILGAUGE_FUZZ=ON, cmake/RailgaugeFuzz.cmake), CUDA off (device code is not what the
# sanitizers check). -O1 with line tables: sanitizer reports name file and line, tests run at
# a useful speed, and assertions stay on.
#
# A unity build (up to 16 units of a target compiled as one): CI compiles this build cold, and
# under the sanitizers most of a unit's time goes to the templates every unit instantiates again.
# Two of its libraries compiled cold on the 2-core VM took 47 s and 36 s as unity batches, 113 s
# and 86 s unit by unit (precompiled headers in both). Names private to a .cpp file must then be
# unique within its target, and a file may not depend on another's `using`.
#
#   scripts/configure_sanitized.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:?usage: configure_sanitized.sh BUILD_DIR}
flags="-O1 -gline-tables-only"
cmake -S . -B "$build_dir" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="$flags" -DCMAKE_CXX_FLAGS_DEBUG="$flags" \
  -DRAILGAUGE_FUZZ=ON -DRAILGAUGE_ENABLE_CUDA=OFF -DRAILGAUGE_PCH=ON -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
