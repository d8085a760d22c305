#pragma once
// Where a point's seeded data lies in one rank's buffers, and what its output must hold: the
// layout every backend shares (MPI on host memory, NCCL on device memory, the textbook
// algorithms' in-place buffer), as regions that the host (fill_input, check_on_host) and the
// GPU kernels (collectives/nccl/device_data_check.h) both consume.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "collectives/collective_point.h"
#include "collectives/dtype.h"
#include "collectives/seeded_values.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {

// Elements of one rank's input buffer (the send buffer, or the receive buffer in place) that
// hold its seeded input: element k of the region is seeded_input(..., first_index + k).
struct InputRegion {
  std::uint64_t first_index = 0;
  std::uint64_t offset_elements = 0; // where the region starts in the buffer
  std::uint64_t elements = 0;
};

// A rank's input for a library collective, as nccl-tests lays it out: the whole send buffer,
// except all_gather (its block, at offset rank * count of the receive buffer in place) and
// broadcast away from the root (nothing: nullopt).
std::optional<InputRegion> input_region(const CollectivePoint &p, int rank, const Counts &c);

// The part of one rank's receive buffer a check reads, and what it must hold.
struct OutputRegion {
  ExpectedOutput expect;
  std::uint64_t offset_elements = 0; // where the region starts in the buffer
};

// A library collective's output on rank `rank` of `world`; nullopt where it holds nothing
// defined (reduce away from the root). In place, NCCL's reduce_scatter leaves its block at
// offset rank * count and MPI's at the start.
std::optional<OutputRegion> output_region(const CollectivePoint &p, std::uint64_t seed, int rank,
                                          int world, const Counts &c, Backend backend);

// The textbook algorithms' in-place buffer (textbook.h): the input (all_gather its block, the
// others the whole buffer) and this rank's part of the result.
InputRegion textbook_input_region(Kind kind, int rank, int ranks, std::uint64_t count);
OutputRegion textbook_output_region(const CollectivePoint &p, std::uint64_t seed, int rank,
                                    int ranks, std::uint64_t count);

// Writes `region` of a rank's input into `buffer` (host memory).
void fill_region(DType type, RedOp op, std::uint64_t seed, int rank, int world,
                 const InputRegion &region, std::byte *buffer);
// Checks `region` of `buffer` (host memory) against its expected values.
CheckResult check_on_host(const std::byte *buffer, const OutputRegion &region);

} // namespace railgauge::collectives
