// run_hbm_pattern() for builds without CUDA: supported() always has a reason there, so this is
// never reached by the runner; a direct call says why.
#include "harness/error.h"
#include "memory/cuda/hbm_pattern.h"

namespace railgauge::memory {

std::vector<HbmPatternGpuResult> run_hbm_pattern(const HbmPatternOptions &) {
  throw BackendError("memory.pattern: built without CUDA");
}

} // namespace railgauge::memory
