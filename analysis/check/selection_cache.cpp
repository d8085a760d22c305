// The work rules share, worked out once (selection_cache.h).
#include "analysis/check/selection_cache.h"

#include <algorithm>
#include <limits>

#include "harness/run_fields.h"

namespace railgauge::check {
namespace {

constexpr std::uint32_t kNoPart = std::numeric_limits<std::uint32_t>::max();

// The records a rule selects depend on its key globs, params filter and applies_to only.
std::string selection_key(const Rule &rule) {
  std::string key;
  for (const auto &glob : rule.key_globs)
    key += glob + '\x1e';
  key += '\x1f' + rule.params.dump() + '\x1f' + std::to_string(static_cast<int>(rule.applies_to));
  return key;
}

bool is_network(const std::string &category) { return category == "nic" || category == "fabric"; }

} // namespace

bool is_imported(const analysis::LoadedRun &run) {
  return run.manifest.is_object() && run.manifest.contains(run_field::kImported);
}

bool applies(const Rule &rule, const analysis::LoadedRun &run) {
  if (rule.applies_to == AppliesTo::any)
    return true;
  return (rule.applies_to == AppliesTo::imported) == is_imported(run);
}

SelectionCache::SelectionCache(const analysis::RunSet &runs,
                               const std::vector<std::vector<Record>> &gpu_parts,
                               const PartIndex &index)
    : runs_(runs), gpu_parts_(gpu_parts), index_(index) {}

void SelectionCache::index_records() {
  for (std::size_t i = 0; i < runs_.runs.size(); ++i) {
    const auto &own = runs_.runs[i].records;
    for (std::size_t j = 0; j < own.size(); ++j)
      records_by_key_[own[j].key].push_back(
          {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
    for (std::size_t j = 0; j < gpu_parts_[i].size(); ++j)
      records_by_key_[gpu_parts_[i][j].key].push_back(
          {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(own.size() + j)});
  }
}

void SelectionCache::count_uses(const RuleSet &rules) {
  for (const auto &rule : rules.rules) {
    if (rule.from_inventory())
      ++probe_uses_left_[rule.probe];
    else
      ++selection_uses_left_[selection_key(rule)];
  }
  for (auto &per_run : record_part_)
    per_run.resize(runs_.runs.size());
  for (std::size_t i = 0; i < runs_.runs.size(); ++i)
    for (auto &per_run : record_part_)
      per_run[i].assign(runs_.runs[i].records.size() + gpu_parts_[i].size(), kNoPart);
}

const Record &SelectionCache::record(const RecordRef &ref) const {
  const auto &own = runs_.runs[ref.run].records;
  return ref.record < own.size() ? own[ref.record] : gpu_parts_[ref.run][ref.record - own.size()];
}

const std::vector<SelectionCache::RecordRef> &SelectionCache::selected(const Rule &rule) {
  const auto key = selection_key(rule);
  if (const auto it = selections_.find(key); it != selections_.end())
    return it->second;
  std::vector<RecordRef> refs;
  std::size_t keys = 0;
  for (const auto &[record_key, list] : records_by_key_)
    if (key_match(rule, record_key)) {
      refs.insert(refs.end(), list.begin(), list.end());
      ++keys;
    }
  if (keys > 1)
    std::sort(refs.begin(), refs.end());
  std::erase_if(refs, [&](const RecordRef &ref) {
    return !applies(rule, runs_.runs[ref.run]) || !params_match(rule.params, record(ref).params);
  });
  // Kept for the rules still to come that select the same, within a bound on memory: a rule
  // past it selects afresh, which is slower, never different.
  if (selection_uses_left_[key] > 1 && cached_refs_ + refs.size() <= kCachedRefsMax) {
    cached_refs_ += refs.size();
    return selections_[key] = std::move(refs);
  }
  return scratch_selection_ = std::move(refs);
}

const ProbeResult &SelectionCache::probe_of(const Rule &rule, const nlohmann::json &inventory) {
  auto &by_inventory = probes_[rule.probe];
  if (const auto it = by_inventory.find(&inventory); it != by_inventory.end())
    return it->second;
  return by_inventory[&inventory] = run_probe(rule.probe, inventory);
}

void SelectionCache::release(const Rule &rule) {
  if (rule.from_inventory()) {
    if (--probe_uses_left_[rule.probe] == 0)
      probes_.erase(rule.probe);
    return;
  }
  const auto key = selection_key(rule);
  if (--selection_uses_left_[key] > 0)
    return;
  if (const auto it = selections_.find(key); it != selections_.end()) {
    cached_refs_ -= it->second.size();
    selections_.erase(it);
  }
}

// The part of a record for a rule, found once per record for each way of attributing it (a
// network rule to its NIC, others to its GPU), and kept as an index into the parts seen.
const PartKey &SelectionCache::part_of(const RecordRef &ref, const Rule &rule) {
  const Record &r = record(ref);
  if (rule.part) {
    scratch_part_ = index_.part_of(r, &rule, rule.category);
    return scratch_part_;
  }
  auto &id = record_part_[is_network(rule.category) ? 1 : 0][ref.run][ref.record];
  if (id == kNoPart) {
    auto key = index_.part_of(r, &rule, rule.category);
    const auto [it, inserted] = part_ids_.try_emplace(key, part_keys_.size());
    if (inserted)
      part_keys_.push_back(std::move(key));
    id = it->second;
  }
  return part_keys_[id];
}

} // namespace railgauge::check
