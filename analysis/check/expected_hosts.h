#pragma once
// The nodes a launcher gave the job (`check --expect-hosts`, Slurm's node list): one that left no
// run, because it was down at the start, its steps never launched there, or its run directory
// could not be written, was absent from the verdict, while the nodes whose steps waited for it
// were drained in its place. Each such node fails on the built-in rule `expected-host`.
#include <string>
#include <vector>

#include "analysis/check/check_result.h"

namespace railgauge::check {

inline constexpr const char *kExpectedHostRule = "expected-host";

// The host names of a list written with commas, spaces or newlines ("n1,n2 n3"); empty names are
// left out.
std::vector<std::string> host_list(const std::string &text);

// A failed node part for each expected host that `result` holds no part of, and the result's
// verdict raised to match.
void add_expected_hosts(CheckResult &result, const std::vector<std::string> &expected);

} // namespace railgauge::check
