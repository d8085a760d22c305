#pragma once
// Burn-ins of one H200 node's 8 GPUs written as run directories by the real record writers
// (gemm::burn_outcome, memory::hbm_burn_outcome, Record::json_line, Manifest::write), with
// made-up figures, never a measurement: a run a day, a GPU that drifts, one that corrupts, one
// replaced.
#include <filesystem>
#include <string>

namespace railgauge::history {

inline constexpr const char *kBurninHost = "h200node";

struct BurnIn {
  int run = 1;           // 1, 2, ...: the day it ran
  int drifting_gpu = -1; // loses 0.5 % of its GEMM rate a run
  bool corrupt = false;  // GPU 2's GEMM results differ: the run fails
  std::string gpu1_uuid = "GPU-00000001";
  bool serials = false; // the inventory reads each GPU's board serial (NVML)
  std::string gpu1_serial = "SN-00000001";
  bool unfinished = false;  // cut off: run.json still says "running", and no record failed
  bool interrupted = false; // stopped by SIGTERM (a job's time limit) after its last record
  int ranks = 1;            // processes of the run on the node, each its own rank-N directory
};

// One burn-in of the node's 8 GPUs as a run directory under `out` (with ranks > 1, the run's
// directory holding one directory per rank); returns the directory.
std::string write_burnin(const std::filesystem::path &out, const BurnIn &b);

} // namespace railgauge::history
