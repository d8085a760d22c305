#pragma once
// The HBM kernels and their data check (hbm_kernels.cu). Include only from sources compiled
// when RAILGAUGE_HAS_CUDA.
//
// Every kernel is grid-stride over 16-byte vectors (double2), so each thread issues 128-bit
// loads and stores, the widest a thread can issue and what the HBM wants to see. Arrays hold
// small integers, so sums and triads are exact in any order and checked with ==.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "memory/cuda/hbm_types.h"

namespace railgauge::memory {

inline constexpr double kHbmWriteValue = 2.0; // what memory.hbm_write stores
inline constexpr double kHbmTriadScalar = 3.0;

struct HbmGrid {
  int blocks = 1;
  int threads_per_block = 256;
};

// Enough blocks to fill every SM (SMs x resident blocks per SM, from the occupancy API for this
// kernel), but no more blocks than it takes to give each thread one vector: small arrays do not
// pay for launching empty blocks. The copy always gets one vector per thread (faster on Hopper).
HbmGrid hbm_grid(HbmKernel kernel, int sm_count, std::size_t elements);

// Fills the kernel's inputs with their patterns and its outputs with zeros, on `stream`.
void seed_hbm_arrays(HbmKernel kernel, const HbmArrays &arrays, cudaStream_t stream);

// One call of the measured operation on `stream`. The read kernel stores one partial sum per
// block in `partials` (grid.blocks doubles), so the compiler cannot drop its loads.
void launch_hbm_kernel(HbmKernel kernel, const HbmArrays &arrays, double *partials,
                       const HbmGrid &grid, cudaStream_t stream);

// Elements of the kernel's output (read: its input, which must be intact) that differ from
// what the kernel must have left; checks the whole array on the GPU. Synchronises `stream`.
std::uint64_t count_wrong_hbm(HbmKernel kernel, const HbmArrays &arrays, cudaStream_t stream);

// What the read kernel's partial sums must add up to for `elements` seeded elements.
double expected_hbm_read_sum(std::size_t elements);

} // namespace railgauge::memory
