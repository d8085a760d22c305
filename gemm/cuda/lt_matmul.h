#pragma once
// cuBLASLt for one GEMM shape: its descriptors (RAII owners from harness/cuda/cublaslt_handles.h),
// the heuristic query and the call. Include only from sources compiled
// when RAILGAUGE_HAS_CUDA.
//
// Types per dtype (cuBLASLt's supported combinations; scale type fp32 everywhere):
//   dtype      A, B          C = D   compute
//   bf16       16BF          16BF    32F
//   fp16       16F           16F     32F      (fp32 accumulation, as frameworks use)
//   fp8_e4m3   8F_E4M3       16BF    32F      per-tensor A and B scale pointers; layout nt only
//   tf32       32F           32F     32F_FAST_TF32
//   fp32       32F           32F     32F
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <cublasLt.h>
#include <nlohmann/json.hpp>

#include "gemm/cuda/cublaslt_plan.h"
#include "gemm/cuda/gemm_kernels.h"
#include "harness/cuda/cublaslt_handles.h"
#include "harness/cuda/resources.h"

namespace railgauge::gemm {

using gpu::cublaslt_version;
using gpu::LtHandle;
using gpu::LtLayoutTraits;
using gpu::LtMatmulDescTraits;
using gpu::LtPreferenceTraits;

// The storage of the operands and output of `dtype` (fp8: e4m3 A and B, bf16 C).
struct DtypeStorage {
  ElementType a, b, c;
  OutputFormat output;
};
DtypeStorage dtype_storage(Dtype dtype);

// One GEMM shape in one dtype and layout: its descriptors, the heuristic's candidates and the
// call. Our row-major operands are passed as they are stored (see cublaslt_plan.h).
class LtMatmul {
public:
  // `scales` (device: A's per-tensor scale, B's kFp8ScaleStrideFloats after it; from
  // device_fp8_scales) is used for fp8 only.
  LtMatmul(const GemmShape &shape, Dtype dtype, Layout layout, const float *scales);

  // Up to `count` algorithms, best first as the heuristic ranks them (the first is what a
  // framework calling cublasLtMatmul with this workspace gets). `deterministic` keeps only
  // algorithms without split-K reduction (gemm.burn compares results bit for bit).
  std::vector<cublasLtMatmulHeuristicResult_t> heuristic(const LtHandle &handle, int count,
                                                         std::uint64_t workspace_bytes,
                                                         bool deterministic) const;

  // Enqueues C = alpha·A·B on `stream`, writing only `c`; returns cuBLASLt's status (the caller
  // decides whether a failure is an error or a candidate to skip).
  cublasStatus_t run(const LtHandle &handle, const cublasLtMatmulAlgo_t &algo, const void *a,
                     const void *b, void *c, void *workspace, std::uint64_t workspace_bytes,
                     cudaStream_t stream, float alpha = 1.0f) const;

  // cuBLASLt's type names, for the record: {"a": "CUDA_R_16BF", ..., "compute": "..."}.
  nlohmann::json types_json() const;

private:
  LtCall call_;
  gpu::UniqueCudaHandle<cublasLtMatmulDesc_t, LtMatmulDescTraits> desc_;
  gpu::UniqueCudaHandle<cublasLtMatrixLayout_t, LtLayoutTraits> a_, b_, c_;
  cudaDataType_t a_type_{}, b_type_{}, c_type_{};
  cudaDataType_t scale_type_ = CUDA_R_32F; // alpha and beta: CUDA_R_64F for fp64
  cublasComputeType_t compute_{};
};

// Runs each candidate once on `stream` (operands a, b; output c) and drops the ones that
// cublasLtMatmul refuses with CUBLAS_STATUS_NOT_SUPPORTED: the heuristic can offer an algorithm
// the call then refuses (seen for FP8 in place on an H200). Returns each refused one as
// algo_json() plus record::kAlgoError; any other failure throws BackendError. Synchronizes the
// stream.
nlohmann::json drop_refused(const LtMatmul &lt, const LtHandle &handle,
                            std::vector<cublasLtMatmulHeuristicResult_t> &candidates, const void *a,
                            const void *b, void *c, void *workspace, std::uint64_t workspace_bytes,
                            cudaStream_t stream);

// What cuBLASLt says of an algorithm: the fields records/gemm_record.h names record::kAlgo* and
// kWorkspaceBytes (ids are the enum values of cublasLt.h:
// cublasLtMatmulTile_t, cublasLtMatmulStages_t, cublasLtClusterShape_t).
nlohmann::json algo_json(const cublasLtMatmulHeuristicResult_t &result);

// fp8 per-tensor scales of A and B: powers of two, so the reference scales exactly, and not 1,
// so a scale that is ignored shows in the data check.
inline constexpr float kFp8Scales[2] = {0.5f, 0.25f};
// Where the two scales lie in the buffer device_fp8_scales fills: 256 bytes apart, each as
// aligned as a cudaMalloc, where torch's scale tensors lie. Two adjacent floats put cuBLASLt's
// A scale 4 bytes past an alignment; on an H200 with cuBLASLt 13.1 every FP8 algorithm was then
// refused (docs/gemm.md, "Measured").
inline constexpr std::size_t kFp8ScaleStrideFloats = 64;
static_assert(kFp8ScaleStrideFloats * sizeof(float) % 16 == 0,
              "cuBLASLt refuses FP8 scales off 16 B");

// kFp8Scales on the device, copied on `stream` and waited for: a plain cudaMemcpy from pageable
// memory may return before its DMA lands and is not ordered with a non-blocking stream.
gpu::DeviceBuffer device_fp8_scales(cudaStream_t stream);

} // namespace railgauge::gemm
