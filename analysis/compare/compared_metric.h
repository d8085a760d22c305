#pragma once
// The metric a point is compared on: reading it from a record by its path, which way is better,
// and the one chosen when none is given (compare.h: default_metric).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace railgauge::compare {

// The number at `path` (metrics.time_s.median) in `doc`; none when absent or not one number.
std::optional<double> number_at(const nlohmann::json &doc, const std::string &path);

// Seconds (time, latency), temperatures and fault counts (wrong words, errors, Xids, replays,
// ECC, remapped rows) are better lower; rates ("_per_s") and everything else higher.
bool lower_is_better(const std::string &metric);

} // namespace railgauge::compare
