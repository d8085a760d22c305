#include "harness/number_text.h"

#include <cctype>
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

std::string_view trimmed(std::string_view text) {
  const auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && blank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && blank(text.back()))
    text.remove_suffix(1);
  return text;
}

bool is_inf_or_nan_text(std::string text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+'))
    text.erase(0, 1);
  for (char &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text == "inf" || text == "nan" || text == "infinity";
}

} // namespace railgauge
