#include "analysis/check/noise_text.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace railgauge::check {
namespace {

constexpr int kMinDigits = 2;
constexpr int kMaxDigits = 4;       // what a finding printed before noise was read: {:.4g}
constexpr int kBoundDigitsMax = 17; // a double's digits: past them no text tells it apart

// `value` with `digits` significant digits, the trailing zeros kept: with a known noise they are
// digits the measurement has ("4.00" at 0.1 % is not "4"). fmt rounds; the exponent it wrote
// tells where the rounded value's first digit is (9.996 to 3 digits is 10.0, not 9.996's decade).
std::string with_digits(double value, int digits) {
  const std::string sci = fmt::format("{:.{}e}", value, digits - 1);
  const int exponent = std::atoi(sci.c_str() + sci.find('e') + 1);
  if (exponent < -4 || exponent >= kMaxDigits)
    return sci;
  // The rounded value printed in fixed notation: 4.27e+03 is 4270, 1.23e-02 is 0.0123.
  return fmt::format("{:.{}f}", std::strtod(sci.c_str(), nullptr),
                     std::max(0, digits - 1 - exponent));
}

// The text read back reads on the same side of `bound` as `value`.
bool same_side(double value, const std::string &text, double bound) {
  const double read = std::strtod(text.c_str(), nullptr);
  return (value < bound) == (read < bound) && (value > bound) == (read > bound);
}

} // namespace

int noise_digits(double value, std::optional<double> noise_rel) {
  if (!noise_rel || !(*noise_rel > 0) || !std::isfinite(*noise_rel) || value == 0 ||
      !std::isfinite(value))
    return kMaxDigits;
  const double u = std::abs(value) * *noise_rel;
  const int digits = static_cast<int>(std::floor(std::log10(std::abs(value)))) -
                     static_cast<int>(std::floor(std::log10(u))) + 1;
  return std::clamp(digits, kMinDigits, kMaxDigits);
}

std::string noise_text(double value, std::optional<double> noise_rel, std::optional<double> bound) {
  if (!std::isfinite(value) || value == 0)
    return fmt::format("{:.4g}", value);
  int digits = noise_digits(value, noise_rel);
  const bool known = noise_rel && *noise_rel > 0 && std::isfinite(*noise_rel);
  // A count (10,000 PCIe replays) is exact: all its digits, never "1e+04".
  if (!known && value == std::trunc(value) && std::abs(value) < 1e15)
    return fmt::format("{:.0f}", value);
  // Unknown noise: the text as it always was ({:.4g} drops trailing zeros: they are not known).
  std::string text = known ? with_digits(value, digits) : fmt::format("{:.{}g}", value, kMaxDigits);
  while (bound && !same_side(value, text, *bound) && digits < kBoundDigitsMax)
    text = with_digits(value, ++digits);
  return text;
}

std::string four_digit_text(double value) { return noise_text(value, std::nullopt); }

std::string stated_text(double value) { return fmt::format("{}", value); }

} // namespace railgauge::check
