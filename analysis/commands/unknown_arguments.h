#pragma once
// An argument a command does not take is bad input (exit 4), never CLI11's own exit status, and
// the error names the option it most likely meant (`--rule` for `--rules`).
#include <string>

#include <CLI/CLI.hpp>

namespace railgauge::analysis {

// Throws InputError naming the first of `cmd`'s remaining arguments, if any: `command` is how the
// user called it ("check", "db ingest").
void refuse_unknown_arguments(const CLI::App &cmd, const std::string &command);

} // namespace railgauge::analysis
