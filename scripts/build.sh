#!/usr/bin/env bash
# Configures and builds railgauge into ./build (or $BUILD_DIR). Extra arguments go to CMake,
# e.g. scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES="90;100". C++ is compiled in unity batches
# (cmake/RailgaugeUnity.cmake); while editing, -DCMAKE_UNITY_BUILD=OFF rebuilds file by file.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$build_dir" -j "$(nproc)"
