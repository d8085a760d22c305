#include "memory/cuda/hbm_kernels.h"

#include <algorithm>
#include <limits>

#include "harness/cuda/check.h"
#include "harness/cuda/count_wrong.cuh"
#include "harness/cuda/grid_stride.cuh"
#include "harness/cuda/resources.h"

namespace railgauge::memory {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr std::uint64_t kPeriodA = 1021; // primes, so a misplaced vector shows as a wrong value
constexpr std::uint64_t kPeriodC = 7;

// The seeded values: small integers, so every sum and triad below is exact.
__host__ __device__ double pattern_a(std::size_t i) {
  return static_cast<double>(i % kPeriodA + 1);
}
__host__ __device__ double pattern_c(std::size_t i) {
  return static_cast<double>(i % kPeriodC + 1);
}

// What the element at `i` of the array count_wrong_hbm() checks must hold.
__host__ __device__ double expected_value(HbmKernel kernel, std::size_t i) {
  switch (kernel) {
  case HbmKernel::write:
    return kHbmWriteValue;
  case HbmKernel::triad:
    return pattern_a(i) + kHbmTriadScalar * pattern_c(i);
  case HbmKernel::read:
  case HbmKernel::copy:
  case HbmKernel::library_copy:
    break;
  }
  return pattern_a(i);
}

using gpu::first_index;
using gpu::grid_stride;

__global__ void seed_kernel(double *x, std::size_t n, int which) {
  for (std::size_t i = first_index(); i < n; i += grid_stride())
    x[i] = which == 0 ? pattern_a(i) : pattern_c(i);
}

__global__ void read_kernel(const double2 *__restrict__ a, std::size_t vectors,
                            double *__restrict__ partials) {
  double sum = 0;
  for (std::size_t i = first_index(); i < vectors; i += grid_stride()) {
    const double2 v = a[i];
    sum += v.x + v.y;
  }
  // Block reduction: warps by shuffle, then the first warp over the warps' sums.
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ double warp_sums[kThreadsPerBlock / 32];
  if (threadIdx.x % 32 == 0)
    warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x == 0)
      partials[blockIdx.x] = sum;
  }
}

__global__ void write_kernel(double2 *__restrict__ a, std::size_t vectors, double value) {
  for (std::size_t i = first_index(); i < vectors; i += grid_stride())
    a[i] = make_double2(value, value);
}

__global__ void copy_kernel(const double2 *__restrict__ a, double2 *__restrict__ c,
                            std::size_t vectors) {
  for (std::size_t i = first_index(); i < vectors; i += grid_stride())
    c[i] = a[i];
}

__global__ void triad_kernel(double2 *__restrict__ a, const double2 *__restrict__ b,
                             const double2 *__restrict__ c, std::size_t vectors, double scalar) {
  for (std::size_t i = first_index(); i < vectors; i += grid_stride()) {
    const double2 vb = b[i], vc = c[i];
    a[i] = make_double2(vb.x + scalar * vc.x, vb.y + scalar * vc.y);
  }
}

// The value expected_value() gives a kernel's checked array at an index.
struct ExpectedValue {
  HbmKernel kernel;
  __device__ double operator()(std::size_t i) const { return expected_value(kernel, i); }
};

std::size_t vectors_of(const HbmArrays &arrays) { return arrays.elements / 2; }

template <typename Kernel> int resident_blocks_per_sm(Kernel kernel) {
  int blocks = 0;
  RAILGAUGE_CUDA_CALL(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreadsPerBlock, 0));
  return std::max(blocks, 1);
}

} // namespace

HbmGrid hbm_grid(HbmKernel kernel, int sm_count, std::size_t elements) {
  int per_sm = 1;
  switch (kernel) {
  case HbmKernel::read:
    per_sm = resident_blocks_per_sm(read_kernel);
    break;
  case HbmKernel::write:
    per_sm = resident_blocks_per_sm(write_kernel);
    break;
  case HbmKernel::copy:
  case HbmKernel::library_copy: // not a kernel; the grid is unused
    per_sm = resident_blocks_per_sm(copy_kernel);
    break;
  case HbmKernel::triad:
    per_sm = resident_blocks_per_sm(triad_kernel);
    break;
  }
  const std::size_t needed = (elements / 2 + kThreadsPerBlock - 1) / kThreadsPerBlock;
  // The copy gets a block per 256 vectors, each thread one vector, as BabelStream launches it:
  // on an H200 at 1 GiB that copied 4245 GB/s against 3900 for a grid that fills the SMs once
  // and strides (unrolled or not), and cudaMemcpyAsync's 4220 (docs/memory.md, "Measured").
  const std::size_t full = kernel == HbmKernel::copy
                               ? std::size_t{std::numeric_limits<int>::max()}
                               : static_cast<std::size_t>(std::max(sm_count, 1)) * per_sm;
  HbmGrid grid;
  grid.threads_per_block = kThreadsPerBlock;
  grid.blocks = static_cast<int>(std::clamp<std::size_t>(needed, 1, full));
  return grid;
}

void seed_hbm_arrays(HbmKernel kernel, const HbmArrays &arrays, cudaStream_t stream) {
  const std::size_t n = arrays.elements;
  const std::size_t bytes = n * sizeof(double);
  const int blocks = gpu::helper_blocks(n);
  switch (kernel) {
  case HbmKernel::read:
    seed_kernel<<<blocks, gpu::kHelperThreadsPerBlock, 0, stream>>>(arrays.a, n, 0);
    break;
  case HbmKernel::write:
    RAILGAUGE_CUDA_CALL(cudaMemsetAsync(arrays.a, 0, bytes, stream));
    break;
  case HbmKernel::copy:
  case HbmKernel::library_copy:
    seed_kernel<<<blocks, gpu::kHelperThreadsPerBlock, 0, stream>>>(arrays.a, n, 0);
    RAILGAUGE_CUDA_CALL(cudaMemsetAsync(arrays.c, 0, bytes, stream));
    break;
  case HbmKernel::triad:
    RAILGAUGE_CUDA_CALL(cudaMemsetAsync(arrays.a, 0, bytes, stream));
    seed_kernel<<<blocks, gpu::kHelperThreadsPerBlock, 0, stream>>>(arrays.b, n, 0);
    seed_kernel<<<blocks, gpu::kHelperThreadsPerBlock, 0, stream>>>(arrays.c, n, 1);
    break;
  }
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

void launch_hbm_kernel(HbmKernel kernel, const HbmArrays &arrays, double *partials,
                       const HbmGrid &grid, cudaStream_t stream) {
  const std::size_t vectors = vectors_of(arrays);
  const auto *a2 = reinterpret_cast<double2 *>(arrays.a);
  switch (kernel) {
  case HbmKernel::read:
    read_kernel<<<grid.blocks, grid.threads_per_block, 0, stream>>>(a2, vectors, partials);
    break;
  case HbmKernel::write:
    write_kernel<<<grid.blocks, grid.threads_per_block, 0, stream>>>(
        reinterpret_cast<double2 *>(arrays.a), vectors, kHbmWriteValue);
    break;
  case HbmKernel::copy:
    copy_kernel<<<grid.blocks, grid.threads_per_block, 0, stream>>>(
        a2, reinterpret_cast<double2 *>(arrays.c), vectors);
    break;
  case HbmKernel::triad:
    triad_kernel<<<grid.blocks, grid.threads_per_block, 0, stream>>>(
        reinterpret_cast<double2 *>(arrays.a), reinterpret_cast<const double2 *>(arrays.b),
        reinterpret_cast<const double2 *>(arrays.c), vectors, kHbmTriadScalar);
    break;
  case HbmKernel::library_copy:
    // The copy engines or the driver's copy kernel, whichever cudaMemcpyAsync picks for D2D.
    RAILGAUGE_CUDA_CALL(cudaMemcpyAsync(arrays.c, arrays.a, arrays.elements * sizeof(double),
                                        cudaMemcpyDeviceToDevice, stream));
    return;
  }
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

std::uint64_t count_wrong_hbm(HbmKernel kernel, const HbmArrays &arrays, cudaStream_t stream) {
  const double *checked = arrays.a;
  if (kernel == HbmKernel::copy || kernel == HbmKernel::library_copy)
    checked = arrays.c;
  return gpu::count_wrong(checked, arrays.elements, ExpectedValue{kernel}, stream);
}

double expected_hbm_read_sum(std::size_t elements) {
  // sum over i < n of (i % P + 1) = full periods * P(P+1)/2 + r(r+1)/2 for the rest.
  const std::uint64_t n = elements, full = n / kPeriodA, rest = n % kPeriodA;
  return static_cast<double>(full * (kPeriodA * (kPeriodA + 1) / 2) + rest * (rest + 1) / 2);
}

} // namespace railgauge::memory
