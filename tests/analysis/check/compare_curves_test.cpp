// compare over size curves: a size only one input measured read off the other's curve, never
// beyond it, and a size that failed kept as that failure (compare::compare_runs on sweeps made
// here, one record per size).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/compare/compare.h"
#include "analysis/report/report.h"
#include "analysis/run_set.h"
#include "harness/error.h"

namespace railgauge {
namespace {

// One run of `key`'s busbw at each size, with a repetition spread of +-2% (time_s p10..p90).
analysis::RunSet size_sweep(const std::vector<std::pair<std::int64_t, double>> &busbw_at) {
  analysis::LoadedRun run;
  run.dir = "sweep";
  for (const auto &[size, busbw] : busbw_at) {
    Record r;
    r.key = "collectives.nccl_all_reduce";
    r.status = Status::ok;
    r.params = {{"size_bytes", size}, {"dtype", "float32"}};
    r.metrics = {{"busbw_gbytes_per_s", busbw},
                 {"time_s", {{"median", 1.0}, {"p10", 0.98}, {"p90", 1.02}}}};
    run.records.push_back(r);
  }
  analysis::RunSet set;
  set.runs.push_back(run);
  return set;
}

const compare::PointComparison &at_size(const compare::Comparison &c, std::int64_t size) {
  for (const auto &p : c.points)
    if (p.params.at("size_bytes") == size)
      return p;
  throw std::runtime_error("no point of size " + std::to_string(size));
}

TEST(Compare, SizesOneInputLacksAreReadOffItsCurveNeverBeyondIt) {
  // a swept 1, 4 and 16 MiB; b 2, 8 and 32 MiB at half a's rate (nccl-tests -f 4 from two -b).
  const auto a = size_sweep({{1 << 20, 100}, {4 << 20, 200}, {16 << 20, 300}});
  const auto b = size_sweep({{2 << 20, 75}, {8 << 20, 125}, {32 << 20, 160}});
  const auto c = compare::compare_runs({a, b}, {"a", "b"}, {});
  EXPECT_EQ(c.matched, 0);
  // 2 MiB is halfway between 1 and 4 MiB in log size: a's 150 there.
  const auto &two = at_size(c, 2 << 20);
  ASSERT_EQ(two.interpolated.size(), 2u);
  ASSERT_TRUE(two.interpolated[0]);
  EXPECT_NEAR(two.interpolated[0]->value, 150, 1e-9);
  EXPECT_NEAR(*two.interpolated[0]->noise, 0.02, 1e-12);
  EXPECT_NEAR(*two.ratio[0], 0.5, 1e-9);
  EXPECT_EQ(two.verdict[0], "worse");
  EXPECT_EQ(compare::value_text(two, 0), "≈150");
  // a's 4 MiB against b's curve between 2 and 8 MiB: 100.
  const auto &four = at_size(c, 4 << 20);
  EXPECT_NEAR(four.interpolated[1]->value, 100, 1e-9);
  EXPECT_NEAR(*four.ratio[0], 0.5, 1e-9);
  // Never extrapolated: b's 32 MiB is past a's largest, a's 1 MiB below b's smallest.
  EXPECT_EQ(at_size(c, 32 << 20).verdict[0], "only in b");
  EXPECT_EQ(at_size(c, 1 << 20).verdict[0], "only in a");
  EXPECT_EQ(compare::value_text(at_size(c, 1 << 20), 1), "-");
  int worse = 0;
  for (const auto &s : c.families)
    worse += s.worse;
  EXPECT_EQ(worse, 4); // 2, 4, 8 and 16 MiB
  EXPECT_NE(c.hint.find("4 comparison(s) of a size that only one input measured"),
            std::string::npos)
      << c.hint;
  const auto j = compare::to_json(c);
  EXPECT_EQ(compare::to_json(compare::comparison_from_json(j)), j);
  EXPECT_NE(compare::render_table(c).find("≈150"), std::string::npos);
  // The report page says so too, above its tables, as the terminal's table does.
  report::ReportInput in;
  in.comparison = &c;
  const auto page = report::build_report(in);
  EXPECT_NE(page.html.find("4 comparison(s) of a size that only one input measured"),
            std::string::npos);
  EXPECT_NE(page.html.find("≈150"), std::string::npos);
  // The same sizes on both sides: nothing to read off a curve.
  const auto same = compare::compare_runs({a, a}, {"a", "a2"}, {});
  for (const auto &p : same.points)
    EXPECT_TRUE(p.interpolated.empty());
  EXPECT_FALSE(compare::to_json(same)["points"][0].contains("interpolated"));
}

TEST(Compare, NoSizeIsReadOffACurveAcrossAWideGap) {
  // b kept 1 MiB and 1 GiB of a's doubling sweep, with a's own figures there: a line between
  // them read every size in between, and those b never measured were judged "worse".
  std::vector<std::pair<std::int64_t, double>> all, ends;
  for (std::int64_t size = 1 << 20; size <= (1LL << 30); size *= 2) {
    const double busbw = size < (64 << 20) ? 50 : 400; // a knee at 64 MiB
    all.emplace_back(size, busbw);
    if (size == (1 << 20) || size == (1LL << 30))
      ends.emplace_back(size, busbw);
  }
  const auto c = compare::compare_runs({size_sweep(all), size_sweep(ends)}, {"a", "b"}, {});
  EXPECT_EQ(at_size(c, 1 << 20).verdict[0], "within noise");
  EXPECT_EQ(at_size(c, 8 << 20).verdict[0], "only in a");
  EXPECT_TRUE(at_size(c, 8 << 20).interpolated.empty());
  int worse = 0;
  for (const auto &s : c.families)
    worse += s.worse;
  EXPECT_EQ(worse, 0);

  // A -f 4 sweep on 80 ranks steps 4.00004x (nccl-tests rounds a size down to whole elements
  // per rank): its sizes are still read between.
  const auto f4 = compare::compare_runs(
      {size_sweep({{33553920, 100}, {67107840, 100}, {134216960, 100}}),
       size_sweep({{33553920, 100}, {134216960, 100}})},
      {"a", "b"}, {});
  ASSERT_FALSE(at_size(f4, 67107840).interpolated.empty());
  EXPECT_EQ(at_size(f4, 67107840).verdict[0], "within noise");
}

// A size whose record failed in the candidate is that failure, never a value read off the
// candidate's curve around it: the failed 4 MiB once read 0.75 of a's there, "worse" among
// measured figures, and a run that had failed could read "within noise". A failure of a size
// the baseline never swept is kept too. And a comparison file of before `read_off_curve` was
// written has it counted again from its points.
TEST(Compare, AFailedSizeIsAFailureNotAGapInACurve) {
  const auto a = size_sweep({{1 << 20, 100}, {4 << 20, 200}, {16 << 20, 300}});
  auto b = size_sweep({{1 << 20, 100}, {4 << 20, 200}, {16 << 20, 300}, {64 << 20, 310}});
  for (auto &r : b.runs[0].records)
    if (r.params.at("size_bytes") == (4 << 20) || r.params.at("size_bytes") == (64 << 20)) {
      r.status = Status::failed;
      r.reason = "data check: 3 elements differ";
    }
  const auto c = compare::compare_runs({a, b}, {"a", "b"}, {});
  const auto &four = at_size(c, 4 << 20);
  EXPECT_TRUE(four.interpolated.empty() || !four.interpolated[1]);
  EXPECT_FALSE(four.ratio[0]);
  EXPECT_EQ(four.verdict[0], "failed in b");
  EXPECT_EQ(at_size(c, 64 << 20).verdict[0], "failed in b"); // a never swept it
  ASSERT_EQ(c.families.size(), 1u);
  EXPECT_EQ(c.families[0].worse, 2);
  EXPECT_EQ(c.families[0].failed, 2);
  EXPECT_EQ(c.families[0].points, 2); // 1 and 16 MiB, the ratios of the geometric mean
  EXPECT_EQ(c.families[0].read_off_curve, 0);
  EXPECT_NE(compare::render_table(c).find("over 2 points (0 better, 0 worse, 2 within noise, 0 "
                                          "single samples within 10 %); 2 more failed in b"),
            std::string::npos)
      << compare::render_table(c);
  EXPECT_EQ(c.hint, ""); // a failure is the input's record of the point: matched

  // A failure at a size within 0.1 % of the baseline's (nccl-tests rounds sizes per rank) is
  // carried into the merged point, not dropped and filled off the curve.
  auto near = size_sweep({{1 << 20, 100}, {(4 << 20) + 64, 200}, {16 << 20, 300}});
  for (auto &r : near.runs[0].records)
    if (r.params.at("size_bytes") == (4 << 20) + 64)
      r.status = Status::failed;
  const auto merged = compare::compare_runs({a, near}, {"a", "b"}, {});
  EXPECT_EQ(at_size(merged, 4 << 20).verdict[0], "failed in b");
  EXPECT_EQ(merged.families[0].read_off_curve, 0);

  // The baseline's failure where the candidate has nothing is the baseline's, not "in neither";
  // and a candidate that failed everywhere has no mean to print, not a parity of 1.000.
  auto failed_a = a;
  for (auto &r : failed_a.runs[0].records)
    r.status = Status::failed;
  const auto gone = compare::compare_runs({failed_a, size_sweep({{1 << 20, 100}, {16 << 20, 300}})},
                                          {"a", "b"}, {});
  EXPECT_EQ(at_size(gone, 4 << 20).verdict[0], "failed in a");
  const auto all_failed = compare::compare_runs({a, failed_a}, {"a", "b"}, {});
  ASSERT_EQ(all_failed.families.size(), 1u);
  EXPECT_EQ(compare::speedup_text(all_failed.families[0]), "-");
  EXPECT_EQ(all_failed.families[0].failed, 3);
  EXPECT_EQ(all_failed.hint, "") << all_failed.hint; // the same keys, not "different keys"

  const auto swept = compare::compare_runs(
      {a, size_sweep({{2 << 20, 75}, {8 << 20, 125}, {32 << 20, 160}})}, {"a", "b"}, {});
  auto old = compare::to_json(swept);
  ASSERT_EQ(old["families"][0]["read_off_curve"], 4);
  for (auto &s : old["families"])
    s.erase("read_off_curve");
  for (auto &s : old["keys"])
    s.erase("read_off_curve");
  const auto read = compare::comparison_from_json(old);
  EXPECT_EQ(read.families.at(0).read_off_curve, 4);
  EXPECT_EQ(read.keys.at(0).read_off_curve, 4);
}

// A size where one part failed is no point of its input's curve: the other part's figure there
// (1,000, bogus beside 100 around it) once read 4 MiB off the curve at 4.7 x the baseline,
// "better". The failure's comparison is no comparison read off a curve either, and a file of
// before `failed` was written has it counted from its verdicts.
TEST(Compare, APartThatFailedShapesNoCurve) {
  const auto a = size_sweep({{1 << 20, 100}, {2 << 20, 100}, {3 << 20, 100}, {4 << 20, 100}});
  auto b = size_sweep({{1 << 20, 100}, {3 << 20, 1000}, {3 << 20, 1000}, {4 << 20, 100}});
  b.runs[0].records[2].status = Status::failed; // one of 3 MiB's two parts
  const auto c = compare::compare_runs({a, b}, {"a", "b"}, {});
  const auto &two = at_size(c, 2 << 20);
  ASSERT_TRUE(two.ratio[0]);
  EXPECT_NEAR(*two.ratio[0], 1.0, 1e-9); // read between 1 and 4 MiB, both 100
  EXPECT_EQ(two.verdict[0], "within noise");
  EXPECT_EQ(at_size(c, 3 << 20).verdict[0], "failed in b");

  // The candidate failed where only it swept: the baseline read off its curve there is no
  // comparison made, so no warning counts one.
  auto failed_four = size_sweep({{1 << 20, 100}, {4 << 20, 100}, {16 << 20, 100}});
  failed_four.runs[0].records[1].status = Status::failed;
  const auto lone = compare::compare_runs(
      {size_sweep({{1 << 20, 100}, {16 << 20, 100}}), failed_four}, {"a", "b"}, {});
  EXPECT_EQ(at_size(lone, 4 << 20).verdict[0], "failed in b");
  EXPECT_EQ(lone.hint.find("read the other input's value off its curve"), std::string::npos)
      << lone.hint;

  auto old = compare::to_json(c);
  for (auto &s : old["families"])
    s.erase("failed");
  for (auto &s : old["keys"])
    s.erase("failed");
  EXPECT_EQ(compare::comparison_from_json(old).families.at(0).failed, 1);
  old["families"][0]["failed"] = 5; // more failed than worse: a file no compare writes
  EXPECT_THROW(compare::comparison_from_json(old), InputError);
}

} // namespace
} // namespace railgauge
