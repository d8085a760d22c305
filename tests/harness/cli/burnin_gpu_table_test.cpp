// The burn-in's per-GPU table on the records of a real burn-in: one H100 80GB HBM3, healthy and
// beside a co-tenant holding half its SMs (results/reference/h100-burnin-2026-11-26).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/burnin_gpu_table.h"
#include "cli/printers.h"

namespace railgauge {
namespace {

namespace fs = std::filesystem;

std::vector<Record> run_records(const std::string &which) {
  const fs::path base =
      fs::path(RAILGAUGE_SOURCE_DIR) / "results/reference/h100-burnin-2026-11-26/burnin" / which;
  std::vector<Record> records;
  for (const auto &entry : fs::directory_iterator(base)) {
    std::ifstream in(entry.path() / "records.jsonl");
    for (std::string line; std::getline(in, line);)
      records.push_back(Record::from_json(nlohmann::json::parse(line)));
  }
  return records;
}

TEST(BurninGpuTable, EachPhaseFigureAndTheGemmTelemetryOfTheGpu) {
  const std::string table = render_burnin_gpu_table(run_records("healthy"));
  EXPECT_NE(table.find("gemm.burn TFLOPS"), std::string::npos) << table;
  EXPECT_NE(table.find("memory.burn GB/s"), std::string::npos) << table;
  EXPECT_NE(table.find("offload.all_gpus_h2d near GB/s"), std::string::npos) << table;
  // gpu0's row: 718.2 TFLOPS, 3,023 GB/s, 55.1 and 55.2 GB/s; at its 700 W cap near 1,455 MHz.
  EXPECT_NE(table.find("0    0000:00:06.0  718.2"), std::string::npos) << table;
  EXPECT_NE(table.find("3023"), std::string::npos) << table;
  EXPECT_NE(table.find("698 / 700"), std::string::npos) << table;
  EXPECT_NE(table.find("1455"), std::string::npos) << table;
  EXPECT_NE(table.find("sw_power_cap 100%"), std::string::npos) << table;
  // The far placement was waived on a one-NUMA-node VM: it holds no GPU, so no column.
  EXPECT_EQ(table.find(" far "), std::string::npos) << table;
  EXPECT_NE(table.find("  ok\n"), std::string::npos) << table;
}

TEST(BurninGpuTable, TheCotenantHalvesTheGemmAndHbmFigures) {
  const std::string table = render_burnin_gpu_table(run_records("cotenant"));
  EXPECT_NE(table.find("398.4"), std::string::npos) << table;
  EXPECT_NE(table.find("1414"), std::string::npos) << table;
}

// A GEMM burn in another dtype after the bf16 one is a column of its own, and the GEMM telemetry
// columns stay the sustained bf16 burn's.
TEST(BurninGpuTable, AnFp64BurnIsAColumnOfItsOwn) {
  auto records = run_records("healthy");
  for (const auto &r : std::vector<Record>(records))
    if (r.key == "gemm.burn") {
      Record fp64 = r;
      fp64.params["dtype"] = "fp64";
      for (auto &gpu : fp64.metrics.at("gpus")) {
        gpu["tflops"] = 61.5; // made up: no healthy FP64 burn has run yet
        gpu["telemetry"]["during"]["power_w"]["median"] = 512.0;
      }
      records.push_back(fp64);
    }
  const std::string table = render_burnin_gpu_table(records);
  EXPECT_NE(table.find("gemm.burn TFLOPS"), std::string::npos) << table;
  EXPECT_NE(table.find("gemm.burn fp64 TFLOPS"), std::string::npos) << table;
  EXPECT_NE(table.find("61.5"), std::string::npos) << table;
  EXPECT_NE(table.find("718.2"), std::string::npos) << table;
  EXPECT_NE(table.find("698 / 700"), std::string::npos) << table;
  EXPECT_EQ(table.find("512 / 700"), std::string::npos) << table;
}

TEST(BurninGpuTable, NothingPerGpuPrintsNothing) {
  Record r;
  r.key = "memory.host_copy";
  r.metrics = {{"bandwidth_gbytes_per_s", 10.0}};
  EXPECT_EQ(render_burnin_gpu_table({r}), "");
}

TEST(BurninGpuTable, TheSummaryRangeOfAPerGpuPointIsOverItsGpus) {
  std::ostringstream out;
  auto printer = make_table_printer(out);
  for (const auto &r : run_records("healthy"))
    printer->on_record(r);
  printer->finish();
  EXPECT_NE(out.str().find("718.2 .. 718.2  tflops"), std::string::npos) << out.str();
}

} // namespace
} // namespace railgauge
