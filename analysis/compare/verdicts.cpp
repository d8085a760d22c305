#include "analysis/compare/verdicts.h"

#include <cmath>

#include <fmt/format.h>

#include "records/one_rank_collective.h"

namespace railgauge::compare {
std::string family_of(const std::string &key) { return key.substr(0, key.find('.')); }

const std::optional<Side> &compared_side(const PointComparison &p, std::size_t k,
                                         std::size_t other) {
  if (p.sides[k] || p.interpolated.empty() || !p.sides[other])
    return p.sides[k];
  return p.interpolated[k];
}

namespace {

// The speedup of b's slow tail over a's (its 10th percentile, the 90th of a time): none unless
// both sides hold a fleet's records.
std::optional<double> tail_speedup(const PointComparison &p, const Side &a, const Side &b) {
  if (!a.p10 || !b.p10 || !a.p90 || !b.p90)
    return std::nullopt;
  const double from = p.higher_is_better ? *a.p10 : *b.p90,
               to = p.higher_is_better ? *b.p10 : *a.p90;
  if (from <= 0 || to < 0)
    return std::nullopt;
  return to / from;
}

} // namespace

int judge(PointComparison &p, const std::vector<std::string> &labels,
          double single_sample_tolerance, Tallies &t) {
  int interpolated = 0;
  for (std::size_t i = 1; i < p.sides.size(); ++i) {
    const auto &a = compared_side(p, 0, i), &b = compared_side(p, i, 0);
    const auto broke = [&](std::size_t k) { return k < p.not_ok.size() && !p.not_ok[k].empty(); };
    if (broke(i)) {
      // The point ran and did not end ok (a GPU whose burn failed): worse than any figure,
      // whether or not the baseline has it, and whatever its other parts read (one GPU's failed
      // copy among eight pooled once left the seven's median "within noise").
      p.ratio.emplace_back();
      p.verdict.push_back(p.not_ok[i] + " in " + labels[i]);
      for (auto *s : {&t.fam[{family_of(p.key), static_cast<int>(i)}],
                      &t.keys[{p.key, static_cast<int>(i)}]}) {
        ++s->worse;
        ++s->failed;
      }
      continue;
    }
    if (!a || !b || a->value == 0 || records::moves_no_data(p.key, p.params)) {
      p.ratio.emplace_back();
      auto &fs = t.fam[{family_of(p.key), static_cast<int>(i)}];
      auto &ks = t.keys[{p.key, static_cast<int>(i)}];
      for (auto *s : {&fs, &ks}) {
        s->missing += a && !b;
        s->added += !a && b && !broke(0);
        s->unrated += a && b;
      }
      p.verdict.push_back(!a && broke(0)  ? p.not_ok[0] + " in " + labels[0]
                          : !a && !b      ? "in neither"
                          : !a            ? "only in " + labels[i]
                          : !b            ? "only in " + labels[0]
                          : a->value == 0 ? "baseline is zero"
                                          : "moves no data (one rank, in place)");
      continue;
    }
    interpolated += !p.sides[0] || !p.sides[i]; // a comparison made off a curve
    const double ratio = b->value / a->value;
    p.ratio.push_back(ratio);
    const double speedup = p.higher_is_better ? ratio : 1 / ratio;
    auto &fs = t.fam[{family_of(p.key), static_cast<int>(i)}];
    auto &ks = t.keys[{p.key, static_cast<int>(i)}];
    if (!p.sides[0] || !p.sides[i]) {
      ++fs.read_off_curve;
      ++ks.read_off_curve;
    }
    std::string verdict;
    const bool one_sample = !a->noise || !b->noise; // an average: no spread to judge by
    const bool within = !one_sample && std::fabs(ratio - 1) <= *a->noise + *b->noise;
    // A fleet whose slow tail fell beyond the tolerance is worse, whatever its median reads; one
    // whose tail rose, with its median within noise, is better.
    const auto tail = tail_speedup(p, *a, *b);
    const bool tail_worse = tail && *tail < 1 - single_sample_tolerance && (within || speedup > 1);
    const bool tail_better = tail && *tail > 1 + single_sample_tolerance && within;
    if (tail_worse || tail_better) {
      verdict = fmt::format("{} in its tail (p{} {:.2f}x)", tail_worse ? "worse" : "better",
                            p.higher_is_better ? 10 : 90, *tail);
      ++(tail_worse ? fs.worse : fs.better);
      ++(tail_worse ? ks.worse : ks.better);
    } else if (one_sample && std::fabs(speedup - 1) > single_sample_tolerance) {
      const std::string beyond =
          fmt::format(" (single sample, > {:g} %)", 100 * single_sample_tolerance);
      verdict = (speedup > 1 ? "better" : "worse") + beyond;
      ++(speedup > 1 ? fs.better : fs.worse);
      ++(speedup > 1 ? ks.better : ks.worse);
    } else if (one_sample) {
      verdict = "single sample";
      ++fs.single_sample;
      ++ks.single_sample;
    } else if (within) {
      verdict = "within noise";
      ++fs.within_noise;
      ++ks.within_noise;
    } else if (speedup > 1) {
      verdict = "better";
      ++fs.better;
      ++ks.better;
    } else {
      verdict = "worse";
      ++fs.worse;
      ++ks.worse;
    }
    p.verdict.push_back(verdict);
    // A total loss (a rate of 0 against a baseline) is in the geometric mean as log 0: the
    // family's mean is then 0, never the 1.000 of a mean over the points that are left.
    if (speedup >= 0) {
      t.speedups_by_family[{family_of(p.key), static_cast<int>(i)}].push_back(std::log(speedup));
      t.speedups_by_key[{p.key, static_cast<int>(i)}].push_back(std::log(speedup));
    }
  }
  return interpolated;
}

void summarize(Tallies &t, Comparison &c) {
  const auto finish = [](auto &summaries, auto &logs, std::vector<Summary> &out) {
    for (auto &[k, s] : summaries) {
      s.group = k.first;
      s.input = k.second;
      const auto &l = logs[k];
      s.points = static_cast<int>(l.size()); // with a ratio; the failed ones are apart
      double sum = 0;
      for (double x : l)
        sum += x;
      s.geomean_speedup = l.empty() ? 1 : std::exp(sum / static_cast<double>(l.size()));
      out.push_back(s);
    }
  };
  finish(t.fam, t.speedups_by_family, c.families);
  finish(t.keys, t.speedups_by_key, c.keys);
}

} // namespace railgauge::compare
