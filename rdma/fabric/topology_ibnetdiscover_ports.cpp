// `ibnetdiscover -p` (infiniband-diags): one line a port,
//
//   CA    88  1 0xb83fd20300da1138 4x HDR - SW    51 79 0x946dae0300630bf6 ( 'worker20 mlx5_3' -
//   '5FB0405-leaf-IB01 ' ) SW    24  1 0x946dae0300618c82 4x SDR '5FB0406-spine-IB01 '
//
// a cabled port names both ends (type, LID, port, node GUID) and both NodeDescriptions; a port
// with no cable names only its own end. A cable appears from both ends; build_topology keeps it
// once. The names are the topology file's (ibnetdiscover_names.h).
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "rdma/fabric/ibnetdiscover_names.h"

namespace railgauge::rdma::fabric {
namespace {

struct End {
  std::string type, lid, port, guid;
};

std::string node_id(const End &e) {
  return (e.type == "SW" ? "S-" : "H-") + fmt::format("{:0>16}", guid_key(e.guid));
}

// The quoted descriptions at the end of the line, in order.
std::vector<std::string> quoted_descriptions(const std::string &line) {
  std::vector<std::string> out;
  for (auto open = line.find('\''); open != std::string::npos;) {
    const auto close = line.find('\'', open + 1);
    if (close == std::string::npos)
      break;
    out.push_back(line.substr(open + 1, close - open - 1));
    open = line.find('\'', close + 1);
  }
  return out;
}

bool end_ok(const End &e) {
  return (e.type == "CA" || e.type == "SW") && !e.port.empty() && e.guid.rfind("0x", 0) == 0;
}

} // namespace

std::vector<RawCable> read_ibnetdiscover_ports(const std::string &text, const std::string &where,
                                               const std::map<std::string, std::string> &guid_names,
                                               ReadNotes *notes) {
  IbNames names(guid_names);
  std::vector<SeenPort> seen;
  std::istringstream in(text);
  LineReader lines(in, where, "give `ibnetdiscover -p` output as it prints it");
  std::string line;
  while (lines.next(line)) {
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#')
      continue;
    std::istringstream fields(line.substr(0, line.find('\'')));
    End a, b;
    std::string width, speed, dash;
    fields >> a.type >> a.lid >> a.port >> a.guid >> width >> speed >> dash;
    const bool cabled = dash == "-" && (fields >> b.type >> b.lid >> b.port >> b.guid) && end_ok(b);
    const auto descriptions = quoted_descriptions(line);
    if (!end_ok(a)) {
      if (!notes)
        throw InputError(fmt::format("unreadable port line '{}'", line), lines.here(),
                         "give `ibnetdiscover -p` output as it prints it");
      notes->unread.push_back(
          fmt::format("{}: '{}': not a port line of `ibnetdiscover -p`", lines.here(), line));
      continue;
    }
    if (a.type == "SW" && !descriptions.empty())
      names.add_switch(node_id(a), descriptions.front());
    if (!cabled) {
      if (notes)
        notes->unread.push_back(
            fmt::format("{}: {} port {} of {}: no cable", lines.here(), a.type, a.port, a.guid));
      continue;
    }
    if (b.type == "SW" && descriptions.size() > 1)
      names.add_switch(node_id(b), descriptions[1]);
    const std::string far_description = descriptions.size() > 1 ? descriptions[1] : "";
    const std::string near_description = descriptions.empty() ? "" : descriptions.front();
    if (a.type == "SW")
      seen.push_back({node_id(a), a.port, node_id(b), b.port, far_description, lines.here()});
    else if (b.type == "SW")
      seen.push_back({node_id(b), b.port, node_id(a), a.port, near_description, lines.here()});
    else if (notes)
      notes->unread.push_back(
          fmt::format("{}: CA to CA: no switch between, set aside", lines.here()));
  }
  if (seen.empty())
    throw InputError("no switch with a cabled port", where,
                     "give the output of `ibnetdiscover -p` run on a node of the fabric");
  return names.cables(seen, notes);
}

} // namespace railgauge::rdma::fabric
