// Which of a host's runs `check DIRS` judges: check_latest_runs.h.
#include "analysis/commands/check_latest_runs.h"

#include <iostream>

#include <fmt/format.h>

#include "analysis/check/run_completeness.h"

namespace railgauge::analysis {

std::vector<std::string> choose_latest_runs(RunSet &runs, bool latest_per_host) {
  std::vector<std::string> kept_beside;
  if (!latest_per_host) {
    for (const auto &line : superseded_runs(runs))
      std::cerr << fmt::format("railgauge: note: {}, judged together; --latest-per-host judges "
                               "the newest only\n",
                               line);
    return kept_beside;
  }
  const auto dropped = keep_latest_per_host(
      runs, [](const LoadedRun &run) { return check::incompleteness(run).empty(); }, &kept_beside);
  if (!dropped.empty())
    std::cerr << fmt::format("railgauge: --latest-per-host: {} older run director{} superseded "
                             "by newer runs of the same host and suite, not judged\n",
                             dropped.size(), dropped.size() == 1 ? "y" : "ies");
  // In full: the console's problem lines are cut to its width.
  for (const auto &line : kept_beside)
    std::cerr << fmt::format("railgauge: --latest-per-host: {}\n", line);
  return kept_beside;
}

} // namespace railgauge::analysis
