#pragma once
// The device helpers of the cuBLASLt benchmarks (gemm_kernels.cu): seeded operand fill, the
// fp64 reference check of sampled output elements, and the bitwise comparison of gemm.burn.
// Include only from sources compiled when RAILGAUGE_HAS_CUDA.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemm/cuda/sdc_compare.h"
#include "gemm/verify_bound.h"

namespace railgauge::gemm {

// How an operand or output is stored.
enum class ElementType : int { fp8_e4m3 = 0, bf16 = 1, fp16 = 2, fp32 = 3, fp64 = 4 };

int element_bytes(ElementType type);

// Fills `count` elements at `p` with seeded values that are never zero: |x| in [0.5, 1) with a
// random sign (operand_value()'s formula, rounded to the element type), so products cancel
// like real data and the tensor cores toggle like real data. Enqueued on `stream`.
void fill_operand(void *p, ElementType type, std::uint64_t count, std::uint64_t seed,
                  cudaStream_t stream);

// The operands of one GEMM for the reference check, as the backend stores them (A as Aᵀ [K×M]
// when a_transposed, else [M×K]; B as Bᵀ [N×K] when b_transposed, else [K×N]; row-major C
// [M×N]; `batch` of each, contiguous).
struct ReferenceProblem {
  const void *a = nullptr, *b = nullptr, *c = nullptr;
  ElementType a_type = ElementType::bf16, b_type = ElementType::bf16, c_type = ElementType::bf16;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool a_transposed = false;
  bool b_transposed = true;
  double scale = 1.0; // the product of the per-tensor scales of A and B (fp8), else 1
  VerifyBound bound;  // verify_bound() of the GEMM's dtype
};

// For each of `count` output elements (flat indices into batch × M × N, on the device), its error
// against an fp64 reference of the same stored inputs over the problem's bound
// (error_over_bound(): at most 1 passes), written to `errors` (device, `count` doubles; NaN when
// c is NaN or Inf). One block per element. Enqueued on `stream`.
void reference_errors(const ReferenceProblem &problem, const std::int64_t *elements,
                      std::int64_t count, double *errors, cudaStream_t stream);

// Adds to counters[0..2] (device) the elements of `now` that differ bitwise from `first`, and
// those that are NaN and Inf (compare_element()). Enqueued on `stream`.
void compare_outputs(const void *first, const void *now, std::uint64_t count, OutputFormat format,
                     unsigned long long *counters, cudaStream_t stream);

} // namespace railgauge::gemm
