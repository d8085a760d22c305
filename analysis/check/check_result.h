#pragma once
// What `railgauge check` concludes: a verdict per part (node, GPU, NIC) with the findings that
// made it, and per rule how many values each part had judged. Every container is sorted (hosts
// in natural order: node2 before node10), so the same inputs always give the same output.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/fleet_stats.h"
#include "analysis/check/rules.h"

namespace railgauge::check {

// a < b comparing digit runs as numbers: "node2" < "node10", "gpu9" < "gpu10".
bool natural_less(const std::string &a, const std::string &b);

struct PartKey {
  std::string host;
  PartKind kind = PartKind::node;
  std::string id; // GPU: PCI bus id; NIC: device name; node: ""

  bool operator==(const PartKey &) const = default;
  bool operator<(const PartKey &o) const;
};

struct Finding {
  std::string rule_id;
  std::string category;
  Level level = Level::fail;
  bool missing = false; // the rule could not judge: no record, no metric, no fleet
  // Info only, never a verdict: the runs judged cannot hold what the rule reads (an import of
  // nccl-tests has no GEMM or inventory) ...
  bool not_covered = false;
  // ... or the point does not apply by construction (an in-place sendrecv, a multi-rank point
  // in a one-rank run): its waiver says "not applicable".
  bool not_applicable = false;
  std::string what;     // concrete metric path or probe, with its detail
  nlohmann::json value; // null when missing
  // Relative noise of the value (stdev/mean of the time samples it was measured from); none when
  // unknown (an import, a median of several values, a figure not timed). The text rounds the
  // value to it (noise_text.h); the verdict never does.
  std::optional<double> noise_rel;
  std::string bound; // ">= 706.1" or ">= 706.1 (fleet median ...)"
  std::optional<double> threshold;
  std::optional<FleetStats> fleet;
  std::string key; // benchmark key, for record rules
  nlohmann::json params;
  std::string detail; // why missing, the record's reason
  std::string run;    // run directory the value came from

  bool operator<(const Finding &o) const;
  bool operator==(const Finding &o) const;
};

// One-line text: "metrics.tflops = 652.3, needs >= 706.1 (fleet median 742 - 3 MAD 12, n=64)".
std::string describe(const Finding &f);

struct RuleTally {
  int checked = 0; // values judged on this part
  int passed = 0;
  // Missing values of the rule on this part that are counted, not listed (past the rule's first
  // kMissingListedPerRule, missing_list.h), by level (the Level as index). They weigh in the
  // part's verdict as the listed ones do.
  std::array<int, 4> unlisted_missing{};
  int unlisted() const;
};

// One part's tallies by rule id, iterated in id order. A sorted vector, not a map: a fleet of
// 1,500 nodes judged by 1,000 rules holds millions of them, and a map node each was most of the
// check's memory and a tenth of its time (freed one by one at exit).
class RuleTallies {
public:
  using value_type = std::pair<std::string, RuleTally>;
  using const_iterator = std::vector<value_type>::const_iterator;

  // Adds `t` to the rule's tally. Ids may come in any order; sort() puts them in id order.
  void add(const std::string &id, const RuleTally &t);
  // Id order, one entry per id (the tallies of an id added twice are summed).
  void sort();
  // The rule's tally, or end(); after sort() by bisection, before it by a walk.
  const_iterator find(const std::string &id) const;
  // The rule's tally; throws std::out_of_range when the part has none.
  const RuleTally &at(const std::string &id) const;
  bool contains(const std::string &id) const { return find(id) != end(); }
  const_iterator begin() const { return tallies_.begin(); }
  const_iterator end() const { return tallies_.end(); }
  bool empty() const { return tallies_.empty(); }

private:
  std::vector<value_type> tallies_;
  bool sorted_ = true;
};

struct PartResult {
  PartKey key;
  std::string label; // "gpu3", "mlx5_0", the host name
  Level verdict = Level::pass;
  RuleTallies rules;             // rule id -> tally
  std::vector<Finding> findings; // sorted
  // A GPU's: the rules judging each GPU of which its node holds no record (gpus_not_measured.h).
  std::vector<std::string> not_measured;
};

// Missing values of one rule, family, level and reason that are counted, not listed.
struct MissingCount {
  std::string rule_id;
  std::string category;
  std::string family; // the records' family ("gemm"), else the rule's category
  Level level = Level::fail;
  std::string detail; // why the values are missing
  long long count = 0;
  std::vector<bool> hosts; // hosts[i]: CheckResult::hosts()[i] holds some of them
  PartKey example_part;    // the first of them by part, key and metric, without its params
  Finding example;
};

// A path the runs could not be read from (analysis::UnreadablePath): the node it holds is
// unknown, so it is no part's finding, but it counts in the fleet's verdict at its level.
// The start of an UnreadableInput's `what` for a file read whole but refused as written (a point
// recorded twice): its records are still judged, it is not "cannot be read".
inline constexpr std::string_view kRefusedAsWritten = "refused as written: ";

struct UnreadableInput {
  std::string path;
  std::string what; // a refused file's starts with kRefusedAsWritten
  Level level = Level::fail;
  bool refused = false; // read whole but refused as written (analysis::UnreadablePath::refused)
};

// One machine's verdict, and the groups ("a+b") among the hosts it was judged in.
struct MachineVerdict {
  std::string host;
  Level verdict = Level::pass;
  std::vector<std::string> groups; // hosts of several nodes that hold this one, natural order
};

struct CheckResult {
  std::string rules_name;
  std::string rules_file;
  std::vector<std::string> inputs;         // run directories, sorted
  std::vector<std::string> problems;       // unreadable record lines, run.json that cannot be read
  std::vector<UnreadableInput> unreadable; // in load order, which is sorted
  std::vector<PartResult> parts;           // sorted by key; every node appears, then its GPUs, NICs
  // Sorted by rule id (in the rules' order), family, level (worst first) and reason.
  std::vector<MissingCount> unlisted_missing;
  std::map<std::string, std::string> rule_categories; // rule id -> category
  // Rules of the profile this check could not apply at all, each "id: why" (over the fleet
  // history's database: inventory probes, curves and run-complete need the run directories).
  // Named in every format and in the summary line; they judged nothing, so no node failed them.
  std::vector<std::string> not_judged;
  Level verdict = Level::pass;

  long long unlisted_missing_count() const;
  // Worst verdict of the node and of every part on it.
  Level node_verdict(const std::string &host) const;
  std::vector<std::string> hosts() const; // natural order
  // Each machine once, natural order: a group's figures ("a+b", a multi-node log) count against
  // every node of it, at the worst verdict the node has in any part naming it.
  std::vector<MachineVerdict> machines() const;
  // Machines whose verdict is fail: the nodes to take out of service.
  std::vector<std::string> drain() const;
};

// 0 pass (info findings included), 1 warn, 2 fail.
int exit_status(Level verdict);

// The part `key` of `result`, added in key order where it is not there yet (labelled as the
// runs label it: the host for a node, "gpu N" for a GPU, the id otherwise).
PartResult &part_entry(CheckResult &result, const PartKey &key);

} // namespace railgauge::check
