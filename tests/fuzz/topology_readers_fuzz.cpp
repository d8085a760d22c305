// The fabric topology readers (rdma/fabric/topology_readers.h): ibnetdiscover output with a GUID
// map (either form, with and without notes), an lldpctl JSON table of a host and of a switch,
// the YAML inventory, Slurm's topology.conf and NetQ's topologyGraph. Any text is
// cables (and a topology built of them) or an InputError, never a crash, a hang or another
// exception. The regressions hold the inputs that crashed every rank of a pair matrix: a
// 100 KB ibnetdiscover line (std::regex's recursion) and lldpctl JSON nested 100,000 deep.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"

namespace fabric = railgauge::rdma::fabric;

namespace {

void build(const std::vector<fabric::RawCable> &cables) {
  try {
    (void)fabric::build_topology(cables, "fuzz");
  } catch (const railgauge::InputError &) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    build(fabric::read_ibnetdiscover(text, "fuzz.topo", fabric::read_guid_map(text)));
  } catch (const railgauge::InputError &) {
  }
  try {
    build(fabric::read_lldpctl_json(
        {{"host01", true, text, "hosts/host01.json"}, {"leaf01", false, text, "leaf01.json"}}));
  } catch (const railgauge::InputError &) {
  }
  try {
    build(fabric::read_topology_yaml(text, "fuzz.yaml"));
  } catch (const railgauge::InputError &) {
  }
  fabric::ReadNotes notes; // with notes, unreadable lines are kept rather than thrown
  try {
    build(fabric::read_ibnetdiscover(text, "fuzz.topo", {}, &notes));
  } catch (const railgauge::InputError &) {
  }
  try {
    build(fabric::read_slurm_topology(text, "topology.conf", &notes));
  } catch (const railgauge::InputError &) {
  }
  try {
    build(fabric::read_netq_topology(text, "netq.json", &notes));
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
