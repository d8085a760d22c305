#pragma once
// The verdict on each input of a point against the first (better, worse, within noise, single
// sample, only in one), and the summaries per family and per key: the geometric mean of the
// speedups and the count of each verdict.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/compare/compare.h"

namespace railgauge::compare {

// Input k's side of p as compared with input `other`: measured, or read off k's curve when
// `other` was measured (a ratio needs one measured side); none when neither was.
const std::optional<Side> &compared_side(const PointComparison &p, std::size_t k,
                                         std::size_t other);

// The summaries being counted: per (family or key, input), the verdicts and the log speedups.
// The family a key's points are summed up in: "memory" of "memory.hbm_copy".
std::string family_of(const std::string &key);

struct Tallies {
  std::map<std::pair<std::string, int>, std::vector<double>> speedups_by_family, speedups_by_key;
  std::map<std::pair<std::string, int>, Summary> fam, keys;
};

// p.ratio and p.verdict for every input after the first (p.sides and p.interpolated set), counted
// into `t`; returns how many of them took a side read off a curve.
int judge(PointComparison &p, const std::vector<std::string> &labels,
          double single_sample_tolerance, Tallies &t);

// c.families and c.keys from the tallies.
void summarize(Tallies &t, Comparison &c);

} // namespace railgauge::compare
