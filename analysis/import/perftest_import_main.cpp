// rdma_perftest_import FILE...: perftest text output -> railgauge records, one JSON per line
// on stdout. Exit 0, or 2 with the error (file:line and the fix) on stderr.
#include <iostream>

#include "analysis/import/perftest_import.h"
#include "harness/bounded_input.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: rdma_perftest_import FILE...\n";
    return 2;
  }
  try {
    for (int i = 1; i < argc; ++i) {
      const auto text = railgauge::read_bounded_file(argv[i], "give a saved perftest output");
      for (auto &r : railgauge::importers::import_perftest(text, argv[i])) {
        r.run = "imported";
        r.host = "imported";
        std::cout << r.json_line() << "\n";
      }
    }
  } catch (const std::exception &e) {
    std::cerr << "rdma_perftest_import: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
