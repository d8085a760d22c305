// The NCCL topology XML reader of the inventory (harness/inventory/pci_tree.h) and the rail
// map built from it: any text is a topology or an InputError, never a crash. The JSON is
// dumped as run.json and `inventory --format json` dump it: invalid UTF-8 replaced.
#include <cstdint>
#include <string>

#include "harness/error.h"
#include "harness/inventory/pci_tree.h"
#include "harness/inventory/rail_map.h"

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const auto tree = railgauge::pci_tree_from_nccl_xml(text, "fuzz.xml");
    const auto map = railgauge::build_rail_map(tree);
    (void)railgauge::to_json(map, tree).dump(-1, ' ', false, kReplace);
    (void)railgauge::to_json(tree).dump(-1, ' ', false, kReplace);
  } catch (const railgauge::InputError &) {
  }
  try {
    (void)railgauge::nccl_numa_nodes(text, "fuzz.xml").dump(-1, ' ', false, kReplace);
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
