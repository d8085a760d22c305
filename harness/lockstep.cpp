#include "harness/lockstep.h"

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "harness/metric_names.h"
#include "harness/seconds_since.h"

namespace railgauge {
namespace {
using Clock = std::chrono::steady_clock;
} // namespace

void StoreLockstepGroup::barrier() {
  store_barrier(store_, name_ + "/" + std::to_string(step_++), rank_, size_, timeout_);
}

std::vector<double> StoreLockstepGroup::all_gather(const std::vector<double> &mine) {
  std::string bytes(mine.size() * sizeof(double), '\0');
  if (!mine.empty())
    std::memcpy(bytes.data(), mine.data(), bytes.size());
  const auto all = store_all_gather(store_, name_ + "/" + std::to_string(step_++), rank_, size_,
                                    bytes, timeout_);
  std::vector<double> out;
  for (const auto &value : all) {
    if (value.size() != bytes.size())
      throw std::runtime_error("lockstep: ranks gathered different numbers of values");
    const std::size_t at = out.size();
    out.resize(at + mine.size());
    if (!value.empty())
      std::memcpy(out.data() + at, value.data(), value.size());
  }
  return out;
}

double HostIterationTimer::time_one_s(const Operation &op) {
  const auto t0 = Clock::now();
  op();
  return seconds_since(t0);
}

double HostIterationTimer::time_back_to_back_s(const Operation &op, int n) {
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i)
    op();
  return seconds_since(t0);
}

nlohmann::json LockstepResult::to_json() const {
  nlohmann::json j = {{metric::kTimeS, railgauge::to_json(time_s)},
                      {metric::kOwnTimeS, railgauge::to_json(own_time_s)},
                      {metric::kSlowestRank, slowest_rank},
                      {metric::kSlowestRankShare, slowest_share},
                      {metric::kLastArrivalRank, last_arrival_rank},
                      {metric::kLastArrivalRankShare, last_arrival_share},
                      {metric::kIterations, time_s.n},
                      {metric::kRanks, ranks},
                      {metric::kTimer, timer},
                      {metric::kSampler, "lockstep"}};
  if (back_to_back_s >= 0)
    j[metric::kWallTimeS] = back_to_back_s;
  return j;
}

LockstepResult summarize_lockstep(const std::vector<std::vector<double>> &by_rank,
                                  std::span<const int> rank_names, int own_rank) {
  if (by_rank.empty() || by_rank.front().empty())
    throw std::invalid_argument("lockstep: no iterations to summarize");
  const std::size_t iters = by_rank.front().size();
  for (const auto &row : by_rank)
    if (row.size() != iters)
      throw std::invalid_argument("lockstep: ranks timed different numbers of iterations");
  if (!rank_names.empty() && rank_names.size() != by_rank.size())
    throw std::invalid_argument("lockstep: one name per rank needed");
  if (own_rank < 0 || static_cast<std::size_t>(own_rank) >= by_rank.size())
    throw std::invalid_argument("lockstep: own rank out of range");

  LockstepResult r;
  r.ranks = static_cast<int>(by_rank.size());
  std::vector<int> slowest_count(by_rank.size(), 0), fastest_count(by_rank.size(), 0);
  for (std::size_t i = 0; i < iters; ++i) {
    std::size_t worst = 0, best = 0;
    for (std::size_t k = 1; k < by_rank.size(); ++k) {
      if (by_rank[k][i] > by_rank[worst][i])
        worst = k;
      if (by_rank[k][i] < by_rank[best][i])
        best = k;
    }
    r.max_s.push_back(by_rank[worst][i]);
    ++slowest_count[worst];
    ++fastest_count[best];
  }
  // The rank counted most often, as its name and its share of the iterations.
  const auto most_often = [&](const std::vector<int> &count) {
    std::size_t most = 0;
    for (std::size_t k = 1; k < count.size(); ++k)
      if (count[k] > count[most])
        most = k;
    return std::pair(rank_names.empty() ? static_cast<int>(most) : rank_names[most],
                     static_cast<double>(count[most]) / static_cast<double>(iters));
  };
  std::tie(r.slowest_rank, r.slowest_share) = most_often(slowest_count);
  std::tie(r.last_arrival_rank, r.last_arrival_share) = most_often(fastest_count);
  r.time_s = summarize(r.max_s);
  r.own_time_s = summarize(by_rank[static_cast<std::size_t>(own_rank)]);
  return r;
}

LockstepResult run_lockstep(LockstepGroup &group, IterationTimer &timer, const LockstepSpec &spec,
                            const Operation &op, std::span<const int> rank_names) {
  if (spec.iterations < 1 || spec.warmup < 0)
    throw std::invalid_argument("lockstep: iterations must be >= 1 and warmup >= 0");
  for (int i = 0; i < spec.warmup; ++i) {
    group.barrier();
    op();
  }
  std::vector<double> mine;
  mine.reserve(static_cast<std::size_t>(spec.iterations));
  for (int i = 0; i < spec.iterations; ++i) {
    group.barrier();
    mine.push_back(timer.time_one_s(op));
  }
  double per_call_s = -1;
  if (spec.back_to_back_pass) {
    group.barrier();
    per_call_s = timer.time_back_to_back_s(op, spec.iterations) / spec.iterations;
    mine.push_back(per_call_s); // travels with the iteration times, split off below
  }
  const auto all = group.all_gather(mine);
  const std::size_t row = mine.size();
  if (all.size() != row * static_cast<std::size_t>(group.size()))
    throw std::runtime_error("lockstep: the all-gather returned the wrong number of times");
  std::vector<std::vector<double>> by_rank;
  double worst_b2b = -1;
  for (int r = 0; r < group.size(); ++r) {
    auto begin = all.begin() + static_cast<std::ptrdiff_t>(row * static_cast<std::size_t>(r));
    by_rank.emplace_back(begin, begin + spec.iterations);
    if (spec.back_to_back_pass)
      worst_b2b = std::max(worst_b2b, *(begin + spec.iterations));
  }
  auto result = summarize_lockstep(by_rank, rank_names, group.rank());
  result.back_to_back_s = worst_b2b;
  result.timer = std::string(timer.name());
  return result;
}

} // namespace railgauge
