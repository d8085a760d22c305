// Each GPU's object of a point that ran on every GPU at once, written by the families' real
// writers (memory.burn, memory.pattern, memory.peer_copy) and read back through records::GpuPart
// and per_gpu_parts, as analysis reads it: a field renamed on one side only fails here.
#include <gtest/gtest.h>

#include "memory/cuda/hbm_burn.h"
#include "memory/cuda/hbm_pattern.h"
#include "memory/cuda/peer_copy.h"
#include "records/gpu_part.h"
#include "records/memory_record.h"
#include "records/per_gpu_parts.h"
#include "tests/support/outcome_record.h"

namespace railgauge::records {
namespace {

const nlohmann::json kTelemetry = {{"available", true},
                                   {"during", {{"power_w", {{"median", 612}}}}}};
const nlohmann::json kSeries =
    nlohmann::json::array({{{"t_s", 1.0}, {"bandwidth_gbytes_per_s", 4.1e3}}});

std::vector<Record> parts_of(const std::string &key, const Outcome &out) {
  return per_gpu_parts(
      testing::outcome_record("run-1", "node-a", key, {{"gpu", -1}}, out, "2026-11-28T00:00:00Z"));
}

// A part with its identity and verdict; each test sets the rest.
GpuPart part(int gpu, const std::string &pci, const std::string &name, Status verdict) {
  GpuPart g;
  g.gpu = gpu;
  g.uuid = "GPU-" + std::to_string(gpu);
  g.pci = pci;
  g.name = name;
  g.verdict = verdict;
  return g;
}

GpuPart read_part(const Record &part) {
  const auto g = GpuPart::read(part.metrics);
  if (!g)
    throw std::runtime_error("a part whose object does not read as a GpuPart");
  return *g;
}

TEST(GpuPart, WritesAndReadsBackEveryField) {
  GpuPart g = part(3, "0000:1b:00.0", "NVIDIA H200", Status::failed);
  g.settle_s = 1.5;
  g.elapsed_s = 31.0;
  g.series = kSeries;
  g.telemetry = kTelemetry;
  nlohmann::json obj = {{"tflops", 700}};
  g.write(obj);
  EXPECT_EQ(obj["tflops"], 700); // the family's own fields stay
  EXPECT_TRUE(obj["error"].is_null()) << "a judged object says that nothing broke";
  EXPECT_EQ(GpuPart::read(obj), g);
  // Through text, as a record line is.
  EXPECT_EQ(GpuPart::read(nlohmann::json::parse(obj.dump())), g);
  g.error = "Xid 79";
  g.write(obj);
  EXPECT_EQ(GpuPart::read(obj), g);
}

TEST(GpuPart, AnObjectThatDoesNotNameItsGpuIsNone) {
  EXPECT_FALSE(GpuPart::read({{"gpu", 0}}));
  EXPECT_FALSE(GpuPart::read({{"uuid", "GPU-0"}}));
  EXPECT_FALSE(GpuPart::read({{"gpu", "0"}, {"uuid", "GPU-0"}}));
  EXPECT_FALSE(GpuPart::read(nlohmann::json::array()));
  const auto bare = GpuPart::read({{"gpu", 0}, {"uuid", "GPU-0"}, {"verdict", "maybe"}});
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->verdict, Status::error) << "a verdict that is no status is no pass";
}

TEST(GpuPart, TheHbmBurnsObjectsReadBack) {
  memory::HbmBurnGpuResult ok;
  ok.gpu = 0;
  ok.name = "NVIDIA H200";
  ok.uuid = "GPU-0";
  ok.pci = "0000:19:00.0";
  ok.bandwidth_gbytes_per_s = 4.1e3;
  ok.settle_s = 1.25;
  ok.elapsed_s = 30.5;
  ok.calls = 900;
  ok.elements = 1 << 20;
  ok.series = kSeries;
  ok.telemetry = kTelemetry;
  memory::HbmBurnGpuResult broke = ok;
  broke.gpu = 1;
  broke.uuid = "GPU-1";
  broke.error = "cudaErrorECCUncorrectable";
  const auto parts = parts_of(memory::record::kHbmBurn, memory::hbm_burn_outcome({ok, broke}));
  ASSERT_EQ(parts.size(), 2u);
  GpuPart first = part(0, "0000:19:00.0", "NVIDIA H200", Status::ok);
  first.settle_s = 1.25;
  first.elapsed_s = 30.5;
  first.series = kSeries;
  first.telemetry = kTelemetry;
  EXPECT_EQ(read_part(parts[0]), first);
  EXPECT_EQ(parts[0].status, Status::ok);
  const GpuPart second = read_part(parts[1]);
  EXPECT_EQ(second.verdict, Status::error);
  EXPECT_EQ(second.error, "cudaErrorECCUncorrectable");
  EXPECT_EQ(parts[1].status, Status::error);
  EXPECT_EQ(parts[1].reason, "cudaErrorECCUncorrectable");
  EXPECT_EQ(parts[1].device, (nlohmann::json{{"gpu", "GPU-1"}, {"pci", "0000:19:00.0"}}));
}

TEST(GpuPart, TheMemoryPatternsObjectsReadBack) {
  memory::HbmPatternGpuResult wrong;
  wrong.gpu = 2;
  wrong.name = "NVIDIA H100 80GB HBM3";
  wrong.uuid = "GPU-2";
  wrong.pci = "0000:3b:00.0";
  wrong.wrong_words = 4;
  wrong.elapsed_s = 12.0;
  wrong.telemetry = kTelemetry;
  const auto parts = parts_of(memory::record::kHbmPattern, memory::hbm_pattern_outcome({wrong}));
  ASSERT_EQ(parts.size(), 1u);
  GpuPart expected = part(2, "0000:3b:00.0", "NVIDIA H100 80GB HBM3", Status::failed);
  expected.elapsed_s = 12.0;
  expected.telemetry = kTelemetry;
  EXPECT_EQ(read_part(parts[0]), expected);
  EXPECT_EQ(parts[0].status, Status::failed);
}

TEST(GpuPart, ThePeerCopysObjectsReadBack) {
  memory::PeerCopyRun run;
  run.gpus = {{0, "NVIDIA H200", "GPU-0", "0000:19:00.0", 2.5, kTelemetry, std::nullopt},
              {1, "NVIDIA H200", "GPU-1", "0000:3b:00.0", 2.5, nullptr, "out of memory"}};
  const auto parts = parts_of(memory::record::kPeerCopy, memory::peer_copy_outcome(run));
  ASSERT_EQ(parts.size(), 2u);
  GpuPart first = part(0, "0000:19:00.0", "NVIDIA H200", Status::ok);
  first.elapsed_s = 2.5;
  first.telemetry = kTelemetry;
  EXPECT_EQ(read_part(parts[0]), first);
  const GpuPart second = read_part(parts[1]);
  EXPECT_EQ(second.verdict, Status::error);
  EXPECT_EQ(second.error, "out of memory");
  EXPECT_TRUE(second.telemetry.is_null());
}

} // namespace
} // namespace railgauge::records
