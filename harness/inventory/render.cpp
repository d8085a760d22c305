// The console view of an inventory. It reads only the JSON document, so it renders inventories
// read back from run manifests exactly as fresh ones.
#include <fmt/format.h>

#include "harness/inventory/inventory.h"

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
  const json &m = inv["machine"];
  out += fmt::format("Machine: {} package(s), {} NUMA node(s), {} core(s), {} PU(s)\n",
                     m["packages"].size(), m["numa_nodes"].size(), text_or(m["cores"]),
                     text_or(m["pus"]));
  for (const json &p : m["packages"])
    out += fmt::format("  package {}: {} (cpus {})\n", p["os_index"].get<unsigned>(),
                       text_or(p["cpu_model"], "unknown CPU"), text_or(p["cpus"]));
  out += "\nNUMA nodes (row: NUMA node; memory in GB = 1e9 bytes; cores = physical cores)\n";
  out += fmt::format("  {:>4}  {:>10}  {:>5}  {}\n", "node", "memory_GB", "cores", "cpus");
  for (const json &n : m["numa_nodes"]) {
    const std::string memory = n["memory_bytes"].is_number()
                                   ? fmt::format("{:.1f}", n["memory_bytes"].get<double>() / 1e9)
                                   : "-";
    out += fmt::format("  {:>4}  {:>10}  {:>5}  {}\n", text_or(n["os_index"]), memory,
                       text_or(n["cores"]), text_or(n["cpus"]));
  }
  if (!m["caches"].empty()) {
    out += "\nCaches (row: level; size per instance in KiB = 1024 bytes; count = instances)\n";
    out += fmt::format("  {:>5}  {:<8}  {:>9}  {:>5}\n", "level", "type", "size_KiB", "count");
    for (const json &c : m["caches"])
      out += fmt::format("  {:>5}  {:<8}  {:>9}  {:>5}\n",
                         fmt::format("L{}", c["level"].get<int>()), c["type"].get<std::string>(),
                         c["size_bytes"].get<std::uint64_t>() / 1024, c["count"].get<unsigned>());
  }
}

void render_rail_map(const json &inv, std::string &out) {
  const json &rm = inv["rail_map"];
  out += fmt::format("\nPCI: {} GPU(s), {} NIC(s), {} NVSwitch(es)\n",
                     inv["summary"]["gpus"].get<int>(), inv["summary"]["nics"].get<int>(),
                     inv["summary"]["nvswitches"].get<int>());
  if (rm["gpus"].empty())
    return;
  if (!rm["nics"].empty()) {
    out += "\nGPU(row) -> NIC(column) PCIe distance: PIX same PCIe switch, PXB several switches, "
           "PHB same host bridge, NODE same NUMA node, SYS across NUMA nodes\n";
    out += fmt::format("  {:<6} {:<8}", "", "bus");
    for (const json &nic : rm["nics"])
      out += fmt::format(" {:>8}", text_or(nic["name"], short_bus(nic["bus_id"])));
    out += fmt::format("  {:>4}\n", "NUMA");
    for (std::size_t g = 0; g < rm["gpus"].size(); ++g) {
      const json &gpu = rm["gpus"][g];
      out += fmt::format("  {:<6} {:<8}", text_or(gpu["name"], fmt::format("GPU{}", g)),
                         short_bus(gpu["bus_id"]));
      for (const json &cell : rm["paths"][g])
        out += fmt::format(" {:>8}", cell.get<std::string>());
      out += fmt::format("  {:>4}\n", text_or(gpu["numa_node"]));
    }
    out += fmt::format("  {:<15}", "NIC NUMA");
    for (const json &nic : rm["nics"])
      out += fmt::format(" {:>8}", text_or(nic["numa_node"]));
    out += "\n";
  }
  out += "\nRail map (row: GPU in PCI bus order; rail NIC = its closest NIC, one per GPU where "
         "possible; path as above)\n";
  // The PCIe link each end negotiated or was described with, GB/s per direction.
  const auto link_text = [](const json &device) {
    return device.contains("link_gbytes_per_s") && device["link_gbytes_per_s"].is_number()
               ? fmt::format("{:.1f}", device["link_gbytes_per_s"].get<double>())
               : std::string("-");
  };
  const auto nic_link = [&](const json &bus_id) {
    for (const json &nic : rm["nics"])
      if (nic["bus_id"] == bus_id)
        return link_text(nic);
    return std::string("-");
  };
  out += fmt::format("  {:>3}  {:<13} {:>4}  {:>7}  {:<10} {:<13} {:>4}  {:>7}  {}\n", "gpu",
                     "gpu_bus", "numa", "GB/s", "nic", "nic_bus", "numa", "GB/s", "path");
  for (const json &r : rm["rails"])
    out += fmt::format("  {:>3}  {:<13} {:>4}  {:>7}  {:<10} {:<13} {:>4}  {:>7}  {}\n",
                       r["gpu_index"].get<int>(), text_or(r["gpu_bus_id"]),
                       text_or(r["gpu_numa_node"]),
                       link_text(rm["gpus"][r["gpu_index"].get<std::size_t>()]),
                       text_or(r["nic_name"]), text_or(r["nic_bus_id"]),
                       text_or(r["nic_numa_node"]), nic_link(r["nic_bus_id"]), text_or(r["path"]));
}

void render_nvml(const json &nvml, std::string &out) {
  if (!nvml["available"].get<bool>()) {
    out += fmt::format("\nNVML: not available ({})\n", text_or(nvml["reason"]));
    return;
  }
  out += fmt::format("\nNVML: driver {}, NVML {}\n", text_or(nvml["driver_version"]),
                     text_or(nvml["nvml_version"]));
  out += "GPUs (row: NVML index; PCIe gen x width current/max; SM clock MHz current/max; power W "
         "usage/limit; temperature C; ECC uncorrected volatile/aggregate; NVLink links up/total)\n";
  for (const json &g : nvml["gpus"]) {
    if (!g.contains("name")) {
      out += fmt::format("  {:>2}  error: {}\n", g["index"].get<int>(), g["errors"].dump());
      continue;
    }
    const json &pcie = g["pcie"];
    const json &nvlink = g["nvlink"];
    out += fmt::format(
        "  {:>2}  {:<24} {}  pcie {}x{}/{}x{}  sm {}/{}  power {}/{}  {}C  ecc {}/{}  nvlink {}\n",
        g["index"].get<int>(), text_or(g["name"]), short_bus(g["pci_bus_id"]),
        text_or(pcie["gen_current"]), text_or(pcie["width_current"]), text_or(pcie["gen_max"]),
        text_or(pcie["width_max"]), text_or(g["sm_clock_mhz"]["current"]),
        text_or(g["sm_clock_mhz"]["max"]), text_or(g["power_usage_w"]), text_or(g["power_limit_w"]),
        text_or(g["temperature_c"]), text_or(g["ecc"]["volatile"]["uncorrected"]),
        text_or(g["ecc"]["aggregate"]["uncorrected"]),
        nvlink.is_null() ? std::string("-")
                         : fmt::format("{}/{}", nvlink["up"].get<int>(), nvlink["links"].size()));
    if (g["clocks_event_reasons"].is_array() && !g["clocks_event_reasons"].empty())
      out += fmt::format("      clocks event reasons: {}\n", g["clocks_event_reasons"].dump());
  }
}

void render_verbs(const json &verbs, std::string &out) {
  if (!verbs["available"].get<bool>()) {
    out += fmt::format("\nverbs: not available ({})\n", text_or(verbs["reason"]));
    return;
  }
  if (verbs["devices"].empty()) {
    out += "\nverbs: no RDMA devices\n";
    return;
  }
  out += "\nRDMA ports (row: device/port; rate in Gb/s = 1e9 bits/s; MTU in bytes; GIDs = "
         "non-empty GID table entries)\n";
  out += fmt::format("  {:<12} {:<7} {:<10} {:<11} {:>6}  {:>5}  {:>4}\n", "device/port", "state",
                     "physical", "link_layer", "rate", "mtu", "gids");
  for (const json &d : verbs["devices"])
    for (const json &p : d["ports"]) {
      const std::string id =
          fmt::format("{}/{}", d["name"].get<std::string>(), p["port"].get<int>());
      if (p.contains("error")) {
        out += fmt::format("  {:<12} error: {}\n", id, p["error"].get<std::string>());
        continue;
      }
      out += fmt::format("  {:<12} {:<7} {:<10} {:<11} {:>6}  {:>5}  {:>4}\n", id,
                         text_or(p["state"]), text_or(p["physical_state"]),
                         text_or(p["link_layer"]), p["rate_gbits_per_s"].get<double>(),
                         text_or(p["active_mtu_bytes"]), p["gids"].size());
    }
}

} // namespace

std::string render_inventory_text(const nlohmann::json &inventory) {
  std::string out;
  const json &source = inventory["source"];
  const std::string kind = source["kind"].get<std::string>();
  out += fmt::format(
      "railgauge inventory of {} ({})\n\n", text_or(inventory["host"], "unknown host"),
      kind == "this_machine"
          ? std::string("this machine")
          : fmt::format("{} {}", kind == "hwloc_xml" ? "hwloc XML" : "NCCL topology XML",
                        source["file"].get<std::string>()));
  if (inventory.contains("warnings"))
    for (const json &w : inventory["warnings"])
      out += "WARNING: " + w.get<std::string>() + "\n\n";
  render_machine(inventory, out);
  render_rail_map(inventory, out);
  render_nvml(inventory["nvml"], out);
  render_verbs(inventory["verbs"], out);
  const json &counters = inventory["port_counters"];
  if (counters["available"].get<bool>())
    out += fmt::format("\nNIC port counters: {} port(s) read from sysfs (values in the JSON "
                       "output)\n",
                       counters["ports"].size());
  return out;
}

} // namespace railgauge
