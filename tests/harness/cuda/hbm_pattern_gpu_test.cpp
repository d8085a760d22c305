// memory.pattern on a real GPU (label gpu): a clean pass over most of the free memory finds no
// wrong word, and words flipped on purpose between a write and its check are each found, where
// they lie.
#include <gtest/gtest.h>

#include "harness/cuda/device.h"
#include "memory/cuda/hbm_pattern.h"

namespace railgauge::memory {
namespace {

HbmPatternGpuResult run_on_gpu0(std::int64_t inject_faults) {
  HbmPatternOptions o;
  o.rounds = 1;
  o.inject_faults = inject_faults;
  o.gpus = {0};
  auto results = run_hbm_pattern(o);
  EXPECT_EQ(results.size(), 1u);
  return results.at(0);
}

TEST(HbmPatternGpu, AHealthyGpuReturnsEveryWordOverMostOfItsFreeMemory) {
  ASSERT_FALSE(gpu::cuda_unavailable_reason()) << "this test needs a CUDA GPU";
  const auto r = run_on_gpu0(0);
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.wrong_words, 0u);
  EXPECT_GE(r.covered_fraction(), 0.9) << r.covered_bytes << " of " << r.free_memory_bytes;
  EXPECT_GT(r.bandwidth_gbytes_per_s(), 100.0) << "an HBM pass, not a host loop";
  EXPECT_FALSE(r.telemetry.is_null());
}

TEST(HbmPatternGpu, EachInjectedFaultIsFoundUnderThePatternThatMetIt) {
  ASSERT_FALSE(gpu::cuda_unavailable_reason()) << "this test needs a CUDA GPU";
  const auto r = run_on_gpu0(3);
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.injected_faults, 3);
  EXPECT_EQ(r.wrong_words, 3u);
  EXPECT_EQ(r.wrong_words_by_pattern[static_cast<int>(HbmPattern::walking_ones)], 3u);
  ASSERT_EQ(r.bad_words.size(), 3u);
  for (const auto &w : r.bad_words) {
    EXPECT_EQ(w.read ^ w.expected, 1u) << "the lowest bit, as flipped";
    EXPECT_EQ(w.round, 0u);
  }
  const Outcome out = hbm_pattern_outcome({r});
  EXPECT_EQ(out.status, Status::failed);
}

} // namespace
} // namespace railgauge::memory
