#include "harness/inventory/port_counters.h"

#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/netdev_stats.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace railgauge {
namespace {

namespace fs = std::filesystem;

// Reads one sysfs counter file; an empty string means success, anything else says why not.
std::string read_counter(const fs::path &file, std::uint64_t &value) {
  std::ifstream in(file);
  if (!in)
    return "cannot open";
  std::string text;
  if (!std::getline(in, text))
    return "cannot read"; // e.g. EACCES/EIO on read of a counter the device cannot query
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r'))
    text.pop_back();
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return "not an integer: '" + text + "'";
  return {};
}

std::vector<std::string> sorted_names(const fs::path &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return names;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace

void read_counter_dir(const std::string &dir_path, const std::string &label, CounterMap &out,
                      std::vector<std::string> &unreadable) {
  const fs::path dir(dir_path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return;
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file(ec))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path &file : files) {
    std::uint64_t value = 0;
    const std::string why = read_counter(file, value);
    if (why.empty())
      out[file.filename().string()] = value;
    else
      unreadable.push_back(label + "/" + file.filename().string() + ": " + why);
  }
}

PortCounters read_port_counters(const std::string &sysfs_root, const std::string &device,
                                unsigned port, const NetdevStatsReader &netdev_stats) {
  PortCounters result;
  result.device = device;
  result.port = port;
  const fs::path port_dir =
      fs::path(sysfs_root) / "class" / "infiniband" / device / "ports" / std::to_string(port);
  read_counter_dir(port_dir / "counters", "counters", result.counters, result.unreadable);
  read_counter_dir(port_dir / "hw_counters", "hw_counters", result.hw_counters, result.unreadable);
  const NetdevStatsReader reader =
      netdev_stats ? netdev_stats
                   : (fs::path(sysfs_root) == "/sys" ? NetdevStatsReader(read_ethtool_stats)
                                                     : NetdevStatsReader());
  result.netdev = rdma_port_netdev(sysfs_root, device, port);
  if (reader && !result.netdev.empty())
    result.netdev_counters = read_fabric_counters(result.netdev, reader, result.unreadable);
  return result;
}

std::vector<PortCounters> read_all_port_counters(const std::string &sysfs_root) {
  std::vector<PortCounters> all;
  const fs::path class_dir = fs::path(sysfs_root) / "class" / "infiniband";
  for (const std::string &device : sorted_names(class_dir)) {
    std::vector<unsigned> ports;
    for (const std::string &name : sorted_names(class_dir / device / "ports")) {
      unsigned port = 0;
      const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), port);
      if (ec == std::errc() && end == name.data() + name.size())
        ports.push_back(port);
    }
    std::sort(ports.begin(), ports.end());
    for (unsigned port : ports)
      all.push_back(read_port_counters(sysfs_root, device, port));
  }
  return all;
}

std::map<std::string, std::int64_t> counter_deltas(const CounterMap &before,
                                                   const CounterMap &after) {
  std::map<std::string, std::int64_t> deltas;
  for (const auto &[name, value_after] : after) {
    const auto it = before.find(name);
    if (it != before.end())
      deltas[name] = static_cast<std::int64_t>(value_after - it->second);
  }
  return deltas;
}

nlohmann::json counter_deltas(const PortCounters &before, const PortCounters &after) {
  return {{inventory_field::kDevice, after.device},
          {inventory_field::kPort, after.port},
          {inventory_field::kCounters, counter_deltas(before.counters, after.counters)},
          {inventory_field::kHwCounters, counter_deltas(before.hw_counters, after.hw_counters)},
          {inventory_field::kNetdev, after.netdev},
          {inventory_field::kNetdevCounters,
           counter_deltas(before.netdev_counters, after.netdev_counters)}};
}

void add_counter_deltas(nlohmann::json &total, const nlohmann::json &deltas) {
  if (!deltas.is_object())
    return;
  if (!total.is_object())
    total = nlohmann::json::object();
  for (const char *group : {inventory_field::kCounters, inventory_field::kHwCounters,
                            inventory_field::kNetdevCounters}) {
    if (!deltas.contains(group) || !deltas.at(group).is_object())
      continue;
    nlohmann::json &sums = total[group];
    if (!sums.is_object())
      sums = nlohmann::json::object();
    for (const auto &[name, value] : deltas.at(group).items()) {
      if (!value.is_number_integer())
        continue;
      nlohmann::json &sum = sums[name];
      sum = (sum.is_number_integer() ? sum.get<std::int64_t>() : 0) + value.get<std::int64_t>();
    }
  }
  nlohmann::json &devices = total[kCounterDeltasDevices];
  if (!devices.is_array())
    devices = nlohmann::json::array();
  if (deltas.contains(inventory_field::kDevice) &&
      std::find(devices.begin(), devices.end(), deltas.at(inventory_field::kDevice)) ==
          devices.end())
    devices.push_back(deltas.at(inventory_field::kDevice));
}

nlohmann::json to_json(const PortCounters &counters) {
  return {{inventory_field::kDevice, counters.device},
          {inventory_field::kPort, counters.port},
          {inventory_field::kCounters, counters.counters},
          {inventory_field::kHwCounters, counters.hw_counters},
          {inventory_field::kNetdev, counters.netdev},
          {inventory_field::kNetdevCounters, counters.netdev_counters},
          {inventory_field::kUnreadable, counters.unreadable}};
}

} // namespace railgauge
