// The shipped profiles' NIC bandwidth rules on one node's NICs: a slow NIC read from host memory
// fails against the node's other NICs (rdma-bw-vs-fleet), and GPU x NIC pairs are judged pair
// by pair (rdma-gpu-bw-vs-fleet across nodes, rdma-gpu-pair-vs-nic-best within a NIC), so a GPU
// far from a NIC is named at warn and no NIC fails for it.
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "railgauge/config.h"

namespace railgauge::check {
namespace {

using nlohmann::json;

RuleSet nic_profile(const char *name) {
  return load_rules_file(std::string(RAILGAUGE_SOURCE_DIR) + "/results/rules/" + name + ".yaml");
}

// One rdma.read_bw point at 8 MiB through `nic` from `memory` (host, gpu:N).
Record read_bw(const std::string &nic, const std::string &memory, double gbits) {
  Record r;
  r.run = "node01-run";
  r.host = "node01";
  r.key = "rdma.read_bw";
  r.params = {{"size_bytes", 8388608},
              {"device", nic},
              {"memory", memory},
              {"qps", 8},
              {"gid_choice", "automatic: RoCEv2 link-local IPv6 (fe80::1)"}};
  r.device = {{"nic", nic}, {"port", 1}};
  r.metrics = {{"bandwidth_gbits_per_s", gbits}, {"verified", true}};
  r.time_utc = "2026-01-01T00:00:00.000Z";
  return r;
}

analysis::RunSet one_node(std::vector<Record> records) {
  analysis::LoadedRun run;
  run.dir = "node01-run";
  run.manifest = {{"schema", "railgauge.run/1"}, {"host", "node01"}, {"rank", 0}};
  run.records = std::move(records);
  analysis::RunSet set;
  set.runs.push_back(std::move(run));
  return set;
}

// Each violating finding of `rule` that is not missing: its part's label and its level.
std::map<std::string, Level> named(const CheckResult &r, const std::string &rule) {
  std::map<std::string, Level> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == rule && !f.missing)
        out[p.label + (f.detail.find("gpu:") == 0 ? " " + f.detail.substr(0, 5) : "")] = f.level;
  return out;
}

TEST(NicBandwidthRules, ASlowNicOfOneNodeFailsAgainstItsOtherNics) {
  for (const char *name : {"h100-sxm-roce", "h100-sxm-ib"}) {
    std::vector<Record> records;
    for (int n = 0; n < 8; ++n)
      records.push_back(read_bw("mlx5_" + std::to_string(n), "host", n == 0 ? 200.0 : 390.0));
    const auto r = evaluate(nic_profile(name), one_node(std::move(records)));
    EXPECT_EQ(named(r, "rdma-bw-vs-fleet"), (std::map<std::string, Level>{{"mlx5_0", Level::fail}}))
        << name;
  }
}

TEST(NicBandwidthRules, AGpuFarFromItsNicIsNamedAtWarnAndNoNicFails) {
  for (const char *name : {"h100-sxm-roce", "h100-sxm-ib"}) {
    // Two NICs, each near two of four GPUs (as one real H100 node's 16 pairs read).
    std::vector<Record> records;
    for (int n = 0; n < 2; ++n)
      for (int g = 0; g < 4; ++g)
        records.push_back(read_bw("mlx5_" + std::to_string(n), "gpu:" + std::to_string(g),
                                  g / 2 == n ? 226.0 : 105.0));
    const auto r = evaluate(nic_profile(name), one_node(std::move(records)));
    EXPECT_EQ(named(r, "rdma-gpu-pair-vs-nic-best"),
              (std::map<std::string, Level>{{"mlx5_0 gpu:2", Level::warn},
                                            {"mlx5_0 gpu:3", Level::warn},
                                            {"mlx5_1 gpu:0", Level::warn},
                                            {"mlx5_1 gpu:1", Level::warn}}))
        << name;
    EXPECT_TRUE(named(r, "rdma-gpu-bw-vs-fleet").empty()) << name << ": one node, no fleet";
    EXPECT_TRUE(named(r, "rdma-bw-vs-fleet").empty()) << name << ": no host-memory point";
  }
}

} // namespace
} // namespace railgauge::check
