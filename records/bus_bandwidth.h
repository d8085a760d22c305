#pragma once
// The byte accounting of every collective, in one place (nccl-tests' getBw and its
// doc/PERFORMANCE.md; docs/collectives.md explains it with examples).
//
//   size_bytes  the point's size, as nccl-tests prints it: max(send, recv) bytes of one rank
//   algbw       size_bytes / 1e9 / time_s                       (GB/s, GB = 1e9 bytes)
//   busbw       algbw * factor(kind, n)
//
//   kind            count argument (elements)        factor
//   all_reduce      size / elt                        2(n-1)/n
//   all_gather      size / elt / n   (send count)     (n-1)/n
//   reduce_scatter  size / elt / n   (recv count)     (n-1)/n
//   alltoall        size / elt / n   (per peer)       (n-1)/n
//   broadcast       size / elt                        1
//   reduce          size / elt                        1
//   sendrecv        size / elt                        1
//
// busbw is the rate each rank's link must carry for a bandwidth-optimal algorithm (a ring):
// comparable to the link rate and across rank counts. It ignores the algorithm actually used,
// so when NCCL reduces in the switch (NVLS, SHARP/CollNet) fewer bytes cross each link and
// busbw can exceed the link rate; such points carry a note (above_link_rate) instead of being
// read as a link faster than it is.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railgauge::collectives {

enum class Kind { all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv };

std::string_view to_string(Kind k);
std::optional<Kind> parse_kind(std::string_view text);
std::vector<Kind> all_kinds();
// all_reduce, reduce_scatter, reduce: the kinds that take a reduction operation.
bool reduces(Kind k);
// broadcast, reduce: the kinds that take a root.
bool has_root(Kind k);

double bus_factor(Kind k, int ranks);

// The per-rank element counts of one point: what a library call takes as `count`, and the
// elements of the send and receive buffers of one rank.
struct Counts {
  std::uint64_t count = 0;      // the library's count argument
  std::uint64_t send_elems = 0; // one rank's send buffer
  std::uint64_t recv_elems = 0; // one rank's receive buffer
};

// nullopt when size_bytes does not split into whole elements per rank (the point is waived:
// nccl-tests rounds the size down instead, so the bytes it reports are not the bytes it moved).
std::optional<Counts> counts_for(Kind k, std::uint64_t size_bytes, std::size_t elem_bytes,
                                 int ranks);

struct Bandwidth {
  double algbw_gbytes_per_s = 0;
  double busbw_gbytes_per_s = 0;
};
Bandwidth bandwidth(Kind k, std::uint64_t size_bytes, int ranks, double time_s);

} // namespace railgauge::collectives
