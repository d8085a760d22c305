#pragma once
// The data check's bound on one GEMM output element against an fp64 (CPU: long double)
// reference computed from the same stored inputs:
//
//   |c − ref| ≤ of_result·|ref| + of_abs_sum·Σ_k |a_ik·b_kj| + of_abs_sum_per_sqrt_k·Σ|a·b|/√K
//
// The first term is the rounding of the output to its storage type (twice its unit round-off);
// the second the accumulation over K and, for tf32, the rounding of the inputs inside the
// GEMM; the third (tf32 only) a floor for that input rounding at small K. Its errors have random
// sign, so they grow like √K times one product, which a term proportional to Σ|a·b| (K products)
// under-covers when K is small: at K = 1 a healthy tf32 product is off by up to 2·2⁻¹⁰ of itself,
// four times of_abs_sum. A bound on Σ|a·b| alone would be as large as the result itself at large K
// (inputs of random sign sum to about √K of Σ|a·b|'s K), so a GEMM that dropped a K slice or
// ignored an fp8 scale could pass; this one does not. Shared by the GPU reference kernel
// (gemm/cuda/gemm_kernels.cu) and the CPU backend, so what the host tests check is what the GPU
// runs.
#include <cmath>
#include <cstdint>

#include "gemm/dtype.h"
#include "harness/host_device.h"

namespace railgauge::gemm {

struct VerifyBound {
  double of_result = 0;             // × |ref|
  double of_abs_sum = 0;            // × Σ|a·b|
  double of_abs_sum_per_sqrt_k = 0; // × Σ|a·b|/√K
};

// Per dtype (unit round-off u: fp32 2⁻²⁴, fp16 2⁻¹¹, bf16 2⁻⁸):
//   fp64        1e-15, 1e-12
//   fp32        2.5e-7 (2u of the fp32 output), 1e-4 (fp32 accumulation)
//   tf32        2.5e-7, 5e-4 (inputs rounded or truncated to 10 mantissa bits inside the GEMM:
//               up to 2·2⁻¹⁰ of each term, of random sign with these operands, so their sum
//               stays far below at large K; plus accumulation), and 8e-3 per √K: four times
//               the worst term's 2·2⁻¹⁰, so the bound is above the worst case (every term's error
//               of one sign) up to K = 16 and about √K standard deviations above the typical
//               sum beyond
//   fp16        1e-3 (2u of the fp16 output), 1e-4
//   bf16        8e-3 (2u of the bf16 output), 1e-4
//   fp8_e4m3    8e-3 (bf16 output), 4e-3 (Hopper's fp8 tensor cores accumulate in reduced
//               precision between cuBLASLt's promotions to fp32)
RAILGAUGE_HOST_DEVICE constexpr VerifyBound verify_bound(Dtype dtype) {
  switch (dtype) {
  case Dtype::fp64:
    return {1e-15, 1e-12};
  case Dtype::fp32:
    return {2.5e-7, 1e-4};
  case Dtype::tf32:
    return {2.5e-7, 5e-4, 8e-3};
  case Dtype::fp16:
    return {1e-3, 1e-4};
  case Dtype::bf16:
    return {8e-3, 1e-4};
  case Dtype::fp8_e4m3:
    return {8e-3, 4e-3};
  }
  return {};
}

// |c − ref| over the bound for a K-long dot product: at most 1 passes. NaN when c is NaN or Inf
// (no bound passes NaN). An exact result passes even when the bound is 0 (a zero reference and
// Σ|a·b| = 0).
RAILGAUGE_HOST_DEVICE inline double error_over_bound(double c, double ref, double abs_sum,
                                                     std::int64_t k, VerifyBound bound) {
  if (!std::isfinite(c))
    return NAN;
  const double error = std::fabs(c - ref);
  if (error == 0)
    return 0;
  const double per_sqrt_k =
      k > 0 ? bound.of_abs_sum_per_sqrt_k / std::sqrt(static_cast<double>(k)) : 0;
  return error / (bound.of_result * std::fabs(ref) + (bound.of_abs_sum + per_sqrt_k) * abs_sum);
}

// The CPU reference of element `e` of a batched row-major C = A·B (per batch A is m×k, B k×n,
// C m×n): its K-long dot product in long double, and Σ|a·b|, what the bound scales with. Host
// only: the GPU's reference is gemm_kernels.cu's, in fp64.
struct ReferenceElement {
  long double value = 0;
  long double abs_sum = 0;
};

template <typename T>
ReferenceElement reference_element(const T *a, const T *b, std::int64_t m, std::int64_t n,
                                   std::int64_t k, std::int64_t e) {
  const std::int64_t batch = e / (m * n), i = (e / n) % m, j = e % n;
  const T *a_row = a + batch * m * k + i * k;
  const T *b_column = b + batch * k * n + j;
  ReferenceElement r;
  for (std::int64_t x = 0; x < k; ++x) {
    const long double term = static_cast<long double>(a_row[x]) * b_column[x * n];
    r.value += term;
    r.abs_sum += std::fabs(term);
  }
  return r;
}

} // namespace railgauge::gemm
