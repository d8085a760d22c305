#pragma once
// What to say when the first word of a command line is no command of railgauge but names one a
// level down: `railgauge ingest` is `railgauge db ingest`.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace railgauge {

// "`ingest` is a command of `railgauge db`: run `railgauge db ingest ...` (railgauge db --help)",
// when `word` names a subcommand of one of `app`'s subcommands and no command of `app` itself;
// nothing otherwise.
std::optional<std::string> nested_command_hint(const CLI::App &app, const std::string &word);

} // namespace railgauge
