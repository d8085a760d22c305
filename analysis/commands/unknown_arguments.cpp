#include "analysis/commands/unknown_arguments.h"

#include <vector>

#include <fmt/format.h>

#include "harness/did_you_mean.h"
#include "harness/error.h"

namespace railgauge::analysis {

void refuse_unknown_arguments(const CLI::App &cmd, const std::string &command) {
  if (cmd.remaining().empty())
    return;
  const std::string arg = cmd.remaining().front();
  std::vector<std::string> options;
  for (const CLI::Option *option : cmd.get_options()) {
    for (const auto &name : option->get_lnames())
      options.push_back("--" + name);
    for (const auto &name : option->get_snames())
      options.push_back("-" + name);
  }
  // --rule=x is --rule given a value: the name is what comes before the '='
  const std::string name = arg.substr(0, arg.find('='));
  throw InputError(fmt::format("unknown argument '{}'", arg), command,
                   fmt::format("{}see railgauge {} --help", did_you_mean(name, options), command));
}

} // namespace railgauge::analysis
