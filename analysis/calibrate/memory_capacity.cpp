#include "analysis/calibrate/memory_capacity.h"

#include <algorithm>
#include <vector>

#include "harness/inventory/inventory_fields.h"

namespace railgauge::calibrate {
namespace {

// The inventory each run's manifest holds (run.json), skipping runs without one.
std::vector<const nlohmann::json *> inventories(const analysis::RunSet &runs) {
  std::vector<const nlohmann::json *> out;
  for (const auto &r : runs.runs)
    if (r.manifest.is_object() && r.manifest.contains(inventory_field::kInventory) &&
        r.manifest[inventory_field::kInventory].is_object())
      out.push_back(&r.manifest[inventory_field::kInventory]);
  return out;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

double host_memory_gib(const analysis::RunSet &runs) {
  for (const auto *inv : inventories(runs)) {
    if (!inv->contains(inventory_field::kMachine) ||
        !(*inv)[inventory_field::kMachine].contains(inventory_field::kNumaNodes))
      continue;
    double bytes = 0;
    for (const auto &n : (*inv)[inventory_field::kMachine][inventory_field::kNumaNodes])
      if (n.contains(inventory_field::kMemoryBytes) && n[inventory_field::kMemoryBytes].is_number())
        bytes += n[inventory_field::kMemoryBytes].get<double>();
    if (bytes > 0)
      return bytes / kGiB;
  }
  return 0;
}

double gpu_memory_gib(const analysis::RunSet &runs) {
  double smallest = 0;
  for (const auto *inv : inventories(runs)) {
    const auto &nvml = inv->value("nvml", nlohmann::json::object());
    if (!nvml.is_object() || !nvml.contains(inventory_field::kGpus) ||
        !nvml[inventory_field::kGpus].is_array())
      continue;
    for (const auto &g : nvml[inventory_field::kGpus]) {
      const auto bytes = g.value(inventory_field::kMemoryTotalBytes, nlohmann::json());
      if (bytes.is_number() && bytes.get<double>() > 0)
        smallest = smallest == 0 ? bytes.get<double>() : std::min(smallest, bytes.get<double>());
    }
  }
  return smallest / kGiB;
}

} // namespace railgauge::calibrate
