#include "harness/cuda/gemm_load.h"

#include <vector>

#include <cublasLt.h>
#include <fmt/format.h>

#include "harness/cuda/check.h"
#include "harness/cuda/cublaslt_handles.h"
#include "harness/cuda/gemm_load_kernels.h"
#include "harness/cuda/gemm_load_values.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"

namespace railgauge::gpu {
namespace {

constexpr std::uint32_t kSeedA = 0x1234567u, kSeedB = 0x7654321u;

using LtLayoutHandle = UniqueCudaHandle<cublasLtMatrixLayout_t, LtLayoutTraits>;

LtLayoutHandle make_layout(cudaDataType_t type, int rows, int cols) {
  cublasLtMatrixLayout_t layout = nullptr;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                                   static_cast<std::uint64_t>(cols), rows));
  return LtLayoutHandle(layout);
}

} // namespace

struct GemmLoad::State {
  DeviceBuffer a, b, d, workspace;
  LtHandle handle;
  UniqueCudaHandle<cublasLtMatmulDesc_t, LtMatmulDescTraits> desc;
  LtLayoutHandle a_layout, b_layout, d_layout;
  cublasLtMatmulAlgo_t algo{};
  float alpha = 1.0f, beta = 0.0f;

  explicit State(std::size_t n)
      : a(n * n * 2), b(n * n * 2), d(n * n * 4), workspace(kGemmLoadWorkspaceBytes) {}
};

GemmLoad::GemmLoad(int mnk, cudaStream_t seed_stream) : mnk_(mnk) {
  const auto n = static_cast<std::size_t>(mnk);
  state_ = std::make_unique<State>(n);
  State &s = *state_;
  fill_gemm_load_input(s.a.get(), n * n, kSeedA, seed_stream);
  fill_gemm_load_input(s.b.get(), n * n, kSeedB, seed_stream);
  RAILGAUGE_CUDA_CALL(cudaMemsetAsync(s.d.get(), 0, s.d.bytes(), seed_stream));

  cublasLtMatmulDesc_t desc = nullptr;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  s.desc = UniqueCudaHandle<cublasLtMatmulDesc_t, LtMatmulDescTraits>(desc);
  s.a_layout = make_layout(CUDA_R_16BF, mnk, mnk);
  s.b_layout = make_layout(CUDA_R_16BF, mnk, mnk);
  s.d_layout = make_layout(CUDA_R_32F, mnk, mnk);

  cublasLtMatmulPreference_t raw = nullptr;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmulPreferenceCreate(&raw));
  const UniqueCudaHandle<cublasLtMatmulPreference_t, LtPreferenceTraits> preference(raw);
  const std::size_t workspace = kGemmLoadWorkspaceBytes;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmulPreferenceSetAttribute(
      raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmulAlgoGetHeuristic(s.handle.get(), desc, s.a_layout.get(),
                                                       s.b_layout.get(), s.d_layout.get(),
                                                       s.d_layout.get(), raw, 1, &result, &found));
  if (found < 1)
    throw BackendError(
        fmt::format("cuBLASLt has no algorithm for a {0}x{0}x{0} bf16 GEMM with fp32 output", mnk));
  s.algo = result.algo;
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(seed_stream));
}

GemmLoad::~GemmLoad() = default;

void GemmLoad::enqueue(cudaStream_t stream) {
  State &s = *state_;
  RAILGAUGE_CUBLAS_CALL(cublasLtMatmul(s.handle.get(), s.desc.get(), &s.alpha, s.a.get(),
                                       s.a_layout.get(), s.b.get(), s.b_layout.get(), &s.beta,
                                       s.d.get(), s.d_layout.get(), s.d.get(), s.d_layout.get(),
                                       &s.algo, s.workspace.get(), s.workspace.bytes(), stream));
}

std::uint64_t GemmLoad::count_wrong(cudaStream_t stream, int samples) const {
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  const auto n = static_cast<std::uint64_t>(mnk_);
  std::uint64_t wrong = 0;
  for (int t = 0; t < samples; ++t) {
    // Positions spread over the whole matrix, corners included.
    const std::uint64_t row = (static_cast<std::uint64_t>(t) * 7919u) % n;
    const std::uint64_t col = (static_cast<std::uint64_t>(t) * 104729u + n - 1) % n;
    float got = 0;
    RAILGAUGE_CUDA_CALL(cudaMemcpy(&got, state_->d.as<float>() + row + col * n, sizeof got,
                                   cudaMemcpyDeviceToHost));
    // Column-major: A(row, k) = A[row + k n], B(k, col) = B[k + col n].
    std::int64_t expected = 0;
    for (std::uint64_t k = 0; k < n; ++k)
      expected +=
          gemm_load_input_value(row + k * n, kSeedA) * gemm_load_input_value(k + col * n, kSeedB);
    wrong += got != static_cast<float>(expected) ? 1 : 0;
  }
  return wrong;
}

} // namespace railgauge::gpu
