#include "harness/number_text.h"

#include <cmath>
#include <stdexcept>

namespace railgauge {

std::optional<double> finite_number(const std::string &text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v))
      return v;
  } catch (const std::invalid_argument &) {
  } catch (const std::out_of_range &) {
  }
  return std::nullopt;
}

} // namespace railgauge
