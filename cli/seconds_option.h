#pragma once
// A command-line option's number of seconds checked with a message a user can act on: CLI11's
// PositiveNumber said "Value 0 not in range 0.000000 to 1797693134862315708145...".
#include <string>

#include <CLI/CLI.hpp>

#include "harness/number_text.h"

namespace railgauge {

// Seconds above 0 (`or_zero`: 0 too, which the option's help says turns a limit off).
inline CLI::Validator seconds_check(bool or_zero, const std::string &example) {
  return CLI::Validator(
      [or_zero, example](std::string &text) -> std::string {
        const auto value = finite_number(text);
        if (value && (*value > 0 || (or_zero && *value == 0)))
          return {};
        return "'" + text + "' is not a number of seconds " +
               (or_zero ? "of 0 or more" : "above 0") + "; give e.g. " + example;
      },
      or_zero ? "SECONDS>=0" : "SECONDS>0");
}

} // namespace railgauge
