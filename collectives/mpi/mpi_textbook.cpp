#include <fmt/format.h>

#include "collectives/mpi/mpi_collective.h"
#include "collectives/mpi/mpi_transport.h"
#include "collectives/wrong_elements.h"
#include "harness/run_context.h"
#include "records/collective_record.h"

namespace railgauge::collectives {
namespace {

constexpr std::uint64_t kTextbookSeed = 4242;

// collectives.mpi_textbook_<kind>: a textbook algorithm (textbook.h) over MPI point-to-point,
// and in the same point, on the same ranks and sizes, the library's own in-place collective;
// the record holds both and their time ratio. Both are timed in lockstep.
class MpiTextbook final : public MpiKindBenchmark {
public:
  MpiTextbook(Kind kind, std::shared_ptr<MpiFamily> family, std::shared_ptr<MpiTestHooks> hooks)
      : MpiKindBenchmark(kind, record::keys_of(kind).mpi_textbook,
                         textbook_description(kind, "MPI", "host"), std::move(family),
                         std::move(hooks)) {}

  std::vector<Axis> axes() const override { return collective_axes(kind_, true); }

  std::optional<std::string> supported(const RunContext &, const Point &point) const override {
    const auto p = read_point(kind_, point);
    const int world = family_->world_size_hint();
    if (world < 2)
      return std::string(kNeedsRanks);
    if (p.group_type == "concurrent")
      return "textbook algorithms run on one group type at a time";
    return mpi_split_problem(p, world);
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    auto p = read_point(kind_, point);
    p.in_place = true; // the algorithms work in place; so does the library call beside them
    auto &s = family_->session(ctx.peer_timeout_s());
    const auto group = mpi_groups(s, p).front();
    const std::size_t elt = element_bytes(p.dtype);
    const auto counts = *counts_for(kind_, p.size_bytes, elt, group.size);
    const std::size_t count = counts.count;
    std::vector<std::byte> buf(textbook_elements(kind_, count, group.size) * elt);
    MpiTransport transport(s, group.comm, p.timeout_s);
    const Algorithm algorithm = *p.algorithm;
    const auto fill = [&] {
      fill_textbook_input(p, kTextbookSeed, group.rank, group.size, count, buf.data());
    };
    const Operation textbook = [&] {
      run_textbook(algorithm, kind_, transport, buf.data(), count, p.dtype, p.op);
    };
    MpiLockstepGroup world(s, s.world(), p.timeout_s);
    fill();
    const auto mine = run_world_lockstep(world, p, textbook);

    fill();
    textbook();
    if (hooks_->before_check)
      hooks_->before_check(buf.data(), buf.size());
    const auto check =
        check_textbook_output(p, kTextbookSeed, group.rank, group.size, count, buf.data());
    const long long wrong_all =
        s.all_reduce_sum(s.world(), static_cast<long long>(check.wrong), p.timeout_s);

    const auto theirs = time_library(s, world, p, group);

    Outcome out;
    out.metrics = textbook_metrics(mine, theirs, kind_, p.size_bytes, group.size);
    add_wrong_total(out.metrics, static_cast<std::uint64_t>(wrong_all));
    out.metrics[record::kMpiLibrary] = s.library_version();
    add_group_params(out.derived_params,
                     {"mpi", s.size(), group.type, group.index, group.size, group.hosts});
    out.derived_params[record::kInPlace] = "in_place";
    out.conclude_data_check(mpi_wrong_problems(
        wrong_all, check, fmt::format("{} {}", to_string(algorithm), to_string(kind_))));
    return out;
  }

private:
  // The library's own collective, same sizes and ranks, in place, timed as the algorithm was.
  LockstepResult time_library(MpiSession &s, MpiLockstepGroup &world, const CollectivePoint &p,
                              const MpiGroup &group) {
    MpiBuffers lib(p, group);
    lib.fill(kTextbookSeed);
    std::vector<MPI_Request> requests;
    const Operation library = [&] {
      requests.clear();
      lib.start(s, requests);
      s.wait_all(requests, to_string(kind_).data(), p.timeout_s);
    };
    return run_world_lockstep(world, p, library);
  }
};

} // namespace

std::unique_ptr<Benchmark> make_mpi_textbook(Kind kind, std::shared_ptr<MpiFamily> family,
                                             std::shared_ptr<MpiTestHooks> hooks) {
  return std::make_unique<MpiTextbook>(kind, std::move(family), std::move(hooks));
}

} // namespace railgauge::collectives
