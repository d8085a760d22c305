#pragma once
// A pair point (rank 0 against rank 1) that fails on one rank most often fails because of the
// other: it died (a reset or closed connection, an RC retry-exceeded completion, its store gone)
// or stopped answering (a timeout). The report names that rank, so it says whose host to look at.
#include <exception>

#include "harness/run_context.h"

namespace railgauge::rdma {

// Throws PeerLost (the run stops after this point): "pair with rank P (client|server side here)
// failed: <what>; ...". When this rank ran out of descriptors (DescriptorsExhausted,
// harness/store/descriptor_limit.h) it names this rank instead: the peer is not at fault.
[[noreturn]] void throw_naming_peer(const RunContext &ctx, const std::exception &cause);

} // namespace railgauge::rdma
