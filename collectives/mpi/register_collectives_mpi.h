#pragma once
#include "harness/registry.h"

namespace railgauge::collectives {
// collectives.mpi_<kind> for every kind and collectives.mpi_textbook_<kind> for all_reduce,
// all_gather and reduce_scatter; waivers when the build has no MPI.
void register_collectives_mpi(Registry &registry);
} // namespace railgauge::collectives
