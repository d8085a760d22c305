#pragma once
// The missing findings of one rule while it is judged. A rule that selects what a fleet does not
// hold gives a missing value per record and part: 1,000 such rules on 1,500 nodes were millions of
// findings and ran a 24 GB machine out of memory. So only the first kMissingListedPerRule of a
// rule, in the order findings are printed (part, then finding), are kept to be listed; each
// further one adds to a count per family, level and reason (MissingCount) and to its part's
// tally (RuleTally::unlisted_missing), so counts and verdicts stay exact while memory is bounded
// by what is listed. Which findings are listed does not depend on the order runs were loaded in.
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"

namespace railgauge::check {

inline constexpr std::size_t kMissingListedPerRule = 100;

class MissingList {
public:
  // `hosts`: every host of the check, in natural order (MissingCount::hosts indexes it);
  // `on_unlisted` is told of each value counted and not listed.
  MissingList(std::size_t cap, const std::vector<std::string> &hosts,
              std::function<void(const PartKey &, const Finding &)> on_unlisted);

  // One missing value. `f` holds everything but its params, which are copied from `params`
  // (may be null) only when the finding is listed.
  void add(const PartKey &part, Finding f, const nlohmann::json *params);
  // True when a value of `part` would only be counted: the list is full and the part comes after
  // the last one listed. Then count() takes it without a finding being built.
  bool counted_only(const PartKey &part) const;
  void count(const PartKey &part, const Finding &f);

  struct Listed {
    PartKey part;
    Finding finding;
    bool operator<(const Listed &o) const;
  };
  // Ends the rule: the findings to list and the counts of the others, sorted.
  std::pair<std::vector<Listed>, std::vector<MissingCount>> take();

private:
  std::size_t cap_;
  const std::vector<std::string> &hosts_;
  std::size_t last_host_; // index in hosts_ of the last value's host (hosts_.size(): none)
  std::function<void(const PartKey &, const Finding &)> on_unlisted_;
  std::set<Listed> listed_;
  // (family, level, reason) -> count; the level as its negation, so the worst sorts first.
  std::map<std::tuple<std::string, int, std::string>, MissingCount> counts_;
  MissingCount *last_count_ = nullptr; // consecutive values mostly share family, level, reason
};

// The family a finding is about: its record's key ("gemm"), else its rule's category.
std::string family_of(const Finding &f);

} // namespace railgauge::check
