// The suite YAML loader (harness/suite.h): any text is a suite or an InputError with file:line,
// never a crash, a hang or another exception.
#include <cstdint>
#include <string>

#include "harness/error.h"
#include "harness/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const railgauge::Suite suite = railgauge::parse_suite(text, "fuzz.yaml");
    for (const auto &entry : suite.entries)
      railgauge::check_measure_spec(entry.measure, entry.where);
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
