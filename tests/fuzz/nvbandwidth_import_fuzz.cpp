// The nvbandwidth importer (offload/nvbandwidth_import.h), text and JSON forms: any input is a
// document (with what it could not read in `problems`) or an InputError, never a crash, a hang
// or another exception; the records made of a document are written and read back by the records
// reader.
#include <cstdint>
#include <string>

#include "analysis/import/nvbandwidth_import.h"
#include "harness/error.h"
#include "tests/fuzz/record_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const auto doc = railgauge::importers::parse_nvbandwidth(text, "fuzz");
    for (const auto &r : railgauge::importers::nvbandwidth_records(doc, "r", ""))
      expect_record_reads_back(r);
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
