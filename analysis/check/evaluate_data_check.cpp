// The built-in rule `data-check` (evaluate.h): a node whose ok records ran with their data check
// off. `railgauge run --no-verify` writes metrics.verified false and nothing else tells: a profile
// that reads no verified metric passed such a burn-in although a GPU returning wrong results
// would have passed it too.
#include <map>
#include <string>

#include <fmt/format.h>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "harness/metric_names.h"

namespace railgauge::check {

bool data_check_off(const nlohmann::json &metrics) {
  const auto it = metrics.find(metric::kVerified);
  return it != metrics.end() && it->is_boolean() && !it->get<bool>();
}

Finding data_check_off_finding(Level level, const UnverifiedRecords &u) {
  const std::size_t records = u.records;
  const std::string &example = u.first;
  return built_in_missing(
      kDataCheckRule, level, "records of this node",
      fmt::format("{} ok record{} ran with the data check off (metrics.verified false, as "
                  "--no-verify leaves it; {} the first): a wrong result would not have failed "
                  "{}; run without --no-verify",
                  records, records == 1 ? "" : "s", example, records == 1 ? "it" : "them"));
}

void Evaluator::data_check_rule() {
  if (rules_.unverified_records == Level::info)
    return; // a profile that says so: a run without data checks is what it asked for
  std::map<std::string, UnverifiedRecords> by_host;
  for (const auto &run : runs_.runs)
    for (const auto &r : run.records)
      if (r.status == Status::ok && data_check_off(r.metrics))
        by_host[r.host].add(r.key);
  if (by_host.empty())
    return;
  result_.rule_categories[kDataCheckRule] = "health";
  for (const auto &[host, u] : by_host)
    ledger_.add_finding(PartKey{host, PartKind::node, ""},
                        data_check_off_finding(rules_.unverified_records, u));
}

} // namespace railgauge::check
