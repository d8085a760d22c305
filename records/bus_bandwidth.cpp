#include "records/bus_bandwidth.h"

#include "harness/enum_names.h"

namespace railgauge::collectives {
namespace {
constexpr Kind kKinds[] = {Kind::all_reduce, Kind::all_gather, Kind::reduce_scatter, Kind::alltoall,
                           Kind::broadcast,  Kind::reduce,     Kind::sendrecv};
} // namespace

std::string_view to_string(Kind k) {
  switch (k) {
  case Kind::all_reduce:
    return "all_reduce";
  case Kind::all_gather:
    return "all_gather";
  case Kind::reduce_scatter:
    return "reduce_scatter";
  case Kind::alltoall:
    return "alltoall";
  case Kind::broadcast:
    return "broadcast";
  case Kind::reduce:
    return "reduce";
  case Kind::sendrecv:
    return "sendrecv";
  }
  return "?";
}

std::optional<Kind> parse_kind(std::string_view text) { return value_named(text, kKinds); }

std::vector<Kind> all_kinds() { return {std::begin(kKinds), std::end(kKinds)}; }

bool reduces(Kind k) {
  return k == Kind::all_reduce || k == Kind::reduce_scatter || k == Kind::reduce;
}

bool has_root(Kind k) { return k == Kind::broadcast || k == Kind::reduce; }

double bus_factor(Kind k, int ranks) {
  const double n = ranks;
  switch (k) {
  case Kind::all_reduce:
    return 2.0 * (n - 1) / n;
  case Kind::all_gather:
  case Kind::reduce_scatter:
  case Kind::alltoall:
    return (n - 1) / n;
  case Kind::broadcast:
  case Kind::reduce:
  case Kind::sendrecv:
    return 1.0;
  }
  return 1.0;
}

std::optional<Counts> counts_for(Kind k, std::uint64_t size_bytes, std::size_t elem_bytes,
                                 int ranks) {
  if (ranks < 1 || elem_bytes == 0 || size_bytes % elem_bytes != 0)
    return std::nullopt;
  const std::uint64_t elems = size_bytes / elem_bytes;
  const auto n = static_cast<std::uint64_t>(ranks);
  switch (k) {
  case Kind::all_reduce:
  case Kind::broadcast:
  case Kind::reduce:
  case Kind::sendrecv:
    return Counts{elems, elems, elems};
  case Kind::all_gather:
    if (elems % n)
      return std::nullopt;
    return Counts{elems / n, elems / n, elems};
  case Kind::reduce_scatter:
    if (elems % n)
      return std::nullopt;
    return Counts{elems / n, elems, elems / n};
  case Kind::alltoall:
    if (elems % n)
      return std::nullopt;
    return Counts{elems / n, elems, elems};
  }
  return std::nullopt;
}

Bandwidth bandwidth(Kind k, std::uint64_t size_bytes, int ranks, double time_s) {
  Bandwidth b;
  if (time_s <= 0)
    return b;
  b.algbw_gbytes_per_s = static_cast<double>(size_bytes) / 1e9 / time_s;
  b.busbw_gbytes_per_s = b.algbw_gbytes_per_s * bus_factor(k, ranks);
  return b;
}

} // namespace railgauge::collectives
