#include "offload/register_offload.h"

#include "offload/offload_benchmark.h"

namespace railgauge {

void register_offload(Registry &registry) {
  for (const auto path : offload::kOffloadPaths)
    registry.add(offload::make_offload_benchmark(path));
}

} // namespace railgauge
