#pragma once
// Which GID a RoCE or InfiniBand port addresses its peers with. perftest's automatic choice
// prefers RoCEv2 over an IPv4-mapped address; railgauge does the same, in this order:
//   Ethernet (RoCE): RoCEv2 IPv4-mapped > RoCEv2 global IPv6 > RoCEv2 link-local >
//                    RoCEv1 IPv4-mapped > RoCEv1 any; ties go to the lowest index.
//   InfiniBand:      index 0 (the port GID; peers in the subnet are addressed by LID).
// Read from sysfs (gids/<i>, gid_attrs/types/<i>, link_layer), so it is testable on fake trees
// and tells why it chose what it chose.
#include <optional>
#include <string>
#include <vector>

namespace railgauge::rdma {

enum class LinkLayer { infiniband, ethernet };
enum class GidType { ib, roce_v1, roce_v2, unknown };

struct GidEntry {
  int index = 0;
  std::string gid; // as sysfs prints it: "fe80:0000:0000:0000:5054:00ff:fe12:3456"
  GidType type = GidType::unknown;
};

struct PortGids {
  LinkLayer link_layer = LinkLayer::infiniband;
  std::vector<GidEntry> entries; // non-zero entries only, by index
};

struct GidChoice {
  int index = 0;
  GidType type = GidType::unknown;
  std::string gid;
  std::string why; // "RoCEv2 IPv4-mapped (::ffff:198.18.0.1)", "requested by gid_index=3"
};

// Throws BackendError when the port directory is missing or unreadable.
PortGids read_port_gids(const std::string &sysfs_root, const std::string &device, unsigned port);

// `requested` >= 0 overrides the choice; it must name a non-zero entry (InputError otherwise,
// listing the usable ones). Throws InputError when the port has no usable GID at all.
GidChoice choose_gid(const PortGids &port, std::optional<int> requested);

bool is_ipv4_mapped(const std::string &gid);
bool is_link_local(const std::string &gid);
const char *to_string(GidType type);

} // namespace railgauge::rdma
