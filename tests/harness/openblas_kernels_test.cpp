// Which kernel set railgauge asks OpenBLAS for (harness/openblas_kernels.h): only in place of its
// generic fallback, and only what the CPU's vector units run.
#include <gtest/gtest.h>

#include "harness/openblas_kernels.h"

namespace railgauge {
namespace {

TEST(OpenblasKernels, TheGenericFallbackIsReplacedByWhatTheCpuRuns) {
  const VectorFeatures avx512{true, true, true}, avx2{false, true, true}, avx{false, false, true};
  EXPECT_EQ(openblas_coretype_instead("Prescott", avx512), "SkylakeX");
  EXPECT_EQ(openblas_coretype_instead("Prescott", avx2), "Haswell");
  EXPECT_EQ(openblas_coretype_instead("Prescott", avx), "Sandybridge");
  // A CPU with no AVX has nothing better than the fallback.
  EXPECT_EQ(openblas_coretype_instead("Prescott", VectorFeatures{}), std::nullopt);
  // A core OpenBLAS chose for the CPU is its business, even one below the CPU's best.
  EXPECT_EQ(openblas_coretype_instead("SkylakeX", avx512), std::nullopt);
  EXPECT_EQ(openblas_coretype_instead("Haswell", avx512), std::nullopt);
}

TEST(OpenblasKernels, AvxFiveTwelveImpliesTheNarrowerUnits) {
  const VectorFeatures f = this_cpu_vector_features();
  if (f.avx512) {
    EXPECT_TRUE(f.avx2_fma);
  }
  if (f.avx2_fma) {
    EXPECT_TRUE(f.avx);
  }
}

} // namespace
} // namespace railgauge
