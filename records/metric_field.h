#pragma once
// One row of a record kind's field table (kMetrics in records/<family>_record.h): a metric's
// name, its unit, and one line of what it means. The unit is what the name's suffix says where
// it says one (the schema's convention: _s seconds, _bytes bytes, _gbytes_per_s GB/s,
// _gbits_per_s Gb/s, tflops TFLOP/s); "ratio" for a figure over another, "count" for things
// counted, "" for a flag, a text or an object that holds figures of several units.
// tests/analysis/record_contract_test.cpp holds every table to results/schema/record.schema.json.
namespace railgauge {

struct MetricField {
  const char *name;
  const char *unit;
  const char *meaning;
};

} // namespace railgauge
