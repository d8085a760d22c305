#pragma once
// What every importer target checks of the records it makes: each one is written as
// records.jsonl is written (Record::json_line: invalid UTF-8 replaced, never thrown) and the
// records reader accepts the line back. An imported record that `check` or `compare` could not
// read is a bug of the importer.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/record.h"

inline void expect_record_reads_back(const railgauge::Record &record) {
  const std::string line = record.json_line();
  const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded())
    std::abort(); // the writer wrote a line that is not JSON
  try {
    (void)railgauge::Record::from_json(parsed);
  } catch (const std::invalid_argument &) {
    std::abort(); // a record the reader refuses
  }
}
