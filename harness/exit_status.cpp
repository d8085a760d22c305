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
  // Each status a row, its meaning wrapped at 100 columns under itself: a table a person reads
  // and a script's author copies the codes from.
  constexpr std::size_t kWidth = 100, kIndent = 5;
  std::string out = "Exit status:\n";
  for (const auto &row : kExitStatuses) {
    std::string line = fmt::format("  {}  ", code(row.status));
    const std::string meaning = plain(row.meaning);
    for (std::size_t at = 0; at < meaning.size();) {
      const std::size_t space = meaning.find(' ', at);
      const std::string word =
          meaning.substr(at, space == std::string::npos ? std::string::npos : space - at);
      if (line.size() > kIndent && line.size() + word.size() > kWidth) {
        out += line.substr(0, line.size() - 1) + "\n"; // without the space after its last word
        line = std::string(kIndent, ' ');
      }
      line += word + " ";
      at = space == std::string::npos ? meaning.size() : space + 1;
    }
    out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
  }
  return out;
}

std::string exit_status_reference() { return std::string(kExitStatusReference); }

std::string examples_help(const std::vector<std::pair<std::string, std::string>> &examples) {
  std::string out = "Examples:\n";
  for (const auto &[command, what] : examples)
    out += fmt::format("  {}\n      {}\n", command, what);
  return out + "\n" + exit_status_reference();
}

std::string exit_status_markdown() {
  std::string out = "| status | meaning |\n|---|---|\n";
  for (const auto &row : kExitStatuses)
    out += fmt::format("| {} | {} |\n", code(row.status), row.meaning);
  return out;
}

} // namespace railgauge
