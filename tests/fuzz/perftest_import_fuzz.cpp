// The perftest text importer (rdma/perftest_import.h): any text is records or an InputError with
// source:line, never a crash, a hang or another exception; every record serializes to JSON.
#include <cstdint>
#include <string>

#include "harness/error.h"
#include "rdma/perftest_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    for (const auto &r : railgauge::rdma::import_perftest(text, "fuzz.txt"))
      (void)r.to_json().dump();
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
