// The bound a GEMM's result is checked against (gemm/verify_bound.h), without a GPU: honest
// rounding of every dtype passes it, a real fault fails it, at large K and at small.
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "gemm/gemm_point.h"
#include "gemm/verify_bound.h"

namespace railgauge::gemm {
namespace {

// x with its mantissa cut to `bits` bits (the implicit one included), rounded to nearest or
// truncated: what storing in bf16 (8), fp16 (11), tf32 (11) or fp32 (24) does to it.
double to_bits(double x, int bits, bool truncate = false) {
  int exponent = 0;
  const double m = std::frexp(x, &exponent) * std::ldexp(1.0, bits);
  return std::ldexp(truncate ? std::trunc(m) : std::nearbyint(m), exponent - bits);
}

// One output element of a K-long dot product of seeded operands, computed the way a GEMM of the
// dtype computes it (inputs stored at `input_bits`, rounded again to `gemm_input_bits` inside the
// GEMM, fp32 accumulation, output stored at `output_bits`), with its fp64 reference and Σ|a·b|.
struct DotSample {
  double c, ref, abs_sum, first_half;
};
DotSample dot(std::uint64_t seed, std::int64_t k, int input_bits, int gemm_input_bits,
              bool truncate_in_gemm, int output_bits) {
  DotSample d{0, 0, 0, 0};
  float acc = 0;
  for (std::int64_t i = 0; i < k; ++i) {
    const double a = to_bits(operand_value(seed, 2 * i), input_bits);
    const double b = to_bits(operand_value(seed, 2 * i + 1), input_bits);
    d.ref += a * b;
    d.abs_sum += std::fabs(a * b);
    acc += static_cast<float>(to_bits(a, gemm_input_bits, truncate_in_gemm) *
                              to_bits(b, gemm_input_bits, truncate_in_gemm));
    if (i + 1 == k / 2)
      d.first_half = acc;
  }
  d.c = to_bits(acc, output_bits);
  return d;
}

TEST(GemmVerifyBound, HonestRoundingPassesAndRealFaultsFail) {
  constexpr std::int64_t kK = 12288; // GPT-3's hidden size: the K of the big TP GEMMs
  struct Case {
    Dtype dtype;
    int input_bits, gemm_input_bits;
    bool truncate;
    int output_bits;
  };
  for (const Case c : {Case{Dtype::bf16, 8, 8, false, 8}, Case{Dtype::fp16, 11, 11, false, 11},
                       Case{Dtype::tf32, 24, 11, true, 24}, Case{Dtype::fp32, 24, 24, false, 24}}) {
    SCOPED_TRACE(std::string(to_string(c.dtype)));
    const VerifyBound bound = verify_bound(c.dtype);
    int dropped_half_caught = 0;
    for (std::uint64_t seed = 1; seed <= 32; ++seed) {
      const DotSample d = dot(seed, kK, c.input_bits, c.gemm_input_bits, c.truncate, c.output_bits);
      EXPECT_LE(error_over_bound(d.c, d.ref, d.abs_sum, kK, bound), 1.0) << "seed " << seed;
      // A GEMM that lost half of K (a split-K slice never reduced) is far outside the bound.
      dropped_half_caught += error_over_bound(d.first_half, d.ref, d.abs_sum, kK, bound) > 1.0;
    }
    // tf32's looser bound lets a half-sum that happens to be small pass now and then.
    EXPECT_GE(dropped_half_caught, c.dtype == Dtype::tf32 ? 26 : 31);
  }
  const VerifyBound fp8 = verify_bound(Dtype::fp8_e4m3);
  const DotSample d = dot(7, kK, 4, 4, false, 8); // e4m3 keeps 4 mantissa bits
  EXPECT_LE(error_over_bound(d.c, d.ref, d.abs_sum, kK, fp8), 1.0);
  // The per-tensor scales (0.5 × 0.25) ignored: the output is 8× the reference.
  EXPECT_GT(error_over_bound(d.c / 0.125, d.ref, d.abs_sum, kK, fp8), 1.0);
  // A flipped exponent bit doubles or halves the element.
  EXPECT_GT(error_over_bound(2 * d.ref, d.ref, d.abs_sum, kK, verify_bound(Dtype::bf16)), 1.0);
  EXPECT_EQ(error_over_bound(d.ref, d.ref, 0, kK, VerifyBound{}), 0.0) << "exact passes any bound";
  EXPECT_TRUE(std::isnan(error_over_bound(NAN, 1, 1, 1, fp8)));
  EXPECT_TRUE(std::isnan(error_over_bound(INFINITY, 1, 1, 1, fp8)));
}

// tf32 at small K: the inputs' rounding inside the GEMM is up to 2·2⁻¹⁰ of each product, of random
// sign, so it grows like √K products, not K. The √K floor lets every healthy element pass where
// the bound proportional to Σ|a·b| alone fails some, and a real fault still fails.
TEST(GemmVerifyBound, Tf32AtSmallKPassesHealthyAndFailsFaults) {
  const VerifyBound bound = verify_bound(Dtype::tf32);
  const VerifyBound without_floor{bound.of_result, bound.of_abs_sum, 0};
  for (const bool truncate : {true, false}) {
    for (const std::int64_t k : {1, 2, 3, 4, 8, 16, 32, 64, 128, 256}) {
      SCOPED_TRACE(fmt::format("K {} {}", k, truncate ? "truncated" : "rounded"));
      double worst = 0;
      int dropped_term_caught = 0, doubled_caught = 0;
      constexpr int kElements = 2000;
      for (std::uint64_t seed = 1; seed <= kElements; ++seed) {
        const DotSample d = dot(seed, k, 24, 11, truncate, 24);
        worst = std::max(worst, error_over_bound(d.c, d.ref, d.abs_sum, k, bound));
        doubled_caught += error_over_bound(2 * d.c, d.ref, d.abs_sum, k, bound) > 1.0;
        if (k >= 2) {
          const DotSample shorter = dot(seed, k - 1, 24, 11, truncate, 24); // one product lost
          dropped_term_caught += error_over_bound(shorter.c, d.ref, d.abs_sum, k, bound) > 1.0;
        }
      }
      EXPECT_LE(worst, 1.0);
      // Doubling fails unless the element is tiny against Σ|a·b| (a near-cancelling sum).
      EXPECT_GE(doubled_caught, kElements * 9 / 10);
      if (k >= 2 && k <= 64) {
        EXPECT_GE(dropped_term_caught, kElements * 8 / 10);
      }
    }
  }
  // Without the floor, a healthy tf32 product at K = 1 fails: truncating both inputs loses up to
  // 2·2⁻¹⁰ of it, four times of_abs_sum.
  int failed_without_floor = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const DotSample d = dot(seed, 1, 24, 11, true, 24);
    failed_without_floor += error_over_bound(d.c, d.ref, d.abs_sum, 1, without_floor) > 1.0;
  }
  EXPECT_GT(failed_without_floor, 0);
}

TEST(GemmVerifyBound, RecordsAndMessagesCarryTheBound) {
  EXPECT_EQ(verify_bound_json(Dtype::bf16),
            (nlohmann::json{{"of_result", 8e-3}, {"of_abs_sum", 1e-4}}));
  EXPECT_EQ(verify_bound_text(Dtype::bf16), "0.008·|ref| + 0.0001·Σ|a·b|");
  EXPECT_EQ(verify_bound_json(Dtype::tf32).at("of_abs_sum_per_sqrt_k"), 8e-3);
  EXPECT_EQ(verify_bound_text(Dtype::tf32), "2.5e-07·|ref| + 0.0005·Σ|a·b| + 0.008·Σ|a·b|/√K");
}

// The CPU backend's and the block's reference: each batch's own A row and B column, B strided
// by n, and Σ|a·b| apart from the sum (terms of opposite sign cancel in one, not the other).
TEST(GemmVerifyBound, ReferenceElementIsTheRowTimesTheColumnOfItsBatch) {
  // Two batches of A (2×3) · B (3×2).
  const float a[] = {1, 2, 3, 4, 5, 6, /* batch 1 */ -1, 0, 2, 0, 0, 0};
  const float b[] = {1, 2, 3, 4, 5, 6, /* batch 1 */ 7, 8, 9, 10, 11, 12};
  const ReferenceElement c01 = reference_element(a, b, 2, 2, 3, 1); // row 0 · column 1
  EXPECT_EQ(c01.value, 1 * 2 + 2 * 4 + 3 * 6);
  EXPECT_EQ(c01.abs_sum, c01.value);
  const ReferenceElement c100 = reference_element(a, b, 2, 2, 3, 4); // batch 1, row 0 · column 0
  EXPECT_EQ(c100.value, -1 * 7 + 2 * 11);
  EXPECT_EQ(c100.abs_sum, 7 + 2 * 11);
  EXPECT_EQ(reference_element(a, b, 2, 2, 3, 7).value, 0) << "batch 1, row 1: zeros";
}

} // namespace
} // namespace railgauge::gemm
