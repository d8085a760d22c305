#pragma once
// What several rules of one check share, worked out once (Evaluator, evaluator.h): the records a
// selection picks, the values a probe reads from an inventory, the part a record is about. A
// profile's rules often select the same records for different metrics, and a large rules file
// repeats them; computing each again per rule was a third of a 1,500-node fleet's check. Each is
// kept while a rule still to come needs it and released after the last. Internal to
// analysis/check.
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "analysis/check/inventory_probes.h"
#include "analysis/check/part_index.h"
#include "analysis/check/rules.h"
#include "analysis/run_set.h"

namespace railgauge::check {

bool is_imported(const analysis::LoadedRun &run);
// The rule reads runs of this kind (its applies_to: own, imported or any).
bool applies(const Rule &rule, const analysis::LoadedRun &run);

class SelectionCache {
public:
  struct RecordRef {
    // Past the run's own records: its GPU parts. 32 bits each: a selection of every record of
    // a large fleet is millions of them.
    std::uint32_t run = 0, record = 0;
    auto operator<=>(const RecordRef &) const = default;
  };

  // `gpu_parts[i]`: the records made from run i's per-GPU objects, read as records of run i.
  // `index` names the part of a record; it may still gain inventories until the first rule.
  SelectionCache(const analysis::RunSet &runs, const std::vector<std::vector<Record>> &gpu_parts,
                 const PartIndex &index);

  // Records by key, in load order: a rule reads the records of the keys it selects, not all.
  void index_records();
  // How many of `rules` share each selection and probe: what they share is kept until the last.
  void count_uses(const RuleSet &rules);
  // A rule is done with what it shared: released once no rule still to come needs it.
  void release(const Rule &rule);

  const Record &record(const RecordRef &ref) const;
  // The records the rule selects, in load order: each key is matched once, not each record.
  const std::vector<RecordRef> &selected(const Rule &rule);
  const ProbeResult &probe_of(const Rule &rule, const nlohmann::json &inventory);
  // The part the rule judges a record as; valid until the next call.
  const PartKey &part_of(const RecordRef &ref, const Rule &rule);

private:
  const analysis::RunSet &runs_;
  const std::vector<std::vector<Record>> &gpu_parts_;
  const PartIndex &index_;
  std::map<std::string, std::vector<RecordRef>> records_by_key_;
  // Selections and probe results by the rules still to use them, and each record's part by
  // index into part_keys_ (network rules: [1], others: [0]).
  static constexpr std::size_t kCachedRefsMax = std::size_t{1} << 24; // 256 MiB of RecordRefs
  std::map<std::string, std::size_t> selection_uses_left_, probe_uses_left_;
  std::map<std::string, std::vector<RecordRef>> selections_;
  std::vector<RecordRef> scratch_selection_;
  std::size_t cached_refs_ = 0;
  std::map<std::string, std::unordered_map<const nlohmann::json *, ProbeResult>> probes_;
  std::array<std::vector<std::vector<std::uint32_t>>, 2> record_part_;
  std::deque<PartKey> part_keys_; // a deque: references to its keys stay valid as it grows
  std::unordered_map<PartKey, std::uint32_t, PartKeyHash> part_ids_;
  PartKey scratch_part_;
};

} // namespace railgauge::check
