#pragma once
// Names for what ibnetdiscover prints by GUID, shared by its two forms (the topology file and
// `-p` ports): a switch by its NodeDescription where that names it ("MF0;leaf-01:MQM9701/U1",
// a managed Mellanox switch's default, gives leaf-01; a one-word description is the name), else
// its GUID; a host by the GUID map, else by its NodeDescription ("node018 HCA-1": host node018,
// NIC HCA-1), else by its GUID, said as unresolved. SHARP's aggregation nodes (a CA inside each
// switch, "Mellanox Technologies Aggregation Node") are no host: their cables are set aside.
#include <map>
#include <string>
#include <vector>

#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {

// One cabled switch port as read: the switch's id ("S-<guid>"), the far end's ("S-" or "H-").
struct SeenPort {
  std::string sw, sw_port, far, far_port, description; // description: the far end's
  std::string here;                                    // "<file>:<line>"
};

class IbNames {
public:
  explicit IbNames(const std::map<std::string, std::string> &guid_names)
      : guid_names_(guid_names) {}
  // `replace`: a switch's own block line is its description; a far port's, only until then.
  void add_switch(const std::string &id, const std::string &description, bool replace = true);
  std::vector<RawCable> cables(const std::vector<SeenPort> &seen, ReadNotes *notes) const;

private:
  std::string switch_name(const std::string &id,
                          const std::map<std::string, int> &name_count) const;
  const std::map<std::string, std::string> &guid_names_;
  std::map<std::string, std::string> switch_descriptions_;
};

} // namespace railgauge::rdma::fabric
