// The nccl-tests importer, text and -J JSON (collectives/nccl_tests_import.h): any input is
// records or an InputError naming where, never a crash, a hang or another exception; every
// record it makes is written and read back by the records reader.
#include <cstdint>
#include <string>

#include "analysis/import/nccl_tests_import.h"
#include "harness/error.h"
#include "tests/fuzz/record_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const auto imported =
        railgauge::importers::import_nccl_tests(text, "fuzz.txt", std::nullopt, "r", "h");
    for (const auto &r : imported.records)
      expect_record_reads_back(r);
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
