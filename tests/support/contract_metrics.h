#pragma once
// What every name a family's record-field type writes must be: a metric of the family's contract
// (its field table, records/<family>_record.h, or the core's) and a metric of the record schema.
// The field types' tests hold their written names to both.
#include <iterator>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/metric_names.h"
#include "tests/support/fixture_text.h"

namespace railgauge::testing {

// results/schema/record.schema.json's properties of metrics.
inline nlohmann::json schema_metric_properties() {
  return nlohmann::json::parse(source_text("results/schema/record.schema.json"))
      .at("properties")
      .at("metrics")
      .at("properties");
}

// Fails, naming it, on a name of `written` that `table` (a contract's kMetrics) and the core do
// not have, or that the schema does not.
template <typename Table>
void expect_contract_and_schema_metrics(const nlohmann::json &written, const Table &table,
                                        const std::string &contract_file) {
  std::set<std::string> contract(std::begin(metric::kCoreMetrics), std::end(metric::kCoreMetrics));
  for (const auto &field : table)
    contract.insert(field.name);
  const auto schema = schema_metric_properties();
  for (const auto &[name, _] : written.items()) {
    EXPECT_TRUE(contract.contains(name)) << name << " is not a metric of " << contract_file;
    EXPECT_TRUE(schema.contains(name)) << name << " is not in results/schema/record.schema.json";
  }
}

} // namespace railgauge::testing
