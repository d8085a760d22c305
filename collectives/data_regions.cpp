#include "collectives/data_regions.h"

#include <stdexcept>

#include <fmt/format.h>

namespace railgauge::collectives {

std::optional<InputRegion> input_region(const CollectivePoint &p, int rank, const Counts &c) {
  if (p.kind == Kind::broadcast && rank != p.root)
    return std::nullopt;
  if (p.kind != Kind::all_gather)
    return InputRegion{0, 0, c.send_elems};
  const std::uint64_t first = static_cast<std::uint64_t>(rank) * c.count;
  return InputRegion{first, p.in_place ? first : 0, c.count};
}

std::optional<OutputRegion> output_region(const CollectivePoint &p, std::uint64_t seed, int rank,
                                          int world, const Counts &c, Backend backend) {
  const std::uint64_t count = c.count;
  ExpectedOutput e{OutputPattern::reduced, p.dtype, p.op, seed, world, rank, count, 0, count};
  std::uint64_t offset = 0;
  switch (p.kind) {
  case Kind::reduce:
    if (rank != p.root)
      return std::nullopt;
    [[fallthrough]];
  case Kind::all_reduce:
    break;
  case Kind::reduce_scatter:
    e.first_index = static_cast<std::uint64_t>(rank) * count;
    if (p.in_place && backend == Backend::nccl)
      offset = e.first_index;
    break;
  case Kind::all_gather:
    e.pattern = OutputPattern::gathered;
    e.elements = count * static_cast<std::uint64_t>(world);
    break;
  case Kind::alltoall:
    e.pattern = OutputPattern::alltoall;
    e.elements = count * static_cast<std::uint64_t>(world);
    break;
  case Kind::broadcast:
    e.pattern = OutputPattern::from_rank;
    e.rank = p.root;
    break;
  case Kind::sendrecv:
    e.pattern = OutputPattern::from_rank;
    e.rank = (rank - 1 + world) % world; // the left neighbour sends to this rank
    break;
  }
  return OutputRegion{e, offset};
}

InputRegion textbook_input_region(Kind kind, int rank, int ranks, std::uint64_t count) {
  if (kind == Kind::all_gather) {
    const std::uint64_t first = static_cast<std::uint64_t>(rank) * count;
    return {first, first, count};
  }
  return {0, 0, textbook_elements(kind, count, ranks)};
}

OutputRegion textbook_output_region(const CollectivePoint &p, std::uint64_t seed, int rank,
                                    int ranks, std::uint64_t count) {
  CollectivePoint in_place = p;
  in_place.in_place = true; // the textbook buffer is the library's in-place layout
  switch (p.kind) {
  case Kind::all_reduce:
  case Kind::all_gather:
  case Kind::reduce_scatter:
    return *output_region(in_place, seed, rank, ranks, Counts{count, 0, 0}, Backend::nccl);
  default:
    throw std::invalid_argument(fmt::format("no textbook algorithm for {}", to_string(p.kind)));
  }
}

void fill_region(DType type, RedOp op, std::uint64_t seed, int rank, int world,
                 const InputRegion &region, std::byte *buffer) {
  fill_input(type, op, seed, rank, world, region.first_index,
             buffer + region.offset_elements * element_bytes(type), region.elements);
}

CheckResult check_on_host(const std::byte *buffer, const OutputRegion &region) {
  const ExpectedOutput &e = region.expect;
  const std::byte *at = buffer + region.offset_elements * element_bytes(e.type);
  // check_elements passes first_index + j; expected_value takes j.
  return check_elements(e.type, at, e.elements, e.first_index, [&](std::uint64_t i) {
    return static_cast<double>(expected_value(e, i - e.first_index));
  });
}

} // namespace railgauge::collectives
