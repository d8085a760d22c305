#include "analysis/check/expected_hosts.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "harness/host_group.h"

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
  // An imported multi-node log is one part named for its group ("n1+n2"): each of its hosts
  // left a run. They were each added as a node that left none, and drained.
  // The group's own name is seen too: a job's list may give it as check prints it.
  std::set<std::string> seen;
  for (const auto &host : result.hosts()) {
    seen.insert(host);
    for (auto &member : hosts_of_group(host))
      seen.insert(std::move(member));
  }
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
    auto &part = part_entry(result, PartKey{host, PartKind::node, ""});
    part.verdict = Level::fail;
    part.findings.push_back(std::move(f));
    result.verdict = Level::fail;
  }
  if (!added.empty())
    result.rule_categories[kExpectedHostRule] = "health";
}

} // namespace railgauge::check
