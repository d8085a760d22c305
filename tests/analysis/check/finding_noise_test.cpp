// The noise a finding carries (Finding::noise_rel) from the record it judged: the time samples'
// p10..p90 half-width over their median for a figure they time, none for one they do not, both
// points' for a curve's ratio.
#include <cmath>

#include <gtest/gtest.h>

#include "analysis/check/evaluate.h"
#include "analysis/run_set.h"
#include "tests/analysis/check/check_test_support.h"

namespace railgauge::check {
namespace {

using namespace support;

// A node's bandwidth sweep of two sizes: 20 GB/s at 1 KiB, samples spread 3 %; 10 GB/s at
// 4 KiB, 4 %; each also holding a temperature of 61.37 C that the samples do not time.
analysis::RunSet sweep() {
  auto fleet = make_fleet({}, 1, 1);
  const Record first = fleet.runs[0].records.front(); // a copy: the records grow below
  for (const auto &[size, gbytes_per_s, noise] :
       {std::tuple{1024, 20.0, 0.03}, std::tuple{4096, 10.0, 0.04}}) {
    Record r;
    r.run = first.run;
    r.host = first.host;
    r.key = "memory.sweep";
    r.params = {{"size_bytes", size}};
    const double time_s = size / (gbytes_per_s * 1e9);
    r.metrics = {{"time_s",
                  {{"n", 20},
                   {"median", time_s},
                   {"p10", time_s * (1 - noise)},
                   {"p90", time_s * (1 + noise)}}},
                 {"bandwidth_gbytes_per_s", gbytes_per_s},
                 {"temperature_c", 61.37}};
    fleet.runs[0].records.push_back(r);
  }
  return fleet;
}

const Finding &only_finding(const CheckResult &r, const std::string &rule) {
  const Finding *found = nullptr;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == rule) {
        EXPECT_EQ(found, nullptr) << "a second finding of " << rule;
        found = &f;
      }
  if (!found)
    throw std::runtime_error("no finding of " + rule);
  return *found;
}

TEST(FindingNoise, ACurvesRatioIsAsNoisyAsBothItsPoints) {
  const auto r = evaluate(rules(R"(
  - id: falls
    category: memory
    severity: fail
    select: {key: memory.sweep}
    metric: metrics.bandwidth_gbytes_per_s
    curve: {over: size_bytes, take: largest_over_peak, min_points: 2}
    compare: ">="
    value: 0.8
  - id: largest
    category: memory
    severity: fail
    select: {key: memory.sweep}
    metric: metrics.bandwidth_gbytes_per_s
    curve: {over: size_bytes, take: largest}
    compare: ">="
    value: 15
)"),
                          sweep());
  const auto &ratio = only_finding(r, "falls");
  ASSERT_TRUE(ratio.noise_rel);
  EXPECT_NEAR(*ratio.noise_rel, 0.05, 1e-9); // 3 % and 4 % in quadrature
  // 0.5 with u = 0.025: two digits.
  EXPECT_NE(describe(ratio).find("= 0.50, needs >= 0.8"), std::string::npos) << describe(ratio);
  const auto &largest = only_finding(r, "largest");
  ASSERT_TRUE(largest.noise_rel);
  EXPECT_NEAR(*largest.noise_rel, 0.04, 1e-9);
  EXPECT_NE(describe(largest).find("= 10.0, needs >= 15"), std::string::npos) << describe(largest);
}

TEST(FindingNoise, AFigureTheSamplesDoNotTimeHasNoNoise) {
  const auto r = evaluate(rules(R"(
  - id: hot
    category: health
    severity: fail
    select: {key: memory.sweep, params: {size_bytes: 1024}}
    metric: metrics.temperature_c
    compare: "<="
    value: 60
)"),
                          sweep());
  const auto &hot = only_finding(r, "hot");
  EXPECT_FALSE(hot.noise_rel);
  EXPECT_NE(describe(hot).find("= 61.37, needs <= 60"), std::string::npos) << describe(hot);
}

// A floor is printed as the rule states it, whatever the value's noise: a burn-in profile's
// HBM floor of 3932.1 GB/s read "needs >= 3932" before.
TEST(FindingNoise, ARulesFloorReadsAsTheRuleStatesIt) {
  const auto r = evaluate(rules(R"(
  - id: hbm-floor
    category: memory
    severity: fail
    select: {key: memory.sweep, params: {size_bytes: 4096}}
    metric: metrics.bandwidth_gbytes_per_s
    compare: ">="
    value: 3932.1
)"),
                          sweep());
  const auto &low = only_finding(r, "hbm-floor");
  EXPECT_EQ(low.bound, ">= 3932.1");
  EXPECT_NE(describe(low).find("= 10.0, needs >= 3932.1"), std::string::npos) << describe(low);
}

} // namespace
} // namespace railgauge::check
