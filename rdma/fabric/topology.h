#pragma once
// The fabric's topology as the planner and the localiser see it: nodes with one NIC per rail,
// each NIC cabled to a leaf switch, each leaf cabled to spine switches (a two-level fat tree).
// Links are the things a fabric team replaces: a NIC's cable or leaf port (nic_leaf), or a
// leaf-spine uplink cable (leaf_spine). Several cables between one leaf and one spine are
// several links.
//
// Readers (topology_readers.h) turn what operators have (a YAML inventory, `ibnetdiscover`
// output, `lldpctl -f json` neighbour tables) into raw cables; build_topology() classifies the
// switches: a leaf has at least one NIC cabled to it, a spine has none (ibmapviz and Slurm's
// topology tools draw the same line by hand).
#include <map>
#include <string>
#include <vector>

namespace railgauge::rdma::fabric {

// One cable as a reader saw it: a port at each end. `a_is_host` marks a NIC end (the host's
// name in `a`, the NIC's name in `a_port`).
struct RawCable {
  std::string a, a_port;
  std::string b, b_port;
  bool a_is_host = false;
  int rail = -1; // the rail when the source says it (YAML), else derived from the NIC's name
  // A host at the far end too: two NICs cabled back to back, which no switch tree holds.
  bool b_is_host = false;
};

enum class LinkKind { nic_leaf, leaf_spine };

struct Link {
  LinkKind kind = LinkKind::nic_leaf;
  int node = -1; // nic_leaf: the node and its rail
  int rail = -1;
  int leaf = -1;                   // both kinds
  int spine = -1;                  // leaf_spine
  std::string leaf_port, far_port; // the leaf's port; the NIC's or spine's port
  std::string label;               // "node017/mlx5_3 - leaf03[17]" or "leaf03[33] - spine1[4]"
};

struct Topology {
  std::vector<std::string> nodes;
  std::vector<std::vector<std::string>> nics; // per node, per rail: the NIC's name ("" if none)
  int rails = 0;
  std::vector<std::string> leaves, spines;
  std::vector<Link> links;
  std::vector<int> nic_link;                  // [node * rails + rail]: link index, -1 if none
  std::vector<std::vector<int>> leaf_uplinks; // [leaf]: its leaf_spine links
  // [leaf][spine]: the links between them (usually one)
  std::vector<std::map<int, std::vector<int>>> leaf_spine_links;
  std::vector<std::string> ignored; // cables that fit no two-level tree, and why
  // What the reader could not use ("file:12: '<line>': why") and the hosts it knows only by
  // a GUID (no host name in the NodeDescription, none in a GUID map): load_topology's.
  std::vector<std::string> unread, unresolved;
  int hosts_read = 0;    // hosts the file names, those whose cables were set aside included
  int switches_read = 0; // switches the file names, cabled or not (0 where it names none)

  int endpoint_count() const { return static_cast<int>(nodes.size()) * rails; }
  int endpoint(int node, int rail) const { return node * rails + rail; }
  int leaf_of_endpoint(int endpoint) const;           // -1 when the NIC has no cable
  std::string endpoint_label(int endpoint) const;     // "node017/mlx5_3"
  std::vector<int> link_indices(LinkKind kind) const; // every link of one kind
};

// "mlx5_10" after "mlx5_9": digits compare as numbers, so rails follow the NICs' numbering.
bool natural_less(const std::string &x, const std::string &y);

// Builds the model from cables; `where` names the source in errors. Throws InputError when
// there is no host, or a NIC is cabled to two switches.
Topology build_topology(const std::vector<RawCable> &cables, const std::string &where);

} // namespace railgauge::rdma::fabric
