// inventory_dump [--json] [TOPOLOGY_FILE]: the inventory of this machine, or of an hwloc / NCCL
// topology file, without the railgauge command line. Table by default, JSON with --json.
#include <cstring>
#include <iostream>

#include "harness/error.h"
#include "harness/inventory/inventory.h"

int main(int argc, char **argv) {
  railgauge::InventoryOptions options;
  bool as_json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0)
      as_json = true;
    else
      options.topology_file = argv[i];
  }
  try {
    const nlohmann::json inventory = railgauge::collect_inventory(options);
    if (as_json)
      std::cout << inventory.dump(2) << "\n";
    else
      std::cout << railgauge::render_inventory_text(inventory);
  } catch (const std::exception &e) {
    std::cerr << "inventory_dump: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
