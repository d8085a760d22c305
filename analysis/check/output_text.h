#pragma once
// Text helpers shared by the forms a check result takes (check_output.cpp, check_output_ci.cpp).
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace railgauge::check {

std::string upper(std::string_view s);

// `s` with each character of `table` written as its replacement: markdown cells escape '|',
// Prometheus label values backslash, double quote and newline.
std::string escape_chars(std::string_view s,
                         std::initializer_list<std::pair<char, std::string_view>> table);

} // namespace railgauge::check
