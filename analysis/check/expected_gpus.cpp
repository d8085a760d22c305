#include "analysis/check/expected_gpus.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "harness/inventory/inventory_fields.h"
#include "harness/run_fields.h"

namespace railgauge::check {
namespace {

int nvml_gpu_count(const nlohmann::json &manifest) {
  const auto inventory = manifest.find(inventory_field::kInventory);
  if (inventory == manifest.end() || !inventory->is_object())
    return 0;
  const auto nvml = inventory->find(inventory_field::kNvml);
  if (nvml == inventory->end() || !nvml->is_object())
    return 0;
  const auto gpus = nvml->find(inventory_field::kGpus);
  return gpus != nvml->end() && gpus->is_array() ? static_cast<int>(gpus->size()) : 0;
}

Finding fewer_gpus(int shown, int expected) {
  Finding f;
  f.rule_id = kExpectedGpusRule;
  f.category = "health";
  f.level = Level::fail;
  f.what = "GPUs NVML lists (node inventory)";
  f.value = shown;
  f.threshold = expected;
  f.bound = fmt::format(">= {} (--expect-gpus)", expected);
  f.detail = fmt::format("the job expects {} GPUs on every node and this one shows {}: a GPU off "
                         "the bus, a driver that cannot open it, or a node given fewer",
                         expected, shown);
  return f;
}

} // namespace

std::map<std::string, int> nvml_gpus_per_host(const analysis::RunSet &runs) {
  // Per host, the newest start and the fewest GPUs its runs of that start listed.
  std::map<std::string, std::pair<std::string, int>> newest;
  for (const auto &run : runs.runs) {
    const auto &m = run.manifest;
    if (!m.is_object() || m.contains(run_field::kImported) || !m.contains(run_field::kHost) ||
        !m[run_field::kHost].is_string())
      continue;
    const auto start = analysis::manifest_text(run, run_field::kStartUtc).substr(0, 19);
    const auto count = nvml_gpu_count(m);
    auto [it, first] = newest.try_emplace(m[run_field::kHost].get<std::string>(), start, count);
    if (first)
      continue;
    if (start > it->second.first)
      it->second = {start, count};
    else if (start == it->second.first)
      it->second.second = std::min(it->second.second, count);
  }
  std::map<std::string, int> per_host;
  for (const auto &[host, start_and_count] : newest)
    per_host[host] = start_and_count.second;
  return per_host;
}

void add_expected_gpus(CheckResult &result, const analysis::RunSet &runs, int expected) {
  bool added = false;
  for (const auto &[host, shown] : nvml_gpus_per_host(runs)) {
    if (shown >= expected)
      continue;
    auto &part = part_entry(result, PartKey{host, PartKind::node, ""});
    part.findings.push_back(fewer_gpus(shown, expected));
    std::sort(part.findings.begin(), part.findings.end());
    part.rules.add(kExpectedGpusRule, RuleTally{1, 0, {}});
    part.rules.sort();
    part.verdict = Level::fail;
    result.verdict = Level::fail;
    added = true;
  }
  if (added)
    result.rule_categories[kExpectedGpusRule] = "health";
}

} // namespace railgauge::check
