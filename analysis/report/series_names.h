#pragma once
// The curves of the report's size sweeps: which params name a curve, and its name.
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/run_set.h"
#include "harness/record.h"

namespace railgauge::report {

// Params derived while running, naming the part, or saying where a record came from: not part
// of a curve's identity (a curve is a benchmark and its setting, over size, in one run).
// grid_blocks: the HBM kernels' launch, which grows with the size (on the H200 run every copy
// size had its own, and each point became a curve of one).
extern const std::set<std::string> kNotSeries;

// The parts of one point, as the plot's band shows them: lowest and highest value.
std::pair<double, double> lowest_highest(const std::vector<double> &v);

// The params of a family's records that name a curve: those that vary, and not only from run to
// run (a world size that differs between a 1-node and a 10-node run is said by the run label and
// the runs table, not in every name). `runs_merged`: the curves have no run label (a fleet's runs
// drawn as one), so a param that varies from run to run names them too.
std::set<std::string> series_params(const analysis::RunSet &runs,
                                    const std::function<bool(const Record &)> &wanted,
                                    bool runs_merged = false);

// A curve's name: the key without its family, the naming params, and the run.
std::string series_name(const Record &r, const std::set<std::string> &naming,
                        const std::string &run);

} // namespace railgauge::report
