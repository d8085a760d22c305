// The block figures written and read through their types (records/block_point_fields.h): a round
// trip, the figures derived from the phases, a field of another type, and every committed block
// record rewritten as it was recorded. A name changed in write() but not in read() fails here.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/record.h"
#include "records/block_point_fields.h"
#include "records/block_record.h"

namespace railgauge::block::record {
namespace {

const std::string kSource = RAILGAUGE_SOURCE_DIR;

std::vector<PhaseFields> two_phases() {
  PhaseFields gemm{"qkv.fwd", kGemmPhase, "qkv.fwd", 2048, 36864, 12288, 1, 0, 2.47e-3};
  PhaseFields ar{"attn.ar", kCollectivePhase, "all_reduce", 0, 0, 0, 1, 50331648, 1.2e-3};
  return {gemm, ar};
}

TEST(BlockPointFields, FiguresRoundTripAndDeriveFromThePhases) {
  const auto figures = BlockFigures::of(two_phases(), 2.47e-3, 1.2e-3, 4e-3);
  // Only the GEMM phase counts: 2 m n k batch.
  EXPECT_DOUBLE_EQ(*figures.flops_per_block, 2.0 * 2048 * 36864 * 12288);
  EXPECT_DOUBLE_EQ(*figures.block_tflops, 2.0 * 2048 * 36864 * 12288 / 4e-3 / 1e12);
  nlohmann::json metrics = nlohmann::json::object();
  figures.write(metrics);
  EXPECT_EQ(BlockFigures::read(metrics), figures);
  // A GEMM phase states its shape as integers, a collective its size, nothing of the other kind.
  EXPECT_TRUE(metrics.at(kPhases).at(0).at(kPhaseM).is_number_integer());
  EXPECT_FALSE(metrics.at(kPhases).at(0).contains(kPhaseSizeBytes));
  EXPECT_EQ(metrics.at(kPhases).at(1).at(kPhaseSizeBytes), 50331648);
  EXPECT_FALSE(metrics.at(kPhases).at(1).contains(kPhaseM));
}

TEST(BlockPointFields, AFieldOfAnotherTypeReadsAsAbsent) {
  nlohmann::json metrics = {{kGemmTimeS, "fast"}, {kPhases, "none"}, {kCollectiveTimeS, 1e-3}};
  const auto figures = BlockFigures::read(metrics);
  EXPECT_FALSE(figures.gemm_time_s);
  EXPECT_FALSE(figures.phases);
  EXPECT_EQ(figures.collective_time_s, 1e-3);
  EXPECT_FALSE(BlockDataCheck::read({{kWrongGemmElements, 0}}));
  nlohmann::json checked = nlohmann::json::object();
  BlockDataCheck{3, 4}.write(checked);
  EXPECT_EQ(checked.at(kWrongElements), 7);
  EXPECT_EQ(BlockDataCheck::read(checked), (BlockDataCheck{3, 4}));
}

// Every block record of the committed reference runs reads and writes back exactly as recorded.
TEST(BlockPointFields, EveryCommittedRecordRewritesAsWritten) {
  int records = 0, phases = 0;
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(kSource + "/results/reference")) {
    if (entry.path().filename() != "records.jsonl")
      continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"block.") == std::string::npos)
        continue;
      const auto r = Record::from_json(nlohmann::json::parse(line));
      if ((r.key != kTransformerTp && r.key != kTransformerTpGpu) || r.status != Status::ok)
        continue;
      ++records;
      nlohmann::json rewritten = nlohmann::json::object();
      BlockFigures::read(r.metrics).write(rewritten);
      const auto check = BlockDataCheck::read(r.metrics);
      ASSERT_TRUE(check) << entry.path();
      check->write(rewritten);
      for (const char *name : {kGemmTimeS, kCollectiveTimeS, kBlockFlops, kBlockTflops, kPhases,
                               kWrongElements, kWrongGemmElements, kWrongCollectiveElements})
        EXPECT_EQ(rewritten.value(name, nlohmann::json()), r.metrics.value(name, nlohmann::json()))
            << entry.path() << " " << name;
      phases += int(rewritten.value(kPhases, nlohmann::json::array()).size());
    }
  }
  EXPECT_GE(records, 6) << "the H100 block runs (results/reference/h100-2026-11-27/block)";
  EXPECT_GT(phases, 50);
}

} // namespace
} // namespace railgauge::block::record
