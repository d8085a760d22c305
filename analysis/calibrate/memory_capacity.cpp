#include "analysis/calibrate/memory_capacity.h"

#include <algorithm>
#include <vector>

namespace railgauge::calibrate {
namespace {

// The inventory each run's manifest holds (run.json), skipping runs without one.
std::vector<const nlohmann::json *> inventories(const analysis::RunSet &runs) {
  std::vector<const nlohmann::json *> out;
  for (const auto &r : runs.runs)
    if (r.manifest.is_object() && r.manifest.contains("inventory") &&
        r.manifest["inventory"].is_object())
      out.push_back(&r.manifest["inventory"]);
  return out;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

double host_memory_gib(const analysis::RunSet &runs) {
  for (const auto *inv : inventories(runs)) {
    if (!inv->contains("machine") || !(*inv)["machine"].contains("numa_nodes"))
      continue;
    double bytes = 0;
    for (const auto &n : (*inv)["machine"]["numa_nodes"])
      if (n.contains("memory_bytes") && n["memory_bytes"].is_number())
        bytes += n["memory_bytes"].get<double>();
    if (bytes > 0)
      return bytes / kGiB;
  }
  return 0;
}

double gpu_memory_gib(const analysis::RunSet &runs) {
  double smallest = 0;
  for (const auto *inv : inventories(runs)) {
    const auto &nvml = inv->value("nvml", nlohmann::json::object());
    if (!nvml.is_object() || !nvml.contains("gpus") || !nvml["gpus"].is_array())
      continue;
    for (const auto &g : nvml["gpus"]) {
      const auto bytes = g.value("memory_total_bytes", nlohmann::json());
      if (bytes.is_number() && bytes.get<double>() > 0)
        smallest = smallest == 0 ? bytes.get<double>() : std::min(smallest, bytes.get<double>());
    }
  }
  return smallest / kGiB;
}

} // namespace railgauge::calibrate
