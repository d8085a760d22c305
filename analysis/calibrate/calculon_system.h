#pragma once
// The Calculon system file (calculon-ai/calculon systems/*.json) of a calibration, and a
// checker of every rule Calculon's loader relies on (system.py, processor.py, memory.py,
// network.py), used by the command on what it writes and by the tests.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

// {matrix, vector, mem1, mem2, processing_mode, networks}: efficiency rows as descending
// [GFLOP, eff] / [MB, eff] ending with [0, e]; networks[0] the scale-up tier, [1] scale-out.
nlohmann::json calculon_system(const Calibration &c);

// Every broken rule, as "<json path>: what" (empty: Calculon can load it):
//   exactly the six top-level keys; matrix/vector entries of known datatypes, each with tflops
//   > 0 and gflops_efficiency; mem1/mem2 with GiB > 0, GBps > 0, MB_efficiency; rows are
//   [threshold, eff] pairs, thresholds strictly descending and >= 0, the last one 0,
//   0 < eff <= 1; processing_mode no_overlap or roofline; each network with exactly bandwidth,
//   efficiency, size, latency, ops, must_be_filled, processor_usage, bandwidth > 0,
//   0 < efficiency <= 1, size a positive integer, latency >= 0, 0 <= processor_usage < 1,
//   must_be_filled a bool, ops exactly p2p, reduce_scatter, all_gather, all_reduce as
//   [scalar > 0, offset] with a null p2p offset and a numeric offset elsewhere.
std::vector<std::string> calculon_problems(const nlohmann::json &system);

} // namespace railgauge::calibrate
