// run_hbm_burn() for builds without CUDA: supported() always has a reason there, so this is
// never reached by the runner; a direct call says why.
#include "harness/error.h"
#include "memory/cuda/hbm_burn.h"

namespace railgauge::memory {

std::vector<HbmBurnGpuResult> run_hbm_burn(const HbmBurnOptions &) {
  throw BackendError("memory.burn: built without CUDA");
}

} // namespace railgauge::memory
