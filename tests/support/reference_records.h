#pragma once
// Every record of the committed reference runs (results/reference/*/.../records.jsonl), with the
// file it came from, in a stable order: for the tests that rewrite real records through the
// types they are written with.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record.h"

namespace railgauge::testing {

struct ReferenceRecord {
  std::string file;
  Record record;
};

inline std::vector<ReferenceRecord> reference_records() {
  std::vector<std::string> files;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(RAILGAUGE_SOURCE_DIR) / "results" / "reference"))
    if (entry.path().filename() == "records.jsonl")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  std::vector<ReferenceRecord> out;
  for (const auto &file : files) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
      if (!line.empty())
        out.push_back({file, Record::from_json(nlohmann::json::parse(line))});
  }
  return out;
}

} // namespace railgauge::testing
