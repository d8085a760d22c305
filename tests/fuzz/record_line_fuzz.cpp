// The records reader (harness/record_io.h, Record::from_json): one line of records.jsonl is a
// record or a problem with its line number, never a crash or an exception of another type.
// A record read back is written and read again unchanged.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/record.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string line(reinterpret_cast<const char *>(data), size);
  const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded())
    return 0;
  railgauge::Record record;
  try {
    record = railgauge::Record::from_json(parsed);
  } catch (const std::invalid_argument &) {
    return 0;
  }
  // As RecordFile::append writes it: invalid UTF-8 replaced, never thrown.
  const std::string written = record.json_line();
  const auto again = railgauge::Record::from_json(nlohmann::json::parse(written));
  if (again.json_line() != written)
    std::abort(); // a record that does not survive its own round trip
  return 0;
}
