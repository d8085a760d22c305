#include "analysis/check/inventory_probes.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/inventory/inventory_fields.h"
#include "harness/record_fields.h"

namespace railgauge::check {
namespace {

using json = nlohmann::json;

// nvml.gpus[] field paths for the plain GPU probes; booleans become 0/1.
const std::map<std::string, std::vector<std::string>> &gpu_fields() {
  static const std::map<std::string, std::vector<std::string>> fields = {
      {"gpu.ecc_uncorrected_volatile",
       {inventory_field::kEcc, inventory_field::kVolatile, inventory_field::kUncorrected}},
      {"gpu.ecc_uncorrected_aggregate",
       {inventory_field::kEcc, inventory_field::kAggregate, inventory_field::kUncorrected}},
      {"gpu.ecc_corrected_volatile",
       {inventory_field::kEcc, inventory_field::kVolatile, inventory_field::kCorrected}},
      {"gpu.ecc_enabled", {inventory_field::kEcc, inventory_field::kEnabledCurrent}},
      {"gpu.ecc_enabled_pending", {inventory_field::kEcc, inventory_field::kEnabledPending}},
      {"gpu.remapped_rows_pending", {inventory_field::kRemappedRows, inventory_field::kPending}},
      {"gpu.remapped_rows_failure", {inventory_field::kRemappedRows, inventory_field::kFailure}},
      {"gpu.remapped_rows_uncorrectable",
       {inventory_field::kRemappedRows, inventory_field::kUncorrectable}},
      {"gpu.remapped_rows_correctable",
       {inventory_field::kRemappedRows, inventory_field::kCorrectable}},
      {"gpu.retired_pages_double_bit",
       {inventory_field::kRetiredPages, inventory_field::kDoubleBit}},
      {"gpu.retired_pages_single_bit",
       {inventory_field::kRetiredPages, inventory_field::kSingleBit}},
      {"gpu.retired_pages_pending", {inventory_field::kRetiredPages, inventory_field::kPending}},
      {"gpu.clocks_event_reasons", {inventory_field::kClocksEventReasons}},
      {"gpu.pcie_gen_current", {inventory_field::kPcie, inventory_field::kGenCurrent}},
      {"gpu.pcie_gen_max", {inventory_field::kPcie, inventory_field::kGenMax}},
      {"gpu.pcie_width_current", {inventory_field::kPcie, inventory_field::kWidthCurrent}},
      {"gpu.pcie_width_max", {inventory_field::kPcie, inventory_field::kWidthMax}},
      {"gpu.nvlink_up", {inventory_field::kNvlink, inventory_field::kUp}},
      {"gpu.nvlink_down", {inventory_field::kNvlink, inventory_field::kDown}},
      {"gpu.temperature_c", {inventory_field::kTemperatureC}},
      {"gpu.power_limit_w", {inventory_field::kPowerLimitW}},
      {"gpu.sm_clock_max_mhz", {inventory_field::kSmClockMhz, inventory_field::kMax}},
  };
  return fields;
}

// Probes computed from two fields: max - current, so "below max" is "> 0".
const std::map<std::string, std::pair<std::string, std::string>> &gpu_deficits() {
  static const std::map<std::string, std::pair<std::string, std::string>> d = {
      {"gpu.pcie_gen_below_max", {inventory_field::kGenMax, inventory_field::kGenCurrent}},
      {"gpu.pcie_width_below_max", {inventory_field::kWidthMax, inventory_field::kWidthCurrent}},
  };
  return d;
}

const std::vector<std::string> &nic_port_probes() {
  static const std::vector<std::string> p = {"nic.port_active", "nic.port_link_up",
                                             "nic.rate_gbits_per_s", "nic.link_layer",
                                             "nic.active_mtu_bytes"};
  return p;
}

const std::map<std::string, std::vector<std::string>> &node_fields() {
  static const std::map<std::string, std::vector<std::string>> f = {
      {"node.gpu_count", {inventory_field::kSummary, inventory_field::kGpus}},
      {"node.nic_count", {inventory_field::kSummary, inventory_field::kNics}},
      {"node.nvswitch_count", {inventory_field::kSummary, inventory_field::kNvswitches}},
      {"node.numa_node_count", {inventory_field::kSummary, inventory_field::kNumaNodes}},
  };
  return f;
}

constexpr const char *kCounterPrefix = "nic.counter.";
// The GPUs NVML opened (an entry with its uuid; one whose handle it could not get, a GPU fallen
// off the bus, is listed with the error and not counted): 0 where NVML could not be read (no
// driver), which node.gpu_count (the PCI tree's, the bus's view) does not see; missing in an
// inventory without NVML's section.
constexpr const char *kNvmlGpuCount = "node.nvml_gpu_count";

json at_path(const json &node, const std::vector<std::string> &path) {
  const json *cur = &node;
  for (const auto &p : path) {
    if (!cur->is_object() || !cur->contains(p))
      return nullptr;
    cur = &(*cur)[p];
  }
  return *cur; // a flag stays one: judged as 0 or 1, shown as false or true
}

std::string dotted(const std::vector<std::string> &path) {
  std::string s;
  for (const auto &p : path)
    s += (s.empty() ? "" : ".") + p;
  return s;
}

ProbeResult unavailable(const json &inventory, const char *section) {
  ProbeResult r;
  r.available = false;
  const auto &sec = inventory.contains(section) ? inventory[section] : json();
  r.reason = sec.is_object() && sec.contains(inventory_field::kReason) &&
                     sec[inventory_field::kReason].is_string()
                 ? fmt::format("{} unavailable: {}", section,
                               sec[inventory_field::kReason].get<std::string>())
                 : fmt::format("the inventory has no '{}' section", section);
  return r;
}

bool section_available(const json &inventory, const char *section) {
  return inventory.contains(section) && inventory[section].is_object() &&
         inventory[section].value(inventory_field::kAvailable, false);
}

// A section's list (nvml.gpus, verbs.devices), or why it cannot be read: a list of objects, or
// absent (none). A run.json holding `"gpus": "x"` once crashed check (exit 3, no file named).
std::optional<json> objects_of(const json &inventory, const char *section, const char *field,
                               std::string &why) {
  const auto list = inventory[section].value(field, json::array());
  if (list.is_array() &&
      std::all_of(list.begin(), list.end(), [](const json &e) { return e.is_object(); }))
    return list;
  why = fmt::format("the inventory's {}.{} is not a list of objects: {}", section, field,
                    list.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 60));
  return std::nullopt;
}

ProbeResult unreadable_list(std::string why) {
  ProbeResult r;
  r.available = false;
  r.reason = std::move(why);
  return r;
}

template <class F> ProbeResult per_gpu(const json &inventory, F &&value_of) {
  if (!section_available(inventory, inventory_field::kNvml))
    return unavailable(inventory, inventory_field::kNvml);
  std::string why;
  const auto gpus = objects_of(inventory, inventory_field::kNvml, inventory_field::kGpus, why);
  if (!gpus)
    return unreadable_list(std::move(why));
  ProbeResult r;
  for (const auto &g : *gpus) {
    ProbeValue v;
    v.kind = PartKind::gpu;
    v.id = g.contains(inventory_field::kPciBusId) && g[inventory_field::kPciBusId].is_string()
               ? normalize_bus_id(g[inventory_field::kPciBusId].get<std::string>())
               : fmt::format("nvml{}", g.value(inventory_field::kIndex, 0));
    std::tie(v.value, v.detail) = value_of(g);
    r.values.push_back(std::move(v));
  }
  if (r.values.empty()) {
    r.available = false;
    r.reason = "NVML found no GPU";
  }
  return r;
}

ProbeResult nic_ports(const json &inventory, const std::string &probe) {
  if (!section_available(inventory, inventory_field::kVerbs))
    return unavailable(inventory, inventory_field::kVerbs);
  std::string why;
  const auto devices =
      objects_of(inventory, inventory_field::kVerbs, inventory_field::kDevices, why);
  if (!devices)
    return unreadable_list(std::move(why));
  ProbeResult r;
  for (const auto &dev : *devices) {
    auto ports = dev.value(inventory_field::kPorts, json::array());
    if (!ports.is_array() ||
        !std::all_of(ports.begin(), ports.end(), [](const json &p) { return p.is_object(); }))
      ports = json::array(); // unreadable: said below as "no port listed", a missing value
    if (dev.contains(inventory_field::kError) || ports.empty()) {
      // A device verbs lists but cannot open or query (firmware in error, a driver that lost
      // it): every port probe is unreadable for it, a missing value, never a NIC left out.
      ProbeValue v;
      v.kind = PartKind::nic;
      v.id = dev.value(inventory_field::kName, "");
      v.detail = dev.contains(inventory_field::kError) && dev[inventory_field::kError].is_string()
                     ? dev[inventory_field::kError].get<std::string>()
                     : std::string("no port listed");
      r.values.push_back(std::move(v));
      continue;
    }
    for (const auto &port : ports) {
      ProbeValue v;
      v.kind = PartKind::nic;
      v.id = dev.value(inventory_field::kName, "");
      v.detail = fmt::format("port {}", port.value(inventory_field::kPort, 0));
      if (port.contains(inventory_field::kError))
        v.value = nullptr;
      else if (probe == "nic.port_active")
        v.value = port.value(inventory_field::kState, "") == "PORT_ACTIVE" ? 1 : 0;
      else if (probe == "nic.port_link_up")
        v.value = port.value(inventory_field::kPhysicalState, "") == "link_up" ? 1 : 0;
      else if (probe == "nic.rate_gbits_per_s")
        v.value = port.value(inventory_field::kRateGbitsPerS, json());
      else if (probe == "nic.link_layer")
        v.value = port.value(inventory_field::kLinkLayer, json());
      else if (probe == "nic.active_mtu_bytes")
        v.value = port.value(inventory_field::kActiveMtuBytes, json());
      r.values.push_back(std::move(v));
    }
  }
  if (r.values.empty()) {
    r.available = false;
    r.reason = "verbs found no RDMA device port";
  }
  return r;
}

ProbeResult nic_counter(const json &inventory, const std::string &counter) {
  if (!section_available(inventory, inventory_field::kPortCounters))
    return unavailable(inventory, inventory_field::kPortCounters);
  ProbeResult r;
  for (const auto &port :
       inventory[inventory_field::kPortCounters].value(inventory_field::kPorts, json::array())) {
    ProbeValue v;
    v.kind = PartKind::nic;
    v.id = port.value(inventory_field::kDevice, "");
    v.detail = fmt::format("port {}", port.value(inventory_field::kPort, 0));
    for (const char *map : {inventory_field::kCounters, inventory_field::kHwCounters})
      if (port.contains(map) && port[map].contains(counter)) {
        v.value = port[map][counter];
        v.detail += fmt::format(" {}/{}", map, counter);
      }
    r.values.push_back(std::move(v));
  }
  if (r.values.empty()) {
    r.available = false;
    r.reason = "no RDMA port counters in the inventory";
  }
  return r;
}

} // namespace

std::string normalize_bus_id(const std::string &bus_id) {
  std::string s = bus_id;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto colon = s.find(':');
  if (colon != std::string::npos && colon > 4 && s.find(':', colon + 1) != std::string::npos)
    s = s.substr(colon - 4);
  return s;
}

bool is_known_probe(const std::string &name) {
  if (gpu_fields().count(name) || gpu_deficits().count(name) || node_fields().count(name) ||
      name == kNvmlGpuCount)
    return true;
  if (std::find(nic_port_probes().begin(), nic_port_probes().end(), name) !=
      nic_port_probes().end())
    return true;
  return name.starts_with(kCounterPrefix) && name.size() > std::string(kCounterPrefix).size();
}

std::string known_probes_text() {
  std::string s;
  const auto add = [&](const std::string &n) { s += (s.empty() ? "" : ", ") + n; };
  for (const auto &[n, _] : node_fields())
    add(n);
  add(kNvmlGpuCount);
  for (const auto &[n, _] : gpu_fields())
    add(n);
  for (const auto &[n, _] : gpu_deficits())
    add(n);
  for (const auto &n : nic_port_probes())
    add(n);
  add("nic.counter.<sysfs counter name, e.g. link_downed>");
  return s;
}

ProbeResult run_probe(const std::string &name, const json &inventory) {
  if (name == kNvmlGpuCount) {
    const auto *nvml = record_fields::field(inventory, inventory_field::kNvml);
    const auto *gpus = nvml ? record_fields::field(*nvml, inventory_field::kGpus) : nullptr;
    json opened; // null: no list to count
    if (gpus && gpus->is_array()) {
      int n = 0;
      for (const auto &g : *gpus)
        n += record_fields::text(g, inventory_field::kUuid).has_value();
      opened = n;
    }
    ProbeResult r;
    r.values.push_back({PartKind::node, "", "nvml.gpus opened (count)", opened});
    return r;
  }
  if (const auto it = node_fields().find(name); it != node_fields().end()) {
    ProbeResult r;
    r.values.push_back({PartKind::node, "", dotted(it->second), at_path(inventory, it->second)});
    return r;
  }
  if (const auto it = gpu_fields().find(name); it != gpu_fields().end())
    return per_gpu(inventory, [&](const json &g) {
      return std::pair{at_path(g, it->second), dotted(it->second)};
    });
  if (const auto it = gpu_deficits().find(name); it != gpu_deficits().end())
    return per_gpu(inventory, [&](const json &g) {
      const auto max = at_path(g, {inventory_field::kPcie, it->second.first});
      const auto cur = at_path(g, {inventory_field::kPcie, it->second.second});
      const std::string detail = fmt::format("pcie.{} {} vs pcie.{} {}", it->second.second,
                                             cur.dump(), it->second.first, max.dump());
      if (!max.is_number() || !cur.is_number())
        return std::pair{json(), detail};
      return std::pair{json(max.get<double>() - cur.get<double>()), detail};
    });
  if (std::find(nic_port_probes().begin(), nic_port_probes().end(), name) !=
      nic_port_probes().end())
    return nic_ports(inventory, name);
  if (name.starts_with(kCounterPrefix))
    return nic_counter(inventory, name.substr(std::string(kCounterPrefix).size()));
  throw std::invalid_argument("unknown inventory probe " + name);
}

} // namespace railgauge::check
