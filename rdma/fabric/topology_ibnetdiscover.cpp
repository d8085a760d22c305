// ibnetdiscover's topology file (infiniband-diags, man ibnetdiscover(8)): blocks of
//
//   switchguid=0x8f10500200b50(8f10500200b50)
//   Switch  36 "S-0008f10500200b50"   # "Voltaire 4036 - 36 QDR ports switch" enhanced port 0 lid 9
//   [4]     "H-003048c749cd0000"[1](3048c749cd0001)   # "MT25408 ConnectX Mellanox ..." lid 72
//   4xDDR [16]    "S-0008f10500108098"[8]                   # "Voltaire 4036 ..." lid 20 4xQDR
//
// and "Ca" blocks for the hosts. Every cable appears in a switch block, so those are read;
// a Ca block is read for the host's NodeDescription only.
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {
namespace {

const std::regex &node_line() {
  static const std::regex re(
      R"re(^(Switch|Ca|Rt)\s+\d+\s+"([SHR]-[0-9a-fA-F]+)"\s*(?:#\s*"([^"]*)")?)re");
  return re;
}

const std::regex &port_line() {
  static const std::regex re(
      R"re(^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([SHR]-[0-9a-fA-F]+)"\[(\d+)\](?:\([0-9a-fA-F]+\))?\s*(?:#\s*(?:lid \d+ lmc \d+ )?"([^"]*)")?)re");
  return re;
}

// A NodeDescription that names its host: "node018 HCA-1", "controller mlx5_0". The vendor's
// default ("MT25408 ConnectX Mellanox Technologies") has more words and names no host.
bool names_host(const std::string &description) {
  const auto space = description.find(' ');
  return space != std::string::npos && description.find(' ', space + 1) == std::string::npos;
}

struct CaName {
  std::string host, nic;
};

CaName ca_name(const std::string &guid, int port, const std::string &description,
               const std::map<std::string, std::string> &guid_names, int ports) {
  const auto suffix = ports > 1 ? fmt::format("/p{}", port) : std::string();
  if (const auto it = guid_names.find(guid); it != guid_names.end())
    return {it->second, guid + suffix};
  if (names_host(description)) {
    const auto space = description.find(' ');
    return {description.substr(0, space), description.substr(space + 1) + suffix};
  }
  return {guid, "port" + std::to_string(port)};
}

} // namespace

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
      names[guid] = name;
  }
  return names;
}

std::vector<RawCable> read_ibnetdiscover(const std::string &text, const std::string &where,
                                         const std::map<std::string, std::string> &guid_names) {
  struct Seen {
    std::string sw, sw_port, far, far_port, description;
  };
  std::vector<Seen> seen;
  std::map<std::string, int> ca_ports; // ports cabled per CA, to name multi-port NICs
  std::istringstream in(text);
  // Bounded before any regex: std::regex recurses per character (harness/bounded_input.h).
  LineReader lines(in, where,
                   "give ibnetdiscover's own output (its lines are a few hundred "
                   "characters at most)");
  std::string line, current, current_kind;
  std::smatch m;
  while (lines.next(line)) {
    if (std::regex_search(line, m, node_line())) {
      current_kind = m[1], current = m[2];
      continue;
    }
    if (line.empty() || line[0] != '[')
      continue;
    if (current.empty())
      throw InputError("a port line before any Switch or Ca line", lines.here(),
                       "give the whole output of ibnetdiscover, from its first line");
    if (!std::regex_search(line, m, port_line()))
      throw InputError(fmt::format("unreadable port line '{}'", line), lines.here(),
                       "give ibnetdiscover's own output (no -p, -l or -g listings)");
    if (current_kind != "Switch")
      continue;
    seen.push_back({current, m[1], m[2], m[3], m[4]});
    if (m[2].str()[0] == 'H')
      ++ca_ports[m[2]];
  }
  if (seen.empty())
    throw InputError("no switch with a cabled port", where,
                     "give the output of `ibnetdiscover` run on a node of the fabric");
  std::vector<RawCable> cables;
  for (const auto &s : seen) {
    if (s.far[0] == 'H') {
      const auto name =
          ca_name(s.far, std::stoi(s.far_port), s.description, guid_names, ca_ports[s.far]);
      cables.push_back({name.host, name.nic, s.sw, s.sw_port, true, -1});
    } else if (s.far[0] == 'S') {
      cables.push_back({s.sw, s.sw_port, s.far, s.far_port, false, -1});
    }
  }
  return cables;
}

} // namespace railgauge::rdma::fabric
