#pragma once
// The `railgauge` command line (CLI11). Returns the process exit status:
//   0  everything ran (ok and waived points only)
//   1  some point is `failed` (wrong data) or `error` (broke)
//   2  bad input: nothing was run, the message says what, where and how to fix it
//   3  a backend failed outside any point (hwloc, the output disk)
namespace railgauge {
int run_cli(int argc, char **argv);
} // namespace railgauge
