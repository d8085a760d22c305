#pragma once
// The kernels an operation launched, by name, as the driver saw them: CUPTI's callback on the
// driver's launch calls (cuLaunchKernel, cuLaunchKernelEx, cooperative launches) gives each
// launch's symbol. A cuBLASLt algorithm is otherwise known only by its ids (tile, stages,
// cluster), which name no kernel; torch.profiler names the kernel torch ran, so a comparison of
// the two says the same kernel ran on both sides, or which differed.
//
// libcupti is opened at run time (the toolkit's, or a PyTorch install's nvidia-cuda-cupti), so a
// node without it still runs every benchmark; the answer then says why there are no names. One
// subscriber at a time: under a profiler that holds CUPTI (Nsight Systems), the names are
// unknown and say so.
#include <functional>
#include <string>
#include <vector>

namespace railgauge::gpu {

struct LaunchedKernels {
  std::vector<std::string> names; // demangled, in launch order, each once
  std::string why_not;            // empty when names were captured
};

// Runs `op` once, synchronises the device, and returns the kernels it launched.
LaunchedKernels kernels_launched_by(const std::function<void()> &op);

} // namespace railgauge::gpu
