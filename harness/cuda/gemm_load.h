#pragma once
// The GEMM that runs beside other work to measure how the two slow each other (offload.with_gemm
// beside a copy, collectives.nccl_all_reduce_with_gemm beside an all_reduce): one bf16 x bf16 ->
// fp32 cuBLASLt matmul, M = N = K, column-major, no transposes, the first algorithm cuBLASLt's
// heuristic returns. It stands for the compute a training step overlaps with; gemm.cublaslt
// measures GEMMs properly. Sizes and input values: gemm_load_values.h. Include only from sources
// compiled when RAILGAUGE_HAS_CUDA.
#include <cstdint>
#include <memory>

#include <cuda_runtime_api.h>

namespace railgauge::gpu {

class GemmLoad {
public:
  // Allocates A, B (bf16, -1/0/1 from gemm_load_input_value), D (fp32) and a workspace on the
  // current device and picks the algorithm. Throws BackendError when cuBLASLt fails or has none.
  GemmLoad(int mnk, cudaStream_t seed_stream);
  ~GemmLoad();
  GemmLoad(const GemmLoad &) = delete;
  GemmLoad &operator=(const GemmLoad &) = delete;

  // One matmul D = A x B on `stream`.
  void enqueue(cudaStream_t stream);
  double flops() const { return 2.0 * mnk_ * mnk_ * mnk_; }
  int mnk() const { return mnk_; }
  // Entries of D, at `samples` spread-out positions, that differ from the exact product computed
  // on the host. Synchronises `stream`.
  std::uint64_t count_wrong(cudaStream_t stream, int samples = 64) const;

private:
  struct State;
  int mnk_;
  std::unique_ptr<State> state_;
};

} // namespace railgauge::gpu
