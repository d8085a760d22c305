#include <fmt/format.h>

#include "harness/error.h"
#include "harness/waiver.h"
#include "rdma/fabric_load/fabric_figures.h"
#include "rdma/fabric_load/fabric_load_benchmarks.h"
#include "rdma/fabric_load/fabric_load_spec.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

// Every rank but `receiver` WRITEs to it at once, each flow measured by the measurement core while
// all the others stream (flow_rounds.h). The receiver's record holds the flows, Jain's index,
// the aggregate against its port's rate and every end's congestion counters; each sender's its
// own flow.
class Incast final : public KeyedBenchmark {
public:
  Incast()
      : KeyedBenchmark(
            record::kIncast,
            "N-1 ranks RDMA WRITE to one receiver at once: per-flow Gb/s, Jain's fairness index, "
            "aggregate against the receiver's line rate, PFC/CNP/ECN/out-of-sequence/retransmit "
            "counter deltas at every end (absent ones named)") {}
  std::vector<Axis> axes() const override {
    std::vector<Axis> axes = fabric_load_axes();
    axes.push_back({record::kReceiver,
                    AxisType::integer,
                    "The rank every other rank sends to; the default takes ranks 0..7 in turn (a "
                    "receiver past the last rank is not applicable)",
                    {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{3},
                     std::int64_t{4}, std::int64_t{5}, std::int64_t{6}, std::int64_t{7}},
                    {}});
    axes.push_back({record::kQps,
                    AxisType::integer,
                    "QPs per flow (NCCL_IB_QPS_PER_CONNECTION's default is 1)",
                    {std::int64_t{1}},
                    {}});
    return axes;
  }
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override {
    if (auto why = fabric_load_waive_reason(ctx, 2))
      return why;
    const std::int64_t receiver = point.integer(record::kRoleReceiver);
    if (receiver >= ctx.world_size())
      return not_applicable(
          fmt::format("receiver {} is past the last rank of {} ranks", receiver, ctx.world_size()));
    return std::nullopt;
  }
  Outcome run(RunContext &ctx, const Point &point) override {
    FabricLoadSpec spec = fabric_load_spec_of(point);
    spec.qps = static_cast<int>(point.integer(record::kQps));
    if (spec.qps < 1 || spec.qps > 255)
      throw InputError(fmt::format("qps {} is out of range", spec.qps), "axis qps",
                       "use 1 to 255 QPs per flow");
    const std::int64_t receiver = point.integer(record::kRoleReceiver);
    if (receiver < 0)
      throw InputError(fmt::format("receiver {} is not a rank", receiver), "axis receiver",
                       "use a rank number, 0 to the number of ranks - 1");
    const IncastPlan plan = incast_plan(ctx.world_size(), static_cast<int>(receiver));
    RoundSpec round;
    round.prefix = fmt::format("incast/{}/", points_run_++);
    round.receiver = plan.receiver;
    round.senders = plan.senders;
    auto side = make_verbs_incast_side(ctx, spec);
    return run_incast_round(ctx, round, *side);
  }

private:
  int points_run_ = 0;
};

} // namespace

std::unique_ptr<Benchmark> make_incast() { return std::make_unique<Incast>(); }

} // namespace railgauge::rdma
