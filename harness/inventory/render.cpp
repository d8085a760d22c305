// The console view of an inventory. It reads only the JSON document, so it renders inventories
// read back from run manifests exactly as fresh ones.
#include <fmt/format.h>

#include "harness/inventory/inventory.h"
#include "harness/inventory/inventory_fields.h"

namespace railgauge {
namespace {

using json = nlohmann::json;

std::string text_or(const json &value, std::string_view fallback = "-") {
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_null())
    return std::string(fallback);
  return value.dump();
}

// "0000:18:00.0" -> "18:00.0": the domain is 0000 on every machine this prints for.
std::string short_bus(const json &bus_id) {
  std::string text = text_or(bus_id);
  if (text.rfind("0000:", 0) == 0)
    text = text.substr(5);
  return text;
}

void render_machine(const json &inv, std::string &out) {
  const json &m = inv[inventory_field::kMachine];
  out += fmt::format("Machine: {} package(s), {} NUMA node(s), {} core(s), {} PU(s)\n",
                     m[inventory_field::kPackages].size(), m[inventory_field::kNumaNodes].size(),
                     text_or(m[inventory_field::kCores]), text_or(m[inventory_field::kPus]));
  for (const json &p : m[inventory_field::kPackages])
    out += fmt::format("  package {}: {} (cpus {})\n", p[inventory_field::kOsIndex].get<unsigned>(),
                       text_or(p[inventory_field::kCpuModel], "unknown CPU"),
                       text_or(p[inventory_field::kCpus]));
  out += "\nNUMA nodes (row: NUMA node; memory in GB = 1e9 bytes; cores = physical cores)\n";
  out += fmt::format("  {:>4}  {:>10}  {:>5}  {}\n", "node", "memory_GB", "cores", "cpus");
  for (const json &n : m[inventory_field::kNumaNodes]) {
    const std::string memory =
        n[inventory_field::kMemoryBytes].is_number()
            ? fmt::format("{:.1f}", n[inventory_field::kMemoryBytes].get<double>() / 1e9)
            : "-";
    out +=
        fmt::format("  {:>4}  {:>10}  {:>5}  {}\n", text_or(n[inventory_field::kOsIndex]), memory,
                    text_or(n[inventory_field::kCores]), text_or(n[inventory_field::kCpus]));
  }
  if (!m[inventory_field::kCaches].empty()) {
    out += "\nCaches (row: level; size per instance in KiB = 1024 bytes; count = instances)\n";
    out += fmt::format("  {:>5}  {:<8}  {:>9}  {:>5}\n", "level", "type", "size_KiB", "count");
    for (const json &c : m[inventory_field::kCaches])
      out += fmt::format("  {:>5}  {:<8}  {:>9}  {:>5}\n",
                         fmt::format("L{}", c[inventory_field::kLevel].get<int>()),
                         c[inventory_field::kType].get<std::string>(),
                         c[inventory_field::kSizeBytes].get<std::uint64_t>() / 1024,
                         c[inventory_field::kCount].get<unsigned>());
  }
}

void render_rail_map(const json &inv, std::string &out) {
  const json &rm = inv[inventory_field::kRailMap];
  out += fmt::format("\nPCI: {} GPU(s), {} NIC(s), {} NVSwitch(es)\n",
                     inv[inventory_field::kSummary][inventory_field::kGpus].get<int>(),
                     inv[inventory_field::kSummary][inventory_field::kNics].get<int>(),
                     inv[inventory_field::kSummary][inventory_field::kNvswitches].get<int>());
  if (rm[inventory_field::kGpus].empty())
    return;
  if (!rm[inventory_field::kNics].empty()) {
    out += "\nGPU(row) -> NIC(column) PCIe distance: PIX same PCIe switch, PXB several switches, "
           "PHB same host bridge, NODE same NUMA node, SYS across NUMA nodes\n";
    out += fmt::format("  {:<6} {:<8}", "", "bus");
    for (const json &nic : rm[inventory_field::kNics])
      out += fmt::format(
          " {:>8}", text_or(nic[inventory_field::kName], short_bus(nic[inventory_field::kBusId])));
    out += fmt::format("  {:>4}\n", "NUMA");
    for (std::size_t g = 0; g < rm[inventory_field::kGpus].size(); ++g) {
      const json &gpu = rm[inventory_field::kGpus][g];
      out += fmt::format("  {:<6} {:<8}",
                         text_or(gpu[inventory_field::kName], fmt::format("GPU{}", g)),
                         short_bus(gpu[inventory_field::kBusId]));
      for (const json &cell : rm[inventory_field::kPaths][g])
        out += fmt::format(" {:>8}", cell.get<std::string>());
      out += fmt::format("  {:>4}\n", text_or(gpu[inventory_field::kNumaNode]));
    }
    out += fmt::format("  {:<15}", "NIC NUMA");
    for (const json &nic : rm[inventory_field::kNics])
      out += fmt::format(" {:>8}", text_or(nic[inventory_field::kNumaNode]));
    out += "\n";
  }
  out += "\nRail map (row: GPU in PCI bus order; rail NIC = its closest NIC, one per GPU where "
         "possible; path as above)\n";
  // The PCIe link each end negotiated or was described with, GB/s per direction.
  const auto link_text = [](const json &device) {
    return device.contains(inventory_field::kLinkGbytesPerS) &&
                   device[inventory_field::kLinkGbytesPerS].is_number()
               ? fmt::format("{:.1f}", device[inventory_field::kLinkGbytesPerS].get<double>())
               : std::string("-");
  };
  const auto nic_link = [&](const json &bus_id) {
    for (const json &nic : rm[inventory_field::kNics])
      if (nic[inventory_field::kBusId] == bus_id)
        return link_text(nic);
    return std::string("-");
  };
  out += fmt::format("  {:>3}  {:<13} {:>4}  {:>7}  {:<10} {:<13} {:>4}  {:>7}  {}\n", "gpu",
                     "gpu_bus", "numa", "GB/s", "nic", "nic_bus", "numa", "GB/s", "path");
  for (const json &r : rm[inventory_field::kRails])
    out += fmt::format(
        "  {:>3}  {:<13} {:>4}  {:>7}  {:<10} {:<13} {:>4}  {:>7}  {}\n",
        r[inventory_field::kGpuIndex].get<int>(), text_or(r[inventory_field::kGpuBusId]),
        text_or(r[inventory_field::kGpuNumaNode]),
        link_text(rm[inventory_field::kGpus][r[inventory_field::kGpuIndex].get<std::size_t>()]),
        text_or(r[inventory_field::kNicName]), text_or(r[inventory_field::kNicBusId]),
        text_or(r[inventory_field::kNicNumaNode]), nic_link(r[inventory_field::kNicBusId]),
        text_or(r[inventory_field::kPath]));
}

void render_nvml(const json &nvml, std::string &out) {
  if (!nvml[inventory_field::kAvailable].get<bool>()) {
    out += fmt::format("\nNVML: not available ({})\n", text_or(nvml[inventory_field::kReason]));
    return;
  }
  out += fmt::format("\nNVML: driver {}, NVML {}\n", text_or(nvml[inventory_field::kDriverVersion]),
                     text_or(nvml[inventory_field::kNvmlVersion]));
  out += "GPUs (row: NVML index; PCIe gen x width current/max; SM clock MHz current/max; power W "
         "usage/limit; temperature C; ECC uncorrected volatile/aggregate; NVLink links up/total)\n";
  for (const json &g : nvml[inventory_field::kGpus]) {
    if (!g.contains(inventory_field::kName)) {
      out += fmt::format("  {:>2}  error: {}\n", g[inventory_field::kIndex].get<int>(),
                         g[inventory_field::kErrors].dump());
      continue;
    }
    const json &pcie = g[inventory_field::kPcie];
    const json &nvlink = g[inventory_field::kNvlink];
    out += fmt::format(
        "  {:>2}  {:<24} {}  pcie {}x{}/{}x{}  sm {}/{}  power {}/{}  {}C  ecc {}/{}  nvlink {}\n",
        g[inventory_field::kIndex].get<int>(), text_or(g[inventory_field::kName]),
        short_bus(g[inventory_field::kPciBusId]), text_or(pcie[inventory_field::kGenCurrent]),
        text_or(pcie[inventory_field::kWidthCurrent]), text_or(pcie[inventory_field::kGenMax]),
        text_or(pcie[inventory_field::kWidthMax]),
        text_or(g[inventory_field::kSmClockMhz][inventory_field::kCurrent]),
        text_or(g[inventory_field::kSmClockMhz][inventory_field::kMax]),
        text_or(g[inventory_field::kPowerUsageW]), text_or(g[inventory_field::kPowerLimitW]),
        text_or(g[inventory_field::kTemperatureC]),
        text_or(
            g[inventory_field::kEcc][inventory_field::kVolatile][inventory_field::kUncorrected]),
        text_or(
            g[inventory_field::kEcc][inventory_field::kAggregate][inventory_field::kUncorrected]),
        nvlink.is_null() ? std::string("-")
                         : fmt::format("{}/{}", nvlink[inventory_field::kUp].get<int>(),
                                       nvlink[inventory_field::kLinks].size()));
    if (g[inventory_field::kClocksEventReasons].is_array() &&
        !g[inventory_field::kClocksEventReasons].empty())
      out += fmt::format("      clocks event reasons: {}\n",
                         g[inventory_field::kClocksEventReasons].dump());
  }
}

void render_verbs(const json &verbs, std::string &out) {
  if (!verbs[inventory_field::kAvailable].get<bool>()) {
    out += fmt::format("\nverbs: not available ({})\n", text_or(verbs[inventory_field::kReason]));
    return;
  }
  if (verbs[inventory_field::kDevices].empty()) {
    out += "\nverbs: no RDMA devices\n";
    return;
  }
  out += "\nRDMA ports (row: device/port; rate in Gb/s = 1e9 bits/s; MTU in bytes; GIDs = "
         "non-empty GID table entries)\n";
  out += fmt::format("  {:<12} {:<7} {:<10} {:<11} {:>6}  {:>5}  {:>4}\n", "device/port", "state",
                     "physical", "link_layer", "rate", "mtu", "gids");
  for (const json &d : verbs[inventory_field::kDevices])
    for (const json &p : d[inventory_field::kPorts]) {
      const std::string id = fmt::format("{}/{}", d[inventory_field::kName].get<std::string>(),
                                         p[inventory_field::kPort].get<int>());
      if (p.contains(inventory_field::kError)) {
        out +=
            fmt::format("  {:<12} error: {}\n", id, p[inventory_field::kError].get<std::string>());
        continue;
      }
      out += fmt::format(
          "  {:<12} {:<7} {:<10} {:<11} {:>6}  {:>5}  {:>4}\n", id,
          text_or(p[inventory_field::kState]), text_or(p[inventory_field::kPhysicalState]),
          text_or(p[inventory_field::kLinkLayer]), p[inventory_field::kRateGbitsPerS].get<double>(),
          text_or(p[inventory_field::kActiveMtuBytes]), p[inventory_field::kGids].size());
    }
}

} // namespace

std::string render_inventory_text(const nlohmann::json &inventory) {
  std::string out;
  const json &source = inventory[inventory_field::kSource];
  const std::string kind = source[inventory_field::kKind].get<std::string>();
  out += fmt::format("railgauge inventory of {} ({})\n\n",
                     text_or(inventory[inventory_field::kHost], "unknown host"),
                     kind == "this_machine"
                         ? std::string("this machine")
                         : fmt::format("{} {}",
                                       kind == "hwloc_xml" ? "hwloc XML" : "NCCL topology XML",
                                       source[inventory_field::kFile].get<std::string>()));
  if (inventory.contains(inventory_field::kWarnings))
    for (const json &w : inventory[inventory_field::kWarnings])
      out += "WARNING: " + w.get<std::string>() + "\n\n";
  render_machine(inventory, out);
  render_rail_map(inventory, out);
  render_nvml(inventory[inventory_field::kNvml], out);
  render_verbs(inventory[inventory_field::kVerbs], out);
  const json &counters = inventory[inventory_field::kPortCounters];
  if (counters[inventory_field::kAvailable].get<bool>())
    out += fmt::format("\nNIC port counters: {} port(s) read from sysfs (values in the JSON "
                       "output)\n",
                       counters[inventory_field::kPorts].size());
  return out;
}

} // namespace railgauge
