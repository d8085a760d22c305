#pragma once
// A shipped data file (rules, suites, peaks) for a test: under $RAILGAUGE_DATA_DIR when it is set,
// as a node kit's test round sets it to the kit's share/railgauge (the checkout the test was built
// from is not on a GPU node); else under the checkout's results/.
#include <cstdlib>
#include <string>

#include "harness/data_paths.h"
#include "railgauge/config.h"

namespace railgauge::testing {

inline std::string shipped_data_file(const std::string &relative_path) {
  if (const char *dir = std::getenv(kDataDirEnv); dir && *dir)
    return std::string(dir) + "/" + relative_path;
  return std::string(RAILGAUGE_SOURCE_DIR) + "/results/" + relative_path;
}

} // namespace railgauge::testing
