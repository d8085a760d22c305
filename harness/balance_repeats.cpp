#include "harness/balance_repeats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace railgauge {

RepeatsPerCall balance_repeats(double first_s, double second_s, int max_repeats) {
  const auto positive = [](double s) { return std::isfinite(s) && s > 0; };
  if (!positive(first_s) || !positive(second_s) || max_repeats < 1)
    throw std::invalid_argument(
        fmt::format("balance_repeats: times must be positive and finite ({} s, {} s) and at "
                    "least one repeat allowed ({})",
                    first_s, second_s, max_repeats));
  const auto fit = [&](double longer_s, double shorter_s) {
    return static_cast<int>(
        std::clamp(std::round(longer_s / shorter_s), 1.0, static_cast<double>(max_repeats)));
  };
  if (first_s >= second_s)
    return {1, fit(first_s, second_s)};
  return {fit(second_s, first_s), 1};
}

} // namespace railgauge
