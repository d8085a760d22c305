// layer_lines() and render_layer_table(): the FLOP-weighted layer of a recorded H200 TP sweep
// against figures computed by hand from the same records, and what makes a layer incomplete.
#include <gtest/gtest.h>

#include "gemm/layer_table.h"
#include "harness/record_io.h"
#include "records/gemm_layer.h"
#include "tests/support/fixture_text.h"

namespace railgauge::gemm {
namespace {

std::vector<Record> h200_records() {
  const auto read = parse_records(testing::fixture_text("gemm-h200/records.jsonl"), "records");
  EXPECT_TRUE(read.problems.empty());
  return read.records;
}

// Computed by hand from tests/fixtures/gemm-h200/records.jsonl (its README gives the Python):
// per t, the 16 ok records' flops_per_call over their time_s.median, added; the dense peak 989
// TFLOP/s; the peak at each record's clock 989 x telemetry.during.sm_clock_mhz.median / 1830;
// clock and power (power_w.mean) weighted by time_s.median.
struct Hand {
  std::int64_t tp;
  double efficiency, at_clock, clock_mhz, clock_min_mhz, clock_max_mhz, power_w;
};
constexpr Hand kHand[] = {
    {1, 0.692077, 0.855652, 1480.159, 1215.0, 1860.0, 678.022},
    {2, 0.742076, 0.845265, 1606.595, 1477.5, 1935.0, 668.130},
    {4, 0.724311, 0.803615, 1649.408, 1545.0, 1965.0, 672.438},
    {8, 0.708804, 0.767522, 1689.999, 1620.0, 1980.0, 664.952},
    {16, 0.703042, 0.748458, 1718.958, 1635.0, 1980.0, 658.429},
    {32, 0.669049, 0.673926, 1816.758, 1695.0, 1980.0, 631.928},
};

TEST(LayerLine, TwoGpuModelsAreTwoLinesNeverOnesMedian) {
  // The H200 sweep beside the same records as an H100's: each GPU model its own line, the
  // H200's figures as they were alone (they were once the two GPUs' medians, neither's).
  auto records = h200_records();
  const auto h200 = record::layer_lines(records);
  ASSERT_EQ(h200.size(), 1u);
  auto h100 = h200_records();
  for (auto &r : h100) {
    r.params["gpu_name"] = "NVIDIA H100 80GB HBM3";
    r.host = "h100-node";
  }
  records.insert(records.end(), h100.begin(), h100.end());
  const auto both = record::layer_lines(records);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_NE(both[0].label, both[1].label);
  for (const auto &line : both) {
    ASSERT_EQ(line.points.size(), h200[0].points.size());
    EXPECT_EQ(line.points[0].efficiency, h200[0].points[0].efficiency) << line.label;
  }
}

TEST(LayerLine, RecordedH200SweepMatchesTheHandComputation) {
  const auto lines = record::layer_lines(h200_records());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].label, "gemm.cublaslt gpt3-175b bf16 (seq 2048, micro_batch 1, NVIDIA H200, "
                            "gpu 0, layout training)");
  const auto &points = lines[0].points;
  ASSERT_EQ(points.size(), std::size(kHand));
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto &p = points[i];
    const auto &h = kHand[i];
    SCOPED_TRACE(h.tp);
    EXPECT_EQ(p.tp, h.tp);
    EXPECT_EQ(p.gemms, 16);
    EXPECT_EQ(p.gemms_expected, 16);
    ASSERT_TRUE(p.efficiency && p.efficiency_at_clock && p.sm_clock_mhz && p.power_w);
    EXPECT_NEAR(*p.efficiency, h.efficiency, 1e-6);
    EXPECT_NEAR(*p.efficiency_at_clock, h.at_clock, 1e-6);
    EXPECT_NEAR(*p.sm_clock_mhz, h.clock_mhz, 1e-3);
    EXPECT_EQ(*p.sm_clock_min_mhz, h.clock_min_mhz);
    EXPECT_EQ(*p.sm_clock_max_mhz, h.clock_max_mhz);
    EXPECT_NEAR(*p.power_w, h.power_w, 1e-3);
    EXPECT_EQ(p.power_limit_w, 700.0);
    EXPECT_EQ(p.peak_tflops, 989.0);
    EXPECT_EQ(p.peak_clock_mhz, 1830.0);
  }
}

TEST(LayerLine, ConsoleTableShowsBothPeaksClockAndPower) {
  const std::string table = render_layer_table(h200_records());
  EXPECT_NE(table.find("% of the dense peak (989)"), std::string::npos) << table;
  EXPECT_NE(table.find("% of the peak at its SM clock (peak at 1830 MHz)"), std::string::npos);
  // t = 1 and t = 32, rounded as printed.
  EXPECT_NE(table.find("69.2      74.2      72.4      70.9      70.3      66.9"), std::string::npos)
      << table;
  EXPECT_NE(table.find("85.6      84.5      80.4      76.8      74.8      67.4"), std::string::npos)
      << table;
  EXPECT_NE(table.find("power, W, mean (limit 700)"), std::string::npos);
  EXPECT_NE(table.find("1215-1860"), std::string::npos);
  EXPECT_NE(table.find("16/16"), std::string::npos);
}

// A layer missing a GEMM has no efficiency (its time would be too short), and says how much of
// it was measured; a round measured twice counts once, at its median.
TEST(LayerLine, IncompleteLayerHasNoEfficiencyAndRepeatsCountOnce) {
  auto records = h200_records();
  std::vector<Record> t1;
  for (const auto &r : records)
    if (r.params.value("tp", 0) == 1)
      t1.push_back(r);
  auto repeated = t1;
  repeated.insert(repeated.end(), t1.begin(), t1.end());
  const auto twice = record::layer_lines(repeated);
  ASSERT_EQ(twice.size(), 1u);
  ASSERT_TRUE(twice[0].points[0].efficiency);
  EXPECT_NEAR(*twice[0].points[0].efficiency, kHand[0].efficiency, 1e-6);

  std::vector<Record> missing;
  for (const auto &r : t1)
    if (r.params.value("op", "") != "mlp_down.wgrad")
      missing.push_back(r);
  const auto lines = record::layer_lines(missing);
  ASSERT_EQ(lines.size(), 1u);
  const auto &p = lines[0].points[0];
  EXPECT_EQ(p.gemms, 15);
  EXPECT_FALSE(p.complete());
  EXPECT_FALSE(p.efficiency);
  EXPECT_FALSE(p.efficiency_at_clock);
  EXPECT_EQ(render_layer_table(missing), "");
}

// A SKU without a cited clock keeps the dense-peak figure and gives none at the clock.
TEST(LayerLine, UnknownSkuHasNoPeakAtClock) {
  auto records = h200_records();
  for (auto &r : records)
    r.params["gpu_sku"] = "H100 PCIe 80GB";
  const auto lines = record::layer_lines(records);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].points[0].efficiency);
  EXPECT_FALSE(lines[0].points[0].efficiency_at_clock);
  EXPECT_FALSE(record::peak_clock_mhz("H200 SXM 141GB", "int8"));
  EXPECT_EQ(record::peak_clock_mhz("H100 SXM 80GB", "fp32"), 1980.0);
  EXPECT_NE(render_layer_table(records).find("(no cited clock)"), std::string::npos);
}

} // namespace
} // namespace railgauge::gemm
