// run_burn() for builds without CUDA: supported() waives every point first, so a direct call
// reports each GPU as broken with the reason.
#include "gemm/cuda/burn.h"
#include "harness/cuda/device.h"

namespace railgauge::gemm {

std::vector<BurnGpuResult> run_burn(const BurnOptions &o) {
  std::vector<BurnGpuResult> results(o.gpus.size());
  for (std::size_t i = 0; i < o.gpus.size(); ++i) {
    results[i].index = o.gpus[i];
    results[i].error = gpu::cuda_unavailable_reason().value_or("built without CUDA");
  }
  return results;
}

} // namespace railgauge::gemm
