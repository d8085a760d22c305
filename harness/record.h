#pragma once
// A record is one measured point, one line of records.jsonl (docs/design.md "Records"). The schema
// is results/schema/record.schema.json; its version is in every record.
//
// Units live in metric names: `_s` seconds, `_bytes` bytes, `_gbytes_per_s` GB/s with
// GB = 1e9 bytes, `_gbits_per_s` Gb/s with Gb = 1e9 bits, `_tflops` 1e12 FLOP/s.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/status.h"

namespace railgauge {

inline constexpr const char *kRecordSchema = "railgauge.record/1";

// A record line's own fields (results/schema/record.schema.json), written by Record::to_json and
// read by Record::from_json under these names.
namespace record_field {
inline constexpr const char *kSchema = "schema";
inline constexpr const char *kRun = "run";
inline constexpr const char *kHost = "host";
inline constexpr const char *kRank = "rank";
inline constexpr const char *kKey = "key";
inline constexpr const char *kParams = "params";
inline constexpr const char *kAxes = "axes";
inline constexpr const char *kDevice = "device";
inline constexpr const char *kMetrics = "metrics";
inline constexpr const char *kStatus = "status";
inline constexpr const char *kReason = "reason";
inline constexpr const char *kTimeUtc = "time_utc";
} // namespace record_field

// What a benchmark's run() returns for one point; the runner adds the identity fields.
struct Outcome {
  Status status = Status::ok;
  std::optional<std::string> reason;
  nlohmann::json metrics = nlohmann::json::object();
  // The part measured: {"gpu": uuid, "pci": bus id, "numa": node, "nic": name, "cpus": "0-7"}.
  nlohmann::json device = nlohmann::json::object();
  // Parameters derived while running (threads used, bytes per buffer), merged into params.
  nlohmann::json derived_params = nlohmann::json::object();

  // Ends a point's data check: `failed` with every problem in the reason, or metrics.verified.
  void conclude_data_check(const std::vector<std::string> &problems);

  static Outcome waived(std::string why) {
    Outcome o;
    o.status = Status::waived;
    o.reason = std::move(why);
    return o;
  }
};

struct Record {
  std::string run;
  std::string host;
  int rank = 0;
  std::string key;
  nlohmann::json params = nlohmann::json::object();
  // The axis values the runner planned for this point, before derived parameters were merged
  // into params (which may replace one: n = 0 "square" becomes n = m). --resume matches points
  // on key + axes. Null (and not written) in records that do not come from the runner.
  nlohmann::json axes = nullptr;
  nlohmann::json device = nlohmann::json::object();
  nlohmann::json metrics = nlohmann::json::object();
  Status status = Status::ok;
  std::optional<std::string> reason;
  std::string time_utc; // when the point finished, ISO 8601

  nlohmann::json to_json() const;
  // One line of records.jsonl, without the newline. Invalid UTF-8 (a library's error text, a
  // device name from sysfs, an imported log) is replaced instead of throwing: the record must be
  // written whatever its strings hold.
  std::string json_line() const;
  // Throws std::invalid_argument naming the field that is missing or wrong.
  static Record from_json(const nlohmann::json &j);
};

// "2026-11-22T10:00:00.123Z"
std::string utc_timestamp_now();

} // namespace railgauge
