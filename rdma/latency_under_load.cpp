#include <map>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/waiver.h"
#include "rdma/fabric_load/fabric_load_benchmarks.h"
#include "rdma/fabric_load/fabric_load_spec.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

// A WRITE ping-pong between ranks 0 and 1 on one QP, measured idle and then while the same NICs
// carry bulk WRITEs on other QPs: rank 0 to rank 1 (load=bulk), or every rank but 1 to rank 1
// (load=incast, an incast on the probe's receiver). Rank 0's record holds both distributions and
// loaded over idle at p50, p99 and p99.9.
class LatencyUnderLoad final : public KeyedBenchmark {
public:
  LatencyUnderLoad()
      : KeyedBenchmark(
            record::kLatencyUnderLoad,
            "RDMA WRITE ping-pong latency (p50/p99/p99.9) between ranks 0 and 1 idle and behind "
            "bulk WRITEs on other QPs of the same NICs (load=bulk) or an incast of every other "
            "rank on the probe's receiver (load=incast); loaded over idle; counters at every end") {
  }
  std::vector<Axis> axes() const override {
    std::vector<Axis> axes = fabric_load_axes();
    axes.push_back({record::kLoad,
                    AxisType::text,
                    "bulk: rank 0 streams to rank 1 beside the probe; incast: every rank but 1 "
                    "streams to rank 1 (3 ranks or more)",
                    {std::string("bulk"), std::string("incast")},
                    {"bulk", "incast"}});
    axes.push_back({record::kProbeSizeBytes,
                    AxisType::bytes,
                    "The ping-pong's message size",
                    {std::int64_t{8}},
                    {}});
    axes.push_back({record::kQps,
                    AxisType::integer,
                    "QPs of each loader's bulk stream",
                    {std::int64_t{4}},
                    {}});
    return axes;
  }
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override {
    const bool incast = point.text(record::kLoad) == "incast";
    if (auto why = fabric_load_waive_reason(ctx, 2))
      return why;
    if (incast && ctx.world_size() < 3)
      return not_applicable(
          fmt::format("load=incast needs 3 ranks (a loader besides the probe's two ends); this "
                      "run has {}",
                      ctx.world_size()));
    if (!incast && ctx.rank() > 1)
      return not_applicable(
          fmt::format("load=bulk runs on ranks 0 and 1; rank {} takes no part", ctx.rank()));
    return std::nullopt;
  }
  Outcome run(RunContext &ctx, const Point &point) override {
    FabricLoadSpec spec = fabric_load_spec_of(point);
    spec.qps = static_cast<int>(point.integer(record::kQps));
    if (spec.qps < 1 || spec.qps > 254)
      throw InputError(fmt::format("qps {} is out of range", spec.qps), "axis qps",
                       "use 1 to 254 QPs per loader (the probe holds one label)");
    const std::int64_t probe = point.integer(record::kProbeSizeBytes);
    if (probe < 2 || probe > 65536)
      throw InputError(fmt::format("probe_size_bytes {} is out of range", probe),
                       "axis probe_size_bytes", "use 2 B to 64 KiB (the last byte is the tag)");
    spec.probe_size_bytes = static_cast<std::size_t>(probe);
    ProbeRoundSpec round;
    // Ranks past 1 take part in load=incast points only: a count per load keeps every
    // participant's keys in step.
    const std::string load = point.text(record::kLoad);
    round.prefix = fmt::format("latency_under_load/{}/{}/", load, points_run_[load]++);
    if (point.text(record::kLoad) == "incast") {
      for (int r = 0; r < ctx.world_size(); ++r)
        if (r != 1)
          round.loaders.push_back(r);
    } else {
      round.loaders = {0};
    }
    auto side = make_verbs_probe_side(ctx, spec);
    return run_probe_round(ctx, round, *side);
  }

private:
  std::map<std::string, int> points_run_;
};

} // namespace

std::unique_ptr<Benchmark> make_latency_under_load() {
  return std::make_unique<LatencyUnderLoad>();
}

} // namespace railgauge::rdma
