#include "rdma/pair_failure.h"

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/store/descriptor_limit.h"

namespace railgauge::rdma {

void throw_naming_peer(const RunContext &ctx, const std::exception &cause) {
  const int peer = ctx.rank() == 0 ? 1 : 0;
  // Out of descriptors here: this rank's trouble, whatever the peer does.
  if (dynamic_cast<const DescriptorsExhausted *>(&cause))
    throw PeerLost(fmt::format("rank {} (this rank, {} side of the pair with rank {}) failed: {}",
                               ctx.rank(), ctx.rank() == 0 ? "client" : "server", peer,
                               cause.what()));
  throw PeerLost(fmt::format("pair with rank {} ({} side here) failed: {}; if rank {} died "
                             "or hangs, its own output and run.json say why",
                             peer, ctx.rank() == 0 ? "client" : "server", cause.what(), peer));
}

} // namespace railgauge::rdma
