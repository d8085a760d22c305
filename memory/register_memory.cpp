#include "memory/register_memory.h"

#include "memory/cuda/register_memory_cuda.h"
#include "memory/host_stream.h"

namespace railgauge {

void register_memory(Registry &registry) {
  registry.add(memory::make_host_read());
  registry.add(memory::make_host_write());
  registry.add(memory::make_host_copy());
  registry.add(memory::make_host_triad());
  register_memory_cuda(registry);
}

} // namespace railgauge
