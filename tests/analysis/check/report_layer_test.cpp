// The report's layer headline and per-GEMM small multiples, from the recorded H200 TP sweep
// (tests/fixtures/gemm-h200): the layer line in the report is the one computed by hand there.
#include <functional>

#include <gtest/gtest.h>

#include "analysis/report/report.h"
#include "analysis/run_set.h"
#include "harness/record_io.h"
#include "tests/support/fixture_text.h"

namespace railgauge {
namespace {

// `edit` changes each record first.
report::Report h200_report(const std::function<void(Record &)> &edit = nullptr) {
  analysis::RunSet set;
  analysis::LoadedRun run;
  run.dir = "gemm-h200";
  run.records = parse_records(testing::fixture_text("gemm-h200/records.jsonl"), "records").records;
  if (edit)
    for (auto &r : run.records)
      edit(r);
  set.runs.push_back(run);
  report::ReportInput in;
  in.title = "h200";
  in.runs = &set;
  return report::build_report(in);
}

TEST(ReportLayer, HeadlineIsTheFlopWeightedLayerAgainstBothPeaks) {
  const auto rep = h200_report();
  const auto at = rep.markdown.find("## Transformer layer efficiency versus tensor parallelism t");
  ASSERT_NE(at, std::string::npos) << rep.markdown;
  EXPECT_LT(at, rep.markdown.find("## GEMM efficiency versus tensor parallelism t"));
  // The hand figures of tests/gemm/layer_line_test.cpp at t = 1 and t = 32, with clock and power,
  // the layer's TFLOP/s (0.692 x 989) and the peak it is a fraction of, named.
  const std::string sweep =
      "| gemm.cublaslt gpt3-175b bf16 (seq 2048, micro_batch 1, NVIDIA H200, gpu 0, layout "
      "training) |";
  EXPECT_NE(rep.markdown.find(
                sweep +
                " 1 | 684.5 | 989.0 (1830) | 0.692 | 0.856 | 1480 | 1215-1860 | 678 | 700 | 16 of "
                "16 |"),
            std::string::npos)
      << rep.markdown;
  EXPECT_NE(rep.markdown.find(
                sweep +
                " 32 | 661.7 | 989.0 (1830) | 0.669 | 0.674 | 1817 | 1695-1980 | 632 | 700 | 16 "
                "of 16 |"),
            std::string::npos);
  EXPECT_NE(rep.html.find("gpt3-175b bf16, s 2048, b 1, H200, gpu 0: of the peak at its SM clock"),
            std::string::npos);
}

TEST(ReportLayer, AClockOfZeroIsNoReadingAndNoPeakDrawsNoChart) {
  // A clock of 0 once put t = 1 at 0.897 of the peak at its clock, its range "0-1665".
  const auto zero_clock = h200_report([](Record &r) {
    if (r.params.value("op", "") == "qkv.fwd" && r.params.value("tp", 0) == 1)
      r.metrics["telemetry"]["during"]["sm_clock_mhz"]["median"] = 0;
  });
  EXPECT_NE(zero_clock.markdown.find("training) | 1 | 684.5 | 989.0 (1830) | 0.692 | - | - | - |"),
            std::string::npos)
      << zero_clock.markdown;
  // No peak known (a CPU backend's sweep): the table's TFLOP/s, no empty chart.
  const auto no_peak = h200_report([](Record &r) { r.metrics.erase("peak_tflops"); });
  EXPECT_NE(no_peak.markdown.find("no efficiency is drawn"), std::string::npos);
  EXPECT_NE(no_peak.markdown.find("training) | 1 | 684.5 | unknown | - |"), std::string::npos)
      << no_peak.markdown;
}

TEST(ReportLayer, PerGemmLinesAreSmallMultiplesOfThreePasses) {
  const auto rep = h200_report();
  const auto grid = rep.html.find("<div class=\"multiples\">");
  ASSERT_NE(grid, std::string::npos);
  const auto end = rep.html.find("</div>", grid);
  std::size_t charts = 0;
  for (auto at = rep.html.find("<svg", grid); at < end; at = rep.html.find("<svg", at + 1))
    ++charts;
  EXPECT_EQ(charts, 6u); // qkv, scores, context, out_proj, mlp_up, mlp_down
  for (const char *title : {"<title>qkv</title>", "<title>mlp_down</title>"})
    EXPECT_NE(rep.html.find(title, grid), std::string::npos) << title;
}

} // namespace
} // namespace railgauge
