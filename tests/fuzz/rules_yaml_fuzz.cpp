// The acceptance rules YAML loader (analysis/check/rules.h): any text is a rule set or an
// InputError with file:line, never a crash, a hang or another exception.
#include <cstdint>
#include <string>

#include "analysis/check/rules.h"
#include "harness/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    (void)railgauge::check::parse_rules(text, "fuzz.yaml");
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
