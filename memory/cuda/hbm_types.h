#pragma once
// What the HBM benchmarks (hbm_stream.h) and their kernels (hbm_kernels.h) share. Plain C++, so
// that nvcc compiles the kernels without the harness's headers.
#include <cstddef>

#include "memory/stream_kernel.h"

namespace railgauge::memory {

using HbmKernel = StreamKernel;

// The device arrays of one point, `elements` doubles each; unused ones are null.
//   read: a          write: a          copy, memcpy_d2d: a -> c          triad: a = b + s * c
struct HbmArrays {
  double *a = nullptr;
  double *b = nullptr;
  double *c = nullptr;
  std::size_t elements = 0;
};

} // namespace railgauge::memory
