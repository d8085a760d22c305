// The nvbandwidth importer (offload/nvbandwidth_import.h), text and JSON forms: any input is a
// document (with what it could not read in `problems`) or an InputError, never a crash, a hang
// or another exception.
#include <cstdint>
#include <string>

#include "harness/error.h"
#include "offload/nvbandwidth_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const auto doc = railgauge::offload::parse_nvbandwidth(text, "fuzz");
    for (const auto &t : doc.testcases)
      for (const auto &m : t.matrices)
        (void)m.values.size();
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
