#pragma once
// Where every finding, tally and missing value of a check's parts is kept while its rules are
// judged (Evaluator, evaluator.h), and what finish() turns into the CheckResult's parts. A rule
// is judged between begin_rule() and end_rule(): its tallies are kept per part meanwhile and its
// missing values go through a MissingList (missing_list.h), which lists the first and counts the
// others. Internal to analysis/check.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "analysis/check/missing_list.h"
#include "analysis/check/part_index.h"
#include "analysis/check/rules.h"

namespace railgauge::check {

class PartLedger {
public:
  PartLedger() = default;
  // The rule's MissingList holds a reference to hosts_: the ledger stays where it was made.
  PartLedger(const PartLedger &) = delete;
  PartLedger &operator=(const PartLedger &) = delete;

  // A part, listed on first sight with its node.
  PartResult &part(const PartKey &key);
  // Lists the hosts of the parts so far: once every node is known, before the first rule.
  void list_hosts();
  const std::vector<std::string> &hosts() const { return hosts_; } // natural order
  const std::map<PartKey, PartResult> &parts() const { return parts_; }

  void begin_rule();
  // Files the rule's tallies, gives its listed missing values to their parts and keeps the
  // counts of the others.
  void end_rule(const std::string &rule_id);
  // Files the tallies kept since the last flush under `rule` (a built-in rule has no
  // begin_rule).
  void flush_tallies(const std::string &rule);

  void tally(const PartKey &key, const std::string &rule, bool passed);
  void add_finding(const PartKey &key, Finding f);
  // A missing value: listed or counted (missing_list.h).
  void add_missing(const PartKey &key, Finding f, const nlohmann::json *params = nullptr);
  // A value the rule selected but cannot judge, named by where it came from: `what` of
  // `record` (null for an inventory value) in `run` (may be null).
  void add_missing_of(const Rule &rule, const PartKey &key, const std::string &what,
                      const Record *record, const std::string *run, std::string detail,
                      Level level);
  // Once per rule and node: the rule does not apply to the node's records (an info finding).
  void note_not_applicable(const Rule &rule, const PartKey &node, const std::string &detail);
  void note_not_covered(const Rule &rule, const std::string &host, const std::string &what);
  // Once per rule and host: an import of the host has no such metric.
  void note_metric_not_covered(const Rule &rule, const std::string &host);

  // The parts, each with its findings sorted and its verdict, and the counted missing values.
  void finish(const PartIndex &index, CheckResult &result);

private:
  RuleTally &tally_of(const PartKey &key);

  std::map<PartKey, PartResult> parts_;
  // Map nodes stay put: pointers to them are safe to keep while parts_ grows.
  std::unordered_map<PartKey, PartResult *, PartKeyHash> part_by_hash_;
  PartResult *last_part_ = nullptr;
  std::unordered_map<PartResult *, RuleTally> rule_tallies_; // of the rule being judged
  std::vector<std::string> hosts_; // natural order, once every part of a node is known
  std::optional<MissingList> missing_;
  Finding counted_; // reused for values that are only counted: their strings keep capacity
  std::vector<MissingCount> unlisted_missing_;                        // in the rules' order
  std::set<std::pair<std::string, std::string>> not_covered_metric_;  // (rule, host)
  std::map<std::pair<std::string, std::string>, int> not_applicable_; // (rule, host) -> records
};

} // namespace railgauge::check
