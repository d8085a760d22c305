// memory.pattern without a GPU: the chunk plan, the patterns (the same functions the kernels
// run), the record of a GPU that found wrong words, and the waiver where CUDA cannot run.
#include <bit>
#include <set>

#include <gtest/gtest.h>

#include "harness/cuda/device.h"
#include "harness/run_context.h"
#include "memory/cuda/hbm_pattern.h"
#include "records/memory_record.h"
#include "records/per_gpu_parts.h"

namespace railgauge::memory {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(HbmPatternChunks, CoverAllButTheMarginInAlignedChunksOfAtMostOneGiB) {
  const std::uint64_t free_bytes = 79'100'000'000; // an H100 80GB with a context
  const auto plan = plan_hbm_pattern_chunks(free_bytes);
  EXPECT_EQ(plan.free_bytes, free_bytes);
  EXPECT_EQ(plan.margin_bytes, static_cast<std::uint64_t>(0.02 * free_bytes));
  ASSERT_EQ(plan.chunk_bytes.size(), 73u); // 77.5 GB in 1 GiB chunks and the rest
  for (auto bytes : plan.chunk_bytes) {
    EXPECT_LE(bytes, kGiB);
    EXPECT_GT(bytes, 0u);
    EXPECT_EQ(bytes % (std::uint64_t{2} << 20), 0u) << "a multiple of the 2 MiB page";
  }
  EXPECT_LE(plan.planned_bytes() + plan.margin_bytes, free_bytes);
  EXPECT_GT(plan.planned_bytes() + plan.margin_bytes + (std::uint64_t{2} << 20), free_bytes);
  EXPECT_GE(static_cast<double>(plan.planned_bytes()) / free_bytes, 0.979);
}

TEST(HbmPatternChunks, SmallFreeMemoryKeepsTheLeastMarginAndNoneLeavesNothing) {
  const auto small = plan_hbm_pattern_chunks(4 * kGiB);
  EXPECT_EQ(small.margin_bytes, 512u << 20) << "2% of 4 GiB is less than the least margin";
  EXPECT_EQ(small.planned_bytes(), 4 * kGiB - (512u << 20));
  EXPECT_EQ(small.chunk_bytes.size(), 4u);
  EXPECT_EQ(small.chunk_bytes.back(), 512u << 20);
  EXPECT_TRUE(plan_hbm_pattern_chunks(512u << 20).chunk_bytes.empty());
  EXPECT_TRUE(plan_hbm_pattern_chunks(0).chunk_bytes.empty());
}

TEST(HbmPatternWords, WalkingBitsMoveOnePlaceAWordAndARound) {
  std::uint64_t ones_seen = 0;
  for (std::uint64_t i = 0; i < 64; ++i) {
    const auto one = hbm_pattern_word(HbmPattern::walking_ones, i, 0x1000 + 8 * i, 0);
    EXPECT_EQ(std::popcount(one), 1) << i;
    EXPECT_EQ(hbm_pattern_word(HbmPattern::walking_zeros, i, 0, 0), ~one);
    EXPECT_EQ(hbm_pattern_word(HbmPattern::walking_ones, i, 0, 1), std::rotl(one, 1))
        << "the next round moves the bit";
    ones_seen |= one;
  }
  EXPECT_EQ(ones_seen, ~std::uint64_t{0}) << "64 words set every bit once";
}

TEST(HbmPatternWords, AddressInAddressAndItsComplementInOddRounds) {
  const std::uint64_t address = 0x7f12'3456'7800;
  EXPECT_EQ(hbm_pattern_word(HbmPattern::address, 17, address, 0), address);
  EXPECT_EQ(hbm_pattern_word(HbmPattern::address, 17, address, 1), ~address);
  EXPECT_EQ(hbm_pattern_word(HbmPattern::address, 17, address, 2), address);
}

TEST(HbmPatternWords, RandomWordsAreSeededByRoundAndLookRandom) {
  std::set<std::uint64_t> distinct;
  int bits = 0;
  constexpr int kWords = 4096;
  for (std::uint64_t i = 0; i < kWords; ++i) {
    const auto w = hbm_pattern_word(HbmPattern::random, i, 8 * i, 0);
    EXPECT_EQ(w, hbm_pattern_word(HbmPattern::random, i, 0, 0)) << "the index alone gives it";
    EXPECT_NE(w, hbm_pattern_word(HbmPattern::random, i, 8 * i, 1)) << "reseeded each round";
    distinct.insert(w);
    bits += std::popcount(w);
  }
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kWords));
  const double ones_share = bits / (64.0 * kWords);
  EXPECT_NEAR(ones_share, 0.5, 0.01);
}

HbmPatternGpuResult tested(int gpu) {
  HbmPatternGpuResult g;
  g.gpu = gpu;
  g.name = "NVIDIA H200";
  g.uuid = "GPU-" + std::to_string(gpu);
  g.pci = "0000:1" + std::to_string(gpu) + ":00.0";
  g.free_memory_bytes = 140'000'000'000;
  g.margin_bytes = 2'800'000'000;
  g.covered_bytes = 137'200'000'000;
  g.chunks = 128;
  g.rounds = 4;
  g.pattern_time_s = 1.0;
  return g;
}

TEST(HbmPatternOutcome, ACleanNodeIsOkWithItsCoverageAndRate) {
  const Outcome out = hbm_pattern_outcome({tested(0), tested(1)});
  EXPECT_EQ(out.status, Status::ok);
  EXPECT_EQ(out.metrics.at(record::kWrongWords), 0);
  EXPECT_NEAR(out.metrics.at(record::kFreeMemoryCoveredFraction).get<double>(), 0.98, 1e-9);
  EXPECT_TRUE(out.metrics.at(record::kVerified).get<bool>());
  const auto &g = out.metrics.at(record::kPerGpu).at(1);
  EXPECT_EQ(g.at("verdict"), "ok");
  // 4 rounds x 4 patterns x (written + read) x 137.2 GB in 1 s
  EXPECT_NEAR(g.at(record::kBandwidthGbytesPerS).get<double>(), 32 * 137.2, 1e-6);
  EXPECT_EQ(g.at(record::kPerGpuWrongWordsByPattern).at("address"), 0);
}

TEST(HbmPatternOutcome, OneWrongWordFailsItsGpuAndSaysWhere) {
  auto bad = tested(1);
  bad.wrong_words = 1;
  bad.wrong_words_by_pattern[static_cast<int>(HbmPattern::random)] = 1;
  HbmPatternBadWord w;
  w.address = 0x7f0000001008;
  w.expected = 0xff;
  w.read = 0xfe;
  w.round = 2;
  w.pattern = static_cast<std::int32_t>(HbmPattern::random);
  bad.bad_words.push_back(w);
  const Outcome out = hbm_pattern_outcome({tested(0), bad});
  EXPECT_EQ(out.status, Status::failed);
  ASSERT_TRUE(out.reason);
  EXPECT_NE(out.reason->find("GPU 1 (NVIDIA H200, GPU-1"), std::string::npos) << *out.reason;
  EXPECT_NE(out.reason->find("1 of 17150000000 words wrong"), std::string::npos) << *out.reason;
  EXPECT_NE(out.reason->find("0x00007f0000001008 (random held 0x00000000000000fe"),
            std::string::npos)
      << *out.reason;
  EXPECT_EQ(out.metrics.at(record::kWrongWords), 1);
  const auto &g = out.metrics.at(record::kPerGpu).at(1);
  EXPECT_EQ(g.at("verdict"), "failed");
  EXPECT_EQ(g.at(record::kPerGpuBadWords).at(0).at(record::kBadWordRound), 2);
  EXPECT_EQ(g.at(record::kPerGpuWrongWordsByPattern).at("random"), 1);
  // The GPU's part (what check judges) fails by itself; its sibling does not.
  Record r;
  r.key = record::kHbmPattern;
  r.metrics = out.metrics;
  r.status = out.status;
  const auto parts = records::per_gpu_parts(r);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].status, Status::ok);
  EXPECT_EQ(parts[1].status, Status::failed);
}

TEST(HbmPatternOutcome, ABrokenGpuIsAnErrorAndTheLowestCoverageIsTheNodes) {
  auto broke = tested(0);
  broke.error = "cudaErrorIllegalAddress";
  auto short_of_memory = tested(1);
  short_of_memory.covered_bytes = 100'000'000'000;
  const Outcome out = hbm_pattern_outcome({broke, short_of_memory});
  EXPECT_EQ(out.status, Status::error);
  EXPECT_NE(out.reason->find("cudaErrorIllegalAddress"), std::string::npos);
  EXPECT_NEAR(out.metrics.at(record::kFreeMemoryCoveredFraction).get<double>(), 100.0 / 140, 1e-9);
  EXPECT_EQ(hbm_pattern_outcome({}).status, Status::error);
}

TEST(HbmPattern, AxesAndWaiverWithoutAGpu) {
  const auto bench = make_hbm_pattern();
  EXPECT_EQ(bench->key(), "memory.pattern");
  const auto axes = bench->axes();
  ASSERT_EQ(axes.size(), 3u);
  EXPECT_EQ(axes[0].name, "rounds");
  EXPECT_EQ(axes[1].name, "gpu");
  EXPECT_EQ(axes[2].name, "inject_faults");
  if (!gpu::cuda_unavailable_reason())
    GTEST_SKIP() << "a CUDA device is usable here; cuda_tests (label gpu) cover it";
  Topology topology = Topology::load_this_machine();
  GBenchSampler sampler;
  RunContext ctx(topology, sampler, "t", 0);
  Point p;
  p.set("rounds", std::int64_t{4});
  p.set("gpu", std::int64_t{-1});
  p.set("inject_faults", std::int64_t{0});
  const Outcome out = bench->run(ctx, p);
  EXPECT_EQ(out.status, Status::waived);
  EXPECT_EQ(*out.reason, *gpu::cuda_unavailable_reason());
}

} // namespace
} // namespace railgauge::memory
