#include "rdma/fabric/ibnetdiscover_names.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "harness/bounded_input.h"

namespace railgauge::rdma::fabric {
namespace {

std::string trimmed(const std::string &s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos)
    return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// A switch's own name in its NodeDescription, or "".
std::string described_switch_name(const std::string &description) {
  const auto d = trimmed(description);
  const auto semi = d.find(';'), colon = d.rfind(':');
  if (d.rfind("MF0;", 0) == 0 && colon != std::string::npos && colon > semi + 1)
    return d.substr(semi + 1, colon - semi - 1);
  return !d.empty() && d.find_first_of(" \t") == std::string::npos ? d : "";
}

bool aggregation_node(const std::string &description) {
  return description.find("Aggregation Node") != std::string::npos;
}

// A port's number as printed; a number past any switch's ports (a corrupt line) is kept as big,
// not an exception.
int port_number(const std::string &digits) {
  return static_cast<int>(std::min(std::strtol(digits.c_str(), nullptr, 10), 1L << 20));
}

struct CaName {
  std::string host, nic;
  bool resolved = true;
};

// A NodeDescription that names its host: "node018 HCA-1", "controller mlx5_0". The vendor's
// default ("MT25408 ConnectX Mellanox Technologies") has more words and names no host.
CaName ca_name(const std::string &id, int port, const std::string &description,
               const std::map<std::string, std::string> &guid_names, int ports) {
  const auto suffix = ports > 1 ? fmt::format("/p{}", port) : std::string();
  if (const auto it = guid_names.find(guid_key(id)); it != guid_names.end())
    return {it->second, id + suffix};
  std::istringstream words(trimmed(description));
  std::string host, nic, more;
  if (words >> host >> nic && !(words >> more))
    return {host, nic + suffix};
  return {id, "port" + std::to_string(port), false};
}

} // namespace

std::string guid_key(const std::string &guid) {
  std::string s = guid;
  if (s.size() > 2 && s[1] == '-')
    s = s.substr(2);
  else if (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0)
    s = s.substr(2);
  for (auto &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto first = s.find_first_not_of('0');
  return first == std::string::npos ? "0" : s.substr(first);
}

std::map<std::string, std::string> read_guid_map(const std::string &text) {
  std::map<std::string, std::string> names;
  std::istringstream in(text);
  LineReader lines(in, "the GUID map", "give lines of 'H-<guid> <hostname>'");
  std::string line;
  while (lines.next(line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string guid, name;
    if (fields >> guid >> name)
      names[guid_key(guid)] = name;
  }
  return names;
}

void IbNames::add_switch(const std::string &id, const std::string &description, bool replace) {
  if (replace)
    switch_descriptions_[id] = description;
  else
    switch_descriptions_.emplace(id, description);
}

std::string IbNames::switch_name(const std::string &id,
                                 const std::map<std::string, int> &name_count) const {
  const auto it = switch_descriptions_.find(id);
  const auto name = it == switch_descriptions_.end() ? "" : described_switch_name(it->second);
  // Two switches of one name (a default left on both) keep their GUIDs, apart.
  return name.empty() || name_count.at(name) > 1 ? id : name;
}

std::vector<RawCable> IbNames::cables(const std::vector<SeenPort> &seen, ReadNotes *notes) const {
  std::map<std::string, int> name_count, ca_ports;
  for (const auto &[id, description] : switch_descriptions_)
    if (const auto name = described_switch_name(description); !name.empty())
      ++name_count[name];
  for (const auto &s : seen)
    if (s.far[0] == 'H')
      ++ca_ports[s.far];
  std::vector<RawCable> cables;
  std::set<std::string> unresolved;
  if (notes)
    notes->switches = static_cast<int>(switch_descriptions_.size());
  for (const auto &s : seen) {
    const auto sw = switch_name(s.sw, name_count);
    if (s.far[0] == 'S') {
      cables.push_back({sw, s.sw_port, switch_name(s.far, name_count), s.far_port, false, -1});
      continue;
    }
    if (s.far[0] != 'H')
      continue; // a router's port: no host and no tree
    if (aggregation_node(s.description)) {
      if (notes)
        notes->unread.push_back(fmt::format("{}: {}[{}] - {}: a SHARP aggregation node inside "
                                            "the switch, not a host: set aside",
                                            s.here, sw, s.sw_port, s.far));
      continue;
    }
    const auto name =
        ca_name(s.far, port_number(s.far_port), s.description, guid_names_, ca_ports.at(s.far));
    if (!name.resolved && unresolved.insert(s.far).second && notes)
      notes->unresolved.push_back(
          fmt::format("{} (\"{}\", {}): no host name; give a GUID map line '{} <hostname>'", s.far,
                      trimmed(s.description), s.here, s.far));
    cables.push_back({name.host, name.nic, sw, s.sw_port, true, -1});
  }
  return cables;
}

} // namespace railgauge::rdma::fabric
