#include "harness/record.h"

#include "harness/json_integer.h"
#include "harness/metric_names.h"

#include <chrono>
#include <stdexcept>

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace railgauge {

void Outcome::conclude_data_check(const std::vector<std::string> &problems) {
  if (problems.empty()) {
    metrics[metric::kVerified] = true;
    return;
  }
  status = Status::failed;
  std::string all;
  for (const auto &p : problems)
    all += (all.empty() ? "" : "; ") + p;
  reason = "data check failed: " + all;
}

std::string Record::json_line() const {
  return to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json Record::to_json() const {
  namespace f = record_field;
  nlohmann::json j;
  j[f::kSchema] = kRecordSchema;
  j[f::kRun] = run;
  j[f::kHost] = host;
  j[f::kRank] = rank;
  j[f::kKey] = key;
  j[f::kParams] = params;
  if (!axes.is_null())
    j[f::kAxes] = axes;
  j[f::kDevice] = device;
  j[f::kMetrics] = metrics;
  j[f::kStatus] = std::string(railgauge::to_string(status));
  j[f::kReason] = reason ? nlohmann::json(*reason) : nlohmann::json(nullptr);
  j[f::kTimeUtc] = time_utc;
  return j;
}

Record Record::from_json(const nlohmann::json &j) {
  namespace f = record_field;
  if (!j.is_object())
    throw std::invalid_argument("record is not a JSON object");
  const auto field = [&](const char *name) -> const nlohmann::json & {
    if (!j.contains(name))
      throw std::invalid_argument(fmt::format("record has no '{}' field", name));
    return j.at(name);
  };
  if (field(f::kSchema) != kRecordSchema)
    throw std::invalid_argument(
        fmt::format("record schema is {}, expected {}", field(f::kSchema).dump(), kRecordSchema));
  Record r;
  try {
    r.run = field(f::kRun).get<std::string>();
    r.host = field(f::kHost).get<std::string>();
    const auto rank = json_integer<int>(field(f::kRank));
    if (!rank || *rank < 0)
      throw std::invalid_argument(
          fmt::format("record field '{}' is {}, not a rank (a whole number from 0)", f::kRank,
                      field(f::kRank).dump()));
    r.rank = *rank;
    r.key = field(f::kKey).get<std::string>();
    r.params = field(f::kParams);
    if (j.contains(f::kAxes) && !j.at(f::kAxes).is_object())
      throw std::invalid_argument(fmt::format("record field '{}' is not an object", f::kAxes));
    r.axes = j.value(f::kAxes, nlohmann::json(nullptr));
    r.device = field(f::kDevice);
    r.metrics = field(f::kMetrics);
    const auto status = parse_status(field(f::kStatus).get<std::string>());
    if (!status)
      throw std::invalid_argument("record has an unknown status " + field(f::kStatus).dump());
    r.status = *status;
    if (!field(f::kReason).is_null())
      r.reason = field(f::kReason).get<std::string>();
    r.time_utc = field(f::kTimeUtc).get<std::string>();
  } catch (const nlohmann::json::exception &e) {
    throw std::invalid_argument(fmt::format("record field has the wrong type: {}", e.what()));
  }
  return r;
}

std::string utc_timestamp_now() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(now)), static_cast<int>(ms));
}

} // namespace railgauge
