// A rule's `*` over an empty list: nothing read (missing), unless the rule says
// `empty_list: pass` (the NVLink links that counted an error: none).
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/json_path.h"
#include "analysis/check/rules.h"
#include "harness/error.h"
#include "railgauge/config.h"
#include "synthetic_fleet.h"
#include "tests/analysis/check/check_test_support.h"

namespace railgauge::check {
namespace {

using namespace support;

TEST(JsonPath, AStarOverAnEmptyListIsHeldOnlyWhenAsked) {
  // The NVLink links that counted an error: none on three GPUs, link 7 on the fourth.
  Record r;
  r.metrics = {{"per_gpu", json::array()}};
  for (int gpu = 0; gpu < 4; ++gpu)
    r.metrics["per_gpu"].push_back(
        {{"links", gpu == 3 ? json::array({{{"link", 7}, {"replay", 2}}}) : json::array()}});
  // Without asking, the three empty lists are GPUs without the value (null), as before.
  const auto plain = resolve_record_path(r, "metrics.**.links.*.replay");
  ASSERT_EQ(plain.size(), 4u);
  EXPECT_EQ(
      std::count_if(plain.begin(), plain.end(), [](const auto &v) { return v.value.is_null(); }),
      3);
  const auto held = resolve_record_path(r, "metrics.**.links.*.replay", EmptyLists::held);
  ASSERT_EQ(held.size(), 4u);
  EXPECT_EQ(held[0].path, "metrics.per_gpu.0.links");
  EXPECT_TRUE(held[0].empty);
  EXPECT_EQ(held[3].path, "metrics.per_gpu.3.links.0.replay");
  EXPECT_FALSE(held[3].empty);
  EXPECT_EQ(held[3].value, 2);
  // A list that is not there is still nothing, never an empty pass.
  r.metrics["per_gpu"][1].erase("links");
  const auto without = resolve_record_path(r, "metrics.**.links.*.replay", EmptyLists::held);
  ASSERT_EQ(without.size(), 4u);
  const auto gpu1 = std::find_if(without.begin(), without.end(), [](const auto &v) {
    return v.path.starts_with("metrics.per_gpu.1");
  });
  ASSERT_NE(gpu1, without.end());
  EXPECT_FALSE(gpu1->empty);
  EXPECT_TRUE(gpu1->value.is_null());
}

// A `*` over an empty object or list is nothing read, missing, unless the rule says
// `empty_list: pass` (the NVLink links that counted an error: none). An empty object of port
// counters once passed every counter rule.
TEST(Check, AnEmptyListPassesOnlyARuleThatSaysSo) {
  const auto profile = load_rules_file(kSource + "/results/rules/h100-sxm-ib.yaml");
  auto fleet = make_fleet({});
  std::string host, nic;
  for (auto &r : fleet.runs[0].records)
    if (r.metrics.contains("port_counter_deltas")) {
      r.metrics["port_counter_deltas"] = json::object();
      host = r.host;
      nic = r.device.value("nic", "");
    }
  ASSERT_FALSE(host.empty());
  const auto r = evaluate(profile, fleet);
  bool missing = false;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      missing |= f.rule_id == "link-downed-during-point" && f.missing && p.key.host == host;
  EXPECT_TRUE(missing) << render_table(r);

  const auto each_link = [](const std::string &empty_list) {
    return R"(
  - id: replays
    category: nvlink
    severity: fail
    select: {key: offload.h2d}
    metric: metrics.links.*.replay
    )" + empty_list +
           R"(
    compare: "<="
    value: 0
)";
  };
  auto links = make_fleet({}, 1, 1);
  for (auto &rec : links.runs[0].records)
    rec.metrics["links"] = json::array();
  for (const bool passes : {false, true}) {
    const auto set = rules(each_link(passes ? "empty_list: pass" : ""));
    const auto judged = evaluate(set, links);
    EXPECT_EQ(judged.verdict, passes ? Level::pass : Level::fail) << render_table(judged);
  }
  EXPECT_THROW(rules(R"(
  - id: bad
    category: nvlink
    severity: fail
    select: {key: offload.h2d}
    metric: metrics.bandwidth_gbytes_per_s
    empty_list: pass
    compare: ">="
    value: 1
)"),
               InputError);
}

} // namespace
} // namespace railgauge::check
