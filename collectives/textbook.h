#pragma once
// Textbook collective algorithms over point-to-point messages (Thakur, Rabenseifner & Gropp,
// "Optimization of Collective Communication Operations in MPICH", 2005), written once against
// the Transport interface so they run on MPI, on NCCL send/recv and with ranks as threads.
// They are measured against the library's own collective, which picks among (better tuned,
// pipelined) versions of the same ideas.
//
// Buffers are in place, `count` elements of `type` per block:
//   all_reduce      buf holds `count` elements; becomes the reduction over ranks
//   all_gather      buf holds n blocks; block `rank` is the input; becomes every rank's block
//   reduce_scatter  buf holds n blocks (the input, overwritten); block `rank` becomes the
//                   reduction over ranks of block `rank`
//
// Algorithms and rank counts n that are not a power of two (p = the largest power of two <= n):
//   ring               n-1 steps to the right neighbour per phase; any n. all_reduce splits the
//                      buffer into n near-equal blocks (some may be empty).
//   recursive_doubling log2 p steps exchanging with rank ^ 2^k: the whole buffer (all_reduce) or
//                      the blocks gathered so far (all_gather).
//   recursive_halving  reduce_scatter: log2 p steps, each sending the half of the blocks the
//                      partner keeps and reducing the half this rank keeps.
//   halving_doubling   all_reduce (Rabenseifner): recursive-halving reduce-scatter, then
//                      recursive-doubling all-gather, over p blocks.
//   tree               binary tree rooted at rank 0 (children 2r+1, 2r+2): reduce or gather
//                      up the tree, then broadcast or scatter down; any n; not pipelined.
//   For the recursive algorithms with n > p, each of the n-p ranks above p first hands its
//   data to rank r-p (which reduces it in, or holds its block), sits out the log2 p steps, and
//   gets its result from rank r-p at the end: two extra steps.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "collectives/transport.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {

enum class Algorithm { ring, recursive_doubling, recursive_halving, halving_doubling, tree };

std::string_view to_string(Algorithm a);
std::optional<Algorithm> parse_algorithm(std::string_view text);
// The algorithms implemented for a kind (empty: none).
std::vector<Algorithm> algorithms_for(Kind kind);

// Throws std::invalid_argument for a kind/algorithm pair not in algorithms_for().
void run_textbook(Algorithm algorithm, Kind kind, Transport &transport, std::byte *buf,
                  std::size_t count, DType type, RedOp op);

} // namespace railgauge::collectives
