// memory.peer_copy on a real node (label gpu): with two GPUs or more, every ordered pair with
// peer access copies its buffer whole, checked on the destination, at a rate no host path
// reaches; with one GPU the point is waived with its reason.
#include <gtest/gtest.h>

#include "harness/cuda/device.h"
#include "memory/cuda/peer_copy.h"
#include "records/memory_record.h"
#include "tests/support/quick_run_context.h"

namespace railgauge::memory {
namespace {

using PeerCopyGpu = railgauge::testing::QuickRunContextTest;

TEST_F(PeerCopyGpu, EveryPairWithPeerAccessCopiesWholeOrOneGpuIsWaived) {
  ASSERT_FALSE(gpu::cuda_unavailable_reason()) << "this test needs a CUDA GPU";
  const auto bench = make_peer_copy();
  Point p;
  p.set(record::kSizeBytes, std::int64_t{64} << 20);
  p.set(record::kRepetitions, std::int64_t{3});
  const Outcome out = bench->run(ctx_, p);
  const int gpus = gpu::cuda_device_count();
  if (gpus < 2) {
    EXPECT_EQ(out.status, Status::waived);
    EXPECT_EQ(*out.reason, "not applicable: one GPU: no peer to copy to");
    return;
  }
  if (out.status == Status::waived) // GPUs without peer access: said, and nothing to time
    GTEST_SKIP() << *out.reason;
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_EQ(out.metrics.at(record::kWrongWords), 0);
  const auto &per_gpu = out.metrics.at(record::kPerGpu);
  ASSERT_EQ(per_gpu.size(), static_cast<std::size_t>(gpus));
  for (const auto &g : per_gpu) {
    ASSERT_EQ(g.at(record::kPerGpuPairs).size(), static_cast<std::size_t>(gpus - 1));
    for (const auto &pair : g.at(record::kPerGpuPairs)) {
      if (!pair.at(record::kPairPeerAccess).get<bool>())
        continue;
      EXPECT_EQ(pair.at(record::kWrongWords), 0);
      EXPECT_EQ(pair.at(record::kPairCopies), 3);
      // Above a PCIe Gen5 x16 link's ~63 GB/s would be NVLink; any peer path beats 1 GB/s.
      EXPECT_GT(pair.at(record::kBandwidthGbytesPerS).get<double>(), 1.0);
    }
    EXPECT_FALSE(g.at(record::kTelemetry).is_null());
  }
}

} // namespace
} // namespace railgauge::memory
