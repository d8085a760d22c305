#pragma once
// The seeded fill and the data check as GPU kernels (seeded_values.h's formula, the one the host
// tests check): a buffer is filled and checked where it lives, at the speed of device memory,
// and only a few counters come back to the host. Compiled by nvcc as C++17, like
// device_reduce.cu.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "collectives/element_type.h"
#include "collectives/seeded_values.h"

namespace railgauge::collectives {

// What one check leaves in device memory. Positions are element positions in the checked
// region (element j of ExpectedOutput).
struct DeviceCheckCounts {
  static constexpr unsigned kPositionsKept = 8;
  unsigned long long wrong;
  // ~position of the lowest wrong element, so that atomicMax keeps the lowest and the zeroed
  // counters mean none.
  unsigned long long lowest_wrong_complement;
  unsigned int positions_taken; // may pass kPositionsKept: only the first that many are stored
  unsigned int unused;
  unsigned long long positions[kPositionsKept]; // the first wrong elements met, in no order
};

// `elements` elements of rank `rank`'s seeded input, input index first_index + k at dst[k],
// enqueued on `stream`, whose device must be current.
void enqueue_seeded_fill(DType type, RedOp op, std::uint64_t seed, int rank, int world,
                         std::uint64_t first_index, void *dst, std::uint64_t elements,
                         cudaStream_t stream);

// Zeroes `counts` (device memory) and checks the `expect.elements` elements at `region` against
// expected_value(expect, j), exactly, as numbers of the type (+0 equals -0, a NaN is wrong),
// enqueued on `stream`, whose device must be current.
void enqueue_output_check(const ExpectedOutput &expect, const void *region,
                          DeviceCheckCounts *counts, cudaStream_t stream);

} // namespace railgauge::collectives
