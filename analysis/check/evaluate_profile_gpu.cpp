// The built-in rule `profile-gpu` (evaluate.h): a node whose GPUs NVML names, or whose records
// name, otherwise than the GPU the profile's figures are of (RuleSet::gpu). An H200 judged by
// h100-sxm-1gpu passed every floor of the H100's, which are lower, without a word; so did one
// whose run.json said H100 (an inventory edited or copied from another node) while every burn
// record said H200.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/metric_names.h"
#include "records/gemm_record.h"

namespace railgauge::check {
namespace {

// Where a record names its GPUs: a collective's params, a GEMM burn's and a memory burn's list.
constexpr const char *kRecordGpuName = metric::kGpuName;
constexpr const char *kRecordGpus = gemm::record::kGpus;
constexpr const char *kRecordPerGpu = metric::kPerGpu;

// The finding of a node whose `who` ("NVML names", "its records name") names `others`.
Finding profile_gpu_finding(const RuleSet &rules, const std::set<std::string> &others,
                            const char *who) {
  return built_in_missing(
      kProfileGpuRule, Level::warn, "the GPUs of this node",
      fmt::format("{} {} '{}' and the profile {} is for the {}: its floors are another GPU's; "
                  "give the node's own profile (--rules auto picks it)",
                  who, others.size() == 1 ? "its GPU" : "its GPUs", fmt::join(others, "', '"),
                  rules.name, rules.gpu));
}

// The names of `names` that do not name the profile's GPU.
std::set<std::string> not_the_profiles(const RuleSet &rules, const std::set<std::string> &names) {
  std::set<std::string> others;
  for (const auto &name : names)
    if (!names_gpu(name, rules.gpu))
      others.insert(name);
  return others;
}

} // namespace

bool names_gpu(const std::string &nvml_name, const std::string &gpu) {
  // A word of the name: "NVIDIA H200" is an H200, "NVIDIA GH200 480GB" is not.
  const auto at = nvml_name.find(gpu);
  return at != std::string::npos && (at == 0 || nvml_name[at - 1] == ' ');
}

void add_record_gpu_names(const Record &r, std::set<std::string> &names) {
  const auto put = [&](const nlohmann::json &object, const char *field) {
    if (object.is_object() && object.contains(field) && object[field].is_string())
      names.insert(object[field].get<std::string>());
  };
  put(r.params, kRecordGpuName);
  if (!r.metrics.is_object())
    return;
  for (const char *list : {kRecordGpus, kRecordPerGpu})
    if (r.metrics.contains(list) && r.metrics[list].is_array())
      for (const auto &gpu : r.metrics[list])
        put(gpu, inventory_field::kName);
}

void add_inventory_gpu_names(const nlohmann::json &inventory, std::set<std::string> &names) {
  const auto nvml =
      inventory.is_object() ? inventory.find(inventory_field::kNvml) : inventory.end();
  if (nvml == inventory.end() || !nvml->is_object() || !nvml->contains(inventory_field::kGpus) ||
      !(*nvml)[inventory_field::kGpus].is_array())
    return;
  for (const auto &gpu : (*nvml)[inventory_field::kGpus])
    if (gpu.is_object() && gpu.value(inventory_field::kName, nlohmann::json()).is_string())
      names.insert(gpu[inventory_field::kName].get<std::string>());
}

std::vector<std::pair<std::string, Finding>>
profile_gpu_findings(const RuleSet &rules, const std::map<std::string, std::set<std::string>> &nvml,
                     const std::map<std::string, std::set<std::string>> &records, Said said) {
  std::vector<std::pair<std::string, Finding>> out;
  if (rules.gpu.empty())
    return out;
  std::map<std::string, std::set<std::string>> by_nvml; // by host: what its inventory's says
  for (const auto &[host, names] : nvml)
    if (auto others = not_the_profiles(rules, names); !others.empty()) {
      if (said != Said::records)
        out.emplace_back(host, profile_gpu_finding(rules, others, "NVML names"));
      by_nvml[host] = std::move(others);
    }
  // The names the records add to those the inventory's finding says.
  for (const auto &[host, names] : records) {
    auto others = not_the_profiles(rules, names);
    for (const auto &name : by_nvml[host])
      others.erase(name);
    if (!others.empty())
      out.emplace_back(host, profile_gpu_finding(rules, others, "its records name"));
  }
  return out;
}

void Evaluator::profile_gpu_rule() {
  std::map<std::string, std::set<std::string>> nvml, named;
  for (const auto &[host, inventories] : inventories_)
    for (const auto &[dir, inventory] : inventories)
      add_inventory_gpu_names(*inventory, nvml[host]);
  for (const auto &run : runs_.runs)
    for (const auto &r : run.records)
      add_record_gpu_names(r, named[r.host]);
  for (auto &[host, finding] : profile_gpu_findings(rules_, nvml, named, Said::both)) {
    result_.rule_categories[kProfileGpuRule] = "health";
    ledger_.add_finding(PartKey{host, PartKind::node, ""}, std::move(finding));
  }
}

} // namespace railgauge::check
