#pragma once
// The GPUs a node of the job must show (`check --expect-gpus N`, Slurm's gres): a node of 8 whose
// 7 GPUs fell off the bus in a way no other sign shows (no NVSwitch, nothing left on the PCI
// bus: a VM given 8 that now sees 1) looked like a healthy machine of one, and `--rules auto`
// judged it by the one-GPU profile: a PASS. Each node that shows fewer fails on the built-in rule
// `expected-gpus`, whatever the profile.
#include <map>
#include <string>

#include "analysis/check/check_result.h"
#include "analysis/run_set.h"

namespace railgauge::check {

inline constexpr const char *kExpectedGpusRule = "expected-gpus";

// The most GPUs NVML listed in any inventory of each host of `runs` (imports, which carry no
// inventory, left out; a run without NVML's section counts 0).
std::map<std::string, int> nvml_gpus_per_host(const analysis::RunSet &runs);

// A failed finding on the node part of each host of `runs` that showed fewer than `expected`
// GPUs, and the part's and the result's verdicts raised to match.
void add_expected_gpus(CheckResult &result, const analysis::RunSet &runs, int expected);

} // namespace railgauge::check
