#pragma once
// The records of a fuzz corpus file (tests/fuzz/corpus/*_runs): a run's files, then a "%%" line,
// then its records, one JSON line each. The committed imports and runs the record-field tests
// rewrite through their types.
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record.h"
#include "tests/support/fixture_text.h"

namespace railgauge::testing {

// By the file's path from the root of the source tree.
inline std::vector<Record> corpus_records(const std::string &relative_path) {
  std::istringstream in(source_text(relative_path));
  std::vector<Record> out;
  bool records = false;
  for (std::string line; std::getline(in, line);) {
    if (records && !line.empty())
      out.push_back(Record::from_json(nlohmann::json::parse(line)));
    records = records || line == "%%";
  }
  return out;
}

} // namespace railgauge::testing
