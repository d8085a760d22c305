#pragma once
// What each rank reports after a round of the TCP pair matrix (tcp_pair_matrix.cpp), all-gathered
// through the Store so that every rank judges the same matrix: the pair it measured (it is the
// pair's higher rank, the measuring side) with its latency and bandwidth, or an error; a rank that
// measured nothing in the round (it served, or sat the round out) reports null. Every rank decodes
// every other rank's text here: a report that is malformed, names a pair that is not in the round
// or comes from a rank that did not measure that pair is a BackendError naming the rank, never an
// index out of range or a JSON library exception.
#include <optional>
#include <string>

#include "rdma/pair_matrix.h"

namespace railgauge::rdma {

struct PairReport {
  PairResult result;
  std::string error; // empty when the pair was measured
};

std::string encode_pair_report(const std::optional<PairReport> &report);
// `text` as rank `from_rank` sent it for `round`; nullopt for null.
std::optional<PairReport> decode_pair_report(const std::string &text, int from_rank,
                                             const Round &round);

} // namespace railgauge::rdma
