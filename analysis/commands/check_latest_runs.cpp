// Which of a host's runs `check DIRS` judges: check_latest_runs.h.
#include "analysis/commands/check_latest_runs.h"

#include <iostream>

#include <fmt/format.h>

namespace railgauge::analysis {

void choose_latest_runs(RunSet &runs, bool latest_per_host) {
  if (!latest_per_host) {
    for (const auto &line : superseded_runs(runs))
      std::cerr << fmt::format("railgauge: note: {}, judged together; --latest-per-host judges "
                               "the newest only\n",
                               line);
    return;
  }
  const auto dropped = keep_latest_per_host(runs);
  if (!dropped.empty())
    std::cerr << fmt::format("railgauge: --latest-per-host: {} older run{} superseded by a "
                             "newer run of the same host and suite, not judged\n",
                             dropped.size(), dropped.size() == 1 ? "" : "s");
}

} // namespace railgauge::analysis
