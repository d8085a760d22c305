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
  nlohmann::json j;
  j["schema"] = kRecordSchema;
  j["run"] = run;
  j["host"] = host;
  j["rank"] = rank;
  j["key"] = key;
  j["params"] = params;
  if (!axes.is_null())
    j["axes"] = axes;
  j["device"] = device;
  j["metrics"] = metrics;
  j["status"] = std::string(railgauge::to_string(status));
  j["reason"] = reason ? nlohmann::json(*reason) : nlohmann::json(nullptr);
  j["time_utc"] = time_utc;
  return j;
}

Record Record::from_json(const nlohmann::json &j) {
  if (!j.is_object())
    throw std::invalid_argument("record is not a JSON object");
  const auto field = [&](const char *name) -> const nlohmann::json & {
    if (!j.contains(name))
      throw std::invalid_argument(fmt::format("record has no '{}' field", name));
    return j.at(name);
  };
  if (field("schema") != kRecordSchema)
    throw std::invalid_argument(
        fmt::format("record schema is {}, expected {}", field("schema").dump(), kRecordSchema));
  Record r;
  try {
    r.run = field("run").get<std::string>();
    r.host = field("host").get<std::string>();
    const auto rank = json_integer<int>(field("rank"));
    if (!rank || *rank < 0)
      throw std::invalid_argument("record field 'rank' is " + field("rank").dump() +
                                  ", not a rank (a whole number from 0)");
    r.rank = *rank;
    r.key = field("key").get<std::string>();
    r.params = field("params");
    if (j.contains("axes") && !j.at("axes").is_object())
      throw std::invalid_argument("record field 'axes' is not an object");
    r.axes = j.value("axes", nlohmann::json(nullptr));
    r.device = field("device");
    r.metrics = field("metrics");
    const auto status = parse_status(field("status").get<std::string>());
    if (!status)
      throw std::invalid_argument("record has an unknown status " + field("status").dump());
    r.status = *status;
    if (!field("reason").is_null())
      r.reason = field("reason").get<std::string>();
    r.time_utc = field("time_utc").get<std::string>();
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
