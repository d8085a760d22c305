#pragma once
// A record printer that prints nothing: for tests that read the records file a run writes, not
// its console.
#include "harness/record_printer.h"

namespace railgauge::testing {

class NullPrinter final : public RecordPrinter {
public:
  void on_record(const Record &) override {}
};

} // namespace railgauge::testing
