// The fabric-under-load rules of both H100 profiles on synthetic fleets
// (synthetic_fabric_load.h): a healthy fleet passes them, and one unfair flow, one latency
// blow-up, a stream that needs many QPs and a PFC storm each get their verdict on the NIC
// that shows them.
#include <gtest/gtest.h>

#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "railgauge/config.h"
#include "synthetic_fabric_load.h"

namespace railgauge::check {
namespace {

using testing::FabricFaults;
using testing::make_fabric_fleet;

const std::string kSource = RAILGAUGE_SOURCE_DIR;

RuleSet profile(const char *name) {
  return load_rules_file(kSource + "/results/rules/" + name + ".yaml");
}

// "host/part" of every part with a violation (not a missing value) of `rule`, and its level.
std::map<std::string, Level> violators(const CheckResult &r, const std::string &rule) {
  std::map<std::string, Level> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == rule && !f.missing)
        out[p.key.host + "/" + p.label] = f.level;
  return out;
}

const std::vector<std::string> kFabricRules = {"incast-aggregate-floor",
                                               "incast-flow-vs-fleet",
                                               "incast-fairness",
                                               "latency-under-load-vs-fleet",
                                               "latency-under-load-p50-vs-fleet",
                                               "qp-entropy-curve"};

TEST(FabricLoadRules, AHealthyFleetPassesEveryFabricRuleOfBothProfiles) {
  for (const char *name : {"h100-sxm-roce", "h100-sxm-ib"}) {
    const auto r = evaluate(profile(name), make_fabric_fleet({}));
    auto rules = kFabricRules;
    rules.push_back(std::string(name) == "h100-sxm-roce" ? "pfc-pause-storm"
                                                         : "incast-xmit-wait-vs-fleet");
    for (const auto &rule : rules) {
      EXPECT_TRUE(violators(r, rule).empty()) << name << " " << rule;
      // Judged, not missing: every rule found its figures and a large enough fleet. Only the
      // nodes that hold no end of a point say so (rank 0's host alone holds qp_scaling's curve).
      for (const auto &p : r.parts)
        for (const auto &f : p.findings)
          if (f.rule_id == rule && rule != "incast-xmit-wait-vs-fleet" &&
              !(f.missing && f.level == Level::info &&
                f.detail.find("on this node") != std::string::npos))
            ADD_FAILURE() << name << " " << rule << " on " << p.key.host << ": " << f.what << " "
                          << f.detail;
    }
  }
}

TEST(FabricLoadRules, OneUnfairFlowFailsItsSenderAndWarnsOnItsReceiversFairness) {
  for (const char *name : {"h100-sxm-roce", "h100-sxm-ib"}) {
    const auto r = evaluate(profile(name), make_fabric_fleet({.unfair_flow = true}));
    EXPECT_EQ(violators(r, "incast-flow-vs-fleet"),
              (std::map<std::string, Level>{{"node03/mlx5_0", Level::fail}}))
        << name;
    EXPECT_EQ(violators(r, "incast-fairness"),
              (std::map<std::string, Level>{{"node01/mlx5_0", Level::warn}}))
        << name;
    // The others took up the slack: the receiver still takes 390 Gb/s.
    EXPECT_TRUE(violators(r, "incast-aggregate-floor").empty()) << name;
  }
}

TEST(FabricLoadRules, ALatencyBlowUpUnderLoadFailsThatProbe) {
  for (const char *name : {"h100-sxm-roce", "h100-sxm-ib"}) {
    const auto r = evaluate(profile(name), make_fabric_fleet({.latency_blowup = true}));
    EXPECT_EQ(violators(r, "latency-under-load-vs-fleet"),
              (std::map<std::string, Level>{{"node02/mlx5_0", Level::fail}}))
        << name;
    EXPECT_TRUE(violators(r, "incast-flow-vs-fleet").empty()) << name;
  }
}

TEST(FabricLoadRules, AStreamThatNeedsManyQpsWarnsAndAFlatOneDoesNot) {
  const auto r = evaluate(profile("h100-sxm-roce"), make_fabric_fleet({.low_entropy = true}));
  const auto v = violators(r, "qp-entropy-curve");
  EXPECT_EQ(v, (std::map<std::string, Level>{{"node01/mlx5_0", Level::warn}}));
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == "qp-entropy-curve" && !f.missing) {
        // 210 over 2 QPs against 391 over 64: 0.537
        EXPECT_NEAR(f.value.get<double>(), 210.0 / 391, 1e-9);
        EXPECT_NE(f.detail.find("against the peak"), std::string::npos) << f.detail;
      }
}

TEST(FabricLoadRules, APfcStormFailsTheRoceReceiverAndCnpsOfAnIncastDoNotWarn) {
  const auto r = evaluate(profile("h100-sxm-roce"), make_fabric_fleet({.pfc_storm = true}));
  EXPECT_EQ(violators(r, "pfc-pause-storm"),
            (std::map<std::string, Level>{{"node04/mlx5_0", Level::fail}}));
  EXPECT_EQ(violators(r, "pfc-pause-vs-fleet").count("node04/mlx5_0"), 1u);
  // An incast is meant to make CNPs: the isolated-pair congestion rules do not judge it.
  for (const char *rule : {"roce-cnp-sent", "roce-cnp-handled", "roce-ecn-marked"})
    EXPECT_TRUE(violators(r, rule).empty()) << rule;
}

} // namespace
} // namespace railgauge::check
