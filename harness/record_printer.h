#pragma once
// What the runner hands each record to as it is written (besides records.jsonl): the console
// printers (printers.h) implement it, so the core needs no presentation code.
#include "harness/record.h"

namespace railgauge {

class RecordPrinter {
public:
  virtual ~RecordPrinter() = default;
  virtual void on_record(const Record &record) = 0;
  virtual void finish() {}
};

} // namespace railgauge
