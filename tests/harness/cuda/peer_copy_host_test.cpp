// memory.peer_copy without a GPU: the record of a node's pairs (each GPU's part with its outgoing
// pairs, a pair without peer access said, a pair with wrong words failing its source GPU), the
// waivers of one GPU and of GPUs without peer access, and the waiver where CUDA cannot run.
#include <gtest/gtest.h>

#include "harness/cuda/device.h"
#include "memory/cuda/peer_copy.h"
#include "records/memory_record.h"
#include "records/per_gpu_parts.h"
#include "tests/support/quick_run_context.h"

namespace railgauge::memory {
namespace {

// `gpus` H100s, every ordered pair copying at `gbytes_per_s`, 8 timed copies of 256 MiB each.
PeerCopyRun node(int gpus, double gbytes_per_s = 376.0) {
  PeerCopyRun run;
  for (int g = 0; g < gpus; ++g)
    run.gpus.push_back({g, "NVIDIA H100 80GB HBM3", "GPU-" + std::to_string(g),
                        "0000:1" + std::to_string(g) + ":00.0", 2.0, nullptr, std::nullopt});
  for (int s = 0; s < gpus; ++s)
    for (int d = 0; d < gpus; ++d)
      if (s != d) {
        PeerCopyPair p;
        p.src = s;
        p.dst = d;
        p.peer_access = true;
        p.bandwidth_gbytes_per_s = gbytes_per_s;
        p.bandwidth_min_gbytes_per_s = 0.99 * gbytes_per_s;
        p.copies = 8;
        p.words = (std::uint64_t{256} << 20) / 8;
        run.pairs.push_back(p);
      }
  return run;
}

PeerCopyPair &pair_of(PeerCopyRun &run, int src, int dst) {
  for (auto &p : run.pairs)
    if (p.src == src && p.dst == dst)
      return p;
  throw std::logic_error("no such pair");
}

std::vector<Record> parts_of(const Outcome &out) {
  Record r;
  r.key = record::kPeerCopy;
  r.metrics = out.metrics;
  r.status = out.status;
  return records::per_gpu_parts(r);
}

TEST(PeerCopyOutcome, EachGpuHoldsItsOutgoingPairsTheirMedianAndTheWorst) {
  auto run = node(4);
  pair_of(run, 2, 1).bandwidth_gbytes_per_s = 300.0; // one slow pair out of GPU 2
  pair_of(run, 2, 3).bandwidth_gbytes_per_s = 380.0;
  const Outcome out = peer_copy_outcome(run);
  EXPECT_EQ(out.status, Status::ok);
  EXPECT_TRUE(out.metrics.at(record::kVerified).get<bool>());
  EXPECT_EQ(out.metrics.at(record::kPairsWithoutPeerAccess), 0);
  const auto parts = parts_of(out);
  ASSERT_EQ(parts.size(), 4u);
  const auto &g2 = parts[2].metrics;
  EXPECT_EQ(parts[2].params.at("gpu"), 2);
  EXPECT_EQ(parts[2].params.at("part"), "gpu");
  EXPECT_DOUBLE_EQ(g2.at(record::kBandwidthGbytesPerS).get<double>(), 376.0); // 300, 376, 380
  EXPECT_DOUBLE_EQ(g2.at(record::kPerGpuBandwidthMinGbytesPerS).get<double>(), 300.0);
  EXPECT_EQ(g2.at(record::kPerGpuWorstPeer), 1);
  ASSERT_EQ(g2.at(record::kPerGpuPairs).size(), 3u);
  EXPECT_EQ(g2.at(record::kPerGpuPairs).at(0).at(record::kPairDst), 0);
  EXPECT_DOUBLE_EQ(parts[0].metrics.at(record::kPerGpuBandwidthMinGbytesPerS).get<double>(), 376.0);
}

TEST(PeerCopyOutcome, APairWithoutPeerAccessIsSaidAndHasNoFigure) {
  auto run = node(2);
  auto &p = pair_of(run, 1, 0);
  p.peer_access = false;
  p.bandwidth_gbytes_per_s = 0;
  const Outcome out = peer_copy_outcome(run);
  EXPECT_EQ(out.metrics.at(record::kPairsWithoutPeerAccess), 1);
  const auto parts = parts_of(out);
  ASSERT_EQ(parts.size(), 2u);
  const auto &pair = parts[1].metrics.at(record::kPerGpuPairs).at(0);
  EXPECT_EQ(pair.at(record::kPairPeerAccess), false);
  EXPECT_FALSE(pair.contains(record::kBandwidthGbytesPerS));
  // GPU 1 copied to no peer: no figure, which the rules read as missing, never as 0 GB/s
  EXPECT_FALSE(parts[1].metrics.contains(record::kBandwidthGbytesPerS));
  EXPECT_TRUE(parts[0].metrics.contains(record::kBandwidthGbytesPerS));
}

TEST(PeerCopyOutcome, WrongWordsOnTheDestinationFailTheSourceGpuNamingThePair) {
  auto run = node(3);
  pair_of(run, 0, 2).wrong_words = 5;
  const Outcome out = peer_copy_outcome(run);
  EXPECT_EQ(out.status, Status::failed);
  ASSERT_TRUE(out.reason);
  EXPECT_NE(out.reason->find("GPU 0 (NVIDIA H100 80GB HBM3, GPU-0, 0000:10:00.0) -> GPU 2: 5 of "
                             "33554432 words wrong after 9 copies"),
            std::string::npos)
      << *out.reason;
  EXPECT_EQ(out.metrics.at(record::kWrongWords), 5);
  const auto parts = parts_of(out);
  EXPECT_EQ(parts[0].status, Status::failed);
  EXPECT_EQ(parts[1].status, Status::ok);
  EXPECT_EQ(parts[2].status, Status::ok);
}

TEST(PeerCopyOutcome, ABrokenPairIsAnErrorOfItsSourceGpu) {
  auto run = node(2);
  pair_of(run, 1, 0).error = "the copy GPU 1 -> GPU 0 did not finish within 30 s";
  const Outcome out = peer_copy_outcome(run);
  EXPECT_EQ(out.status, Status::error);
  EXPECT_NE(out.reason->find("did not finish within 30 s"), std::string::npos) << *out.reason;
  EXPECT_EQ(parts_of(out)[1].status, Status::error);
}

TEST(PeerCopyWaiver, OneGpuOrNoPeerAccessIsWaivedWithTheReason) {
  EXPECT_EQ(peer_copy_waiver({0}, {}), "not applicable: one GPU: no peer to copy to");
  const auto none = peer_copy_waiver({0, 1}, {{false, false}, {false, false}});
  ASSERT_TRUE(none);
  EXPECT_EQ(none->rfind("no peer access between GPUs 0 and 1: cudaDeviceCanAccessPeer", 0), 0u)
      << *none;
  EXPECT_FALSE(peer_copy_waiver({0, 1}, {{false, true}, {false, false}})) << "one way is enough";
  const auto four = peer_copy_waiver({0, 1, 2, 3}, std::vector(4, std::vector(4, false)));
  ASSERT_TRUE(four);
  EXPECT_NE(four->find("any two of the 4 GPUs"), std::string::npos) << *four;
}

using PeerCopy = railgauge::testing::QuickRunContextTest;

TEST_F(PeerCopy, AxesAndWaiverWithoutAGpu) {
  const auto bench = make_peer_copy();
  EXPECT_EQ(bench->key(), "memory.peer_copy");
  const auto axes = bench->axes();
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].name, "size_bytes");
  EXPECT_EQ(std::get<std::int64_t>(axes[0].defaults.at(0)), std::int64_t{256} << 20);
  EXPECT_EQ(axes[1].name, "repetitions");
  if (!gpu::cuda_unavailable_reason())
    GTEST_SKIP() << "a CUDA device is usable here; cuda_tests (label gpu) cover it";
  Point p;
  p.set("size_bytes", std::int64_t{256} << 20);
  p.set("repetitions", std::int64_t{8});
  const Outcome out = bench->run(ctx_, p);
  EXPECT_EQ(out.status, Status::waived);
  EXPECT_EQ(*out.reason, *gpu::cuda_unavailable_reason()); // the driver's reason
}

} // namespace
} // namespace railgauge::memory
