#include "collectives/nccl/seeded_data_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "harness/cuda/check.h"

namespace railgauge::collectives {
namespace {

constexpr int kThreadsPerBlock = 256;
// Grid-stride beyond this: enough resident threads to keep any GPU's memory busy, and few
// enough blocks that each thread's count reaches the counters in one atomic per warp.
constexpr std::uint64_t kMaxBlocks = 4096;

// How one element type holds a seeded integer and is read back as a number: exact both ways for
// the values seeded_values.h produces.
template <typename T> struct Element;
template <> struct Element<float> {
  static __device__ float from_int(int v) { return static_cast<float>(v); }
  static __device__ double value(float v) { return v; }
};
template <> struct Element<double> {
  static __device__ double from_int(int v) { return v; }
  static __device__ double value(double v) { return v; }
};
template <> struct Element<std::int32_t> {
  static __device__ std::int32_t from_int(int v) { return v; }
  static __device__ double value(std::int32_t v) { return v; }
};
template <> struct Element<__half> {
  static __device__ __half from_int(int v) { return __float2half_rn(static_cast<float>(v)); }
  static __device__ double value(__half v) { return __half2float(v); }
};
template <> struct Element<__nv_bfloat16> {
  static __device__ __nv_bfloat16 from_int(int v) {
    return __float2bfloat16_rn(static_cast<float>(v));
  }
  static __device__ double value(__nv_bfloat16 v) { return __bfloat162float(v); }
};

unsigned blocks_for(std::uint64_t elements) {
  const std::uint64_t wanted = (elements + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned>(wanted < 1 ? 1 : (wanted < kMaxBlocks ? wanted : kMaxBlocks));
}

template <typename T>
__global__ void seeded_fill_kernel(DType type, RedOp op, std::uint64_t seed, int rank, int world,
                                   std::uint64_t first_index, T *dst, std::uint64_t elements) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       k < elements; k += stride)
    dst[k] = Element<T>::from_int(seeded_input(type, op, seed, rank, world, first_index + k));
}

// Each thread counts its own wrong elements and keeps its lowest; a warp sums its counts and
// adds them with one atomic, so a buffer that is wrong everywhere does not serialise on the
// counter. The first few positions met are stored while slots remain (a read before the atomic
// keeps a wholly wrong buffer from hammering the slot counter).
template <typename T>
__global__ void output_check_kernel(ExpectedOutput e, const T *region, DeviceCheckCounts *counts) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0, lowest = ~0ULL;
  for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       j < e.elements; j += stride) {
    const double got = Element<T>::value(region[j]);
    if (got == static_cast<double>(expected_value(e, j)))
      continue;
    ++wrong;
    lowest = j < lowest ? j : lowest;
    volatile unsigned *taken = &counts->positions_taken;
    if (*taken < DeviceCheckCounts::kPositionsKept) {
      const unsigned slot = atomicAdd(&counts->positions_taken, 1U);
      if (slot < DeviceCheckCounts::kPositionsKept)
        counts->positions[slot] = j;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2)
    wrong += __shfl_down_sync(0xffffffffU, wrong, offset);
  if (threadIdx.x % 32 == 0 && wrong > 0)
    atomicAdd(&counts->wrong, wrong);
  if (lowest != ~0ULL)
    atomicMax(&counts->lowest_wrong_complement, ~lowest);
}

template <typename T> struct TypeTag { using type = T; };

// Calls f(TypeTag<T>{}) with T the device type that holds `type`.
template <typename F> void with_device_type(DType type, F &&f) {
  switch (type) {
  case DType::f32:
    return f(TypeTag<float>{});
  case DType::f64:
    return f(TypeTag<double>{});
  case DType::i32:
    return f(TypeTag<std::int32_t>{});
  case DType::f16:
    return f(TypeTag<__half>{});
  case DType::bf16:
    return f(TypeTag<__nv_bfloat16>{});
  }
}

} // namespace

void enqueue_seeded_fill(DType type, RedOp op, std::uint64_t seed, int rank, int world,
                         std::uint64_t first_index, void *dst, std::uint64_t elements,
                         cudaStream_t stream) {
  if (elements == 0)
    return;
  with_device_type(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    seeded_fill_kernel<T><<<blocks_for(elements), kThreadsPerBlock, 0, stream>>>(
        type, op, seed, rank, world, first_index, static_cast<T *>(dst), elements);
  });
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

void enqueue_output_check(const ExpectedOutput &expect, const void *region,
                          DeviceCheckCounts *counts, cudaStream_t stream) {
  RAILGAUGE_CUDA_CALL(cudaMemsetAsync(counts, 0, sizeof(DeviceCheckCounts), stream));
  if (expect.elements == 0)
    return;
  with_device_type(expect.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    output_check_kernel<T><<<blocks_for(expect.elements), kThreadsPerBlock, 0, stream>>>(
        expect, static_cast<const T *>(region), counts);
  });
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

} // namespace railgauge::collectives
