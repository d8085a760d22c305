// How compare judges and sums up a point: time inverted, families' geometric means, a total
// loss, a point that failed (compare::compare_runs on synthetic fleets, synthetic_fleet.h).
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "analysis/compare/compare.h"
#include "analysis/compare/compared_metric.h"
#include "analysis/compare/listed_points.h"
#include "synthetic_fleet.h"

namespace railgauge {
namespace {

using check::testing::make_fleet;
using check::testing::scaled;

TEST(Compare, TimeIsInvertedAndFamiliesSummarised) {
  const auto a = make_fleet({}, 2, 2);
  auto b = scaled(make_fleet({}, 2, 2), "offload.h2d", "bandwidth_gbytes_per_s", 0.5);
  compare::CompareOptions o;
  o.metric = "metrics.time_s.median";
  const auto slower_time = compare::compare_runs({a, a}, {"x", "y"}, o);
  for (const auto &p : slower_time.points)
    EXPECT_FALSE(p.higher_is_better);
  const auto c = compare::compare_runs({a, b}, {"a", "b"}, {});
  bool found = false;
  for (const auto &s : c.families)
    if (s.group == "offload") {
      found = true;
      EXPECT_NEAR(s.geomean_speedup, 0.5, 1e-9);
      EXPECT_EQ(s.worse, 1);
    }
  EXPECT_TRUE(found);
}

// A rate of 0 against the baseline's (a copy that moved nothing) is a total loss: the family's
// geometric mean is 0, not the 1.000 of a mean over the points left when it is dropped.
TEST(Compare, ATotalLossMakesItsFamilysMeanZero) {
  const auto a = make_fleet({}, 2, 2);
  const auto b = scaled(make_fleet({}, 2, 2), "offload.h2d", "bandwidth_gbytes_per_s", 0.0);
  const auto c = compare::compare_runs({a, b}, {"a", "b"}, {});
  bool found = false;
  for (const auto &s : c.families)
    if (s.group == "offload") {
      found = true;
      EXPECT_EQ(s.geomean_speedup, 0.0);
      EXPECT_EQ(s.worse, 1);
    }
  EXPECT_TRUE(found);
}

// Two nodes a side, each record one sample (an nccl-tests log per node, no time summary): their
// min to max is no spread. Two healthy nodes at 476.25 and 476.37 GB/s made a band of +-0.0 %,
// and 476.45 against them read "better"; the sides are judged as single samples.
TEST(Compare, AFewSingleSamplesHaveNoSpreadToJudgeBy) {
  const auto one_sample_each = [](std::vector<double> gbytes_per_s) {
    auto set = make_fleet({}, 2, 1);
    std::size_t next = 0;
    for (auto &run : set.runs)
      for (auto &r : run.records)
        if (r.key == "offload.h2d") {
          r.metrics.erase("time_s");
          r.metrics["bandwidth_gbytes_per_s"] = gbytes_per_s[next++ % gbytes_per_s.size()];
        }
    return set;
  };
  const auto c = compare::compare_runs(
      {one_sample_each({476.25, 476.37}), one_sample_each({476.45, 476.37})}, {"a", "b"}, {});
  int judged = 0;
  for (const auto &p : c.points)
    if (p.key == "offload.h2d" && p.ratio[0]) {
      ++judged;
      EXPECT_EQ(p.verdict[0], "single sample") << *p.ratio[0];
    }
  EXPECT_GT(judged, 0);
}

// A point that ran in the new input and failed there (a GPU whose burn found wrong results) has
// no figure: it is said to have failed and counted worse, not listed as absent from that input.
TEST(Compare, APointThatFailedIsSaidToHaveFailedAndCountsWorse) {
  const auto a = make_fleet({}, 1, 1);
  auto b = make_fleet({}, 1, 1);
  for (auto &r : b.runs[0].records)
    if (r.key == "offload.h2d") {
      r.status = Status::failed;
      r.reason = "data check: 17 elements differ";
    }
  const auto c = compare::compare_runs({a, b}, {"old", "new"}, {});
  int failed = 0;
  for (const auto &p : c.points)
    if (p.key == "offload.h2d") {
      EXPECT_EQ(p.verdict[0], "failed in new");
      ++failed;
    }
  EXPECT_GT(failed, 0);
  for (const auto &s : c.families) {
    if (s.group == "offload")
      EXPECT_EQ(s.worse, failed);
  }
}

// One GPU's failed record among a fleet's pooled figures fails the point: the other GPUs' median
// once read "within noise" and the failure was nowhere in the comparison.
TEST(Compare, OneGpusFailureAmongPooledFiguresFailsThePoint) {
  const auto a = make_fleet({}, 2, 8);
  const auto b = make_fleet({.failed_record = true}, 2, 8); // node02 gpu0's HBM copy
  const auto c = compare::compare_runs({a, b}, {"old", "new"}, {});
  int failed = 0;
  for (const auto &p : c.points)
    if (p.key.starts_with("memory.hbm")) {
      EXPECT_EQ(p.verdict[0], "failed in new") << p.params.dump();
      ASSERT_TRUE(p.sides[1]); // the other 15 GPUs' figures are still shown
      ++failed;
    }
  EXPECT_EQ(failed, 1);
  for (const auto &s : c.families) {
    if (s.group == "memory")
      EXPECT_EQ(s.failed, 1);
  }
}

// One slow node among a fleet's is not the fleet's noise: every node 9 % slower in the new input
// is worse, beside the one node of the old input at 0.8 (min to max over the records once made
// that node the noise, +-10 %, and the drop read "within noise"). check names the slow node.
TEST(Compare, OneSlowNodeOfAFleetDoesNotHideTheWholeFleetsDrop) {
  auto a = make_fleet({}, 40, 1);
  for (auto &r : a.runs[7].records)
    if (r.key == "offload.h2d")
      r.metrics["bandwidth_gbytes_per_s"] = r.metrics["bandwidth_gbytes_per_s"].get<double>() * 0.8;
  const auto b = scaled(make_fleet({}, 40, 1), "offload.h2d", "bandwidth_gbytes_per_s", 0.91);
  const auto c = compare::compare_runs({a, b}, {"old", "new"}, {});
  int worse = 0;
  for (const auto &p : c.points)
    if (p.key == "offload.h2d") {
      EXPECT_EQ(p.verdict[0], "worse") << p.params.dump();
      ++worse;
    }
  EXPECT_GT(worse, 0);
}

// A fleet of 40 one-GPU nodes whose offload.h2d figures spread as healthy nodes do (about
// 1.5 % sd, a fixed pattern per `shift`), every node times `factor`.
analysis::RunSet spread_fleet(int shift, double factor) {
  auto fleet = make_fleet({}, 40, 1);
  for (std::size_t n = 0; n < fleet.runs.size(); ++n)
    for (auto &r : fleet.runs[n].records)
      if (r.key == "offload.h2d") {
        const double z = static_cast<double>((n * 7 + shift) % 40) / 39.0 * 2 - 1; // -1..1
        auto &bw = r.metrics["bandwidth_gbytes_per_s"];
        bw = bw.get<double>() * factor * (1 + 0.026 * z);
      }
  return fleet;
}

// What a fleet's compare judges is its median: a 3 % drop of every node is worse, beyond the
// median's uncertainty, though within the nodes' own spread (it once read "within noise" at
// +-3.7 % over 250 nodes); the same fleet measured again (another order of the same spread) is
// within noise.
TEST(Compare, AFleetWideDropBeyondTheMediansNoiseIsWorse) {
  const auto before = spread_fleet(0, 1.0);
  for (const auto &[after, want] : {std::pair{spread_fleet(3, 0.97), "worse"},
                                    std::pair{spread_fleet(3, 1.0), "within noise"}}) {
    const auto c = compare::compare_runs({before, after}, {"before", "after"}, {});
    int seen = 0;
    for (const auto &p : c.points)
      if (p.key == "offload.h2d") {
        EXPECT_EQ(p.verdict[0], want) << p.params.dump();
        ++seen;
      }
    EXPECT_GT(seen, 0);
  }
}

// A key of more points than are listed shows its worst first: failed in the candidate, then a
// rate of 0, then missing from the candidate, then the lowest speedup (a time's ratio
// inverted); a point the baseline failed or only the candidate holds says nothing against it.
// A rate of 0 once read as no ratio at all and was listed among the best.
TEST(Compare, AKeysWorstPointsAreListedFirstAndTheRestCounted) {
  compare::Comparison c;
  c.labels = {"a", "b"};
  const auto point = [&](const char *name, std::optional<double> ratio, const std::string &verdict,
                         bool higher_is_better = true) {
    compare::PointComparison p;
    p.key = "rdma.write_bw";
    p.params = {{"pair", name}};
    p.higher_is_better = higher_is_better;
    p.ratio = {ratio};
    p.verdict = {verdict};
    c.points.push_back(p);
  };
  point("fine", 1.0, "within noise");
  point("baseline failed", std::nullopt, "failed in a");
  point("slower time", 1.25, "worse", false);
  point("zero", 0.0, "worse");
  point("only candidate", std::nullopt, "only in b");
  point("half", 0.5, "worse");
  point("missing", std::nullopt, "only in a");
  point("failed", std::nullopt, "failed in b");
  const auto listed = compare::listed_points(c, 6);
  std::vector<std::string> order;
  for (const auto *p : listed.points)
    order.push_back(p->params.at("pair"));
  EXPECT_EQ(order,
            (std::vector<std::string>{"failed", "zero", "missing", "half", "slower time", "fine"}));
  ASSERT_EQ(listed.notes.size(), 1u);
  EXPECT_EQ(listed.notes[0], "rdma.write_bw: the 6 worst of 8 points are listed; the other 2 "
                             "read 1 failed in a, 1 only in b");
  EXPECT_EQ(compare::listed_points(c, 0).points.size(), 8u); // --all-points
  // A label is any text: the baseline's own failure is never read as the candidate's.
  compare::Comparison named = c;
  named.labels = {"old in b", "b"};
  named.points[1].verdict = {"failed in old in b"};
  EXPECT_LT(compare::badness(named.points[1], named.labels), 1.0);
  EXPECT_GT(compare::badness(named.points[7], named.labels), 1e8); // "failed in b"
  EXPECT_EQ(compare::listed_points(c, 8).notes.size(), 0u);
  // Against two candidates, the rest are counted per candidate.
  c.labels = {"a", "b", "c"};
  for (auto &p : c.points) {
    p.ratio.push_back(1.0);
    p.verdict.push_back("within noise");
  }
  EXPECT_EQ(compare::listed_points(c, 6).notes.at(0),
            "rdma.write_bw: the 6 worst of 8 points are listed; the other 2 read b against a: 1 "
            "failed in a, 1 only in b; c against a: 2 within noise");
}

// Two clusters' fleets (hosts unmatched, so the points pool every node): a third of the second's
// nodes at 0.6x keep its median, and compare once called it "within noise". Its slow tail is
// compared now, in rates and in times, and a fleet too small for a tail, or one that only
// wobbles, is judged by its median as before.
TEST(Compare, AFleetWhoseSlowTailFellIsWorseInItsTail) {
  const auto slow_third = [](int nodes, double factor) {
    auto set = make_fleet({}, nodes, 1);
    for (std::size_t n = 0; n < set.runs.size(); ++n)
      for (auto &r : set.runs[n].records)
        if (r.key == "offload.h2d") {
          const double f = 3 * n < set.runs.size() ? factor : 1.0 + 0.001 * (n % 5);
          r.metrics["bandwidth_gbytes_per_s"] =
              r.metrics["bandwidth_gbytes_per_s"].get<double>() * f;
          for (auto &[stat, v] : r.metrics["time_s"].items())
            if (stat != "n" && stat != "stdev")
              v = v.get<double>() / f;
        }
    return set;
  };
  const auto verdicts = [](const compare::Comparison &c) {
    std::vector<std::string> out;
    for (const auto &p : c.points)
      if (p.key == "offload.h2d")
        out.push_back(p.verdict.at(0));
    return out;
  };
  const auto healthy = slow_third(40, 1.0);
  const auto c = compare::compare_runs({healthy, slow_third(40, 0.6)}, {"ib", "roce"}, {});
  ASSERT_FALSE(verdicts(c).empty());
  for (const auto &v : verdicts(c))
    EXPECT_EQ(v, "worse in its tail (p10 0.60x)");
  compare::CompareOptions time;
  time.metric = "metrics.time_s.median";
  for (const auto &v :
       verdicts(compare::compare_runs({healthy, slow_third(40, 0.6)}, {"ib", "roce"}, time)))
    EXPECT_EQ(v, "worse in its tail (p90 0.60x)");
  // The other way, the second fleet's tail rose.
  for (const auto &v :
       verdicts(compare::compare_runs({slow_third(40, 0.6), healthy}, {"a", "b"}, {})))
    EXPECT_TRUE(v.starts_with("better in its tail (p10 1.66x)")) << v; // 1 / 0.6, less the wobble
  for (const auto &v :
       verdicts(compare::compare_runs({healthy, slow_third(40, 0.98)}, {"a", "b"}, {})))
    EXPECT_EQ(v, "within noise");
  // 15 nodes a side: no tail, the median decides.
  for (const auto &v :
       verdicts(compare::compare_runs({slow_third(15, 1.0), slow_third(15, 0.6)}, {"a", "b"}, {})))
    EXPECT_EQ(v.find("tail"), std::string::npos) << v;
}

// Every rank of a lockstep collective writes the job's one figure: 16 ranks' copies were 16
// samples, the median's band 2.5 times narrower than 2 ranks' of the same data, and a -8 %
// change inside the noise read "worse". A run's copies of one value count once.
TEST(Compare, RanksCopiesOfOneFigureCountOnce) {
  const auto ranks_of = [](int ranks, double factor) {
    auto set = make_fleet({}, 1, 1);
    auto &records = set.runs[0].records;
    const auto h2d = std::find_if(records.begin(), records.end(),
                                  [](const Record &r) { return r.key == "offload.h2d"; });
    Record one = *h2d;
    one.metrics["bandwidth_gbytes_per_s"] =
        one.metrics["bandwidth_gbytes_per_s"].get<double>() * factor;
    records.erase(h2d);
    for (int rank = 0; rank < ranks; ++rank) {
      one.rank = rank;
      records.push_back(one);
    }
    return set;
  };
  const auto side_of = [](const compare::Comparison &c, std::size_t input) {
    for (const auto &p : c.points)
      if (p.key == "offload.h2d" && p.sides.size() > input && p.sides[input] && !p.verdict.empty())
        return std::make_pair(*p.sides[input], p.verdict.back());
    ADD_FAILURE() << "no offload.h2d point";
    return std::make_pair(compare::Side{}, std::string());
  };
  const auto two = compare::compare_runs({ranks_of(2, 1), ranks_of(2, 0.92)}, {"a", "b"}, {});
  const auto sixteen = compare::compare_runs({ranks_of(16, 1), ranks_of(16, 0.92)}, {"a", "b"}, {});
  const auto [two_side, two_verdict] = side_of(two, 0);
  const auto [sixteen_side, sixteen_verdict] = side_of(sixteen, 0);
  EXPECT_EQ(sixteen_side.records, 1);
  EXPECT_EQ(sixteen_side.noise, two_side.noise);
  EXPECT_EQ(sixteen_verdict, two_verdict);
}

TEST(Compare, ErrorsSlowdownsAndThrottledSharesAreWorseWhenHigher) {
  for (const char *metric :
       {"metrics.worst_error_over_bound", "metrics.collective_slowdown", "metrics.gemm_slowdown",
        "metrics.loaded_over_idle.p99", "metrics.time_ratio_to_library",
        "metrics.telemetry.during.reason_fraction.hw_slowdown", "metrics.counters.RetransSegs",
        "metrics.out_of_sequence", "metrics.rx_dropped", "metrics.temperature_c.max"})
    EXPECT_TRUE(compare::lower_is_better(metric)) << metric;
  for (const char *metric : {"metrics.busbw_gbytes_per_s", "metrics.tflops",
                             "metrics.bandwidth_gbits_per_s", "metrics.efficiency"})
    EXPECT_FALSE(compare::lower_is_better(metric)) << metric;
}

// A fabric load's receiver (aggregate_gbits_per_s alone) and nvbandwidth's latency testcase
// (latency_s) had no default figure: left out without a word, a halved aggregate and a tripled
// latency read as parity. Both are compared now; a point still without one is named.
TEST(Compare, PointsWithoutADefaultFigureAreComparedOrNamed) {
  const auto with = [](double factor) {
    auto set = make_fleet({}, 1, 1);
    Record r = set.runs[0].records.front();
    r.metrics = {{"aggregate_gbits_per_s", 100 * factor}};
    r.key = "rdma.incast";
    r.params = {{"role", "receiver"}};
    set.runs[0].records.push_back(r);
    r.metrics = {{"latency_s", 6.5e-7 / factor}};
    r.key = "import.nvbandwidth.host_device_latency_sm";
    r.params = nlohmann::json::object();
    set.runs[0].records.push_back(r);
    r.metrics = {{"flow_entropy", 3.0}};
    r.key = "rdma.latency_under_load";
    r.params = {{"role", "loader"}};
    set.runs[0].records.push_back(r);
    return set;
  };
  const auto c = compare::compare_runs({with(1), with(0.5)}, {"a", "b"}, {});
  std::map<std::string, std::string> verdicts;
  for (const auto &p : c.points)
    if (!p.verdict.empty())
      verdicts[p.key] = p.verdict.back();
  EXPECT_TRUE(verdicts["rdma.incast"].starts_with("worse")) << verdicts["rdma.incast"];
  EXPECT_TRUE(verdicts["import.nvbandwidth.host_device_latency_sm"].starts_with("worse"));
  EXPECT_EQ(verdicts.count("rdma.latency_under_load"), 0u);
  EXPECT_NE(c.hint.find("not compared: points with no figure compare reads by default, "
                        "rdma.latency_under_load (1)"),
            std::string::npos)
      << c.hint;
}

} // namespace
} // namespace railgauge
