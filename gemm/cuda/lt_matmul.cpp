#include "gemm/cuda/lt_matmul.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include <fmt/format.h>

#include "harness/error.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

// How many heuristic candidates a deterministic caller filters for split-K-free algorithms.
constexpr int kDeterministicCandidates = 32;

cudaDataType_t cuda_type(ElementType type) {
  switch (type) {
  case ElementType::fp8_e4m3:
    return CUDA_R_8F_E4M3;
  case ElementType::bf16:
    return CUDA_R_16BF;
  case ElementType::fp16:
    return CUDA_R_16F;
  case ElementType::fp32:
    return CUDA_R_32F;
  case ElementType::fp64:
    return CUDA_R_64F;
  }
  return CUDA_R_32F;
}

const char *cuda_type_name(cudaDataType_t type) {
  switch (type) {
  case CUDA_R_8F_E4M3:
    return "CUDA_R_8F_E4M3";
  case CUDA_R_16BF:
    return "CUDA_R_16BF";
  case CUDA_R_16F:
    return "CUDA_R_16F";
  case CUDA_R_32F:
    return "CUDA_R_32F";
  case CUDA_R_64F:
    return "CUDA_R_64F";
  default:
    return "?";
  }
}

const char *compute_type_name(cublasComputeType_t type) {
  switch (type) {
  case CUBLAS_COMPUTE_32F:
    return "CUBLAS_COMPUTE_32F";
  case CUBLAS_COMPUTE_32F_FAST_TF32:
    return "CUBLAS_COMPUTE_32F_FAST_TF32";
  case CUBLAS_COMPUTE_64F:
    return "CUBLAS_COMPUTE_64F";
  default:
    return "?";
  }
}

template <typename T>
void set_desc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const T &value) {
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof value));
}

gpu::UniqueCudaHandle<cublasLtMatrixLayout_t, LtLayoutTraits>
make_layout(cudaDataType_t type, const LtMatrix &m, std::int64_t batch) {
  cublasLtMatrixLayout_t layout = nullptr;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(
      &layout, type, static_cast<std::uint64_t>(m.rows), static_cast<std::uint64_t>(m.cols), m.ld));
  gpu::UniqueCudaHandle<cublasLtMatrixLayout_t, LtLayoutTraits> owner(layout);
  if (batch > 1) {
    const auto count = static_cast<std::int32_t>(batch);
    const std::int64_t stride = m.batch_stride;
    RAILGAUGE_CUBLAS_CALL(cublasLtMatrixLayoutSetAttribute(
        layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
    RAILGAUGE_CUBLAS_CALL(cublasLtMatrixLayoutSetAttribute(
        layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  }
  return owner;
}

template <typename T>
T algo_attribute(const cublasLtMatmulAlgo_t &algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written) !=
      CUBLAS_STATUS_SUCCESS)
    return T{};
  return value;
}

} // namespace

DtypeStorage dtype_storage(Dtype dtype) {
  switch (dtype) {
  case Dtype::fp8_e4m3:
    return {ElementType::fp8_e4m3, ElementType::fp8_e4m3, ElementType::bf16, OutputFormat::bf16};
  case Dtype::bf16:
    return {ElementType::bf16, ElementType::bf16, ElementType::bf16, OutputFormat::bf16};
  case Dtype::fp16:
    return {ElementType::fp16, ElementType::fp16, ElementType::fp16, OutputFormat::fp16};
  case Dtype::fp64:
    return {ElementType::fp64, ElementType::fp64, ElementType::fp64, OutputFormat::fp64};
  case Dtype::tf32:
  case Dtype::fp32:
    return {ElementType::fp32, ElementType::fp32, ElementType::fp32, OutputFormat::fp32};
  }
  return {ElementType::fp32, ElementType::fp32, ElementType::fp32, OutputFormat::fp32};
}

LtMatmul::LtMatmul(const GemmShape &shape, Dtype dtype, Layout layout, const float *scales)
    : call_(lt_call(shape, layout)) {
  if (auto why = layout_problem(dtype, layout))
    throw InputError(*why, "layout", "use -a layout=nt");
  const DtypeStorage storage = dtype_storage(dtype);
  // cuBLASLt's A is our B and its B our A (cublaslt_plan.h).
  a_type_ = cuda_type(storage.b);
  b_type_ = cuda_type(storage.a);
  c_type_ = cuda_type(storage.c);
  // fp64: cuBLASLt's DGEMM (CUBLAS_COMPUTE_64F), whose alpha and beta are doubles (CUDA_R_64F);
  // every other dtype accumulates and scales in fp32.
  compute_ = dtype == Dtype::fp64   ? CUBLAS_COMPUTE_64F
             : dtype == Dtype::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                    : CUBLAS_COMPUTE_32F;
  scale_type_ = dtype == Dtype::fp64 ? CUDA_R_64F : CUDA_R_32F;

  cublasLtMatmulDesc_t desc = nullptr;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmulDescCreate(&desc, compute_, scale_type_));
  desc_ = gpu::UniqueCudaHandle<cublasLtMatmulDesc_t, LtMatmulDescTraits>(desc);
  const cublasOperation_t op_a = call_.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = call_.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  set_desc(desc, CUBLASLT_MATMUL_DESC_TRANSA, op_a);
  set_desc(desc, CUBLASLT_MATMUL_DESC_TRANSB, op_b);
  if (dtype == Dtype::fp8_e4m3) {
    // cuBLASLt's A is our B: its scale is the second.
    const float *a_scale = scales + kFp8ScaleStrideFloats;
    const float *b_scale = scales;
    set_desc(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scale);
    set_desc(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scale);
    // Fast accumulation off (cuBLASLt's default, stated so the record can say it): Hopper's FP8
    // tensor cores accumulate in reduced precision, and cuBLASLt promotes to fp32 at intervals.
    const std::int8_t fast_accum = 0;
    set_desc(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast_accum);
  }
  a_ = make_layout(a_type_, call_.a, call_.batch);
  b_ = make_layout(b_type_, call_.b, call_.batch);
  c_ = make_layout(c_type_, call_.c, call_.batch);
}

std::vector<cublasLtMatmulHeuristicResult_t> LtMatmul::heuristic(const LtHandle &handle, int count,
                                                                 std::uint64_t workspace_bytes,
                                                                 bool deterministic) const {
  cublasLtMatmulPreference_t pref = nullptr;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmulPreferenceCreate(&pref));
  const gpu::UniqueCudaHandle<cublasLtMatmulPreference_t, LtPreferenceTraits> owner(pref);
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof workspace_bytes));
  // A deterministic caller (the burn) keeps only algorithms without split-K: the reduction
  // preference mask cannot say "no reduction" (NONE is 0, and an empty mask is undocumented), so
  // more candidates are asked for and filtered here.
  const int asked = deterministic ? std::max(count, kDeterministicCandidates) : count;
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(asked));
  int returned = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(handle.get(), desc_.get(), a_.get(), b_.get(), c_.get(),
                                     c_.get(), pref, asked, results.data(), &returned);
  // NOT_SUPPORTED: no algorithm for this problem on this GPU (an empty list, a waiver).
  if (status == CUBLAS_STATUS_NOT_SUPPORTED)
    return {};
  RAILGAUGE_CUBLAS_CALL(status);
  results.resize(static_cast<std::size_t>(returned));
  std::erase_if(results, [&](const auto &r) {
    return r.state != CUBLAS_STATUS_SUCCESS ||
           (deterministic &&
            algo_attribute<std::int32_t>(r.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM) > 1);
  });
  if (results.size() > static_cast<std::size_t>(count))
    results.resize(static_cast<std::size_t>(count));
  return results;
}

cublasStatus_t LtMatmul::run(const LtHandle &handle, const cublasLtMatmulAlgo_t &algo,
                             const void *a, const void *b, void *c, void *workspace,
                             std::uint64_t workspace_bytes, cudaStream_t stream,
                             float alpha) const {
  const float beta = 0.0f;
  // alpha and beta in the scale type: fp64's are doubles.
  const double alpha64 = alpha, beta64 = 0.0;
  const bool wide = scale_type_ == CUDA_R_64F;
  const void *alpha_p = wide ? static_cast<const void *>(&alpha64) : &alpha;
  const void *beta_p = wide ? static_cast<const void *>(&beta64) : &beta;
  // cuBLASLt's A is our B, its B our A. beta = 0, so its input C is never read and D = `c` is
  // only written: C and D alias. FP8 runs in place too once its scale pointers are aligned
  // (kFp8ScaleStrideFloats; lt_fp8_variants showed where C points makes no difference).
  return cublasLtMatmul(handle.get(), desc_.get(), alpha_p, b, a_.get(), a, b_.get(), beta_p, c,
                        c_.get(), c, c_.get(), &algo, workspace, workspace_bytes, stream);
}

nlohmann::json LtMatmul::types_json() const {
  return {{record::kLtTypeA, cuda_type_name(b_type_)},
          {record::kLtTypeB, cuda_type_name(a_type_)},
          {record::kLtTypeC, cuda_type_name(c_type_)},
          {record::kLtTypeCompute, compute_type_name(compute_)},
          {record::kLtTypeScale, cuda_type_name(scale_type_)},
          {record::kLtTransA, call_.transpose_a ? "T" : "N"},
          {record::kLtTransB, call_.transpose_b ? "T" : "N"}};
}

nlohmann::json drop_refused(const LtMatmul &lt, const LtHandle &handle,
                            std::vector<cublasLtMatmulHeuristicResult_t> &candidates, const void *a,
                            const void *b, void *c, void *workspace, std::uint64_t workspace_bytes,
                            cudaStream_t stream) {
  nlohmann::json refused = nlohmann::json::array();
  std::erase_if(candidates, [&](const cublasLtMatmulHeuristicResult_t &r) {
    const cublasStatus_t status =
        lt.run(handle, r.algo, a, b, c, workspace, workspace_bytes, stream);
    if (status == CUBLAS_STATUS_SUCCESS)
      return false;
    const std::string error =
        gpu::status_message(status, "cublasLtMatmul", __FILE__, __LINE__);
    if (status != CUBLAS_STATUS_NOT_SUPPORTED) // a bad call, not a refusal: never waived
      throw BackendError(error);
    nlohmann::json entry = algo_json(r);
    entry[record::kAlgoError] = error;
    refused.push_back(std::move(entry));
    return true;
  });
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  return refused;
}

nlohmann::json algo_json(const cublasLtMatmulHeuristicResult_t &r) {
  const auto &a = r.algo;
  return {
      {record::kAlgoId, algo_attribute<std::int32_t>(a, CUBLASLT_ALGO_CONFIG_ID)},
      {record::kAlgoTileId, algo_attribute<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_TILE_ID)},
      {record::kAlgoStagesId, algo_attribute<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_STAGES_ID)},
      {record::kAlgoSplitK, algo_attribute<std::int32_t>(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM)},
      {record::kAlgoReductionScheme,
       algo_attribute<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME)},
      {record::kAlgoCtaSwizzling,
       algo_attribute<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING)},
      {record::kAlgoCustomOption,
       algo_attribute<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION)},
      {record::kAlgoInnerShapeId,
       algo_attribute<std::uint16_t>(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID)},
      {record::kAlgoClusterShapeId,
       algo_attribute<std::uint16_t>(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)},
      {record::kWorkspaceBytes, r.workspaceSize},
      {record::kAlgoWavesCount, r.wavesCount},
  };
}

gpu::DeviceBuffer device_fp8_scales(cudaStream_t stream) {
  std::array<float, 2 * kFp8ScaleStrideFloats> host{};
  host[0] = kFp8Scales[0];
  host[kFp8ScaleStrideFloats] = kFp8Scales[1];
  gpu::DeviceBuffer scales(sizeof host);
  RAILGAUGE_CUDA_CALL(
      cudaMemcpyAsync(scales.get(), host.data(), sizeof host, cudaMemcpyHostToDevice, stream));
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  return scales;
}

} // namespace railgauge::gemm
