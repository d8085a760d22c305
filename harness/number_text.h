#pragma once
// Numbers in text that users and other tools write (suites, rules, logs of peer tools).
#include <optional>
#include <string>

namespace railgauge {

// `text` as a finite number when the whole of it is one ("12abc", "", "inf" and "nan" are not):
// std::stod alone accepts a number's prefix and the infinities.
std::optional<double> finite_number(const std::string &text);

} // namespace railgauge
