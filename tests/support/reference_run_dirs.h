#pragma once
// The railgauge run directories of a committed reference run (results/reference/NAME/runs/
// STEP/RUN-ID), sorted, for tests that judge or fit real GPU runs.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace railgauge::testing {

inline std::vector<std::string> reference_run_dirs(const std::string &name) {
  const std::filesystem::path runs =
      std::filesystem::path(RAILGAUGE_SOURCE_DIR) / "results" / "reference" / name / "runs";
  std::vector<std::string> dirs;
  for (const auto &step : std::filesystem::directory_iterator(runs))
    for (const auto &run : std::filesystem::directory_iterator(step.path()))
      dirs.push_back(run.path().string());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

} // namespace railgauge::testing
