// The TP-sweep check: per-GEMM and per-block times implied by the fitted matrix table against
// the measured ones, in-sample and with each TP degree left out of the fit.
#include <gtest/gtest.h>

#include "analysis/calibrate/calibration.h"
#include "analysis/calibrate/fit_report.h"
#include "analysis/calibrate/tp_sweep_check.h"

namespace railgauge::calibrate {
namespace {

constexpr double kPeakTflops = 400;
// Two clearly separated regimes: 45% below 20 GFLOP, 90% above.
double efficiency(double flops) { return flops >= 20e9 ? 0.9 : 0.45; }

Record gemm_record(int tp, const std::string &op, std::int64_t m, std::int64_t n, std::int64_t k,
                   int count, double time_scale = 1.0) {
  // A call of `count` GEMMs of this shape (a BMM's dgrad runs two): FLOPs, bytes and time of
  // them all, as gemm.* records hold them.
  const double one_gemm_flops = 2.0 * m * n * k;
  const double flops = count * one_gemm_flops;
  Record r;
  r.run = "synthetic";
  r.host = "node0";
  r.key = "gemm.cublaslt";
  r.params = {{"dtype", "bf16"}, {"m", m},   {"n", n},           {"k", k},
              {"op", op},        {"tp", tp}, {"model", "toy-1"}, {"gemm_count", count}};
  r.metrics = {{"flops_per_call", flops},
               {"bytes_per_call", count * 2.0 * (m * k + k * n + m * n)},
               {"peak_tflops", kPeakTflops},
               {"time_s",
                {{"median", time_scale * flops / (kPeakTflops * 1e12 * efficiency(one_gemm_flops))},
                 {"n", 10}}}};
  return r;
}

// A block of two records whose N shrinks with t; the second is a call of two GEMMs (gemm_count
// 2, as a BMM's dgrad), so the block runs three GEMMs. Both regimes keep each record's GEMMs on
// the same side of 20 GFLOP, so the table can explain every time exactly.
analysis::RunSet tp_sweep(std::initializer_list<int> degrees) {
  analysis::LoadedRun run;
  run.dir = "synthetic";
  for (int tp : degrees) {
    run.records.push_back(gemm_record(tp, "qkv.fwd", 4096, 24576 / tp, 8192, 1));
    run.records.push_back(gemm_record(tp, "fc1.fwd", 4096, 32768 / tp, 8192, 2));
  }
  analysis::RunSet set;
  set.runs.push_back(run);
  return set;
}

CalibrateOptions roofline() {
  CalibrateOptions o;
  o.mode = ProcessingMode::roofline; // no memory term: the table alone explains each time
  return o;
}

TEST(TpSweepCheck, ExactDataIsPredictedExactlyAndBlocksSumCounts) {
  const Calibration c = calibrate(tp_sweep({1, 2, 4, 8}), Assumptions{}, roofline());
  const auto checks = check_tp_sweeps(c);
  ASSERT_EQ(checks.size(), 1u);
  const TpSweepCheck &check = checks[0];
  EXPECT_EQ(check.model, "toy-1");
  EXPECT_EQ(check.dtype, "bf16");
  ASSERT_EQ(check.degrees.size(), 4u);
  EXPECT_EQ(check.gemms.size(), 8u);
  EXPECT_LT(check.in_sample.max_rel, 1e-9);
  for (const auto &d : check.degrees) {
    EXPECT_EQ(d.gemms, 2u);
    const double qkv = 2.0 * 4096 * (24576 / d.tp) * 8192;
    const double fc1 = 2.0 * 4096 * (32768 / d.tp) * 8192;
    const auto t = [&](double f) { return f / (kPeakTflops * 1e12 * efficiency(f)); };
    EXPECT_NEAR(d.gemm_sum_measured_s / (t(qkv) + 2 * t(fc1)), 1.0, 1e-12) << "t=" << d.tp;
    EXPECT_NEAR(d.gemm_sum_predicted_s / d.gemm_sum_measured_s, 1.0, 1e-9);
    ASSERT_TRUE(d.leave_t_out.has_value());
  }
  // t = 1 and t = 8 lie at the ends: leaving one out still leaves both regimes to fit.
  EXPECT_LT(check.degrees.front().leave_t_out->max_rel, 1e-9);
  EXPECT_LT(check.degrees.back().leave_t_out->max_rel, 1e-9);
}

TEST(TpSweepCheck, ASlowDegreeShowsUpLeftOutButNotInTheOthers) {
  auto runs = tp_sweep({1, 2, 4});
  // t = 8 ran 30% slower than the curve the other degrees follow.
  runs.runs[0].records.push_back(gemm_record(8, "qkv.fwd", 4096, 24576 / 8, 8192, 1, 1.3));
  runs.runs[0].records.push_back(gemm_record(8, "fc1.fwd", 4096, 32768 / 8, 8192, 2, 1.3));
  const Calibration c = calibrate(runs, Assumptions{}, roofline());
  const auto check = check_tp_sweeps(c).at(0);
  const TpDegreeSummary &t8 = check.degrees.back();
  ASSERT_EQ(t8.tp, 8);
  ASSERT_TRUE(t8.leave_t_out && t8.gemm_sum_leave_t_out_s);
  // Fitted without t = 8, the table predicts the curve: the measured time is 1.3x that.
  EXPECT_NEAR(t8.leave_t_out->mean_rel, 0.3 / 1.3, 1e-6);
  EXPECT_NEAR(t8.gemm_sum_measured_s / *t8.gemm_sum_leave_t_out_s, 1.3, 1e-6);
}

TEST(TpSweepCheck, OneDegreeAloneHasNothingToLeaveOutAndRecordsWithoutTpAreIgnored) {
  auto runs = tp_sweep({8});
  Record size_point = gemm_record(8, "", 1024, 1024, 1024, 1);
  size_point.params.erase("tp");
  size_point.params.erase("model");
  runs.runs[0].records.push_back(size_point);
  const Calibration c = calibrate(runs, Assumptions{}, roofline());
  const auto checks = check_tp_sweeps(c);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].gemms.size(), 2u);
  // The size point is left to fit without t = 8.
  EXPECT_TRUE(checks[0].degrees[0].leave_t_out.has_value());

  const Calibration alone = calibrate(tp_sweep({8}), Assumptions{}, roofline());
  const auto only = check_tp_sweeps(alone).at(0);
  EXPECT_FALSE(only.leave_t_out.has_value());
  EXPECT_FALSE(only.degrees[0].gemm_sum_leave_t_out_s.has_value());
}

TEST(TpSweepCheck, FitReportCarriesTheSweepInJsonAndMarkdown) {
  const Calibration c = calibrate(tp_sweep({1, 2, 4, 8}), Assumptions{}, roofline());
  const auto report = fit_report_json(c);
  ASSERT_EQ(report["tp_sweeps"].size(), 1u);
  EXPECT_EQ(report["tp_sweeps"][0]["degrees"].size(), 4u);
  EXPECT_EQ(report["tp_sweeps"][0]["gemms"][1]["count"], 2);
  const std::string md = fit_report_markdown(report);
  EXPECT_NE(md.find("## Model GEMMs under tensor parallelism"), std::string::npos);
  EXPECT_NE(md.find("### toy-1 bf16"), std::string::npos);
}

} // namespace
} // namespace railgauge::calibrate
