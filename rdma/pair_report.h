#pragma once
// What each rank reports after a round of a pair matrix (pair_matrix_run.h), all-gathered
// through the Store so that every rank judges the same matrix: the pairs it measured (it owns
// the pair's second endpoint, the measuring side) with their latency and bandwidth, or an error
// each; a rank that measured nothing in the round (it served, or sat the round out) reports an
// empty list. Every rank decodes every other rank's text here: a report that is malformed, names
// a pair that is not in the round, names a pair twice or comes from a rank that did not measure
// that pair is a BackendError naming the rank, never an index out of range or a JSON library
// exception.
#include <string>
#include <vector>

#include "rdma/pair_matrix.h"

namespace railgauge::rdma {

struct PairReport {
  PairResult result;
  std::string error; // empty when the pair was measured
};

std::string encode_pair_reports(const std::vector<PairReport> &reports);
// `text` as rank `from_rank` sent it for `round`; `owner_rank[e]` is the rank that holds
// endpoint e (the pairs' endpoints index it).
std::vector<PairReport> decode_pair_reports(const std::string &text, int from_rank,
                                            const Round &round, const std::vector<int> &owner_rank);

} // namespace railgauge::rdma
