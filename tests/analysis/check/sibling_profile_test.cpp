// Within-node (sibling) rules on railgauge's own records: a synthetic H100 node written by the
// real runner (synthetic_node.h) whose GPUs 4-7 copy to and from the host 20% slower fails
// copy-vs-siblings under any-fabric and every SKU profile, naming exactly those four GPUs; the
// healthy node has no sibling finding at all.
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "analysis/run_set.h"
#include "railgauge/config.h"
#include "synthetic_node.h"

namespace railgauge::check {
namespace {

const std::string kSource = RAILGAUGE_SOURCE_DIR;

CheckResult judge(const testing::NodeFaults &faults, const std::string &profile) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("railgauge-siblings-" + std::to_string(::getpid()) + "-" + profile);
  std::filesystem::remove_all(out);
  const auto fabric = profile.find("roce") != std::string::npos ? testing::Fabric::roce
                                                                : testing::Fabric::infiniband;
  const auto dir = write_synthetic_node(kSource + "/results/suites/burnin-h100.yaml", out.string(),
                                        1, faults, fabric);
  auto result = evaluate(load_rules_file(kSource + "/results/rules/" + profile + ".yaml"),
                         analysis::load_runs({dir}));
  std::filesystem::remove_all(out);
  return result;
}

// Labels of the parts with a violation of a rule whose id ends in "-vs-siblings".
std::set<std::string> sibling_violators(const CheckResult &r, const std::string &rule) {
  std::set<std::string> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id.ends_with(rule) && !f.missing && f.level >= Level::warn)
        out.insert(p.label);
  return out;
}

const char *const kProfiles[] = {"any-fabric", "h100-sxm-ib", "h100-sxm-roce", "h200-sxm-ib",
                                 "h200-sxm-roce"};

TEST(SiblingProfile, HalfTheGpusCopyingSlowlyAreNamedByEveryProfile) {
  for (const std::string profile : kProfiles) {
    const auto r = judge({.h2d_half_slow = true}, profile);
    EXPECT_EQ(r.verdict, Level::fail) << profile;
    EXPECT_EQ(sibling_violators(r, "copy-vs-siblings"),
              (std::set<std::string>{"gpu4", "gpu5", "gpu6", "gpu7"}))
        << profile << "\n"
        << render_table(r);
  }
}

TEST(SiblingProfile, HealthyNodeHasNoSiblingFinding) {
  for (const std::string profile : kProfiles) {
    const auto r = judge({}, profile);
    EXPECT_EQ(sibling_violators(r, "-vs-siblings"), std::set<std::string>{}) << profile << "\n"
                                                                             << render_table(r);
  }
}

} // namespace
} // namespace railgauge::check
