#include "analysis/check/auto_profile.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/error.h"

namespace railgauge::check {
namespace {

bool has(const std::string &text, const char *part) { return text.find(part) != std::string::npos; }

// NVML's GPU names of one run's inventory, one per GPU.
std::vector<std::string> gpu_names(const nlohmann::json &manifest) {
  std::vector<std::string> names;
  if (!manifest.is_object())
    return names;
  const auto inventory = manifest.value("inventory", nlohmann::json::object());
  const auto nvml = inventory.value("nvml", nlohmann::json::object());
  for (const auto &gpu : nvml.value("gpus", nlohmann::json::array()))
    if (gpu.is_object() && gpu.contains("name") && gpu["name"].is_string())
      names.push_back(gpu["name"].get<std::string>());
  return names;
}

// A run that had to have GPUs: a GPU burn-in's (its plan in run.json), or one whose --expect
// named GPUs. Such a run on a node that shows none is judged, not refused as input.
bool must_have_gpus(const nlohmann::json &manifest) {
  if (!manifest.is_object())
    return false;
  const auto suite = manifest.value("suite", nlohmann::json::object());
  if (suite.is_object() && suite.contains("burnin_plan"))
    return true;
  const auto expect = manifest.value("expect", nlohmann::json::object());
  const auto expected = expect.is_object() ? expect.value("expected", nlohmann::json::object())
                                           : nlohmann::json::object();
  const auto gpus = expected.is_object() ? expected.value("gpus", nlohmann::json(nullptr))
                                         : nlohmann::json(nullptr);
  return gpus.is_number_integer() && gpus.get<long long>() > 0;
}

} // namespace

std::string profile_for_gpu(const std::string &gpu_name, int gpus_per_node) {
  std::string sku;
  // NVML names the SXM5 H100 "NVIDIA H100 80GB HBM3"; the others say "PCIe" or "NVL".
  if (has(gpu_name, "H100") && (has(gpu_name, "HBM3") || has(gpu_name, "SXM")) &&
      !has(gpu_name, "PCIe") && !has(gpu_name, "NVL"))
    sku = "h100-sxm";
  else if (has(gpu_name, "H200") && !has(gpu_name, "NVL"))
    sku = "h200-sxm";
  if (sku.empty())
    return sku;
  return gpus_per_node == 1 ? sku + "-1gpu" : sku;
}

AutoProfile auto_profile(const analysis::RunSet &runs) {
  std::map<std::string, int> gpus_per_host; // the most any run of the host showed
  std::set<std::string> names;
  std::set<std::string> without_gpus; // hosts of runs that had to have GPUs
  for (const auto &run : runs.runs) {
    const auto found = gpu_names(run.manifest);
    if (found.empty() && must_have_gpus(run.manifest))
      without_gpus.insert(run.manifest.value("host", run.dir));
    if (found.empty())
      continue;
    const std::string host = run.manifest.value("host", run.dir);
    gpus_per_host[host] = std::max(gpus_per_host[host], static_cast<int>(found.size()));
    names.insert(found.begin(), found.end());
  }
  // The commonest failure of a GPU node: no GPU at all (no driver, fallen off the bus). No SKU
  // can be read, so the profile that says a GPU node must show its GPUs judges it: FAIL.
  if (names.empty() && !without_gpus.empty())
    return {kGpuNodeProfile,
            fmt::format("no GPU in the inventory of {} node{} whose run had to have GPUs",
                        without_gpus.size(), without_gpus.size() == 1 ? "" : "s")};
  if (names.empty())
    throw InputError("no run's inventory shows a GPU, so no GPU profile can be chosen",
                     "--rules auto",
                     "give --rules host-only or any-fabric, or a profile by name (h100-sxm, "
                     "h200-sxm, ...)");
  if (names.size() > 1)
    throw InputError(fmt::format("the runs show GPUs of {} kinds ({}): one profile cannot judge "
                                 "them all",
                                 names.size(), fmt::join(names, ", ")),
                     "--rules auto", "check each kind's nodes apart, each with its profile");
  const std::string name = *names.begin();
  int most = 0;
  for (const auto &[host, n] : gpus_per_host)
    most = std::max(most, n);
  const std::string profile = profile_for_gpu(name, most);
  if (profile.empty())
    throw InputError(fmt::format("no shipped profile describes the GPU '{}'", name), "--rules auto",
                     "give --rules any-fabric (checks that need no expected figure), or a rules "
                     "file of your own with its floors");
  return {profile, fmt::format("{} GPU{} '{}' per node on {} node{}", most, most == 1 ? "" : "s",
                               name, gpus_per_host.size(), gpus_per_host.size() == 1 ? "" : "s")};
}

} // namespace railgauge::check
