#pragma once
// The collectives' seeded data, as one formula that host code and CUDA kernels share (plain
// C++17, RAILGAUGE_HOST_DEVICE): element `index` of rank `rank`'s input is a counter-based hash
// of (seed, rank, index), so any element's input, and any element's expected output, is computed
// where it is needed, on the host or on the GPU, without storing a reference copy. A GPU fills
// and checks a 16 GiB buffer at the speed of its memory; the host tests check the same formula.
//
// Exactness: every value is a small integer, chosen so that every partial result of the
// reduction, in any order and any grouping, is an integer the element type represents exactly:
//   sum       uniform in [-a, a] with a = min(3, floor(L / world)), L the type's exact-integer
//             limit (fp32 2^24, fp64 2^53, int32 2^31 - 1, bf16 2^8, fp16 2^11), so every
//             partial sum has |s| <= a * world <= L. When world > L (bf16 beyond 256 ranks,
//             fp16 beyond 2048) a is 0 and element i is 1 on rank i % world, 0 elsewhere.
//   prod      +-1, with +-2 on rank i % world: every partial product is +-1 or +-2.
//   max, min  uniform in [-100, 100].
// So the expected output is exact whatever algorithm ran, and the check compares with ==.
#include <cstdint>

#include "collectives/element_type.h"
#include "harness/host_device.h"

namespace railgauge::collectives {

// splitmix64's finaliser (Steele, Lea & Flood 2014): a bijection of 64-bit words whose output
// bits each depend on every input bit.
RAILGAUGE_HOST_DEVICE constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The largest integer magnitude below which every integer is exact in the type.
RAILGAUGE_HOST_DEVICE constexpr std::int64_t exact_integer_limit(DType t) {
  switch (t) {
  case DType::f32:
    return std::int64_t{1} << 24;
  case DType::f64:
    return std::int64_t{1} << 53;
  case DType::i32:
    return 2147483647;
  case DType::bf16:
    return 256; // 8 significant bits
  case DType::f16:
    return 2048; // 11 significant bits
  }
  return 0;
}

// a of the sum inputs (above): 0 where even inputs of 1 on every rank would not stay exact.
RAILGAUGE_HOST_DEVICE constexpr int sum_amplitude(DType t, int world) {
  const std::int64_t a = exact_integer_limit(t) / (world > 0 ? world : 1);
  return a < 3 ? static_cast<int>(a) : 3;
}

// The hash of (seed, rank, index): one mix64 per element, the seed mixed once per call (a loop
// over elements hoists it). Distinct odd multipliers keep (rank, index) pairs apart.
RAILGAUGE_HOST_DEVICE constexpr std::uint64_t seeded_hash(std::uint64_t seed, int rank,
                                                          std::uint64_t index) {
  return mix64(mix64(seed) + index * 0xd1b54a32d192ed03ULL +
               static_cast<std::uint64_t>(rank) * 0xabc98388fb8fac03ULL);
}

// A uniform integer in [0, m) from the hash's high 32 bits (Lemire's multiply-shift): no
// 64-bit division on the GPU.
RAILGAUGE_HOST_DEVICE constexpr int hash_below(std::uint64_t h, std::uint32_t m) {
  return static_cast<int>(((h >> 32) * m) >> 32);
}

RAILGAUGE_HOST_DEVICE constexpr bool owns(int rank, int world, std::uint64_t index) {
  return index % static_cast<std::uint64_t>(world) == static_cast<std::uint64_t>(rank);
}

// Element `index` of rank `rank`'s input, of `world` ranks, for run seed `seed`.
RAILGAUGE_HOST_DEVICE constexpr int seeded_input(DType type, RedOp op, std::uint64_t seed, int rank,
                                                 int world, std::uint64_t index) {
  const std::uint64_t h = seeded_hash(seed, rank, index);
  switch (op) {
  case RedOp::prod: {
    const int sign = (h & 1U) ? -1 : 1;
    return owns(rank, world, index) ? 2 * sign : sign;
  }
  case RedOp::max:
  case RedOp::min:
    return hash_below(h, 201) - 100;
  case RedOp::sum: {
    const int a = sum_amplitude(type, world);
    if (a < 1)
      return owns(rank, world, index) ? 1 : 0;
    return hash_below(h, static_cast<std::uint32_t>(2 * a + 1)) - a;
  }
  }
  return 0;
}

// The reduction of element `index` over all `world` ranks' inputs: exact (above), computed in
// int, where every partial result is smaller than any limit.
RAILGAUGE_HOST_DEVICE constexpr int seeded_reduction(DType type, RedOp op, std::uint64_t seed,
                                                     int world, std::uint64_t index) {
  int acc = seeded_input(type, op, seed, 0, world, index);
  for (int r = 1; r < world; ++r) {
    const int v = seeded_input(type, op, seed, r, world, index);
    switch (op) {
    case RedOp::sum:
      acc += v;
      break;
    case RedOp::prod:
      acc *= v;
      break;
    case RedOp::max:
      acc = v > acc ? v : acc;
      break;
    case RedOp::min:
      acc = v < acc ? v : acc;
      break;
    }
  }
  return acc;
}

// What a region of one rank's output must hold after a collective, element j of the region:
//   reduced    the reduction over ranks of input index first_index + j (all_reduce, reduce's
//              root, reduce_scatter's block)
//   from_rank  rank `rank`'s input index first_index + j (broadcast: the root; sendrecv: the
//              left neighbour)
//   gathered   block j / count is rank j / count's, input index j (all_gather)
//   alltoall   block j / count is rank j / count's block `rank` (this rank), input index
//              rank * count + j % count
// The index a check reports for element j is first_index + j (0 for gathered and alltoall).
enum class OutputPattern : std::uint8_t { reduced, from_rank, gathered, alltoall };

struct ExpectedOutput {
  OutputPattern pattern = OutputPattern::reduced;
  DType type = DType::f32;
  RedOp op = RedOp::sum;
  std::uint64_t seed = 0;
  int world = 1;
  int rank = 0;
  std::uint64_t count = 0;       // gathered, alltoall: elements per block
  std::uint64_t first_index = 0; // reduced, from_rank
  std::uint64_t elements = 0;    // the region's length
};

RAILGAUGE_HOST_DEVICE constexpr int expected_value(const ExpectedOutput &e, std::uint64_t j) {
  switch (e.pattern) {
  case OutputPattern::reduced:
    return seeded_reduction(e.type, e.op, e.seed, e.world, e.first_index + j);
  case OutputPattern::from_rank:
    return seeded_input(e.type, e.op, e.seed, e.rank, e.world, e.first_index + j);
  case OutputPattern::gathered:
    return seeded_input(e.type, e.op, e.seed, static_cast<int>(j / e.count), e.world, j);
  case OutputPattern::alltoall:
    return seeded_input(e.type, e.op, e.seed, static_cast<int>(j / e.count), e.world,
                        static_cast<std::uint64_t>(e.rank) * e.count + j % e.count);
  }
  return 0;
}

} // namespace railgauge::collectives
