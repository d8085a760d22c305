#include "harness/store/refusal_log.h"

#include <algorithm>

#include <fmt/format.h>

namespace railgauge {

std::string Refusal::text() const {
  return rank < 0 ? fmt::format("{} (no hello): {}", peer, why)
                  : fmt::format("{} (rank {}): {}", peer, rank, why);
}

void RefusalLog::add(Refusal refusal) {
  ++total_;
  if (refusal.rank >= 0 && (by_rank_.size() < kKeptRanks || by_rank_.count(refusal.rank))) {
    auto &of_rank = by_rank_[refusal.rank];
    of_rank.last = refusal;
    ++of_rank.count;
  }
  if (recent_.size() == kKept)
    recent_.erase(recent_.begin());
  recent_.push_back(std::move(refusal));
}

const Refusal *RefusalLog::last_of_rank(std::int32_t rank) const {
  const auto it = by_rank_.find(rank);
  return it == by_rank_.end() ? nullptr : &it->second.last;
}

std::size_t RefusalLog::total_of_rank(std::int32_t rank) const {
  const auto it = by_rank_.find(rank);
  return it == by_rank_.end() ? 0 : it->second.count;
}

std::string explain_missing_ranks(const std::string &timeout, const std::vector<int> &missing,
                                  const RefusalLog &log) {
  std::string text = timeout;
  std::size_t of_missing = 0;
  for (const int rank : missing)
    if (const Refusal *r = log.last_of_rank(rank)) {
      text += fmt::format("; the store refused a connection that said it was rank {}: {} ({})",
                          rank, r->why, r->peer);
      of_missing += log.total_of_rank(rank);
    }
  const std::size_t others = log.total() - of_missing;
  if (others == 0)
    return text;
  const auto is_missing = [&](const Refusal &r) {
    return std::find(missing.begin(), missing.end(), r.rank) != missing.end();
  };
  const auto last = std::find_if_not(log.recent().rbegin(), log.recent().rend(), is_missing);
  text += fmt::format("; apart from that, the store refused {} other connection{} (strangers, "
                      "or connections that never said hello: not why a rank is missing)",
                      others, others == 1 ? "" : "s");
  if (last != log.recent().rend())
    text += fmt::format(", the last: {}", last->text());
  return text;
}

} // namespace railgauge
