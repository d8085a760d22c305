#pragma once
// The headline of a TP sweep drawn as a training step sees it: the efficiency of a whole
// transformer layer (every GEMM of its forward and backward pass) at each tensor-parallel degree
// t, weighted by FLOPs: the layer's FLOPs over the time its GEMMs take together, so that a GEMM
// weighs what it costs. The arithmetic mean of the per-GEMM efficiencies would weigh the small
// attention BMMs as much as the MLP, and a step spends a few percent of its time in them.
//
// Each figure is given against the SKU's dense peak and against the peak at the SM clock the
// points ran at (a GPU capped by its power limit runs below the clock its datasheet peak is
// quoted at, and "efficiency" then mixes the GEMM's quality with the power cap), with that clock
// and the power it drew, from each record's telemetry over its measurement.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/record.h"
#include "records/gemm_record.h"

namespace railgauge::gemm::record {

// The fields of metrics.telemetry that the layer reads (harness/inventory/gpu_samples.cpp writes
// them): the window of samples over the point's measurements, its SM clock {min, median, max}
// and power {mean, median, max}, and the power limit.
inline constexpr const char *kTelemetryDuring = "during";
inline constexpr const char *kTelemetrySmClockMhz = "sm_clock_mhz";
inline constexpr const char *kTelemetryPowerW = "power_w";
inline constexpr const char *kTelemetryPowerLimitW = "power_limit_w";

// The SM clock at which results/peaks/gpu_peaks.yaml's figure for `dtype` on the SKU named
// `gpu_sku` (the record's param) is quoted, nullopt for a SKU or dtype without a cited one.
// H100 SXM and H200 SXM (the same SMs and clocks): 132 SMs; the dense tensor figures (bf16 989.4
// = 132 SMs x 4096 FLOP/clock x 1.83 GHz) are at 1,830 MHz, fp32 and fp64 (66.9 = 132 x 256 x
// 1.98 GHz) at the 1,980 MHz maximum (glennklockwood.com/garden/processors/h100: "1.83 GHz (low
// precision), 1.98 GHz (high precision)").
std::optional<double> peak_clock_mhz(std::string_view gpu_sku, std::string_view dtype);

// One t of a layer line.
struct LayerPoint {
  std::int64_t tp = 0;
  int gemms = 0;          // the layer's GEMM points measured (ok) at this t
  int gemms_expected = 0; // ... of the layer's GEMM points (every gemm.pass but attention wgrad)
  double flops = 0;       // the measured points' FLOPs, one call each
  double time_s = 0;      // ... their median times, added
  // Only for a complete layer (gemms == gemms_expected):
  std::optional<double> efficiency;          // flops / time_s / the dense peak
  std::optional<double> efficiency_at_clock; // flops / sum(time x the peak at the point's clock)
  std::optional<double> sm_clock_mhz;        // time-weighted mean of the points' median SM clock
  std::optional<double> sm_clock_min_mhz, sm_clock_max_mhz; // lowest and highest point median
  std::optional<double> power_w;        // time-weighted mean of the points' mean power
  std::optional<double> power_limit_w;  // the highest limit any point recorded
  double peak_tflops = 0;               // the dense peak (0: unknown)
  std::optional<double> peak_clock_mhz; // the clock it is quoted at

  bool complete() const { return gemms > 0 && gemms == gemms_expected; }
};

// One TP sweep's layer: its group (TpPointView::group with the GPU) and a point per t that has a
// measured GEMM.
struct LayerLine {
  TpPointView::Group group;
  std::string label;              // TpPointView::group_label()
  std::vector<LayerPoint> points; // by t
};

// The layer line of every TP sweep in `records`. A GEMM point measured more than once (the
// rounds of several runs) counts once, at its median time and median telemetry.
std::vector<LayerLine> layer_lines(const std::vector<Record> &records);

} // namespace railgauge::gemm::record
