#include "analysis/import/launcher_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace railgauge::importers {

std::optional<std::size_t> glued_launcher_text(const std::string &line) {
  // Words no result row of nccl-tests or perftest holds: its columns are numbers, a type
  // ("float", "bf16"), a reduction ("sum") and "N/A"; a root of -1 has one dash, not five.
  static constexpr std::array<std::string_view, 8> kMarkers = {
      "slurmstepd:", "srun:", "mpirun", "prterun", "-----", "Killed", "Terminated", "timeout:"};
  std::optional<std::size_t> first;
  for (const auto marker : kMarkers)
    if (const auto at = line.find(marker, 1); at != std::string::npos && (!first || at < *first))
      first = at;
  return first;
}

std::string launcher_words(const std::string &line) {
  if (std::none_of(line.begin(), line.end(),
                   [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return "";
  const auto first = line.find_first_not_of(" \t\r");
  return line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
}

bool is_kill_notice(const std::string &line) {
  for (const char *said : {"CANCELLED AT", "DUE TO TIME LIMIT", "time limit for job execution",
                           "exited on signal", "oom-kill"})
    if (line.find(said) != std::string::npos)
      return true;
  return false;
}

std::string without_launcher_tag(const std::string &line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos)
    return line;
  if (line[first] == '[') {
    for (const char *tag : {"]<stdout>:", "]<stderr>:"})
      if (const auto at = line.find(tag, first); at != std::string::npos) {
        // mpirun --tag-output also tags each flush, so a row can hold the tag again mid-row
        // ("-1[1,0]<stdout>:    85.70 ..."): every further copy is a separator.
        const std::string whole = line.substr(first, at + std::string_view(tag).size() - first);
        std::string rest = line.substr(at + std::string_view(tag).size());
        for (auto again = rest.find(whole); again != std::string::npos;
             again = rest.find(whole, again + 1))
          rest.replace(again, whole.size(), " ");
        return rest;
      }
    return line;
  }
  std::size_t digits = first;
  while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits])))
    ++digits;
  if (digits > first && digits + 1 < line.size() && line[digits] == ':' && line[digits + 1] == ' ')
    return line.substr(digits + 2);
  return line;
}

} // namespace railgauge::importers
