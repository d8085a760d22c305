#include "cli/make_registry.h"
#include "block/register_block.h"
#include "collectives/register_collectives.h"
#include "gemm/register_gemm.h"
#include "memory/register_memory.h"
#include "offload/register_offload.h"
#include "rdma/register_rdma.h"

namespace railgauge {

Registry make_registry(rdma::SharedLedgerPlace ledger) {
  Registry registry;
  register_memory(registry);
  register_gemm(registry);
  register_offload(registry);
  register_rdma(registry, std::move(ledger));
  register_collectives(registry);
  register_block(registry);
  return registry;
}

} // namespace railgauge
