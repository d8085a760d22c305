#pragma once
// A record as the runner writes one from a benchmark's Outcome, through the runner's own merge
// (harness/runner.h, outcome_record), stamped with a fixed time: for tests that judge what the
// real writers produce without running the runner.
#include <string>

#include <nlohmann/json.hpp>

#include "harness/record.h"
#include "harness/runner.h"

namespace railgauge::testing {

inline Record outcome_record(std::string run, std::string host, std::string key,
                             nlohmann::json params, Outcome o, std::string time_utc) {
  Record planned;
  planned.run = std::move(run);
  planned.host = std::move(host);
  planned.key = std::move(key);
  planned.params = std::move(params);
  Record r = railgauge::outcome_record(std::move(planned), o);
  r.time_utc = std::move(time_utc);
  return r;
}

} // namespace railgauge::testing
