#include <optional>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/compare/compare.h"
#include "analysis/report/report.h"
#include "analysis/report/svg.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "synthetic_fabric_load.h"
#include "synthetic_fleet.h"
#include "tests/support/reference_run_dirs.h"

namespace railgauge {
namespace {

using json = nlohmann::json;
using check::testing::make_fleet;
using check::testing::scaled;

// ------------------------------------------------------------------ compare

TEST(Compare, DefaultMetricAndNoise) {
  EXPECT_EQ(compare::default_metric({{"busbw_gbytes_per_s", 1}, {"bandwidth_gbytes_per_s", 2}}),
            "metrics.busbw_gbytes_per_s");
  EXPECT_EQ(compare::default_metric({{"time_s", {{"median", 1}}}}), "metrics.time_s.median");
  EXPECT_EQ(compare::default_metric({{"verified", true}}), "");
  const json m = {{"time_s", {{"median", 2.0}, {"p10", 1.8}, {"p90", 2.4}}}};
  EXPECT_DOUBLE_EQ(*compare::relative_noise(m), 0.15);
  EXPECT_FALSE(compare::relative_noise({{"tflops", 1}}));
}

// A noise under 0.05 % printed "±0.0%", read as none at all: it keeps one significant digit.
TEST(Compare, ANoiseUnderATenthOfAPercentKeepsItsDigit) {
  compare::Comparison c;
  c.labels = {"a", "b"};
  compare::PointComparison p;
  p.key = "memory.hbm_copy";
  p.params = json::object();
  p.metric = "metrics.bandwidth_gbytes_per_s";
  p.sides = {compare::Side{100, 0.0001, 1}, compare::Side{100.02, 0.0002, 1}};
  p.ratio = {1.0002};
  p.verdict = {"within noise"};
  auto q = p;
  q.sides = {compare::Side{100, 0.004, 1}, compare::Side{101, 0.008, 1}};
  auto z = p;
  z.sides = {compare::Side{100, 0.0, 1}, compare::Side{101, 0.0, 1}};
  const auto rows = compare::point_rows(c, {&p, &q, &z}, false);
  EXPECT_EQ(rows[0][6], "±0.03%");
  EXPECT_EQ(rows[1][6], "±1.2%");
  EXPECT_EQ(rows[2][6], "±0%");
}

TEST(Compare, MatchesPointsAndJudgesAgainstNoise) {
  const auto a = make_fleet({}, 2, 2);
  // 10% more bandwidth on every h2d point, 0.3% on HBM: the first beyond the fixture's noise
  // (+-1% per record, 0.5% jitter across GPUs), the second within it.
  auto b = scaled(make_fleet({}, 2, 2), "offload.h2d", "bandwidth_gbytes_per_s", 1.10);
  b = scaled(std::move(b), "memory.hbm_copy", "bandwidth_gbytes_per_s", 1.003);
  const auto c = compare::compare_runs({a, b}, {"ib", "roce"}, {});
  const compare::PointComparison *h2d = nullptr, *hbm = nullptr;
  for (const auto &p : c.points) {
    if (p.key == "offload.h2d")
      h2d = &p;
    if (p.key == "memory.hbm_copy")
      hbm = &p;
  }
  ASSERT_NE(h2d, nullptr);
  ASSERT_NE(hbm, nullptr);
  EXPECT_EQ(h2d->sides[0]->records, 4); // 2 nodes x 2 GPUs into one point
  EXPECT_NEAR(*h2d->ratio[0], 1.10, 1e-9);
  EXPECT_EQ(h2d->verdict[0], "better");
  EXPECT_EQ(hbm->verdict[0], "within noise");
  EXPECT_EQ(hbm->params, json({{"size_bytes", 4294967296LL}})); // the GPU index is not a point
  EXPECT_EQ(hbm->sides[1]->records, 4);
}

TEST(Compare, UnmatchedPointsAreNamedAndJsonRoundTrips) {
  auto a = make_fleet({}, 1, 1);
  auto b = make_fleet({.drop_h2d = false}, 1, 1);
  for (auto &r : b.runs[0].records)
    if (r.key == "offload.h2d")
      r.params["size_bytes"] = 1024;
  const auto c = compare::compare_runs({a, b}, {"old", "new"}, {});
  std::vector<std::string> verdicts;
  for (const auto &p : c.points)
    if (p.key == "offload.h2d")
      verdicts.push_back(p.verdict[0]);
  std::sort(verdicts.begin(), verdicts.end());
  EXPECT_EQ(verdicts, (std::vector<std::string>{"only in new", "only in old"}));
  const auto j = compare::to_json(c);
  EXPECT_EQ(compare::to_json(compare::comparison_from_json(j)), j);
  EXPECT_THROW(compare::comparison_from_json({{"schema", "x"}}), InputError);
  EXPECT_THROW(compare::compare_runs({a}, {"a"}, {}), InputError);
  EXPECT_THROW(compare::compare_runs({a, b}, {"a"}, {}), InputError);
  const auto md = compare::render_markdown(c);
  EXPECT_NE(md.find("| family | compared | speedup |"), std::string::npos);
  EXPECT_NE(compare::render_table(c).find("new/old"), std::string::npos);
}

// ------------------------------------------------------------------ svg pieces

TEST(Svg, LinearAndLogScalesMapEnds) {
  const auto lin = report::make_scale(0, 100, 10, 110, false);
  EXPECT_DOUBLE_EQ(lin.map(lin.d0), 10);
  EXPECT_DOUBLE_EQ(lin.map(lin.d1), 110);
  EXPECT_GE(lin.d1, 100);
  const auto log = report::make_scale(1024, 1 << 30, 0, 200, true);
  EXPECT_DOUBLE_EQ(log.map(1024), 0);
  EXPECT_DOUBLE_EQ(log.map(1 << 30), 200);
  EXPECT_NEAR(log.map(1 << 20), 100, 1e-9); // halfway in log2 from 2^10 to 2^30
  for (double t : log.ticks()) {
    EXPECT_GE(t, 1024);
    EXPECT_LE(t, 1 << 30);
  }
  EXPECT_LE(log.ticks().size(), 9u);
  const auto ticks = lin.ticks();
  ASSERT_GE(ticks.size(), 3u);
  EXPECT_DOUBLE_EQ(ticks[0], 0);
  for (std::size_t i = 2; i < ticks.size(); ++i)
    EXPECT_DOUBLE_EQ(ticks[i] - ticks[i - 1], ticks[1] - ticks[0]);
  EXPECT_LE(ticks.back(), lin.d1);
}

// A sweep of one t drew ticks at 0.5, 1 and 2: its axis is widened to draw, but ticked at t alone.
TEST(Svg, ALogScaleOfOneValueTicksThatValueAlone) {
  const auto one = report::make_scale(1, 1, 0, 200, true);
  EXPECT_EQ(one.ticks(), std::vector<double>{1});
  EXPECT_DOUBLE_EQ(one.map(1), 100);
  EXPECT_GT(report::make_scale(1, 2, 0, 200, true).ticks().size(), 1u);
}

TEST(Svg, LabelsColoursAndEscaping) {
  EXPECT_EQ(report::tick_label(1024, true), "1 KiB");
  EXPECT_EQ(report::tick_label(1 << 30, true), "1 GiB");
  EXPECT_EQ(report::tick_label(3000, false), "3000");
  EXPECT_EQ(report::tick_label(0.25, false), "0.25");
  EXPECT_EQ(report::heat_color(0), "#440154");
  EXPECT_EQ(report::heat_color(1), "#fde725");
  EXPECT_EQ(report::xml_escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
}

TEST(Svg, ThirtySixCurvesBeforeALookRepeats) {
  std::set<std::pair<std::string, std::string>> looks;
  for (std::size_t i = 0; i < 36; ++i)
    looks.insert({report::line_style(i).color, report::line_style(i).dash});
  EXPECT_EQ(looks.size(), 36u);
  EXPECT_EQ(report::line_style(36).color, report::line_style(0).color);
}

TEST(Svg, BarChartMarksOutliersWithTheirShare) {
  const auto svg =
      report::bar_chart("h2d per GPU", {"gpu0", "gpu1", "gpu2", "gpu3"}, {55, 56, 55, 44},
                        {false, false, false, true}, "GB/s", 0.85 * 56, "85% of the best");
  std::size_t red = 0;
  for (auto p = svg.find("fill=\"#d62728\"><title>"); p != std::string::npos;
       p = svg.find("fill=\"#d62728\"><title>", p + 1))
    ++red;
  EXPECT_EQ(red, 1u);
  EXPECT_NE(svg.find(">79%</text>"), std::string::npos) << "44 of the best 56";
  EXPECT_NE(svg.find("85% of the best: 47.6"), std::string::npos);
}

TEST(Svg, PairedBarsWriteTheRatioOverTheSecond) {
  const auto svg = report::paired_bar_chart("probe", {"p50", "p99", "p99.9"}, {2, 3, 0},
                                            {3, 60, 120}, "idle", "loaded", "microseconds");
  EXPECT_NE(svg.find(">1.5x</text>"), std::string::npos);
  EXPECT_NE(svg.find(">20x</text>"), std::string::npos);
  EXPECT_NE(svg.find("p99 loaded: 60 microseconds"), std::string::npos);
  // A value that is not positive draws no bar and no ratio.
  EXPECT_EQ(svg.find("p99.9 idle"), std::string::npos);
  EXPECT_NE(svg.find("p99.9 loaded: 120"), std::string::npos);
  EXPECT_EQ(svg.find(">infx<"), std::string::npos);
}

TEST(Svg, SpreadBandUnderTheLine) {
  report::Series s{"h2d", {{1024, 10}, {2048, 12}}, {{8, 11}, {9, 13}}};
  const auto svg = report::line_chart("t", "size", "GB/s", {s}, true, true);
  EXPECT_NE(svg.find("<polygon"), std::string::npos);
  EXPECT_NE(svg.find("lowest to highest part"), std::string::npos);
}

TEST(Svg, PolylineAndHeatCell) {
  const auto x = report::make_scale(1, 8, 0, 70, true);
  const auto y = report::make_scale(0, 1, 100, 0, false);
  const auto line = report::polyline(x, y, {{1, 0}, {8, 0.5}}, "#123456", "qkv<fwd>");
  EXPECT_NE(line.find("points=\"0.0,100.0 70.0,"), std::string::npos) << line;
  EXPECT_NE(line.find("stroke=\"#123456\""), std::string::npos);
  EXPECT_NE(line.find("qkv&lt;fwd&gt;"), std::string::npos);
  const auto good = report::heat_cell(0, 0, 10, 10, "#fde725", "a -> b", false);
  const auto bad = report::heat_cell(0, 0, 10, 10, "#440154", "a -> b", true);
  EXPECT_EQ(good.find("#e00"), std::string::npos);
  EXPECT_NE(bad.find("stroke=\"#e00\""), std::string::npos);
  EXPECT_NE(bad.find("<path"), std::string::npos);
}

// ------------------------------------------------------------------ report

TEST(Report, RunPageIsSelfContainedWithEverySection) {
  auto fleet = make_fleet({.slow_gpu = true}, 3, 2);
  // TP records and a pair matrix with one bad pair.
  for (auto &run : fleet.runs) {
    const auto host = run.manifest["host"].get<std::string>();
    auto r = run.records.front();
    for (int tp : {1, 2, 4}) {
      r.params = {{"tp", tp}, {"op", "qkv.fwd"}, {"model", "gpt3-175b"}, {"dtype", "bf16"}};
      r.metrics["efficiency"] = 0.8 - 0.05 * tp;
      run.records.push_back(r);
    }
    for (const auto &dst : {"node01", "node02", "node03"}) {
      if (host == dst)
        continue;
      auto p = run.records.back();
      p.key = "rdma.write_bw";
      p.params = {{"src", host}, {"dst", dst}, {"size_bytes", 65536}};
      p.metrics = {{"bandwidth_gbits_per_s",
                    host == "node03" && std::string(dst) == "node01" ? 200.0 : 390.0}};
      run.records.push_back(p);
    }
  }
  report::ReportInput in;
  in.title = "fleet <test>";
  in.runs = &fleet;
  in.check = json{
      {"schema", "railgauge.check/1"},
      {"rules", {{"name", "p"}, {"file", "p.yaml"}}},
      {"verdict", "fail"},
      {"summary",
       {{"nodes", 3}, {"nodes_fail", 1}, {"nodes_warn", 0}, {"violations", 1}, {"missing", 0}}},
      {"parts", json::array({{{"host", "node03"},
                              {"label", "gpu1"},
                              {"findings", json::array({{{"rule", "gemm"},
                                                         {"level", "fail"},
                                                         {"missing", false},
                                                         {"detail", ""},
                                                         {"text", "slow"}}})}}})},
      {"drain", json::array({"node03"})}};
  const auto rep = report::build_report(in);
  for (const char *part : {"<h2 id=\"verdict\">", "GEMM efficiency versus tensor parallelism t",
                           "memory: GB/s versus size", "offload: GB/s versus size", "Pair matrices",
                           "<svg", "fleet &lt;test&gt;", "Drain: node03"})
    EXPECT_NE(rep.html.find(part), std::string::npos) << part;
  EXPECT_EQ(rep.html.find("<script"), std::string::npos);
  EXPECT_EQ(rep.html.find("http"), std::string::npos); // nothing fetched, no namespaces needed
  EXPECT_EQ(rep.html.find("src=\"http"), std::string::npos);
  // The bad pair is marked in the heat map and listed in the markdown twin.
  EXPECT_NE(rep.html.find("node03 -&gt; node01: 200 bandwidth_gbits_per_s"), std::string::npos);
  EXPECT_NE(rep.markdown.find("| node03 | node01 | 200 |"), std::string::npos) << rep.markdown;
  EXPECT_NE(rep.markdown.find("| qkv.fwd | 0.75 | 0.7 | 0.6 |"), std::string::npos) << rep.markdown;
  // Deterministic.
  EXPECT_EQ(report::build_report(in).html, rep.html);
}

// The committed H200 HBM sweep: one curve per kernel over size, although each size launched its
// own grid (params.grid_blocks).
TEST(Report, RealHbmSweepIsOneCurvePerKernel) {
  std::vector<std::string> dirs;
  for (const auto &d : railgauge::testing::reference_run_dirs("h200-2026-11-26"))
    if (d.find("/memory-hbm/") != std::string::npos)
      dirs.push_back(d);
  ASSERT_EQ(dirs.size(), 1u);
  const auto runs = analysis::load_runs(dirs);
  report::ReportInput in;
  in.title = "h200";
  in.runs = &runs;
  const auto rep = report::build_report(in);
  EXPECT_EQ(rep.markdown.find("grid_blocks="), std::string::npos) << rep.markdown;
  for (const char *kernel : {"hbm_read", "hbm_write", "hbm_copy", "hbm_triad", "hbm_memcpy_d2d"})
    EXPECT_NE(rep.markdown.find(std::string("| ") + kernel + " | 1 GiB |"), std::string::npos)
        << kernel;
}

// The fabric under load (rdma.incast, rdma.qp_scaling, rdma.latency_under_load) gets its own
// sections, each figure read from the records as the writers put them, and stays out of the
// size-sweep charts (its size_bytes is the bulk stream's message).
TEST(Report, FabricLoadSectionsShowTheUnfairFlowTheEntropyCurveAndTheLoadedTail) {
  const auto fleet = check::testing::make_fabric_fleet(
      {.unfair_flow = true, .latency_blowup = true, .low_entropy = true});
  report::ReportInput in;
  in.title = "fabric";
  in.runs = &fleet;
  const auto rep = report::build_report(in);
  for (const char *part : {"<h2 id=\"incast-fairness\">", "Flow entropy: one stream over more QPs",
                           "<h2 id=\"latency-under-load\">"})
    EXPECT_NE(rep.html.find(part), std::string::npos) << part;
  EXPECT_EQ(rep.html.find("rdma: Gb/s versus size"), std::string::npos);
  EXPECT_EQ(rep.html.find("Latency versus size"), std::string::npos);
  // Receiver node01: node03's 65 Gb/s flow among two of 162.5 is red and its row shaded, the
  // other receivers' rows are not.
  EXPECT_NE(rep.html.find("fill=\"#d62728\"><title>node03 (rank 2): 65 Gb/s"), std::string::npos)
      << rep.html;
  std::size_t shaded = 0;
  for (auto p = rep.html.find("<tr class=\"warn\">"); p != std::string::npos;
       p = rep.html.find("<tr class=\"warn\">", p + 1))
    ++shaded;
  EXPECT_EQ(shaded, 1u);
  EXPECT_NE(rep.markdown.find("| node01 mlx5_0 (rank 0, 1 QP per flow, run 1) | 3 | 390 | 98% | "
                              "0.889 | 65 | 162.5 | 162.5 |"),
            std::string::npos)
      << rep.markdown;
  // The low-entropy curve: 150 Gb/s over 1 QP is 38% of its 391 Gb/s peak.
  EXPECT_NE(rep.markdown.find("| 1 | 150 | 38% |"), std::string::npos) << rep.markdown;
  EXPECT_NE(rep.html.find("rdma.qp_scaling: aggregate Gb/s versus QPs"), std::string::npos);
  // node02's probe: p99 20x its idle figure, drawn idle beside loaded.
  EXPECT_NE(rep.markdown.find("| 3 / 60 / 120 | 1.50x / 20.10x / 24.00x |"), std::string::npos)
      << rep.markdown;
  EXPECT_NE(rep.html.find("probe on node02 mlx5_0 (rank 1, run 2), load bulk, 4 QPs"),
            std::string::npos);
  EXPECT_EQ(report::build_report(in).html, rep.html);
}

// The GEMM charts group as the TP table does (key, model, dtype, seq, micro_batch, layout), with
// every GPU's point of a cell together (their median), and never mix efficiency with TFLOP/s.
TEST(Report, GemmChartsGroupAsTheTpTableAndMedianOverGpus) {
  analysis::RunSet set;
  analysis::LoadedRun run;
  run.dir = "r";
  const auto point = [](int seq, int gpu, int tp, double tflops, std::optional<double> eff) {
    Record r;
    r.run = "r";
    r.host = "h";
    r.key = "gemm.cublaslt";
    r.params = {{"tp", tp},   {"op", "mlp_up.fwd"}, {"model", "gpt3-175b"}, {"dtype", "bf16"},
                {"seq", seq}, {"micro_batch", 1},   {"gpu", gpu},           {"layout", "nt"}};
    r.metrics = {{"tflops", tflops}};
    if (eff)
      r.metrics["efficiency"] = *eff;
    return r;
  };
  for (int gpu : {0, 1, 2})
    for (int tp : {1, 2}) {
      run.records.push_back(point(2048, gpu, tp, 600.0 + gpu, 0.6 + 0.01 * gpu - 0.1 * tp));
      // The seq 4096 sweep lacks an efficiency on one point: its chart is in TFLOP/s.
      run.records.push_back(
          point(4096, gpu, tp, 500.0 + 10 * gpu, gpu == 2 ? std::nullopt : std::optional(0.5)));
    }
  set.runs.push_back(run);
  report::ReportInput in;
  in.title = "t";
  in.runs = &set;
  const auto rep = report::build_report(in);
  const auto chart_2048 = rep.markdown.find(
      "**gemm.cublaslt gpt3-175b bf16 (seq 2048, micro_batch 1, layout nt)** (efficiency");
  const auto chart_4096 = rep.markdown.find(
      "**gemm.cublaslt gpt3-175b bf16 (seq 4096, micro_batch 1, layout nt)** (TFLOP/s)");
  ASSERT_NE(chart_2048, std::string::npos) << rep.markdown;
  ASSERT_NE(chart_4096, std::string::npos) << rep.markdown;
  EXPECT_EQ(rep.markdown.find("gpu 0"), std::string::npos) << "one chart for all GPUs";
  // Medians over the three GPUs: efficiency 0.51 and 0.41 at seq 2048, 510 TFLOP/s at 4096.
  EXPECT_NE(rep.markdown.find("| mlp_up.fwd | 0.51 | 0.41 |", chart_2048), std::string::npos)
      << rep.markdown;
  EXPECT_NE(rep.markdown.find("| mlp_up.fwd | 510 | 510 |", chart_4096), std::string::npos)
      << rep.markdown;
}

// rdma.pair_matrix's one record per matrix: a heat map over the NIC labels with the bad pair
// marked, the bad pairs and the findings as tables; a record of another shape is left out.
TEST(Report, NicPairMatrixRecordIsAHeatMapWithItsFindings) {
  auto fleet = make_fleet({}, 1, 1);
  Record r = fleet.runs[0].records.front();
  r.key = "rdma.pair_matrix";
  r.params = json::object();
  r.metrics = {
      {"endpoints", json::array({{{"endpoint", 0}, {"label", "node1/mlx5_0"}},
                                 {{"endpoint", 1}, {"label", "node2/mlx5_0"}},
                                 {{"endpoint", 2}, {"label", "node3/mlx5_0"}}})},
      {"pairs", json::array({{{"endpoints", {0, 1}}, {"bandwidth_gbits_per_s", 390.0}},
                             {{"endpoints", {0, 2}}, {"bandwidth_gbits_per_s", 180.0}},
                             {{"endpoints", {1, 2}}, {"bandwidth_gbits_per_s", 185.0}},
                             {{"endpoints", {1, 9}}, {"bandwidth_gbits_per_s", 1.0}}})},
      {"bad_pairs", json::array({{{"endpoints", {0, 2}}, {"why", "bandwidth 180 Gb/s < 0.93"}},
                                 {{"endpoints", {1, 2}}, {"why", "bandwidth 185 Gb/s < 0.93"}}})},
      {"findings", json::array({{{"kind", "nic"}, {"text", "node3/mlx5_0: 2 of 2 retests bad"}}})}};
  fleet.runs[0].records.push_back(r);
  Record odd = r;
  odd.metrics = {{"endpoints", 3}, {"pairs", {{"endpoints", "x"}}}};
  fleet.runs[0].records.push_back(odd);
  report::ReportInput in;
  in.title = "matrix";
  in.runs = &fleet;
  const auto rep = report::build_report(in);
  EXPECT_NE(rep.html.find("NIC pair matrices"), std::string::npos);
  EXPECT_NE(rep.html.find("node1/mlx5_0 -&gt; node3/mlx5_0: 180 Gb/s"), std::string::npos)
      << rep.html;
  EXPECT_NE(rep.markdown.find("2 bad pairs, 1 findings"), std::string::npos) << rep.markdown;
  EXPECT_NE(rep.markdown.find("| node1/mlx5_0 <-> node3/mlx5_0 | bandwidth 180 Gb/s < 0.93 |"),
            std::string::npos)
      << rep.markdown;
  EXPECT_NE(rep.markdown.find("| nic | node3/mlx5_0: 2 of 2 retests bad |"), std::string::npos)
      << rep.markdown;
}

TEST(Report, ComparisonPage) {
  const auto a = make_fleet({}, 2, 2);
  const auto b = scaled(make_fleet({}, 2, 2), "offload.h2d", "bandwidth_gbytes_per_s", 0.8);
  const auto c = compare::compare_runs({a, b}, {"ib", "roce"}, {});
  report::ReportInput in;
  in.title = "ib vs roce";
  in.comparison = &c;
  const auto rep = report::build_report(in);
  EXPECT_NE(rep.html.find("Summary per family"), std::string::npos);
  // One size: a bar per point (a line of one dot said nothing).
  EXPECT_NE(rep.html.find("offload.h2d: ratio roce/ib"), std::string::npos);
  EXPECT_NE(rep.markdown.find("| offload | roce vs ib | 0.800 |"), std::string::npos)
      << rep.markdown;
}

// More series over sizes than a chart can tell apart (a fleet's pairs, each swept): their median
// with its band, and the worse ones by name; points of one size each are bars (above).
TEST(Report, ManySweptSeriesAreTheirMedianAndTheWorst) {
  compare::Comparison c;
  c.labels = {"a", "b"};
  c.inputs = {{"a"}, {"b"}};
  for (int pair = 0; pair < 20; ++pair)
    for (const double size : {1048576.0, 8388608.0}) {
      compare::PointComparison p;
      p.key = "rdma.write_bw";
      p.params = {
          {"src", "node01"}, {"dst", fmt::format("node{:02}", pair + 2)}, {"size_bytes", size}};
      p.metric = "metrics.bandwidth_gbits_per_s";
      const double ratio = pair == 7 ? 0.5 : 1.0;
      p.sides = {compare::Side{100, 0.01, 1}, compare::Side{100 * ratio, 0.01, 1}};
      p.not_ok = {"", ""};
      p.ratio = {ratio};
      p.verdict = {pair == 7 ? "worse" : "within noise"};
      c.points.push_back(p);
    }
  report::ReportInput in;
  in.title = "swept";
  in.comparison = &c;
  const auto rep = report::build_report(in);
  EXPECT_NE(rep.html.find("rdma.write_bw: ratio b/a, 20 series"), std::string::npos);
  EXPECT_NE(rep.html.find("median of 20 series, band lowest to highest"), std::string::npos);
  EXPECT_NE(rep.html.find("worse 1: b/a dst=node09 src=node01"), std::string::npos) << rep.html;
}

} // namespace
} // namespace railgauge
