#pragma once
// A synthetic H200 node after the GPU burn-in (results/suites/burnin-gpu.yaml): its records come
// from the burn-in's own writers (gemm::burn_outcome, memory::hbm_burn_outcome, the GPU monitor's
// summary) with made-up figures typical of a healthy H200 (from the committed reference runs;
// never a measurement), but for the faults switched on one by one.
#include <string>

#include "analysis/run_set.h"
#include "memory/cuda/peer_copy.h"

namespace railgauge::check::testing {

inline constexpr const char *kBurninHost = "h200node";

struct Sick {
  int slow_gpu = -1; // a co-tenant holds some of this GPU's SMs: GEMM and HBM 15% slower
  // One figure of one GPU this much below healthy (1.0: healthy), the rest of the GPU healthy.
  int lone_gpu = -1;
  double gemm_factor = 1.0, hbm_factor = 1.0, h2d_factor = 1.0, d2h_factor = 1.0;
  double dtype_gemm_factor = 1.0; // the lone GPU's FP64 and TF32 burns
  int hot_gpu = -1;               // this GPU spent 30% of the window under HW thermal slowdown
  int corrupt_gpu = -1;           // this GPU's GEMM results differed from the first (SDC)
  int xid_gpu = -1;      // the kernel logged an Xid 48 (double-bit ECC) for this GPU mid-burn
  int copy_xid_gpu = -1; // ... for this GPU while every GPU copied to and from the host
  int nccl_xid_gpu = -1; // ... for this GPU during the all_reduce
  int cotenant_gpu = -1; // another process held a context on this GPU during the GEMM burn
  bool copies_half_slow = false; // GPUs 4-7 copy to the host 25% slower (one PCIe switch)
  int pattern_error_gpu = -1;    // the HBM pattern test found one wrong word on this GPU
  int pattern_short_gpu = -1;    // ... covered only 85% of this GPU's free memory
  int fp64_corrupt_gpu = -1;     // this GPU's FP64 GEMM results differed from the first
  int nvlink_gpu = -1;           // this GPU's NVLink 7 counted 12 flit CRC errors in the GEMM burn
};

std::string uuid(int gpu); // "GPU-0000000<gpu>"

// Every ordered pair of `gpus` GPUs named `name` copying over NVLink at an H100 SXM's ~376 GB/s
// (NVIDIA/nccl#1264), every pair out of `slow_gpu` at `slow_factor` of healthy; no telemetry.
memory::PeerCopyRun peer_copy_pairs(const std::string &name, int gpus, int slow_gpu = -1,
                                    double slow_factor = 1.0);

// run.json's points_planned and counts from the run's records: a whole run.
void count_points(analysis::LoadedRun &run);

// The phases of results/suites/burnin-gpu.yaml on `gpus` H200s.
analysis::RunSet burnin_node(int gpus, const Sick &sick = {});

} // namespace railgauge::check::testing
