#pragma once
// The GEMM that collectives.mpi_all_reduce_with_gemm runs beside an all_reduce: one OpenBLAS
// cblas_sgemm, M = N = K, row-major, no transposes, on as many BLAS threads as this process has
// CPUs (sched_getaffinity). It stands for the compute a training step overlaps a collective
// with; gemm/ measures GEMMs properly.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railgauge::collectives {

// Why no host GEMM can run here (built without OpenBLAS), or nullopt.
std::optional<std::string> host_gemm_unavailable_reason();

class HostGemmLoad {
public:
  // A and B hold -1, 0 and 1 only, so that every entry of the product is an integer that fp32
  // holds exactly (|entry| <= mnk < 2^24) and the check can compare exactly. Throws
  // BackendError when built without OpenBLAS.
  explicit HostGemmLoad(int mnk);

  // One C = A x B, on the calling thread and OpenBLAS's threads.
  void run();
  double flops() const { return 2.0 * mnk_ * mnk_ * mnk_; }
  int threads() const;
  std::string library() const;
  // Entries of C, at `samples` spread-out positions, that differ from the exact product.
  std::uint64_t count_wrong(int samples = 64) const;

private:
  int mnk_;
  std::vector<float> a_, b_, c_;
};

} // namespace railgauge::collectives
