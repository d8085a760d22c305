#pragma once
// The grid-stride loop (each thread starts at its global index and steps by the grid's thread
// count, so any grid covers any length) and the unrolled copy built on it, shared by the memory
// and offload kernels and the copy probe. Include only from .cu sources.
#include <cstddef>

namespace railgauge::gpu {

__device__ inline std::size_t first_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::size_t grid_stride() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// Each thread loads `Unroll` elements, a grid apart (so the warp's loads stay coalesced), before
// it stores any; the tail that does not fill a whole round goes one element at a time.
template <int Unroll, typename T>
__device__ void unrolled_copy(const T *__restrict__ src, T *__restrict__ dst, std::size_t n) {
  const std::size_t stride = grid_stride();
  std::size_t i = first_index();
  for (; i + (Unroll - 1) * stride < n; i += Unroll * stride) {
    T v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      dst[i + u * stride] = v[u];
  }
  for (; i < n; i += stride)
    dst[i] = src[i];
}

} // namespace railgauge::gpu
