// The perftest text importer (rdma/perftest_import.h): any text is records or an InputError with
// source:line, never a crash, a hang or another exception; every record it makes is written and
// read back by the records reader.
#include <cstdint>
#include <string>

#include "analysis/import/perftest_import.h"
#include "harness/error.h"
#include "tests/fuzz/record_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    for (auto &r : railgauge::importers::import_perftest(text, "fuzz.txt")) {
      r.run = r.host = "imported"; // as rdma_perftest_import fills them
      expect_record_reads_back(r);
    }
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
