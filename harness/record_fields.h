#pragma once
// Reading one field of a record's params or metrics, whatever the record holds there: a field
// that is absent or of another type reads as nullopt, never as an exception. The families'
// record contracts build their typed views (`<family>/<family>_record.h`) from these, so that
// analysis reads records written by older runs and by importers without a check per field.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/metric_names.h"
#include "harness/record.h"

namespace railgauge::record_fields {

inline const nlohmann::json *field(const nlohmann::json &obj, std::string_view name) {
  if (!obj.is_object())
    return nullptr;
  const auto it = obj.find(name);
  return it == obj.end() ? nullptr : &*it;
}

inline std::optional<double> number(const nlohmann::json &obj, std::string_view name) {
  const auto *f = field(obj, name);
  return f && f->is_number() ? std::optional(f->get<double>()) : std::nullopt;
}

// A whole number; a floating-point value (8.0 from a JSON writer that knows one number type) is
// truncated.
inline std::optional<std::int64_t> integer(const nlohmann::json &obj, std::string_view name) {
  const auto *f = field(obj, name);
  if (!f || !f->is_number())
    return std::nullopt;
  return f->is_number_integer() ? f->get<std::int64_t>()
                                : static_cast<std::int64_t>(f->get<double>());
}

// A count: a whole number from 0; absent, negative or of another type reads as 0.
inline std::uint64_t count(const nlohmann::json &obj, std::string_view name) {
  const auto n = integer(obj, name);
  return n && *n > 0 ? static_cast<std::uint64_t>(*n) : 0;
}

inline std::optional<std::string> text(const nlohmann::json &obj, std::string_view name) {
  const auto *f = field(obj, name);
  return f && f->is_string() ? std::optional(f->get<std::string>()) : std::nullopt;
}

// The median time of one call: metrics.time_s is the measurement core's summary object, or a
// plain number where an importer had one figure.
inline std::optional<double> median_time_s(const nlohmann::json &metrics) {
  const auto *t = field(metrics, metric::kTimeS);
  if (!t)
    return std::nullopt;
  return t->is_number() ? std::optional(t->get<double>()) : number(*t, metric::summary::kMedian);
}

// One percentile of the time summary: "p10", "p90", ...
inline std::optional<double> time_s_at(const nlohmann::json &metrics, std::string_view stat) {
  const auto *t = field(metrics, metric::kTimeS);
  return t ? number(*t, stat) : std::nullopt;
}

// "memory" for "memory.hbm_copy".
inline bool in_family(const Record &r, std::string_view family) {
  return r.key.size() > family.size() && r.key.starts_with(family) && r.key[family.size()] == '.';
}

// "hbm_copy" for "memory.hbm_copy".
inline std::string name_in_family(const std::string &key) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

} // namespace railgauge::record_fields
