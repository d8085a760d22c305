#pragma once
// Numbers and words in text that users and other tools write (suites, rules, logs of peer tools).
#include <optional>
#include <string>
#include <string_view>

namespace railgauge {

// `text` as a finite number when the whole of it is one ("12abc", "", "inf" and "nan" are not):
// std::stod alone accepts a number's prefix and the infinities.
std::optional<double> finite_number(const std::string &text);

// "inf", "-nan", "Infinity", ...: what printf prints for a value that is not finite (perftest and
// nccl-tests print these where they computed nothing, or measured an infinite deviation).
bool is_inf_or_nan_text(std::string text);

// `text` without the white space (std::isspace: blanks, tabs, CR, form feeds) at either end; a
// view into `text`, so keep `text` alive while the view is used.
std::string_view trimmed(std::string_view text);

} // namespace railgauge
