#include "harness/waived_benchmark.h"

namespace railgauge {
namespace {

class WaivedBenchmark final : public KeyedBenchmark {
public:
  WaivedBenchmark(std::string key, std::string description, std::vector<Axis> axes,
                  std::string reason)
      : KeyedBenchmark(std::move(key), std::move(description)), axes_(std::move(axes)),
        reason_(std::move(reason)) {}
  std::vector<Axis> axes() const override { return axes_; }
  std::optional<std::string> supported(const RunContext &, const Point &) const override {
    return reason_;
  }
  Outcome run(RunContext &, const Point &) override { return Outcome::waived(reason_); }

private:
  std::vector<Axis> axes_;
  std::string reason_;
};

} // namespace

std::unique_ptr<Benchmark> make_waived_benchmark(std::string key, std::string description,
                                                 std::vector<Axis> axes, std::string reason) {
  return std::make_unique<WaivedBenchmark>(std::move(key), std::move(description), std::move(axes),
                                           std::move(reason));
}

} // namespace railgauge
