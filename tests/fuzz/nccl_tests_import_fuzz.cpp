// The nccl-tests text importer (collectives/nccl_tests_import.h): any text is records or an
// InputError with where:line, never a crash, a hang or another exception; every record it makes
// serializes to JSON.
#include <cstdint>
#include <sstream>
#include <string>

#include "collectives/nccl_tests_import.h"
#include "harness/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
  try {
    const auto imported =
        railgauge::collectives::import_nccl_tests_text(in, "fuzz.txt", std::nullopt, "r", "h");
    for (const auto &r : imported.records)
      (void)r.to_json().dump();
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
