// The built-in rule `profile-gpu` (evaluate.h): a node whose GPUs NVML names otherwise than the
// GPU the profile's figures are of (RuleSet::gpu). An H200 judged by h100-sxm-1gpu passed every
// floor of the H100's, which are lower, without a word.
#include <set>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "harness/inventory/inventory_fields.h"

namespace railgauge::check {

bool names_gpu(const std::string &nvml_name, const std::string &gpu) {
  // A word of the name: "NVIDIA H200" is an H200, "NVIDIA GH200 480GB" is not.
  const auto at = nvml_name.find(gpu);
  return at != std::string::npos && (at == 0 || nvml_name[at - 1] == ' ');
}

void Evaluator::profile_gpu_rule() {
  if (rules_.gpu.empty())
    return;
  for (const auto &[host, inventories] : inventories_) {
    std::set<std::string> others;
    for (const auto &[dir, inventory] : inventories) {
      const auto nvml = inventory->find(inventory_field::kNvml);
      if (nvml == inventory->end() || !nvml->is_object() || !nvml->contains(inventory_field::kGpus))
        continue;
      for (const auto &gpu : (*nvml)[inventory_field::kGpus])
        if (gpu.is_object() && gpu.value(inventory_field::kName, nlohmann::json()).is_string()) {
          const auto name = gpu[inventory_field::kName].get<std::string>();
          if (!names_gpu(name, rules_.gpu))
            others.insert(name);
        }
    }
    if (others.empty())
      continue;
    result_.rule_categories[kProfileGpuRule] = "health";
    ledger_.add_finding(
        PartKey{host, PartKind::node, ""},
        built_in_missing(
            kProfileGpuRule, Level::warn, "the GPUs of this node",
            fmt::format("NVML names {} '{}' and the profile {} is for the {}: its floors are "
                        "another GPU's; give the node's own profile (--rules auto picks it)",
                        others.size() == 1 ? "its GPU" : "its GPUs", fmt::join(others, "', '"),
                        rules_.name, rules_.gpu)));
  }
}

} // namespace railgauge::check
