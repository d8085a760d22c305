#include "gemm/cuda/gemm_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "harness/cuda/check.h"

namespace railgauge::gemm {
namespace {

constexpr int kFillThreads = 256;
constexpr int kReferenceThreads = 128;
constexpr int kCompareThreads = 256;

__device__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// gemm_point.cpp's operand_value(): |x| in [0.5, 1), random sign.
__device__ float operand_value(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t r = splitmix64(seed * 0x9e3779b97f4a7c15ULL + index);
  const double magnitude = 0.5 + 0.5 * static_cast<double>(r >> 11) * 0x1.0p-53;
  return static_cast<float>((r & 1) ? -magnitude : magnitude);
}

template <typename T> __device__ T from_float(float x);
template <> __device__ __nv_fp8_e4m3 from_float(float x) { return __nv_fp8_e4m3(x); }
template <> __device__ __nv_bfloat16 from_float(float x) { return __float2bfloat16(x); }
template <> __device__ __half from_float(float x) { return __float2half(x); }
template <> __device__ float from_float(float x) { return x; }
template <> __device__ double from_float(float x) { return static_cast<double>(x); }

template <typename T> __global__ void fill_kernel(T *p, std::uint64_t count, std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride)
    p[i] = from_float<T>(operand_value(seed, i));
}

__device__ double load(const void *p, ElementType type, std::int64_t i) {
  switch (type) {
  case ElementType::fp8_e4m3:
    return static_cast<double>(static_cast<float>(static_cast<const __nv_fp8_e4m3 *>(p)[i]));
  case ElementType::bf16:
    return static_cast<double>(__bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]));
  case ElementType::fp16:
    return static_cast<double>(__half2float(static_cast<const __half *>(p)[i]));
  case ElementType::fp32:
    return static_cast<double>(static_cast<const float *>(p)[i]);
  case ElementType::fp64:
    return static_cast<const double *>(p)[i];
  }
  return 0;
}

__global__ void reference_kernel(ReferenceProblem pr, const std::int64_t *elements,
                                 double *errors) {
  const std::int64_t e = elements[blockIdx.x];
  const std::int64_t mn = pr.m * pr.n;
  const std::int64_t batch = e / mn, i = (e / pr.n) % pr.m, j = e % pr.n;
  const std::int64_t a_batch = batch * pr.m * pr.k;
  double sum = 0, abs_sum = 0;
  for (std::int64_t kk = threadIdx.x; kk < pr.k; kk += blockDim.x) {
    const std::int64_t b_index =
        pr.b_transposed ? batch * pr.n * pr.k + j * pr.k + kk : batch * pr.k * pr.n + kk * pr.n + j;
    const std::int64_t a_index =
        pr.a_transposed ? a_batch + kk * pr.m + i : a_batch + i * pr.k + kk;
    const double term = load(pr.a, pr.a_type, a_index) * load(pr.b, pr.b_type, b_index);
    sum += term;
    abs_sum += fabs(term);
  }
  __shared__ double sums[kReferenceThreads], abs_sums[kReferenceThreads];
  sums[threadIdx.x] = sum;
  abs_sums[threadIdx.x] = abs_sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      sums[threadIdx.x] += sums[threadIdx.x + half];
      abs_sums[threadIdx.x] += abs_sums[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double c = load(pr.c, pr.c_type, e);
    // A NaN or Inf output is wrong whatever the reference: NaN, which no bound passes.
    errors[blockIdx.x] =
        error_over_bound(c, pr.scale * sums[0], fabs(pr.scale) * abs_sums[0], pr.k, pr.bound);
  }
}

template <typename Bits>
__global__ void compare_kernel(const Bits *first, const Bits *now, std::uint64_t count,
                               OutputFormat format, unsigned long long *counters) {
  unsigned long long mismatched = 0, nans = 0, infs = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride) {
    const ElementVerdict v = compare_element(format, first[i], now[i]);
    mismatched += v.mismatch;
    nans += v.nan;
    infs += v.inf;
  }
  // Most threads count nothing: only the ones that saw something touch the counters.
  if (mismatched)
    atomicAdd(&counters[0], mismatched);
  if (nans)
    atomicAdd(&counters[1], nans);
  if (infs)
    atomicAdd(&counters[2], infs);
}

int grid_for(std::uint64_t count, int threads) {
  // Grid-stride: enough blocks to fill any GPU, no more than there is work.
  const std::uint64_t blocks = (count + threads - 1) / threads;
  return static_cast<int>(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

// Launch errors (a bad configuration) surface at once; errors while running surface at the
// next synchronisation.
void check_launch(const char *kernel) {
  gpu::throw_on_status(cudaGetLastError(), kernel, __FILE__, __LINE__);
}

} // namespace

int element_bytes(ElementType type) {
  switch (type) {
  case ElementType::fp8_e4m3:
    return 1;
  case ElementType::bf16:
  case ElementType::fp16:
    return 2;
  case ElementType::fp32:
    return 4;
  case ElementType::fp64:
    return 8;
  }
  return 0;
}

void fill_operand(void *p, ElementType type, std::uint64_t count, std::uint64_t seed,
                  cudaStream_t stream) {
  const int grid = grid_for(count, kFillThreads);
  switch (type) {
  case ElementType::fp8_e4m3:
    fill_kernel<<<grid, kFillThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3 *>(p), count, seed);
    break;
  case ElementType::bf16:
    fill_kernel<<<grid, kFillThreads, 0, stream>>>(static_cast<__nv_bfloat16 *>(p), count, seed);
    break;
  case ElementType::fp16:
    fill_kernel<<<grid, kFillThreads, 0, stream>>>(static_cast<__half *>(p), count, seed);
    break;
  case ElementType::fp32:
    fill_kernel<<<grid, kFillThreads, 0, stream>>>(static_cast<float *>(p), count, seed);
    break;
  case ElementType::fp64:
    fill_kernel<<<grid, kFillThreads, 0, stream>>>(static_cast<double *>(p), count, seed);
    break;
  }
  check_launch("fill_kernel");
}

void reference_errors(const ReferenceProblem &problem, const std::int64_t *elements,
                      std::int64_t count, double *errors, cudaStream_t stream) {
  if (count <= 0)
    return;
  reference_kernel<<<static_cast<unsigned>(count), kReferenceThreads, 0, stream>>>(
      problem, elements, errors);
  check_launch("reference_kernel");
}

void compare_outputs(const void *first, const void *now, std::uint64_t count, OutputFormat format,
                     unsigned long long *counters, cudaStream_t stream) {
  const int grid = grid_for(count, kCompareThreads);
  if (output_element_bytes(format) == 8)
    compare_kernel<<<grid, kCompareThreads, 0, stream>>>(static_cast<const std::uint64_t *>(first),
                                                         static_cast<const std::uint64_t *>(now),
                                                         count, format, counters);
  else if (output_element_bytes(format) == 4)
    compare_kernel<<<grid, kCompareThreads, 0, stream>>>(static_cast<const std::uint32_t *>(first),
                                                         static_cast<const std::uint32_t *>(now),
                                                         count, format, counters);
  else
    compare_kernel<<<grid, kCompareThreads, 0, stream>>>(static_cast<const std::uint16_t *>(first),
                                                         static_cast<const std::uint16_t *>(now),
                                                         count, format, counters);
  check_launch("compare_kernel");
}

} // namespace railgauge::gemm
