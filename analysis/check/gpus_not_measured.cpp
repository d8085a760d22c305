#include "analysis/check/gpus_not_measured.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "analysis/check/telemetry_gpu.h"
#include "records/per_gpu_parts.h"

namespace railgauge::check {
namespace {

constexpr std::string_view kNoRecordPrefix = "no record of '";
constexpr std::string_view kNoRecordSuffix = " on this node";
constexpr std::string_view kFailedPointPrefix = "no figure of '";

bool judges_each_gpu(const Rule &rule) {
  if (rule.part == PartKind::gpu)
    return true;
  const auto part = rule.params.is_object() ? rule.params.find("part") : rule.params.end();
  return rule.params.is_object() && part != rule.params.end() && *part == "gpu";
}

} // namespace

std::string no_record_on_node_detail(const Rule &rule) {
  const std::string filter = rule.params.empty() ? "" : " with params " + rule.params.dump();
  return fmt::format("{}{}'{}{}", kNoRecordPrefix, rule.key_glob, filter, kNoRecordSuffix);
}

bool selects_point_of_gpu_parts(const Rule &rule, const std::string &key,
                                const nlohmann::json &params) {
  if (!judges_each_gpu(rule) || !rule.params.is_object() || !params.is_object() ||
      params.contains(records::kPartParam) || !key_match(rule, key))
    return false;
  auto of_point = rule.params;
  // A part's gpu param is the GPU's index; the point's is -1 (every GPU).
  for (const char *per_part : {records::kPartParam, "gpu"})
    of_point.erase(per_part);
  return params_match(of_point, params);
}

std::string failed_point_detail(const Rule &rule, const std::string &key, const std::string &status,
                                const std::string &reason) {
  const std::string filter = rule.params.empty() ? "" : " with params " + rule.params.dump();
  return fmt::format("{}{}'{} on this node: the point '{}' is {}{} (record-status), it measured "
                     "no GPU",
                     kFailedPointPrefix, rule.key_glob, filter, key, status,
                     reason.empty() ? "" : ": " + reason);
}

std::string no_record_on_gpu_detail(const std::string &phase, const std::string &gpu,
                                    const std::string *failed_point) {
  return fmt::format("no figure of '{}' for {}, which the node's inventory lists: {}", phase, gpu,
                     failed_point
                         ? *failed_point
                         : std::string("the point that ran on every GPU did not run on it"));
}

std::string burn_phase(const std::string &key, const nlohmann::json &params) {
  const auto dtype = params.is_object() ? params.find("dtype") : params.end();
  if (!params.is_object() || dtype == params.end() || !dtype->is_string())
    return key;
  return fmt::format("{} dtype={}", key, dtype->get<std::string>());
}

bool failed_point_of_gpu(const std::string &key, const nlohmann::json &params,
                         const nlohmann::json &device, const std::string &phase,
                         const std::string &gpu) {
  if (burn_phase(key, params) != phase)
    return false;
  const auto pci = device.is_object() ? device.find("pci") : device.end();
  return !device.is_object() || pci == device.end() || !pci->is_string() ||
         pci->get<std::string>() == gpu;
}

bool ran_on_every_gpu(const Record &r, std::size_t node_gpus) {
  if (node_gpus == 0 || !r.params.is_object())
    return false;
  // group_hosts must say one node: a world of 8 ranks over two nodes of 8 GPUs, with no
  // group_hosts, ran 4 on each and lacks no window.
  const auto hosts = r.params.value("group_hosts", nlohmann::json());
  const auto type = r.params.value("group_type", nlohmann::json());
  const auto ranks = r.params.value("world_size", nlohmann::json());
  return hosts == 1 && (type.is_null() || type == "world") && ranks.is_number() &&
         ranks.get<double>() >= static_cast<double>(node_gpus);
}

std::string no_window_on_gpu_detail(const Rule &rule, const std::string &gpu) {
  return fmt::format("no telemetry window of {} in '{}', which ran on every GPU of the node: "
                     "nothing of it was read",
                     gpu, rule.key_glob);
}

void GpuWindows::saw(const Record &r, const Rule &rule, const PartKey &record_part,
                     const PartIndex &index) {
  if (record_part.kind != PartKind::node || rule.part ||
      !rule.metric.starts_with("metrics.telemetry"))
    return;
  const auto windows = telemetry_windows_of(r);
  if (windows.empty())
    return;
  auto &read = read_[r.host];
  for (const auto &w : windows)
    if (const auto gpu =
            index.gpu_part(r.host, w.pci_bus_id.empty() ? nullptr : &w.pci_bus_id, w.uuid);
        gpu.kind == PartKind::gpu)
      read.insert(gpu.id);
  if (ran_on_every_gpu(r, index.inventory_gpus(r.host).size()))
    every_gpu_.insert(r.host);
}

std::vector<PartKey> GpuWindows::unread(const PartIndex &index) const {
  std::vector<PartKey> out;
  for (const auto &host : every_gpu_) {
    const auto &read = read_.at(host);
    for (const auto &gpu : index.inventory_gpus(host))
      if (!read.contains(gpu))
        out.push_back({host, PartKind::gpu, gpu});
  }
  return out;
}

bool is_no_record_on_node(const std::string &detail) {
  return (detail.starts_with(kNoRecordPrefix) && detail.ends_with(kNoRecordSuffix)) ||
         detail.starts_with(kFailedPointPrefix);
}

void mark_gpus_not_measured(const RuleSet &rules, CheckResult &result) {
  std::set<std::string> per_gpu;
  for (const auto &rule : rules.rules)
    if (judges_each_gpu(rule))
      per_gpu.insert(rule.id);
  // By host: each rule that selected no record there, and its missing value's level.
  std::map<std::string, std::map<std::string, Level>> unmeasured;
  const auto add = [&](const std::string &host, const std::string &rule, Level level) {
    if (level <= Level::info || !per_gpu.contains(rule))
      return;
    auto &at = unmeasured[host][rule];
    at = std::max(at, level);
  };
  for (const auto &part : result.parts)
    if (part.key.kind == PartKind::node)
      for (const auto &f : part.findings)
        if (f.missing && is_no_record_on_node(f.detail))
          add(part.key.host, f.rule_id, f.level);
  const auto hosts = result.hosts();
  for (const auto &count : result.unlisted_missing)
    if (count.example_part.kind == PartKind::node && is_no_record_on_node(count.detail))
      for (std::size_t i = 0; i < count.hosts.size() && i < hosts.size(); ++i)
        if (count.hosts[i])
          add(hosts[i], count.rule_id, count.level);
  for (auto &part : result.parts) {
    const auto of_host = unmeasured.find(part.key.host);
    if (part.key.kind != PartKind::gpu || of_host == unmeasured.end())
      continue;
    for (const auto &[rule, level] : of_host->second) {
      const auto tally = part.rules.find(rule);
      if (tally != part.rules.end() && tally->second.checked > 0)
        continue; // another run of the node measured this GPU
      part.not_measured.push_back(rule);
      part.verdict = std::max(part.verdict, level);
      result.verdict = std::max(result.verdict, level);
    }
  }
}

} // namespace railgauge::check
