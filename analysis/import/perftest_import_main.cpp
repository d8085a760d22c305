// rdma_perftest_import FILE...: perftest text output -> railgauge records, one JSON per line
// on stdout. Exit 0, or 2 with the error (file:line and the fix) on stderr.
#include <fstream>
#include <iostream>
#include <sstream>

#include "analysis/import/perftest_import.h"
#include "harness/error.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: rdma_perftest_import FILE...\n";
    return 2;
  }
  try {
    for (int i = 1; i < argc; ++i) {
      std::ifstream in(argv[i]);
      if (!in)
        throw railgauge::InputError("cannot open the file", argv[i], "check the path");
      std::stringstream text;
      text << in.rdbuf();
      for (auto &r : railgauge::importers::import_perftest(text.str(), argv[i])) {
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
