#include "harness/axis.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/number_text.h"

namespace railgauge {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(trimmed(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return parts;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty())
    return std::nullopt;
  std::string copy(s);
  char *end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

std::string expectation(const Axis &axis) {
  switch (axis.type) {
  case AxisType::integer:
    return "integers, a list '1,2,4' or a range '1:64:*2' / '1:8:+1'";
  case AxisType::bytes:
    return "byte sizes such as 4096, 64KiB, 1GiB or 1GB, a list or a range '4KiB:1GiB:*2'";
  case AxisType::real:
    return "numbers, e.g. '0.5,1.5'";
  case AxisType::text:
    if (axis.choices.empty())
      return "text values separated by commas";
    {
      std::string list;
      for (const auto &c : axis.choices)
        list += (list.empty() ? "" : ", ") + c;
      return "one or more of: " + list;
    }
  }
  return "";
}

[[noreturn]] void bad_value(const Axis &axis, std::string_view item, const std::string &where) {
  throw InputError(fmt::format("bad value '{}' for axis '{}'", item, axis.name), where,
                   fmt::format("axis '{}' ({}) takes {}", axis.name, axis.help, expectation(axis)));
}

std::optional<std::int64_t> parse_number_for(const Axis &axis, std::string_view s) {
  return axis.type == AxisType::bytes ? parse_bytes(s) : parse_int(s);
}

// "lo:hi:*f" or "lo:hi:+s" for integer and byte axes.
std::vector<AxisValue> parse_range(const Axis &axis, std::string_view item,
                                   const std::string &where) {
  const auto parts = split(item, ':');
  if (parts.size() != 3 || parts[2].size() < 2)
    bad_value(axis, item, where);
  const auto lo = parse_number_for(axis, parts[0]);
  const auto hi = parse_number_for(axis, parts[1]);
  const auto step = parse_int(parts[2].substr(1));
  const char kind = parts[2][0];
  if (!lo || !hi || !step || *lo > *hi || (kind != '*' && kind != '+') ||
      (kind == '*' && (*step < 2 || *lo < 1)) || (kind == '+' && *step < 1))
    bad_value(axis, item, where);
  std::vector<AxisValue> values;
  constexpr std::size_t kMaxPoints = 100000;
  for (std::int64_t v = *lo;;) {
    values.emplace_back(v);
    if (values.size() > kMaxPoints)
      throw InputError(fmt::format("range '{}' for axis '{}' has more than {} values", item,
                                   axis.name, kMaxPoints),
                       where, "use a coarser step");
    // Step without overflowing int64: stop when the next value would pass `hi`.
    if (kind == '*' ? v > *hi / *step : v > *hi - *step)
      break;
    v = kind == '*' ? v * *step : v + *step;
  }
  return values;
}

} // namespace

std::optional<std::int64_t> parse_bytes(std::string_view text) {
  text = trimmed(text);
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits]))))
    ++digits;
  if (digits == 0)
    return std::nullopt;
  const auto number = parse_int(text.substr(0, digits));
  if (!number)
    return std::nullopt;
  const std::string_view suffix = trimmed(text.substr(digits));
  struct Unit {
    std::string_view suffix;
    std::int64_t scale;
  };
  static constexpr Unit kUnits[] = {
      {"", 1},
      {"B", 1},
      {"K", 1LL << 10},
      {"Ki", 1LL << 10},
      {"KiB", 1LL << 10},
      {"M", 1LL << 20},
      {"Mi", 1LL << 20},
      {"MiB", 1LL << 20},
      {"G", 1LL << 30},
      {"Gi", 1LL << 30},
      {"GiB", 1LL << 30},
      {"T", 1LL << 40},
      {"Ti", 1LL << 40},
      {"TiB", 1LL << 40},
      {"kB", 1000},
      {"KB", 1000},
      {"MB", 1000000},
      {"GB", 1000000000},
      {"TB", 1000000000000},
  };
  for (const auto &unit : kUnits) {
    if (unit.suffix == suffix) {
      if (*number > INT64_MAX / unit.scale)
        return std::nullopt;
      return *number * unit.scale;
    }
  }
  return std::nullopt;
}

std::vector<AxisValue> parse_axis_values(const Axis &axis, std::string_view spec,
                                         const std::string &where) {
  std::vector<AxisValue> values;
  for (std::string_view item : split(spec, ',')) {
    if (item.empty())
      bad_value(axis, spec, where);
    switch (axis.type) {
    case AxisType::integer:
    case AxisType::bytes: {
      if (item.find(':') != std::string_view::npos) {
        auto range = parse_range(axis, item, where);
        values.insert(values.end(), range.begin(), range.end());
      } else if (auto v = parse_number_for(axis, item)) {
        values.emplace_back(*v);
      } else {
        bad_value(axis, item, where);
      }
      break;
    }
    case AxisType::real: {
      auto v = parse_double(item);
      if (!v)
        bad_value(axis, item, where);
      values.emplace_back(*v);
      break;
    }
    case AxisType::text: {
      std::string value(item);
      if (!axis.choices.empty() &&
          std::find(axis.choices.begin(), axis.choices.end(), value) == axis.choices.end())
        bad_value(axis, item, where);
      values.emplace_back(std::move(value));
      break;
    }
    }
  }
  return values;
}

std::string to_string(const AxisValue &v) {
  if (const auto *i = std::get_if<std::int64_t>(&v))
    return std::to_string(*i);
  if (const auto *d = std::get_if<double>(&v))
    return fmt::format("{}", *d);
  return std::get<std::string>(v);
}

nlohmann::json to_json(const AxisValue &v) {
  return std::visit([](const auto &x) { return nlohmann::json(x); }, v);
}

std::string_view to_string(AxisType t) {
  switch (t) {
  case AxisType::integer:
    return "integer";
  case AxisType::bytes:
    return "bytes";
  case AxisType::real:
    return "real";
  case AxisType::text:
    return "text";
  }
  return "text";
}

void Point::set(std::string name, AxisValue value) {
  for (auto &[n, v] : values_) {
    if (n == name) {
      v = std::move(value);
      return;
    }
  }
  values_.emplace_back(std::move(name), std::move(value));
}

bool Point::has(std::string_view name) const {
  for (const auto &[n, v] : values_)
    if (n == name)
      return true;
  return false;
}

const AxisValue &Point::get(std::string_view name) const {
  for (const auto &[n, v] : values_)
    if (n == name)
      return v;
  throw std::out_of_range(fmt::format("point has no axis '{}'", name));
}

std::int64_t Point::integer(std::string_view name) const {
  return std::get<std::int64_t>(get(name));
}
double Point::real(std::string_view name) const { return std::get<double>(get(name)); }
const std::string &Point::text(std::string_view name) const {
  return std::get<std::string>(get(name));
}

nlohmann::json Point::params() const {
  nlohmann::json p = nlohmann::json::object();
  for (const auto &[n, v] : values_)
    p[n] = to_json(v);
  return p;
}

std::string Point::label() const {
  std::string out;
  for (const auto &[n, v] : values_)
    out += (out.empty() ? "" : " ") + n + "=" + to_string(v);
  return out;
}

std::vector<Point> cartesian_product(const std::vector<Axis> &axes,
                                     const std::vector<std::vector<AxisValue>> &values) {
  std::vector<Point> points(1);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    std::vector<Point> next;
    next.reserve(points.size() * values[a].size());
    for (const auto &p : points) {
      for (const auto &v : values[a]) {
        Point q = p;
        q.set(axes[a].name, v);
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
  }
  return points;
}

} // namespace railgauge
