#pragma once
// The points of a comparison a reader is shown: every point of a key that has at most a given
// number, and the worst of a key that has more (a fleet's node pairs: 2,000 nodes with 8 peers
// each are 16,000 rows of one key), with a line per such key that counts the rest by verdict.
// The table, the markdown and the report list the same points; the JSON holds every one.
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/compare/compare.h"

namespace railgauge::compare {

struct ListedPoints {
  std::vector<const PointComparison *> points; // keys in the comparison's order
  // Per key cut: "rdma.write_bw: the 40 worst of 16000 points are listed; the other 15960
  // read 15958 within noise, 2 worse".
  std::vector<std::string> notes;
};

// How bad a point is for the inputs after the first, for ordering a key's points worst first:
// failed in one of them (or measured 0 against the baseline), then missing from one of them,
// then the lowest speedup (time and latency inverted); a point the baseline failed or lacks
// only after every slowdown, as it says nothing against the others.
double badness(const PointComparison &p, const std::vector<std::string> &labels);

// `most_per_key` 0: every point, no notes.
ListedPoints listed_points(const Comparison &c, std::size_t most_per_key);

} // namespace railgauge::compare
