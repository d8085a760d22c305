// The seeded-data formula that the GPU kernels share with the host (seeded_values.h): every input
// is exact in every element type, every partial result of every reduction stays exact for every
// rank count, and the expected output of every collective, region by region, agrees with a host
// reference that runs the collective on host buffers filled from the same formula.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "collectives/collective_point.h"
#include "collectives/data_regions.h"
#include "collectives/dtype.h"
#include "collectives/seeded_values.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {
namespace {

constexpr DType kTypes[] = {DType::f32, DType::f64, DType::i32, DType::bf16, DType::f16};
constexpr RedOp kOps[] = {RedOp::sum, RedOp::prod, RedOp::max, RedOp::min};

// The formula is constexpr: usable in a kernel and at compile time alike.
static_assert(seeded_input(DType::f32, RedOp::prod, 1, 0, 1, 0) == 2 ||
              seeded_input(DType::f32, RedOp::prod, 1, 0, 1, 0) == -2);
static_assert(sum_amplitude(DType::bf16, 8) == 3 && sum_amplitude(DType::bf16, 100) == 2 &&
              sum_amplitude(DType::bf16, 257) == 0 && sum_amplitude(DType::f16, 2048) == 1);

// Every partial result, in rank order and in reverse, bounded by the type's exact-integer limit;
// and the inputs round-trip through the type unchanged. Rank counts around every limit where the
// amplitude changes (bf16 85/86, 128/129, 256/257; fp16 682/683, 1024/1025, 2048/2049).
TEST(SeededValues, EveryPartialResultIsExactForEveryTypeAndRankCount) {
  const std::vector<int> worlds = {1,   2,   3,   4,   5,   7,   8,    16,   64,   85,   86,
                                   128, 129, 256, 257, 682, 683, 1024, 1025, 2048, 2049, 4096};
  const std::uint64_t indices = 61;
  for (const DType type : kTypes)
    for (const RedOp op : kOps)
      for (const int world : worlds) {
        SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + " world " +
                     std::to_string(world));
        const std::int64_t limit = exact_integer_limit(type);
        for (std::uint64_t i = 0; i < indices; ++i) {
          std::int64_t forward = 0, backward = 0;
          for (int k = 0; k < world; ++k) {
            const int a = seeded_input(type, op, 7, k, world, i);
            const int b = seeded_input(type, op, 7, world - 1 - k, world, i);
            std::byte stored[8];
            store_value(type, a, stored, 0);
            ASSERT_EQ(load_value(type, stored, 0), a) << "input not exact, rank " << k;
            const auto combine = [&](std::int64_t acc, int v) -> std::int64_t {
              if (k == 0)
                return v;
              switch (op) {
              case RedOp::sum:
                return acc + v;
              case RedOp::prod:
                return acc * v;
              case RedOp::max:
                return std::max<std::int64_t>(acc, v);
              case RedOp::min:
                return std::min<std::int64_t>(acc, v);
              }
              return acc;
            };
            forward = combine(forward, a);
            backward = combine(backward, b);
            ASSERT_LE(std::llabs(forward), limit) << "partial result past the limit, rank " << k;
            ASSERT_LE(std::llabs(backward), limit) << "partial result past the limit, rank " << k;
          }
          ASSERT_EQ(forward, backward);
          ASSERT_EQ(seeded_reduction(type, op, 7, world, i), forward) << "index " << i;
        }
      }
}

// The reduction computed in the element type itself, rank by rank with the host's reduce_into
// (the arithmetic device_reduce.cu shares), equals the formula's expected value exactly.
TEST(SeededValues, ReductionInTheElementTypeEqualsTheFormula) {
  const std::size_t n = 97;
  for (const DType type : kTypes)
    for (const RedOp op : kOps)
      for (const int world : {2, 3, 8, 86, 257, 683}) {
        std::vector<std::byte> acc(n * element_bytes(type)), in(acc.size());
        fill_input(type, op, 11, 0, world, 5, acc.data(), n);
        for (int r = 1; r < world; ++r) {
          fill_input(type, op, 11, r, world, 5, in.data(), n);
          reduce_into(type, op, acc.data(), in.data(), n);
        }
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(load_value(type, acc.data(), i), seeded_reduction(type, op, 11, world, 5 + i))
              << to_string(type) << " " << to_string(op) << " world " << world << " i " << i;
      }
}

TEST(SeededValues, InputsSpreadOverTheirRangeAndDependOnSeedRankAndIndex) {
  std::vector<int> seen_sum(7, 0), seen_max(201, 0);
  for (std::uint64_t i = 0; i < 20000; ++i) {
    ++seen_sum[static_cast<std::size_t>(seeded_input(DType::f32, RedOp::sum, 3, 1, 4, i) + 3)];
    ++seen_max[static_cast<std::size_t>(seeded_input(DType::f32, RedOp::max, 3, 1, 4, i) + 100)];
  }
  for (int count : seen_sum)
    EXPECT_GT(count, 20000 / 7 / 2);
  EXPECT_EQ(std::count(seen_max.begin(), seen_max.end(), 0), 0);
  int same_seed = 0, same_rank = 0, same_index = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const int v = seeded_input(DType::f32, RedOp::max, 3, 1, 4, i);
    same_seed += v == seeded_input(DType::f32, RedOp::max, 4, 1, 4, i);
    same_rank += v == seeded_input(DType::f32, RedOp::max, 3, 2, 4, i);
    same_index += v == seeded_input(DType::f32, RedOp::max, 3, 1, 4, i + 1);
  }
  // 1 in 201 by chance.
  EXPECT_LT(same_seed, 30);
  EXPECT_LT(same_rank, 30);
  EXPECT_LT(same_index, 30);
}

// Each rank's receive buffer after `kind`, computed on the host from buffers filled through
// input_region, laid out as nccl-tests lays them: the reference the expected regions must match.
std::vector<std::vector<std::byte>> run_on_host(const CollectivePoint &p, int world,
                                                const Counts &c, std::uint64_t seed) {
  const std::size_t elt = element_bytes(p.dtype);
  const std::size_t big = std::max(c.send_elems, c.recv_elems) * elt;
  std::vector<std::vector<std::byte>> send(static_cast<std::size_t>(world)), recv(send.size());
  for (int r = 0; r < world; ++r) {
    auto &out = recv[static_cast<std::size_t>(r)];
    out.assign(p.in_place ? big : c.recv_elems * elt, std::byte{0xff});
    auto &in = send[static_cast<std::size_t>(r)];
    in.assign(c.send_elems * elt, std::byte{0xff});
    if (const auto region = input_region(p, r, c))
      fill_region(p.dtype, p.op, seed, r, world, *region, p.in_place ? out.data() : in.data());
    if (p.in_place) // what the collective reads: the buffer as it lay before any write
      in = out;
  }
  const std::size_t block = c.count * elt;
  const auto input_of = [&](int r) { return send[static_cast<std::size_t>(r)].data(); };
  std::vector<std::byte> reduced(input_of(0), input_of(0) + c.send_elems * elt);
  for (int r = 1; r < world && reduces(p.kind); ++r)
    reduce_into(p.dtype, p.op, reduced.data(), input_of(r), c.send_elems);
  for (int r = 0; r < world; ++r) {
    std::byte *out = recv[static_cast<std::size_t>(r)].data();
    const auto at = [&](int b) { return static_cast<std::size_t>(b) * block; };
    switch (p.kind) {
    case Kind::all_reduce:
      std::memcpy(out, reduced.data(), block);
      break;
    case Kind::reduce:
      if (r == p.root)
        std::memcpy(out, reduced.data(), block);
      break;
    case Kind::reduce_scatter:
      std::memcpy(out + (p.in_place ? at(r) : 0), reduced.data() + at(r), block);
      break;
    case Kind::all_gather: // every rank's block, from where that rank's input lies
      for (int b = 0; b < world; ++b)
        std::memcpy(out + at(b), input_of(b) + (p.in_place ? at(b) : 0), block);
      break;
    case Kind::alltoall:
      for (int b = 0; b < world; ++b)
        std::memcpy(out + at(b), input_of(b) + at(r), block);
      break;
    case Kind::broadcast:
      std::memcpy(out, input_of(p.root), block);
      break;
    case Kind::sendrecv:
      std::memcpy(out, input_of((r - 1 + world) % world), block);
      break;
    }
  }
  return recv;
}

TEST(SeededValues, ExpectedOutputsAgreeWithTheHostReferenceOfEveryKind) {
  const std::uint64_t count = 37, seed = 2027;
  for (const Kind kind : all_kinds())
    for (const bool in_place : {false, true})
      for (const DType type : {DType::f32, DType::bf16, DType::i32})
        for (const int world : {1, 2, 3, 5, 8}) {
          CollectivePoint p;
          p.kind = kind;
          p.dtype = type;
          p.op = kind == Kind::reduce_scatter ? RedOp::max : RedOp::sum;
          p.in_place = in_place;
          p.root = world - 1;
          if (placement_problem(p, Backend::nccl))
            continue;
          SCOPED_TRACE(std::string(to_string(kind)) + (in_place ? " in place " : " ") +
                       std::string(to_string(type)) + " world " + std::to_string(world));
          const bool per_rank =
              kind == Kind::all_gather || kind == Kind::reduce_scatter || kind == Kind::alltoall;
          const auto c = *counts_for(kind, count * element_bytes(type) * (per_rank ? world : 1),
                                     element_bytes(type), world);
          auto recv = run_on_host(p, world, c, seed);
          for (int r = 0; r < world; ++r) {
            const auto region = output_region(p, seed, r, world, c, Backend::nccl);
            ASSERT_EQ(region.has_value(), kind != Kind::reduce || r == p.root);
            if (!region)
              continue;
            auto &buf = recv[static_cast<std::size_t>(r)];
            const auto right = check_on_host(buf.data(), *region);
            EXPECT_EQ(right.wrong, 0u) << "rank " << r << ": " << right.describe("recv");
            EXPECT_EQ(right.checked, region->expect.elements);
            // One element off by one: found, at the index the check reports.
            const std::uint64_t j = region->expect.elements - 2;
            const std::size_t pos = static_cast<std::size_t>(region->offset_elements + j);
            store_value(type, load_value(type, buf.data(), pos) + 1, buf.data(), pos);
            const auto one = check_on_host(buf.data(), *region);
            EXPECT_EQ(one.wrong, 1u);
            EXPECT_EQ(one.first_wrong_index, region->expect.first_index + j);
          }
        }
}

TEST(SeededValues, TextbookRegionsAreTheInPlaceLibraryLayout) {
  CollectivePoint p;
  p.kind = Kind::reduce_scatter;
  const auto out = textbook_output_region(p, 1, 2, 4, 10);
  EXPECT_EQ(out.offset_elements, 20u);
  EXPECT_EQ(out.expect.first_index, 20u);
  EXPECT_EQ(out.expect.elements, 10u);
  const auto in = textbook_input_region(Kind::all_gather, 2, 4, 10);
  EXPECT_EQ(in.first_index, 20u);
  EXPECT_EQ(in.offset_elements, 20u);
  EXPECT_EQ(in.elements, 10u);
  EXPECT_EQ(textbook_input_region(Kind::all_reduce, 2, 4, 10).elements, 10u);
}

} // namespace
} // namespace railgauge::collectives
