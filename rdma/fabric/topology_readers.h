#pragma once
// Readers of what operators have about their fabric, each into cables (topology.h):
//
//   YAML      a plain inventory: node -> per-rail NIC -> leaf (and port); leaf -> spine uplinks.
//   ibnetdiscover  the InfiniBand subnet as infiniband-diags prints it: a block per switch,
//             "[port] "H-<guid>"[port](portguid) # "<NodeDescription>" lid N 4xEDR" per cable.
//             A host is named by its NodeDescription ("node018 HCA-1": host node018, NIC
//             HCA-1) or, where that is the vendor's default, by an optional GUID map
//             ("H-<guid> <hostname>" per line, the form ibmapviz's map_GUID.py writes).
//   lldpctl   `lldpctl -f json` neighbour tables (lldpd): one per host (its NICs' leaves) and,
//             where the switches run lldpd (SONiC, Cumulus), one per leaf (its spines).
//
// Every reader throws InputError naming the file, the line or key, and what to write instead.
#include <map>
#include <string>
#include <vector>

#include "rdma/fabric/topology.h"

namespace railgauge::rdma::fabric {

std::vector<RawCable> read_topology_yaml(const std::string &text, const std::string &where);

// "H-0002c90300080e84 r510gluster1" lines; '#' starts a comment.
std::map<std::string, std::string> read_guid_map(const std::string &text);
std::vector<RawCable> read_ibnetdiscover(const std::string &text, const std::string &where,
                                         const std::map<std::string, std::string> &guid_names = {});

struct LldpTable {
  std::string system; // the host's or switch's own name (lldpctl prints only the neighbours)
  bool is_host = true;
  std::string json; // `lldpctl -f json` output
  std::string where;
};
std::vector<RawCable> read_lldpctl_json(const std::vector<LldpTable> &tables);

// Reads a topology file or directory by its form: *.yaml / *.yml, a directory of lldpctl
// tables (hosts/<name>.json, switches/<name>.json), else ibnetdiscover output (with the GUID
// map `<file>.map` beside it when there is one).
Topology load_topology(const std::string &path);

} // namespace railgauge::rdma::fabric
