// The burn-in's GPU-to-GPU phase judged per GPU: memory.peer_copy records written by the
// benchmark's own writers (memory::peer_copy_outcome, memory::peer_copy_waiver), with made-up
// pair figures (never a measurement: an H100 SXM's ~376 GB/s, NVIDIA/nccl#1264), judged by the
// shipped H100 and H200 profiles, node-local and with their fabric. A GPU whose copies run 10% slow
// is named by burn-peer-copy-vs-siblings; a one-GPU machine reads the rule as "cannot apply" (n/a).
#include <functional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "analysis/check/test_grid.h"
#include "memory/cuda/peer_copy.h"
#include "synthetic_burnin_gpu.h"
#include "synthetic_fleet.h"
#include "tests/support/outcome_record.h"
#include "tests/support/shipped_data.h"

namespace railgauge::check {
namespace {

using nlohmann::json;

constexpr const char *kHost = "hgxnode";
constexpr const char *kRule = "burn-peer-copy-vs-siblings";

// `gpus` GPUs of `name`; every pair out of `slow_gpu` at `slow_factor` of healthy; each pair
// through `edit` before the record is written.
analysis::RunSet node(const std::string &name, int gpus, int slow_gpu = -1,
                      double slow_factor = 1.0,
                      const std::function<void(memory::PeerCopyPair &)> &edit = nullptr) {
  Outcome o;
  if (gpus < 2) {
    o = Outcome::waived(*memory::peer_copy_waiver({0}, {}));
  } else {
    auto run = testing::peer_copy_pairs(name, gpus, slow_gpu, slow_factor);
    if (edit)
      for (auto &pair : run.pairs)
        edit(pair);
    o = memory::peer_copy_outcome(run);
  }
  analysis::LoadedRun run;
  run.dir = "burnin-run";
  json inventory = testing::fleet_inventory(1, gpus, {});
  for (auto &gpu : inventory["nvml"]["gpus"]) {
    gpu["name"] = name;
    if (gpus == 1)
      gpu["nvlink"] = nullptr;
  }
  run.manifest = {
      {"host", kHost}, {"run", "burnin-run"}, {"status", "complete"}, {"inventory", inventory}};
  run.records.push_back(railgauge::testing::outcome_record(
      "burnin-run", kHost, "memory.peer_copy",
      {{"size_bytes", std::int64_t{256} << 20}, {"repetitions", 8}}, o,
      "2026-11-28T12:00:00.000Z"));
  analysis::RunSet set;
  set.runs.push_back(std::move(run));
  return set;
}

CheckResult judge(const analysis::RunSet &runs, const std::string &profile) {
  return evaluate(
      load_rules_file(railgauge::testing::shipped_data_file("rules/" + profile + ".yaml")), runs);
}

// The GPUs (part labels' "gpuN") the rule names at warn or fail.
std::set<std::string> named(const CheckResult &r, const std::string &rule = kRule) {
  std::set<std::string> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == rule && !f.missing && !f.not_covered && !f.not_applicable &&
          f.level >= Level::warn)
        out.insert(p.label.substr(0, p.label.find(' ')));
  return out;
}

int checked(const CheckResult &r) {
  int n = 0;
  for (const auto &p : r.parts)
    if (auto it = p.rules.find(kRule); it != p.rules.end())
      n += it->second.checked;
  return n;
}

TEST(BurninPeerCopy, AGpuCopyingTenPercentSlowIsNamedAgainstItsSiblings) {
  for (const auto &[name, profile] :
       {std::pair{"NVIDIA H100 80GB HBM3", "h100-sxm"}, std::pair{"NVIDIA H200", "h200-sxm"},
        std::pair{"NVIDIA H100 80GB HBM3", "h100-sxm-ib"},
        std::pair{"NVIDIA H200", "h200-sxm-roce"}}) {
    const auto healthy = judge(node(name, 8), profile);
    EXPECT_EQ(checked(healthy), 8) << profile;
    EXPECT_TRUE(named(healthy).empty()) << render_table(healthy);
    const auto r = judge(node(name, 8, 3, 0.9), profile);
    EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
    EXPECT_EQ(named(r), std::set<std::string>{"gpu3"}) << render_table(r);
    // 5% slow stays within the 8% bound.
    EXPECT_TRUE(named(judge(node(name, 8, 3, 0.95), profile)).empty()) << profile;
  }
}

// GPUs 3 and 5 without peer access to each other (as a GPU whose NVLinks are down): each GPU's
// slowest pair was of the six it reached, and the node passed.
TEST(BurninPeerCopy, APairWithoutPeerAccessFailsBothGpus) {
  const auto cut = [](memory::PeerCopyPair &p) {
    if ((p.src == 3 && p.dst == 5) || (p.src == 5 && p.dst == 3)) {
      p.peer_access = false;
      p.bandwidth_gbytes_per_s = p.bandwidth_min_gbytes_per_s = 0;
      p.copies = 0;
    }
  };
  for (const char *profile : {"h100-sxm", "h200-sxm"}) {
    const auto r = judge(node("NVIDIA H200", 8, -1, 1.0, cut), profile);
    EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
    EXPECT_EQ(named(r, "burn-peer-copy-reach"), (std::set<std::string>{"gpu3", "gpu5"}))
        << render_table(r);
    EXPECT_TRUE(named(judge(node("NVIDIA H200", 8), profile), "burn-peer-copy-reach").empty());
  }
}

TEST(BurninPeerCopy, OneGpuReadsTheRuleAsCannotApply) {
  for (const char *profile : {"h100-sxm-1gpu", "h200-sxm-1gpu"}) {
    const auto r = judge(
        node(std::string(profile).starts_with("h100") ? "NVIDIA H100 80GB HBM3" : "NVIDIA H200", 1),
        profile);
    EXPECT_TRUE(named(r).empty()) << render_table(r);
    bool said = false;
    for (const auto &p : r.parts)
      for (const auto &f : p.findings)
        said = said ||
               (f.rule_id == kRule && f.level == Level::info && (f.not_applicable || f.missing));
    EXPECT_TRUE(said) << render_table(r);
    int passed = 0;
    for (const auto &p : r.parts)
      if (auto it = p.rules.find(kRule); it != p.rules.end())
        passed += it->second.passed;
    EXPECT_EQ(passed, 0) << "never a pass";
    const std::string grid = render_test_grid(r);
    const auto row = grid.find(kRule);
    ASSERT_NE(row, std::string::npos) << grid;
    EXPECT_NE(grid.substr(row, grid.find('\n', row) - row).find("n/a"), std::string::npos) << grid;
  }
}

} // namespace
} // namespace railgauge::check
