#pragma once
// Text helpers shared by the forms a check result takes (check_output.cpp, check_output_ci.cpp).
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "analysis/check/check_result.h"

namespace railgauge::check {

std::string upper(std::string_view s);

// `s` with each character of `table` written as its replacement: markdown cells escape '|',
// Prometheus label values backslash, double quote and newline.
std::string escape_chars(std::string_view s,
                         std::initializer_list<std::pair<char, std::string_view>> table);

// A verdict as printed: info findings (a fleet too small, an optional counter absent) are
// listed but leave the verdict at pass.
std::string_view verdict_text(Level v);

// A part as the table and markdown name it: "node", "gpu3 (GPU-uuid)" where the label does not
// already say the id, else its label.
std::string part_name(const PartResult &p);

} // namespace railgauge::check
