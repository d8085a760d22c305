#pragma once
// The connections rank 0's store turned away, kept for the message of a barrier that times out.
// A rank missing there may have been refused (a wrong token, another build): that is said with
// the missing ranks. Strangers (a port scanner, idle connections that never said hello, another
// run) are counted apart, so the message never presents them as the reason a rank is missing.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace railgauge {

struct Refusal {
  std::string peer;       // "127.0.0.1:50412"
  std::int32_t rank = -1; // the rank its hello claimed; -1 without one
  std::string why;
  // "127.0.0.1:50412 (rank 3): wrong run token ..."
  std::string text() const;
};

class RefusalLog {
public:
  static constexpr std::size_t kKept = 32;
  // Ranks whose last refusal is kept apart from the recent ones (a flood of strangers must not
  // push out the refusal of the rank a barrier misses; a stranger may claim many ranks).
  static constexpr std::size_t kKeptRanks = 4096;
  // Keeps the last kKept refusals and the last one per claimed rank, counts them all.
  void add(Refusal refusal);
  // The most recent refusals, oldest first.
  const std::vector<Refusal> &recent() const { return recent_; }
  // The last refusal of a connection whose hello claimed `rank`, if any.
  const Refusal *last_of_rank(std::int32_t rank) const;
  std::size_t total() const { return total_; }
  std::size_t total_of_rank(std::int32_t rank) const;

private:
  struct OfRank {
    Refusal last;
    std::size_t count = 0;
  };
  std::vector<Refusal> recent_;
  std::map<std::int32_t, OfRank> by_rank_;
  std::size_t total_ = 0;
};

// `timeout` (which names the missing ranks) followed by the refusals of connections that said
// they were one of `missing`, then, apart, how many others were refused and the last of them.
std::string explain_missing_ranks(const std::string &timeout, const std::vector<int> &missing,
                                  const RefusalLog &log);

} // namespace railgauge
