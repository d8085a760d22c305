#pragma once
// A GPU's steady state under load, for the measurement core's warm-up (harness/measure.h,
// SettleProbe): a GPU that starts a point cold runs at its boost clock until it heats and
// reaches its power cap, seconds later, so a point timed at once measures the boost (on the
// first H200 runs, GEMM points of 5 ms read from 713 to 831 TFLOP/s on three GPUs, 55-58 of 96
// records power-capped). The probe reads the SM clock and NVML's averaged power every
// kSettlePeriod_s and calls the GPU settled when, over the last kSettleWindow_s, the first and
// second half agree: mean SM clock within kSettleClockTolerance, mean power within
// kSettlePowerTolerance. A GPU already hot from the previous point settles within one window.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/measure.h"

namespace railgauge {

inline constexpr double kSettlePeriod_s = 0.1;
inline constexpr double kSettleWindow_s = 0.6;
inline constexpr double kSettleClockTolerance = 0.02;
inline constexpr double kSettlePowerTolerance = 0.05;

struct SettleReading {
  double t_s = 0;
  std::optional<double> sm_clock_mhz, power_w;
};

// The criterion above on readings in time order (pure, tested without a GPU). False until the
// readings span the window with at least 3 in each half.
bool readings_settled(const std::vector<SettleReading> &readings);

// Reads the GPU with `uuid` through NVML (dlopen'ed). Without NVML it cannot tell: it says so in
// its method ("gpu_clocks_unavailable") and reading, and lets the measurement start at once.
class GpuSettleProbe final : public SettleProbe {
public:
  explicit GpuSettleProbe(const std::string &uuid,
                          const std::string &nvml_library = "libnvidia-ml.so.1");
  ~GpuSettleProbe() override;
  GpuSettleProbe(const GpuSettleProbe &) = delete;
  GpuSettleProbe &operator=(const GpuSettleProbe &) = delete;

  std::string_view method() const override;
  bool settled() override;
  nlohmann::json last_reading() const override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace railgauge
