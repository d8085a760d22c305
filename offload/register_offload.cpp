#include "offload/register_offload.h"

#include "offload/offload_benchmark.h"

namespace railgauge {

void register_offload(Registry &registry) {
  registry.add(offload::make_h2d());
  registry.add(offload::make_d2h());
  registry.add(offload::make_bidir());
  registry.add(offload::make_zero_copy_read());
  registry.add(offload::make_zero_copy_write());
  registry.add(offload::make_all_gpus_h2d());
  registry.add(offload::make_all_gpus_d2h());
  registry.add(offload::make_with_gemm());
}

} // namespace railgauge
