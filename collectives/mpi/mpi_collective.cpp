#include "collectives/mpi/mpi_collective.h"

#include <chrono>

#include <fmt/format.h>

#include "collectives/concurrent_groups.h"
#include "collectives/wrong_elements.h"
#include "harness/run_context.h"
#include "records/collective_record.h"

namespace railgauge::collectives {
namespace {

constexpr std::uint64_t kSeed = 2026;

// collectives.mpi_<kind>: the MPI library's own collective on host memory, every rank in
// lockstep. Nonblocking calls (MPI_Iallreduce, ...) waited for in the watchdog's test loop, so
// that no call can hang; Open MPI serves them from its nonblocking component (libnbc), whose
// algorithms can differ from the blocking calls' tuned ones.
class MpiCollective final : public MpiKindBenchmark {
public:
  MpiCollective(Kind kind, std::shared_ptr<MpiFamily> family, std::shared_ptr<MpiTestHooks> hooks)
      : MpiKindBenchmark(kind, record::keys_of(kind).mpi,
                         fmt::format("MPI {} on host memory: per-iteration time (max over ranks), "
                                     "algbw and busbw (GB/s), slowest rank, data checked",
                                     to_string(kind)),
                         std::move(family), std::move(hooks)) {}

  std::vector<Axis> axes() const override { return collective_axes(kind_, false); }

  std::optional<std::string> supported(const RunContext &, const Point &point) const override {
    const auto p = read_point(kind_, point);
    if (auto why = placement_problem(p, Backend::mpi))
      return why;
    const int world = family_->world_size_hint();
    if (world < 2)
      return std::string(kNeedsRanks);
    return mpi_split_problem(p, world);
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    const auto p = read_point(kind_, point);
    auto &s = family_->session(ctx.peer_timeout_s());
    const auto groups = mpi_groups(s, p);
    std::vector<MpiBuffers> buffers;
    for (const auto &g : groups)
      buffers.emplace_back(p, g);
    for (auto &b : buffers)
      b.fill(kSeed);
    const std::string what = fmt::format("{} of {} bytes", to_string(kind_), p.size_bytes);
    int iteration = -p.warmup;
    // Concurrent: each group's requests apart, so that each group type's completion is timed
    // (GroupTypeTimes) while all of them run at once.
    std::vector<std::vector<MPI_Request>> requests(buffers.size());
    std::vector<GroupTypeTimes> by_type;
    for (const auto &g : groups)
      by_type.push_back({g.type, g.size, {}});
    const Operation op = [&] {
      if (hooks_->before_iteration)
        hooks_->before_iteration(iteration);
      const bool timed = iteration >= 0 && iteration < p.iterations;
      ++iteration;
      const auto start = std::chrono::steady_clock::now();
      for (std::size_t i = 0; i < buffers.size(); ++i) {
        requests[i].clear();
        buffers[i].start(s, requests[i]);
      }
      const auto done_s = s.wait_each(requests, start, what, p.timeout_s);
      if (timed && groups.size() > 1)
        for (std::size_t i = 0; i < by_type.size(); ++i)
          by_type[i].mine.push_back(done_s[i]);
    };
    MpiLockstepGroup world(s, s.world(), p.timeout_s);
    const auto result = run_world_lockstep(world, p, op);

    // The data check: fresh inputs, one more call, every rank's outputs compared.
    for (auto &b : buffers)
      b.fill(kSeed);
    iteration = p.iterations; // past the hooks' range
    op();
    CheckResult mine;
    for (auto &b : buffers) {
      if (hooks_->before_check)
        hooks_->before_check(b.output(), b.output_bytes());
      mine.add(b.check(kSeed));
    }
    const long long wrong_all =
        s.all_reduce_sum(s.world(), static_cast<long long>(mine.wrong), p.timeout_s);

    Outcome out;
    const auto &g = groups.front();
    out.metrics = groups.size() == 1 ? collective_metrics(result, kind_, p.size_bytes, g.size)
                                     : result.to_json();
    if (groups.size() > 1)
      out.metrics[record::kByGroupType] =
          by_group_type_metrics(world, by_type, kind_, p.size_bytes, p.iterations, s.rank());
    add_wrong_total(out.metrics, static_cast<std::uint64_t>(wrong_all));
    out.metrics[record::kWrongElementsThisRank] = mine.wrong;
    out.metrics[record::kMpiLibrary] = s.library_version();
    add_group_params(
        out.derived_params,
        {"mpi", s.size(), groups.size() == 1 ? g.type : "concurrent", g.index, g.size,
         groups.size() == 1 ? g.hosts : 0}); // concurrent: several groups, no one host count
    out.conclude_data_check(mpi_wrong_problems(wrong_all, mine));
    return out;
  }
};

} // namespace

std::unique_ptr<Benchmark> make_mpi_collective(Kind kind, std::shared_ptr<MpiFamily> family,
                                               std::shared_ptr<MpiTestHooks> hooks) {
  return std::make_unique<MpiCollective>(kind, std::move(family), std::move(hooks));
}

} // namespace railgauge::collectives
