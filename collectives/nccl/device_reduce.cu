#include "collectives/nccl/device_reduce.h"

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "harness/cuda/check.h"

namespace railgauge::collectives {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr unsigned kMaxBlocks = 65535; // grid-stride beyond this

template <typename T> __device__ T apply(RedOp op, T a, T b) {
  switch (op) {
  case RedOp::sum:
    return a + b;
  case RedOp::prod:
    return a * b;
  case RedOp::max: // as std::max and std::min on the host, so that ties (+0 and -0) agree
    return a < b ? b : a;
  case RedOp::min:
    return b < a ? b : a;
  }
  return a;
}

// How one element type is reduced: in T itself, or widened to float and rounded back.
struct AsFloat {
  using Storage = float;
  static __device__ float load(float v) { return v; }
  static __device__ float store(float v) { return v; }
};
struct AsDouble {
  using Storage = double;
  static __device__ double load(double v) { return v; }
  static __device__ double store(double v) { return v; }
};
struct AsHalf {
  using Storage = __half;
  static __device__ float load(__half v) { return __half2float(v); }
  static __device__ __half store(float v) { return __float2half_rn(v); }
};
struct AsBf16 {
  using Storage = __nv_bfloat16;
  static __device__ float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};

template <typename Kind>
__global__ void reduce_kernel(RedOp op, typename Kind::Storage *acc,
                              const typename Kind::Storage *in, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    acc[i] = Kind::store(apply(op, Kind::load(acc[i]), Kind::load(in[i])));
}

// int32: sum and product in uint32 (wrap-around is defined there), max and min signed.
__global__ void reduce_i32_kernel(RedOp op, std::int32_t *acc, const std::int32_t *in,
                                  std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    if (op == RedOp::max || op == RedOp::min) {
      acc[i] = apply(op, acc[i], in[i]);
    } else {
      const auto a = static_cast<std::uint32_t>(acc[i]), b = static_cast<std::uint32_t>(in[i]);
      acc[i] = static_cast<std::int32_t>(apply(op, a, b));
    }
  }
}

template <typename Kind>
void launch(RedOp op, void *acc, const void *in, std::size_t count, unsigned blocks,
            cudaStream_t stream) {
  using S = typename Kind::Storage;
  reduce_kernel<Kind><<<blocks, kThreadsPerBlock, 0, stream>>>(op, static_cast<S *>(acc),
                                                               static_cast<const S *>(in), count);
}

} // namespace

void enqueue_device_reduce(DType type, RedOp op, void *acc, const void *in, std::size_t count,
                           cudaStream_t stream) {
  if (count == 0)
    return;
  const std::size_t wanted = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  switch (type) {
  case DType::f32:
    launch<AsFloat>(op, acc, in, count, blocks, stream);
    break;
  case DType::f64:
    launch<AsDouble>(op, acc, in, count, blocks, stream);
    break;
  case DType::f16:
    launch<AsHalf>(op, acc, in, count, blocks, stream);
    break;
  case DType::bf16:
    launch<AsBf16>(op, acc, in, count, blocks, stream);
    break;
  case DType::i32:
    reduce_i32_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
        op, static_cast<std::int32_t *>(acc), static_cast<const std::int32_t *>(in), count);
    break;
  }
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

} // namespace railgauge::collectives
