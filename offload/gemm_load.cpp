#include "offload/gemm_load.h"

#include <cstdio>
#include <vector>

#include <cublasLt.h>
#include <fmt/format.h>

#include "harness/cuda/check.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"
#include "offload/offload_kernels.h"
#include "offload/pattern.h"

namespace railgauge::offload {
namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20; // gemm_device_bytes() counts it
constexpr std::uint32_t kSeedA = 0x1234567u, kSeedB = 0x7654321u;

void check_lt(cublasStatus_t status, const char *call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw BackendError(fmt::format("{} failed: {} ({})", call, cublasLtGetStatusName(status),
                                   cublasLtGetStatusString(status)));
}
#define RAILGAUGE_CUBLASLT_CALL(call) check_lt((call), #call)

void report_lt(cublasStatus_t status, const char *call) noexcept {
  if (status != CUBLAS_STATUS_SUCCESS)
    std::fprintf(stderr, "railgauge: %s failed: %s\n", call, cublasLtGetStatusName(status));
}

struct HandleDeleter {
  void operator()(cublasLtContext *h) const noexcept {
    report_lt(cublasLtDestroy(h), "cublasLtDestroy");
  }
};
struct DescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t *d) const noexcept {
    report_lt(cublasLtMatmulDescDestroy(d), "cublasLtMatmulDescDestroy");
  }
};
struct LayoutDeleter {
  void operator()(cublasLtMatrixLayoutOpaque_t *l) const noexcept {
    report_lt(cublasLtMatrixLayoutDestroy(l), "cublasLtMatrixLayoutDestroy");
  }
};
struct PreferenceDeleter {
  void operator()(cublasLtMatmulPreferenceOpaque_t *p) const noexcept {
    report_lt(cublasLtMatmulPreferenceDestroy(p), "cublasLtMatmulPreferenceDestroy");
  }
};

using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, LayoutDeleter>;

Layout make_layout(cudaDataType_t type, int rows, int cols) {
  cublasLtMatrixLayout_t layout = nullptr;
  RAILGAUGE_CUBLASLT_CALL(cublasLtMatrixLayoutCreate(
      &layout, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), rows));
  return Layout(layout);
}

} // namespace

struct GemmLoad::State {
  gpu::DeviceBuffer a, b, d, workspace;
  std::unique_ptr<cublasLtContext, HandleDeleter> handle;
  std::unique_ptr<cublasLtMatmulDescOpaque_t, DescDeleter> desc;
  Layout a_layout, b_layout, d_layout;
  cublasLtMatmulAlgo_t algo{};
  float alpha = 1.0f, beta = 0.0f;

  explicit State(std::size_t n)
      : a(n * n * 2), b(n * n * 2), d(n * n * 4), workspace(kWorkspaceBytes) {}
};

GemmLoad::GemmLoad(int mnk, cudaStream_t seed_stream) : mnk_(mnk) {
  const auto n = static_cast<std::size_t>(mnk);
  state_ = std::make_unique<State>(n);
  State &s = *state_;
  seed_gemm_input(s.a.get(), n * n, kSeedA, seed_stream);
  seed_gemm_input(s.b.get(), n * n, kSeedB, seed_stream);
  RAILGAUGE_CUDA_CALL(cudaMemsetAsync(s.d.get(), 0, s.d.bytes(), seed_stream));

  cublasLtHandle_t handle = nullptr;
  RAILGAUGE_CUBLASLT_CALL(cublasLtCreate(&handle));
  s.handle.reset(handle);
  cublasLtMatmulDesc_t desc = nullptr;
  RAILGAUGE_CUBLASLT_CALL(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  s.desc.reset(desc);
  s.a_layout = make_layout(CUDA_R_16BF, mnk, mnk);
  s.b_layout = make_layout(CUDA_R_16BF, mnk, mnk);
  s.d_layout = make_layout(CUDA_R_32F, mnk, mnk);

  cublasLtMatmulPreference_t preference = nullptr;
  RAILGAUGE_CUBLASLT_CALL(cublasLtMatmulPreferenceCreate(&preference));
  std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, PreferenceDeleter> owned(preference);
  const std::size_t workspace = kWorkspaceBytes;
  RAILGAUGE_CUBLASLT_CALL(cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  RAILGAUGE_CUBLASLT_CALL(cublasLtMatmulAlgoGetHeuristic(
      handle, desc, s.a_layout.get(), s.b_layout.get(), s.d_layout.get(), s.d_layout.get(),
      preference, 1, &result, &found));
  if (found < 1)
    throw BackendError(
        fmt::format("cuBLASLt has no algorithm for a {0}x{0}x{0} bf16 GEMM with fp32 output", mnk));
  s.algo = result.algo;
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(seed_stream));
}

GemmLoad::~GemmLoad() = default;

void GemmLoad::enqueue(cudaStream_t stream) {
  State &s = *state_;
  RAILGAUGE_CUBLASLT_CALL(cublasLtMatmul(s.handle.get(), s.desc.get(), &s.alpha, s.a.get(),
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
      expected += gemm_input_value(row + k * n, kSeedA) * gemm_input_value(k + col * n, kSeedB);
    wrong += got != static_cast<float>(expected) ? 1 : 0;
  }
  return wrong;
}

} // namespace railgauge::offload
