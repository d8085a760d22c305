// HbmStreamBenchmark::run() for builds without CUDA: supported() always has a reason (the stub
// harness/cuda says "built without CUDA"), so every point is a waived record.
#include "memory/cuda/hbm_stream.h"

namespace railgauge::memory {

Outcome HbmStreamBenchmark::run(RunContext &ctx, const Point &point) {
  return Outcome::waived(supported(ctx, point).value_or("built without CUDA"));
}

} // namespace railgauge::memory
