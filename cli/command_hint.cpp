#include "cli/command_hint.h"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace railgauge {

std::optional<std::string> nested_command_hint(const CLI::App &app, const std::string &word) {
  if (word.empty() || word.front() == '-')
    return std::nullopt;
  const auto top = app.get_subcommands([](const CLI::App *) { return true; });
  for (const auto *command : top)
    if (command->check_name(word))
      return std::nullopt; // a command of its own: CLI11's own message stands
  std::vector<std::string> parents;
  for (const auto *command : top)
    for (const auto *sub : command->get_subcommands([](const CLI::App *) { return true; }))
      if (sub->check_name(word))
        parents.push_back(command->get_name());
  if (parents.empty())
    return std::nullopt;
  const auto &parent = parents.front();
  return fmt::format("`{0}` is a command of `railgauge {1}`, not of railgauge itself: run "
                     "`railgauge {1} {0} ...` (railgauge {1} --help){2}",
                     word, parent,
                     parents.size() > 1
                         ? fmt::format("; `{}` is also a command of: {}", word,
                                       fmt::join(parents.begin() + 1, parents.end(), ", "))
                         : "");
}

} // namespace railgauge
