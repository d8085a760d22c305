#include "memory/cuda/register_memory_cuda.h"

#include "memory/cuda/hbm_burn.h"
#include "memory/cuda/hbm_pattern.h"
#include "memory/cuda/hbm_stream.h"
#include "memory/cuda/peer_copy.h"

namespace railgauge {

void register_memory_cuda(Registry &registry) {
  registry.add(memory::make_hbm_read());
  registry.add(memory::make_hbm_write());
  registry.add(memory::make_hbm_copy());
  registry.add(memory::make_hbm_triad());
  registry.add(memory::make_hbm_memcpy_d2d());
  registry.add(memory::make_hbm_burn());
  registry.add(memory::make_hbm_pattern());
  registry.add(memory::make_peer_copy());
}

} // namespace railgauge
