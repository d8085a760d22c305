#include "collectives/waived_collective.h"

#include "collectives/collective_point.h"

namespace railgauge::collectives {
namespace {

class WaivedCollective final : public Benchmark {
public:
  WaivedCollective(std::string key, Kind kind, std::vector<Axis> axes, std::string reason)
      : key_(std::move(key)), axes_(std::move(axes)), reason_(std::move(reason)),
        description_(std::string(to_string(kind)) + " (" + reason_ + ")") {}
  std::string_view key() const override { return key_; }
  std::string_view description() const override { return description_; }
  std::vector<Axis> axes() const override { return axes_; }
  std::optional<std::string> supported(const RunContext &, const Point &) const override {
    return reason_;
  }
  Outcome run(RunContext &, const Point &) override { return Outcome::waived(reason_); }

private:
  std::string key_;
  std::vector<Axis> axes_;
  std::string reason_, description_;
};

} // namespace

std::unique_ptr<Benchmark> make_waived_collective(std::string key, Kind kind, bool textbook,
                                                  std::string reason) {
  return std::make_unique<WaivedCollective>(std::move(key), kind, collective_axes(kind, textbook),
                                            std::move(reason));
}

std::unique_ptr<Benchmark> make_waived_collective(std::string key, Kind kind,
                                                  std::vector<Axis> axes, std::string reason) {
  return std::make_unique<WaivedCollective>(std::move(key), kind, std::move(axes),
                                            std::move(reason));
}

} // namespace railgauge::collectives
