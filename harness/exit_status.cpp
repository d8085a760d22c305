#include "harness/exit_status.h"

#include <fmt/format.h>

namespace railgauge {
namespace {

// Markdown's code spans and table pipes read as plain text in a terminal.
std::string plain(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != '`')
      out += c;
  return out;
}

} // namespace

std::string exit_status_help() {
  std::string out = "Exit status:";
  for (const auto &row : kExitStatuses)
    out +=
        fmt::format("{} {} {}", out.back() == ':' ? "" : ";", code(row.status), plain(row.meaning));
  return out;
}

std::string examples_help(const std::vector<std::pair<std::string, std::string>> &examples) {
  std::string out = "Examples:\n";
  for (const auto &[command, what] : examples)
    out += fmt::format("  {}\n      {}\n", command, what);
  return out + "\nExit status: `railgauge exit-statuses` prints the table (docs/reliability.md).";
}

std::string exit_status_markdown() {
  std::string out = "| status | meaning |\n|---|---|\n";
  for (const auto &row : kExitStatuses)
    out += fmt::format("| {} | {} |\n", code(row.status), row.meaning);
  return out;
}

} // namespace railgauge
