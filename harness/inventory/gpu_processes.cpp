#include "harness/inventory/gpu_processes.h"

#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/telemetry_fields.h"

namespace railgauge {

std::optional<std::string> process_name(unsigned pid) {
  std::ifstream in(fmt::format("/proc/{}/comm", pid));
  std::string name;
  if (!in || !std::getline(in, name) || name.empty())
    return std::nullopt;
  return name;
}

nlohmann::json foreign_processes(const nlohmann::json &before, const nlohmann::json &after,
                                 unsigned self_pid) {
  std::map<unsigned, nlohmann::json> seen; // pid -> the process as last listed
  bool listed = false;
  for (const nlohmann::json *snapshot : {&before, &after}) {
    if (!snapshot->is_object())
      continue;
    const auto it = snapshot->find(telemetry::kComputeProcesses);
    if (it == snapshot->end() || !it->is_array())
      continue;
    listed = true;
    for (const auto &p : *it)
      if (p.is_object() && p.contains(inventory_field::kPid) &&
          p[inventory_field::kPid].is_number_unsigned())
        seen[p[inventory_field::kPid].get<unsigned>()] = p;
  }
  if (!listed)
    return nullptr;
  const bool self_listed = seen.count(self_pid) > 0;
  nlohmann::json others = nlohmann::json::array();
  for (const auto &[pid, p] : seen)
    if (pid != self_pid)
      others.push_back(
          {{telemetry::kPid, pid},
           {telemetry::kName, p.value(inventory_field::kName, nlohmann::json(nullptr))},
           {telemetry::kUsedMemoryBytes,
            p.value(inventory_field::kUsedMemoryBytes, nlohmann::json(nullptr))}});
  auto count = static_cast<long long>(others.size());
  nlohmann::json note = nullptr;
  if (!self_listed && count > 0) {
    --count;
    note = fmt::format("this process (pid {}) is not among NVML's pids (another PID namespace): "
                       "one of the {} listed is taken to be it",
                       self_pid, others.size());
  }
  return {{telemetry::kCount, std::max(count, 0LL)},
          {telemetry::kProcesses, std::move(others)},
          {telemetry::kNote, note}};
}

} // namespace railgauge
