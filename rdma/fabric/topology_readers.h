#pragma once
// Readers of what operators have about their fabric, each into cables (topology.h):
//
//   YAML      a plain inventory: node -> per-rail NIC -> leaf (and port); leaf -> spine uplinks.
//   ibnetdiscover  the InfiniBand subnet as infiniband-diags prints it: a block per switch,
//             "[port] "H-<guid>"[port](portguid) # "<NodeDescription>" lid N 4xEDR" per cable.
//             A host is named by its NodeDescription ("node018 HCA-1": host node018, NIC
//             HCA-1) or, where that is the vendor's default, by an optional GUID map
//             ("H-<guid> <hostname>" per line, the form ibmapviz's map_GUID.py writes).
//             `ibnetdiscover -p` (the ports form: one line a port, "CA lid port guid width
//             speed - SW lid port guid ( 'desc' - 'desc' )") is read too.
//   lldpctl   `lldpctl -f json` neighbour tables (lldpd): one per host (its NICs' leaves) and,
//             where the switches run lldpd (SONiC, Cumulus), one per leaf (its spines); the
//             json0 form (every value a list) as well.
//   Slurm     topology.conf (topology/tree): "SwitchName=s0 Nodes=tux[0-3]" and
//             "SwitchName=s2 Switches=s[0-1]" lines (topology_slurm.cpp).
//   NetQ      NVIDIA NetQ's topologyGraph API response (topology_netq.cpp).
//
// Every reader throws InputError naming the file, the line or key, and what to write instead.
#include <map>
#include <string>
#include <vector>

#include "rdma/fabric/topology.h"

namespace railgauge::rdma::fabric {

// What a reader read but could not use, each with its place, and what it could not name: so
// that `railgauge fabric show` says every part of the file it left out.
struct ReadNotes {
  std::vector<std::string> unread;     // "<file>:<line>: '<text>': why"
  std::vector<std::string> unresolved; // hosts known only by a GUID
  int switches = 0;                    // the switches the file names, cabled or not
};

std::vector<RawCable> read_topology_yaml(const std::string &text, const std::string &where);

// "H-0002c90300080e84 r510gluster1" lines; '#' starts a comment. The GUID may also be given
// as 0x0002c90300080e84 or bare: keys are its hex digits, lower case, without leading zeros.
std::map<std::string, std::string> read_guid_map(const std::string &text);
std::string guid_key(const std::string &guid); // "H-0002C9..." or "0x0002c9..." -> "2c9..."
// Without `notes`, a line it cannot read is an InputError; with them, it is noted and left.
std::vector<RawCable> read_ibnetdiscover(const std::string &text, const std::string &where,
                                         const std::map<std::string, std::string> &guid_names = {},
                                         ReadNotes *notes = nullptr);
// The `-p` ports form (read_ibnetdiscover hands a file of it here).
std::vector<RawCable> read_ibnetdiscover_ports(const std::string &text, const std::string &where,
                                               const std::map<std::string, std::string> &guid_names,
                                               ReadNotes *notes);
std::vector<RawCable> read_slurm_topology(const std::string &text, const std::string &where,
                                          ReadNotes *notes = nullptr);
std::vector<RawCable> read_netq_topology(const std::string &text, const std::string &where,
                                         ReadNotes *notes = nullptr);

struct LldpTable {
  std::string system; // the host's or switch's own name (lldpctl prints only the neighbours)
  bool is_host = true;
  std::string json; // `lldpctl -f json` output
  std::string where;
};
std::vector<RawCable> read_lldpctl_json(const std::vector<LldpTable> &tables,
                                        ReadNotes *notes = nullptr);

struct LoadOptions {
  std::string guid_map; // a GUID map file; else `<file>.map` beside the file when there is one
  std::string host;     // a single lldpctl table's own host (else the file's stem)
};

// Reads a topology file or directory by its form: *.yaml / *.yml, a directory of lldpctl
// tables (hosts/<name>.json, switches/<name>.json), a JSON file (one host's lldpctl table, or
// NetQ's topologyGraph), Slurm's topology.conf (a file of SwitchName= lines), else
// ibnetdiscover output, either form.
Topology load_topology(const std::string &path, const LoadOptions &options = {});

} // namespace railgauge::rdma::fabric
