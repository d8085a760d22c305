// `lldpctl -f json` (lldpd): {"lldp": {"interface": ...}} where "interface" is an object keyed
// by the local interface when there is one neighbour and a list of one-key objects when there
// are several (lldpd's tests/integration/test_lldpcli.py). Per interface:
//   "chassis": {"<neighbour's name>": {"id": {...}, ...}}   (or {"id": {...}} without a name)
//   "port":    {"id": {"type": "ifname"|"local"|"mac", "value": ...}, "descr": ...}
// The neighbour's port is its id when that is an interface name, else its description.
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {
namespace {

using nlohmann::json;

std::string neighbour_name(const json &chassis) {
  if (!chassis.is_object() || chassis.empty())
    return "";
  if (chassis.contains("id") && chassis["id"].is_object()) // no SysName: the chassis id
    return chassis["id"].value("value", "");
  return chassis.begin().key();
}

std::string neighbour_port(const json &port) {
  if (!port.is_object())
    return "";
  const auto id = port.value("id", json::object());
  const auto type = id.value("type", "");
  if ((type == "ifname" || type == "local") && !id.value("value", "").empty())
    return id.value("value", "");
  const auto descr = port.value("descr", "");
  return descr.empty() ? id.value("value", "") : descr;
}

void read_interface(const std::string &ifname, const json &entry, const LldpTable &table,
                    std::vector<RawCable> &cables) {
  const auto name = neighbour_name(entry.value("chassis", json::object()));
  const auto port = neighbour_port(entry.value("port", json::object()));
  if (name.empty())
    throw InputError(fmt::format("interface '{}' has no neighbour chassis", ifname), table.where,
                     "give `lldpctl -f json` output (show neighbors), not an interface listing");
  cables.push_back({table.system, ifname, name, port, table.is_host, -1});
}

} // namespace

std::vector<RawCable> read_lldpctl_json(const std::vector<LldpTable> &tables) {
  std::vector<RawCable> cables;
  for (const auto &table : tables) {
    json doc;
    try {
      doc = parse_bounded_json(table.json, table.where, "give the output of `lldpctl -f json`");
    } catch (const json::exception &e) { // parse_error, or out_of_range for 1E800
      throw InputError(fmt::format("not JSON: {}", e.what()), table.where,
                       "give the output of `lldpctl -f json`");
    }
    if (!doc.is_object() || !doc.contains("lldp") || !doc["lldp"].is_object())
      throw InputError("no \"lldp\" object (lldpctl -f json0 or keyvalue output?)", table.where,
                       "run `lldpctl -f json` (not json0, keyvalue or xml)");
    const auto interfaces = doc["lldp"].value("interface", json());
    if (interfaces.is_object())
      for (const auto &[ifname, entry] : interfaces.items())
        read_interface(ifname, entry, table, cables);
    else if (interfaces.is_array())
      for (const auto &one : interfaces)
        for (const auto &[ifname, entry] : one.items())
          read_interface(ifname, entry, table, cables);
  }
  return cables;
}

namespace {

// Bounded (harness/bounded_input.h): a FIFO, a device or a file of no end is refused by name.
std::string slurp(const std::filesystem::path &path) {
  return read_bounded_file(path.string(),
                           "give a readable YAML file, ibnetdiscover output or lldpctl directory "
                           "(a regular file: not a FIFO, a device or a process substitution)");
}

std::vector<LldpTable> lldp_tables(const std::filesystem::path &dir) {
  std::vector<LldpTable> tables;
  for (const auto &[sub, is_host] : {std::pair{"hosts", true}, std::pair{"switches", false}}) {
    if (!std::filesystem::is_directory(dir / sub))
      continue;
    std::vector<std::filesystem::path> files;
    for (const auto &f : std::filesystem::directory_iterator(dir / sub))
      if (f.path().extension() == ".json")
        files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto &f : files)
      tables.push_back({f.stem().string(), is_host, slurp(f), f.string()});
  }
  if (tables.empty())
    throw InputError("no lldpctl tables", dir.string(),
                     "put each host's `lldpctl -f json` output in hosts/<host>.json (and each "
                     "leaf's in switches/<leaf>.json)");
  return tables;
}

} // namespace

Topology load_topology(const std::string &path_text) {
  const std::filesystem::path path(path_text);
  if (std::filesystem::is_directory(path))
    return build_topology(read_lldpctl_json(lldp_tables(path)), path_text);
  const auto ext = path.extension().string();
  if (ext == ".yaml" || ext == ".yml")
    return build_topology(read_topology_yaml(slurp(path), path_text), path_text);
  auto map_path = path;
  map_path.replace_extension(".map");
  const auto names = std::filesystem::exists(map_path) ? read_guid_map(slurp(map_path))
                                                       : decltype(read_guid_map(""))();
  return build_topology(read_ibnetdiscover(slurp(path), path_text, names), path_text);
}

} // namespace railgauge::rdma::fabric
