#pragma once
// Named, typed parameter axes with help text (nvbench's axes). A benchmark declares its axes
// and their default values; suites and the command line override them by name with a value
// spec, and the runner sweeps the Cartesian product.
//
// Value specs (one grammar for YAML and the command line):
//   "1,2,4"            a list
//   "4KiB:1GiB:*2"     geometric range, both ends included when reached
//   "1:8:+1"           arithmetic range
//   "read,copy"        text values, checked against the axis's choices
// Byte sizes take binary suffixes K/Ki/KiB (1024), M, G, T and decimal kB/KB, MB, GB, TB (1e3..).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

enum class AxisType { integer, bytes, real, text };

using AxisValue = std::variant<std::int64_t, double, std::string>;

struct Axis {
  std::string name;
  AxisType type = AxisType::integer;
  std::string help;
  std::vector<AxisValue> defaults;
  std::vector<std::string> choices; // text axes: allowed values (empty = any)
};

// Parses `spec` for `axis`. Throws InputError naming `where` (a file:line or a flag) on a bad
// value, saying what the axis expects.
std::vector<AxisValue> parse_axis_values(const Axis &axis, std::string_view spec,
                                         const std::string &where);

// "4096" with a K/M/G suffix, as described above; nullopt when it is not a byte size.
std::optional<std::int64_t> parse_bytes(std::string_view text);

std::string to_string(const AxisValue &v);
nlohmann::json to_json(const AxisValue &v);
std::string_view to_string(AxisType t);

// One point of a sweep: a value for every axis of a benchmark, in the axes' order.
class Point {
public:
  void set(std::string name, AxisValue value);
  bool has(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  double real(std::string_view name) const;
  const std::string &text(std::string_view name) const;
  nlohmann::json params() const;
  std::string label() const; // "op=copy size_bytes=4096"

private:
  const AxisValue &get(std::string_view name) const;
  std::vector<std::pair<std::string, AxisValue>> values_;
};

// The Cartesian product of `values` (one list per axis, in `axes` order).
std::vector<Point> cartesian_product(const std::vector<Axis> &axes,
                                     const std::vector<std::vector<AxisValue>> &values);

} // namespace railgauge
