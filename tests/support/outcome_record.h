#pragma once
// A record as the runner writes one from a benchmark's Outcome (its params with the derived
// ones, device, metrics, status and reason): for tests that judge what the real writers produce
// without running the runner.
#include <string>

#include <nlohmann/json.hpp>

#include "harness/record.h"

namespace railgauge::testing {

inline Record outcome_record(std::string run, std::string host, std::string key,
                             nlohmann::json params, const Outcome &o, std::string time_utc) {
  Record r;
  r.run = std::move(run);
  r.host = std::move(host);
  r.key = std::move(key);
  r.params = std::move(params);
  r.params.update(o.derived_params);
  r.device = o.device;
  r.metrics = o.metrics;
  r.status = o.status;
  r.reason = o.reason;
  r.time_utc = std::move(time_utc);
  return r;
}

} // namespace railgauge::testing
