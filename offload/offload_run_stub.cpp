// OffloadBenchmark::run() for builds without CUDA: supported() always has a reason (the stub
// harness/cuda says "built without CUDA"), so every point is a waived record.
#include "offload/offload_benchmark.h"

namespace railgauge::offload {

Outcome OffloadBenchmark::run(RunContext &ctx, const Point &point) {
  return Outcome::waived(supported(ctx, point).value_or("built without CUDA"));
}

} // namespace railgauge::offload
