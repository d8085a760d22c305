#pragma once
// An option that names a file the command writes (--json, --markdown, --html, ...). `-` is no
// file there: it wrote a file named `-` in the working directory, while the user meant standard
// output, which each command fills with its own --format.
#include <string>

#include <CLI/CLI.hpp>

namespace railgauge::analysis {

// `instead`: how this command prints the same on standard output.
inline CLI::Validator output_file_check(const std::string &instead) {
  return CLI::Validator(
      [instead](std::string &path) -> std::string {
        if (path != "-")
          return {};
        return "'-' would be a file named '-', not standard output: give a file's path, or " +
               instead;
      },
      "FILE");
}

} // namespace railgauge::analysis
