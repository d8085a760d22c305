#include <fmt/format.h>

#include "harness/error.h"
#include "rdma/fabric_load/fabric_load_benchmarks.h"
#include "rdma/fabric_load/fabric_load_spec.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

// One stream from rank 0 to rank 1 spread over `qps` QPs, each with its own flow label and so
// its own UDP source port on RoCEv2: on an ECMP fabric the aggregate rises with the QP count as
// long as few flows collide on one path; on InfiniBand (or with adaptive routing) it is flat.
// Rank 0's record holds the aggregate and the spread over its QPs.
class QpScaling final : public KeyedBenchmark {
public:
  QpScaling()
      : KeyedBenchmark(
            record::kQpScaling,
            "One RDMA WRITE stream between ranks 0 and 1 over 1..64 QPs, each with its own RoCEv2 "
            "flow label (UDP source port): aggregate Gb/s and per-QP spread (min/median/max, "
            "Jain's index) per QP count, the entropy curve; port counter deltas at both ends") {}
  std::vector<Axis> axes() const override {
    std::vector<Axis> axes = fabric_load_axes();
    axes.push_back({record::kQps,
                    AxisType::integer,
                    "QPs the stream is spread over (messages round-robin)",
                    {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8},
                     std::int64_t{16}, std::int64_t{32}, std::int64_t{64}},
                    {}});
    return axes;
  }
  std::optional<std::string> supported(const RunContext &ctx, const Point &) const override {
    return fabric_load_waive_reason(ctx, 2);
  }
  Outcome run(RunContext &ctx, const Point &point) override {
    FabricLoadSpec spec = fabric_load_spec_of(point);
    spec.qps = static_cast<int>(point.integer(record::kQps));
    if (spec.qps < 1 || spec.qps > 255)
      throw InputError(fmt::format("qps {} is out of range", spec.qps), "axis qps",
                       "use 1 to 255 QPs");
    RoundSpec round;
    round.prefix = fmt::format("qp_scaling/{}/", points_run_++);
    round.receiver = 1;
    round.senders = {0};
    auto side = make_verbs_incast_side(ctx, spec);
    return run_incast_round(ctx, round, *side);
  }

private:
  int points_run_ = 0; // store keys: the same sequence on every rank
};

} // namespace

std::unique_ptr<Benchmark> make_qp_scaling() { return std::make_unique<QpScaling>(); }

} // namespace railgauge::rdma
