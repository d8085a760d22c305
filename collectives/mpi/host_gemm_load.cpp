// HostGemmLoad with OpenBLAS.
#include "collectives/mpi/host_gemm_load.h"

#include <cblas.h>

#include <algorithm>
#include <cstddef>

#include "harness/cpus_given.h"
#include "harness/openblas_kernels.h"

namespace railgauge::collectives {
namespace {

// -1, 0 or 1 from a position and a seed (a multiplicative hash, so that rows and columns differ).
float operand(std::uint64_t i, std::uint64_t seed) {
  return static_cast<float>(static_cast<int>(((i + seed) * 2654435761u >> 7) % 3) - 1);
}

constexpr std::uint64_t kSeedA = 11, kSeedB = 29;

} // namespace

std::optional<std::string> host_gemm_unavailable_reason() { return std::nullopt; }

HostGemmLoad::HostGemmLoad(int mnk) : mnk_(mnk) {
  const auto n = static_cast<std::size_t>(mnk);
  a_.resize(n * n);
  b_.resize(n * n);
  c_.assign(n * n, 0.0f);
  for (std::size_t i = 0; i < n * n; ++i) {
    a_[i] = operand(i, kSeedA);
    b_[i] = operand(i, kSeedB);
  }
  openblas_set_num_threads(cpus_given());
}

void HostGemmLoad::run() {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mnk_, mnk_, mnk_, 1.0f, a_.data(), mnk_,
              b_.data(), mnk_, 0.0f, c_.data(), mnk_);
}

int HostGemmLoad::threads() const { return openblas_get_num_threads(); }

std::string HostGemmLoad::library() const { return openblas_description(); }

std::uint64_t HostGemmLoad::count_wrong(int samples) const {
  const auto n = static_cast<std::uint64_t>(mnk_);
  std::uint64_t wrong = 0;
  for (int t = 0; t < samples; ++t) {
    // Positions spread over the whole matrix, corners included.
    const std::uint64_t row = (static_cast<std::uint64_t>(t) * 7919u) % n;
    const std::uint64_t col = (static_cast<std::uint64_t>(t) * 104729u + n - 1) % n;
    // Row-major: A(row, k) = a[row n + k], B(k, col) = b[k n + col].
    std::int64_t expected = 0;
    for (std::uint64_t k = 0; k < n; ++k)
      expected +=
          static_cast<std::int64_t>(a_[row * n + k]) * static_cast<std::int64_t>(b_[k * n + col]);
    wrong += c_[row * n + col] != static_cast<float>(expected) ? 1 : 0;
  }
  return wrong;
}

} // namespace railgauge::collectives
