// The burn-in phases' own figures written and read through their types
// (records/across_gpu_figures.h, records/gemm_burn_figures.h, records/memory_burn_figures.h):
// the real writers' output read back, and every committed burn-in record rewritten as it was
// recorded. A name changed in write() but not in read() fails here.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/record.h"
#include "memory/cuda/hbm_burn.h"
#include "memory/cuda/peer_copy.h"
#include "records/across_gpu_figures.h"
#include "records/gemm_burn_figures.h"
#include "records/gemm_record.h"
#include "records/memory_burn_figures.h"
#include "records/memory_record.h"
#include "tests/support/reference_records.h"

namespace railgauge::records {
namespace {

namespace gemm_r = gemm::record;
namespace memory_r = memory::record;

// The names a type writes: the keys of a fully set value written into an empty object.
template <typename Write> std::set<std::string> names_written(Write write) {
  nlohmann::json obj = nlohmann::json::object();
  write(obj);
  std::set<std::string> names;
  for (const auto &[name, _] : obj.items())
    names.insert(name);
  return names;
}

memory_r::PeerCopyGpuFigures full_peer_copy_gpu() {
  memory_r::PeerCopyGpuFigures g;
  g.wrong_words = 3;
  g.pairs = {
      {0, 1, true, std::nullopt, memory_r::PeerCopyPairFigures::Measured{360, 351, 20, 8, 3}},
      {0, 2, false, std::string("no peer access"), std::nullopt}};
  g.bandwidth_gbytes_per_s = 360;
  g.bandwidth_min_gbytes_per_s = 351;
  g.worst_peer_gpu = 1;
  return g;
}

TEST(BurnFigures, RoundTrip) {
  const auto across = AcrossGpuFigures::of({{0, 700}, {1, 710}, {2, 560}});
  ASSERT_TRUE(across);
  EXPECT_EQ(across->slowest_gpu, 2);
  EXPECT_DOUBLE_EQ(across->slowest_vs_median, 0.8);
  EXPECT_FALSE(AcrossGpuFigures::of({}));
  nlohmann::json metrics = nlohmann::json::object();
  across->write(metrics, gemm_r::kBurnTflopsAcrossGpus);
  const auto parsed = nlohmann::json::parse(metrics.dump());
  EXPECT_EQ(AcrossGpuFigures::read(parsed, gemm_r::kBurnTflopsAcrossGpus), across);
  EXPECT_FALSE(AcrossGpuFigures::read(parsed, memory_r::kBurnBandwidthAcrossGpus))
      << "a gemm burn's figures are not read as a copy's";

  // Every figure away from its default, so that a name changed on one side only shows.
  const gemm_r::GemmBurnGpuFigures gemm{3, 4800, 2, 1234, 12, 1, 2, 4096, 5, 700, 686, {{"id", 6}}};
  nlohmann::json gpu = nlohmann::json::object();
  gemm.write(gpu);
  EXPECT_EQ(gemm_r::GemmBurnGpuFigures::read(nlohmann::json::parse(gpu.dump())), gemm);
  EXPECT_FALSE(gemm_r::GemmBurnGpuFigures::read({{gemm_r::kTflops, 700}})) << "no index";

  const memory_r::HbmBurnGpuFigures hbm{4012.5, 3990, 9000, 1 << 28, 3};
  gpu = nlohmann::json::object();
  hbm.write(gpu);
  EXPECT_EQ(memory_r::HbmBurnGpuFigures::read(nlohmann::json::parse(gpu.dump())), hbm);

  memory_r::HbmPatternGpuFigures pattern;
  pattern.wrong_words = 2;
  pattern.wrong_words_by_pattern = {{"zeros", 0}, {"random", 2}};
  pattern.bad_words = {
      {"0x0000000000001000", "0x0000000000000000", "0x0000000000000100", "zeros", 1}};
  pattern.free_memory_covered_fraction = 0.93;
  pattern.covered_bytes = 1 << 30;
  pattern.free_memory_bytes = 1200 << 20;
  pattern.margin_bytes = 64 << 20;
  pattern.chunks = 1;
  pattern.rounds = 2;
  pattern.injected_faults = 1;
  pattern.bandwidth_gbytes_per_s = 3100;
  pattern.pattern_time_s = 4.5;
  gpu = nlohmann::json::object();
  pattern.write(gpu);
  EXPECT_EQ(memory_r::HbmPatternGpuFigures::read(nlohmann::json::parse(gpu.dump())), pattern);

  gpu = nlohmann::json::object();
  full_peer_copy_gpu().write(gpu);
  EXPECT_EQ(memory_r::PeerCopyGpuFigures::read(nlohmann::json::parse(gpu.dump())),
            full_peer_copy_gpu());
}

// The real writers' records, read back through the types.
TEST(BurnFigures, TheWritersRecordsReadBack) {
  memory::HbmBurnGpuResult a, b;
  a.gpu = 0;
  a.bandwidth_gbytes_per_s = 4000;
  a.bandwidth_min_gbytes_per_s = 3950;
  a.calls = 100;
  a.elements = 1024;
  b = a;
  b.gpu = 1;
  b.bandwidth_gbytes_per_s = 3000;
  const Outcome out = memory::hbm_burn_outcome({a, b});
  const auto across = AcrossGpuFigures::read(out.metrics, memory_r::kBurnBandwidthAcrossGpus);
  ASSERT_TRUE(across) << out.metrics.dump();
  EXPECT_EQ(across->slowest_gpu, 1);
  EXPECT_EQ(across->median, 3500);
  const auto first = memory_r::HbmBurnGpuFigures::read(out.metrics.at(memory_r::kPerGpu)[0]);
  ASSERT_TRUE(first);
  EXPECT_EQ(*first, (memory_r::HbmBurnGpuFigures{4000, 3950, 100, 1024, 0}));

  memory::PeerCopyRun run;
  run.gpus = {{0, "H200", "GPU-0", "0000:18:00.0", 2.0, nullptr, std::nullopt},
              {1, "H200", "GPU-1", "0000:2a:00.0", 2.0, nullptr, std::nullopt}};
  run.pairs = {{0, 1, true, 380, 370, 20, 1 << 20, 0, std::nullopt},
               {1, 0, true, 190, 150, 20, 1 << 20, 0, std::nullopt}};
  const Outcome copies = memory::peer_copy_outcome(run);
  const auto slow = memory_r::PeerCopyGpuFigures::read(copies.metrics.at(memory_r::kPerGpu)[1]);
  ASSERT_TRUE(slow) << copies.metrics.dump();
  EXPECT_EQ(slow->bandwidth_gbytes_per_s, 190);
  EXPECT_EQ(slow->worst_peer_gpu, 0);
  ASSERT_EQ(slow->pairs.size(), 1u);
  ASSERT_TRUE(slow->pairs[0].measured);
  EXPECT_EQ(slow->pairs[0].measured->bandwidth_min_gbytes_per_s, 150);
  const auto over_gpus = AcrossGpuFigures::read(copies.metrics, memory_r::kBurnBandwidthAcrossGpus);
  ASSERT_TRUE(over_gpus) << copies.metrics.dump();
  EXPECT_EQ(over_gpus->slowest_gpu, 1);
}

struct Seen {
  int gemm_burns = 0, gemm_gpus = 0, hbm_burns = 0, hbm_gpus = 0, pattern_gpus = 0,
      peer_copy_gpus = 0;
};

// Re-written through `write`, the figures `read` finds in `obj` come out as recorded: with the
// names the type owns taken out and written back, the object's JSON is the same text.
template <typename Read, typename Write>
bool rewrites_as_recorded(const nlohmann::json &obj, const std::set<std::string> &owned, Read read,
                          Write write, const std::string &what) {
  const auto figures = read(obj);
  if (!figures)
    return false;
  nlohmann::json rewritten = obj;
  for (const auto &name : owned)
    rewritten.erase(name);
  write(*figures, rewritten);
  EXPECT_EQ(rewritten.dump(), obj.dump()) << what;
  return true;
}

void rewrite_record(const Record &r, const std::string &what, Seen &seen) {
  const auto across_names = [](const AcrossGpuNames &n) {
    return names_written([&n](nlohmann::json &o) { AcrossGpuFigures{}.write(o, n); });
  };
  const auto across = [&](const AcrossGpuNames &n) {
    return rewrites_as_recorded(
        r.metrics, across_names(n),
        [&n](const nlohmann::json &m) { return AcrossGpuFigures::read(m, n); },
        [&n](const AcrossGpuFigures &a, nlohmann::json &m) { a.write(m, n); }, what);
  };
  const auto each_gpu = [&](const char *list, auto read, const std::set<std::string> &owned,
                            int &count) {
    for (const auto &gpu : r.metrics.value(list, nlohmann::json::array()))
      count += rewrites_as_recorded(
          gpu, owned, read, [](const auto &g, nlohmann::json &o) { g.write(o); }, what);
  };
  if (r.key == gemm_r::kBurn) {
    seen.gemm_burns += across(gemm_r::kBurnTflopsAcrossGpus);
    each_gpu(gemm_r::kGpus, gemm_r::GemmBurnGpuFigures::read,
             names_written([](nlohmann::json &o) { gemm_r::GemmBurnGpuFigures{}.write(o); }),
             seen.gemm_gpus);
  } else if (r.key == memory_r::kHbmBurn) {
    seen.hbm_burns += across(memory_r::kBurnBandwidthAcrossGpus);
    each_gpu(memory_r::kPerGpu, memory_r::HbmBurnGpuFigures::read,
             names_written([](nlohmann::json &o) { memory_r::HbmBurnGpuFigures{}.write(o); }),
             seen.hbm_gpus);
  } else if (r.key == memory_r::kHbmPattern) {
    each_gpu(memory_r::kPerGpu, memory_r::HbmPatternGpuFigures::read,
             names_written([](nlohmann::json &o) { memory_r::HbmPatternGpuFigures{}.write(o); }),
             seen.pattern_gpus);
  } else if (r.key == memory_r::kPeerCopy) {
    across(memory_r::kBurnBandwidthAcrossGpus);
    each_gpu(memory_r::kPerGpu, memory_r::PeerCopyGpuFigures::read,
             names_written([](nlohmann::json &o) { full_peer_copy_gpu().write(o); }),
             seen.peer_copy_gpus);
  }
}

// Every burn-in record of the committed reference runs (results/reference: the H100 and H200
// burn-ins, healthy and beside co-tenants).
TEST(BurnFigures, TheCommittedBurnInRecordsRewriteAsRecorded) {
  Seen seen;
  for (const auto &[file, r] : testing::reference_records())
    rewrite_record(r, file, seen);
  // Counted, so that a record the types no longer read is seen.
  EXPECT_EQ(seen.gemm_burns, 13);
  EXPECT_EQ(seen.gemm_gpus, 13);
  EXPECT_EQ(seen.hbm_burns, 7);
  EXPECT_EQ(seen.hbm_gpus, 7);
  EXPECT_EQ(seen.pattern_gpus, 3);
  EXPECT_EQ(seen.peer_copy_gpus, 0) << "no committed run had two GPUs";
}

} // namespace
} // namespace railgauge::records
