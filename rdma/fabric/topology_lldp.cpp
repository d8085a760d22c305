// `lldpctl -f json` (lldpd): {"lldp": {"interface": ...}} where "interface" is an object keyed
// by the local interface when there is one neighbour and a list of one-key objects when there
// are several (lldpd's tests/integration/test_lldpcli.py). Per interface:
//   "chassis": {"<neighbour's name>": {"id": {...}, ...}}   (or {"id": {...}} without a name)
//   "port":    {"id": {"type": "ifname"|"local"|"mac", "value": ...}, "descr": ...}
// The neighbour's port is its id when that is an interface name, else its description.
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {
namespace {

using nlohmann::json;

// json0 wraps every value in a list of one: the first element, or the value itself.
json one(const json &j) { return j.is_array() && !j.empty() ? j[0] : j; }

std::string text(const json &j) {
  const auto x = one(j);
  if (x.is_string())
    return x.get<std::string>();
  return x.is_object() ? x.value("value", std::string()) : std::string();
}

std::string neighbour_name(const json &chassis_in) {
  const auto chassis = one(chassis_in);
  if (!chassis.is_object() || chassis.empty())
    return "";
  if (chassis.contains("name")) // json0: "name": [{"value": ...}]
    return text(chassis["name"]);
  if (chassis.contains("id") && one(chassis["id"]).is_object()) // no SysName: the chassis id
    return text(chassis["id"]);
  return chassis.begin().key();
}

struct NeighbourPort {
  std::string name;
  bool mac = false; // lldpd's default port id on a Linux host: the far end is a host
};

NeighbourPort neighbour_port(const json &port_in) {
  const auto port = one(port_in);
  if (!port.is_object())
    return {};
  const auto id = one(port.value("id", json::object()));
  const auto type = id.is_object() ? id.value("type", "") : "";
  const auto value = text(id);
  if ((type == "ifname" || type == "local") && !value.empty())
    return {value, false};
  const auto descr = port.contains("descr") ? text(port["descr"]) : "";
  return {descr.empty() ? value : descr, type == "mac"};
}

void read_interface(const std::string &ifname, const json &entry, const LldpTable &table,
                    std::vector<RawCable> &cables) {
  const auto name = neighbour_name(entry.value("chassis", json::object()));
  const auto port = neighbour_port(entry.value("port", json::object()));
  if (name.empty())
    throw InputError(fmt::format("interface '{}' has no neighbour chassis", ifname), table.where,
                     "give `lldpctl -f json` output (show neighbors), not an interface listing");
  cables.push_back(
      {table.system, ifname, name, port.name, table.is_host, -1, table.is_host && port.mac});
}

// The interfaces of one table, in either form: json's object-or-list keyed by the interface,
// or json0's list of objects that carry their "name".
void read_table(const json &lldp, const LldpTable &table, std::vector<RawCable> &cables) {
  const auto interfaces = one(lldp).value("interface", json());
  if (interfaces.is_object())
    for (const auto &[ifname, entry] : interfaces.items())
      read_interface(ifname, entry, table, cables);
  else if (interfaces.is_array())
    for (const auto &one_entry : interfaces) {
      if (one_entry.contains("name") && one_entry["name"].is_string()) // json0
        read_interface(one_entry["name"].get<std::string>(), one_entry, table, cables);
      else
        for (const auto &[ifname, entry] : one_entry.items())
          read_interface(ifname, entry, table, cables);
    }
}

} // namespace

std::vector<RawCable> read_lldpctl_json(const std::vector<LldpTable> &tables, ReadNotes *notes) {
  std::vector<RawCable> cables;
  std::set<std::string> switches;
  for (const auto &table : tables) {
    json doc;
    try {
      doc = parse_bounded_json(table.json, table.where, "give the output of `lldpctl -f json`");
    } catch (const json::exception &e) { // parse_error, or out_of_range for 1E800
      throw InputError(fmt::format("not JSON: {}", e.what()), table.where,
                       "give the output of `lldpctl -f json`");
    }
    if (!doc.is_object() || !doc.contains("lldp") || !one(doc["lldp"]).is_object())
      throw InputError("no \"lldp\" object (lldpctl keyvalue or xml output?)", table.where,
                       "run `lldpctl -f json` (or json0; not keyvalue or xml)");
    const auto before = cables.size();
    try {
      read_table(doc["lldp"], table, cables);
    } catch (const json::type_error &e) { // a field of another type than lldpctl prints
      throw InputError(fmt::format("not lldpctl's JSON: {}", e.what()), table.where,
                       "give the output of `lldpctl -f json` (or json0)");
    }
    if (cables.size() == before)
      throw InputError("no interface with a neighbour", table.where,
                       "give `lldpctl -f json` run where LLDP has seen the switches");
    if (!table.is_host)
      switches.insert(table.system);
    for (auto c = cables.begin() + static_cast<long>(before); c != cables.end(); ++c)
      if (!c->b_is_host && c->a_is_host)
        switches.insert(c->b);
  }
  if (notes)
    notes->switches = static_cast<int>(switches.size());
  return cables;
}

} // namespace railgauge::rdma::fabric
