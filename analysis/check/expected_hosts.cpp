#include "analysis/check/expected_hosts.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace railgauge::check {

std::vector<std::string> host_list(const std::string &text) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream in(spaced);
  std::vector<std::string> hosts;
  for (std::string host; in >> host;)
    hosts.push_back(host);
  return hosts;
}

void add_expected_hosts(CheckResult &result, const std::vector<std::string> &expected) {
  const auto judged = result.hosts();
  const std::set<std::string> seen(judged.begin(), judged.end());
  std::set<std::string> added;
  for (const auto &host : expected) {
    if (seen.contains(host) || !added.insert(host).second)
      continue;
    Finding f;
    f.rule_id = kExpectedHostRule;
    f.category = "health";
    f.level = Level::fail;
    f.missing = true;
    f.what = "runs of this node";
    f.detail = "the job's node list names it and no run of it was given: it was down at the "
               "start, its steps never launched there, or it could not write its run directory "
               "(the launcher's log says which)";
    PartResult part;
    part.key = {host, PartKind::node, ""};
    part.label = host;
    part.verdict = Level::fail;
    part.findings.push_back(std::move(f));
    const auto at =
        std::lower_bound(result.parts.begin(), result.parts.end(), part.key,
                         [](const PartResult &p, const PartKey &key) { return p.key < key; });
    result.parts.insert(at, std::move(part));
    result.verdict = Level::fail;
  }
  if (!added.empty())
    result.rule_categories[kExpectedHostRule] = "health";
}

} // namespace railgauge::check
