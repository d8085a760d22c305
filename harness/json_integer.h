#pragma once
// Whole numbers read from JSON that users, peers or older runs wrote.
#include <cstdint>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

namespace railgauge {

// `j` as an Int when it is a JSON integer that fits, else nullopt. nlohmann's get<int>() casts a
// float or an out-of-range integer, which is undefined or wraps: a rank of 1e300 or a QPN of
// 2^40 must be refused, not turned into another rank or queue pair.
template <class Int> std::optional<Int> json_integer(const nlohmann::json &j) {
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    return std::in_range<Int>(v) ? std::optional<Int>(static_cast<Int>(v)) : std::nullopt;
  }
  if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    return std::in_range<Int>(v) ? std::optional<Int>(static_cast<Int>(v)) : std::nullopt;
  }
  return std::nullopt;
}

} // namespace railgauge
