#include "records/gemm_layer.h"

#include <algorithm>
#include <map>

#include "harness/byte_rates.h"
#include "harness/record_fields.h"
#include "harness/stats.h"
#include "records/gemm_cublaslt_fields.h"

namespace railgauge::gemm::record {
namespace {

namespace f = record_fields;

// One GEMM point of a layer, read from its record.
struct GemmPoint {
  double flops = 0, time_s = 0, peak_tflops = 0;
  std::optional<double> sm_clock_mhz, power_w, power_limit_w, peak_clock_mhz;
};

std::optional<GemmPoint> gemm_point(const Record &r) {
  // Its work and peak as the point wrote them (a gemm.cublaslt* or gemm.cpu_blas* record's rates)
  const auto rates = GemmRates::read(r.metrics);
  const auto time_s = f::median_time_s(r.metrics);
  if (!rates || !rates->flops_per_call || !time_s || !(*time_s > 0))
    return std::nullopt;
  GemmPoint p{*rates->flops_per_call, *time_s, rates->peak_tflops.value_or(0), {}, {}, {}, {}};
  if (const auto *telemetry = f::field(r.metrics, kTelemetry))
    if (const auto *during = f::field(*telemetry, kTelemetryDuring)) {
      // A clock of 0 or less is no reading (NVML writes null): it once put the layer at 0.897
      // of the peak at its clock, the range at "0-1665".
      if (const auto *clock = f::field(*during, kTelemetrySmClockMhz))
        if (const auto mhz = f::number(*clock, metric::summary::kMedian); mhz && *mhz > 0)
          p.sm_clock_mhz = mhz;
      if (const auto *power = f::field(*during, kTelemetryPowerW))
        p.power_w = f::number(*power, metric::summary::kMean);
      p.power_limit_w = f::number(*during, kTelemetryPowerLimitW);
    }
  p.peak_clock_mhz = peak_clock_mhz(f::text(r.params, kGpuSku).value_or(""),
                                    f::text(r.params, kDtype).value_or(""));
  return p;
}

// The median of what the points hold, nullopt when one lacks it.
std::optional<double> median_of(const std::vector<GemmPoint> &points,
                                std::optional<double> GemmPoint::*field) {
  std::vector<double> values;
  for (const auto &p : points) {
    if (!(p.*field))
      return std::nullopt;
    values.push_back(*(p.*field));
  }
  return values.empty() ? std::nullopt : std::optional(railgauge::median(values));
}

// Several records of one GEMM point (rounds of several runs) as one: the median of each.
GemmPoint merged(const std::vector<GemmPoint> &points) {
  if (points.size() == 1)
    return points.front();
  std::vector<double> times;
  for (const auto &p : points)
    times.push_back(p.time_s);
  GemmPoint m = points.front();
  m.time_s = railgauge::median(times);
  m.sm_clock_mhz = median_of(points, &GemmPoint::sm_clock_mhz);
  m.power_w = median_of(points, &GemmPoint::power_w);
  m.power_limit_w = median_of(points, &GemmPoint::power_limit_w);
  return m;
}

// The GEMM points of one layer: every gemm.pass but the attention BMMs' wgrad (they have no
// weights, and their records are waived for it).
int layer_gemm_count() {
  // kLayerNames: qkv, scores, context, ...; kPassNames: fwd, dgrad, wgrad
  const auto bmm_wgrad = [](std::string_view layer, std::string_view pass) {
    return pass == kPassNames[2] && (layer == kLayerNames[1] || layer == kLayerNames[2]);
  };
  int count = 0;
  for (const char *layer : kLayerNames)
    for (const char *pass : kPassNames)
      count += bmm_wgrad(layer, pass) ? 0 : 1;
  return count;
}

// Adds up one t's GEMM points (op -> its records) into the layer's figures.
LayerPoint layer_point(std::int64_t tp, const std::map<std::string, std::vector<GemmPoint>> &ops) {
  LayerPoint lp;
  lp.tp = tp;
  lp.gemms_expected = layer_gemm_count();
  double at_clock_tflop = 0, clock_time = 0, power_time = 0; // TFLOP at clock peak, MHz.s, W.s
  bool clocks = true, powers = true;
  for (const auto &[op, records] : ops) {
    const GemmPoint p = merged(records);
    ++lp.gemms;
    lp.flops += p.flops;
    lp.time_s += p.time_s;
    lp.peak_tflops = std::max(lp.peak_tflops, p.peak_tflops);
    lp.peak_clock_mhz = p.peak_clock_mhz;
    if (p.sm_clock_mhz && p.peak_clock_mhz && p.peak_tflops > 0) {
      at_clock_tflop += p.time_s * p.peak_tflops * *p.sm_clock_mhz / *p.peak_clock_mhz;
    }
    if (p.sm_clock_mhz) {
      clock_time += p.time_s * *p.sm_clock_mhz;
      lp.sm_clock_min_mhz =
          std::min(lp.sm_clock_min_mhz.value_or(*p.sm_clock_mhz), *p.sm_clock_mhz);
      lp.sm_clock_max_mhz =
          std::max(lp.sm_clock_max_mhz.value_or(*p.sm_clock_mhz), *p.sm_clock_mhz);
    } else
      clocks = false;
    if (p.power_w)
      power_time += p.time_s * *p.power_w;
    else
      powers = false;
    if (p.power_limit_w)
      lp.power_limit_w = std::max(lp.power_limit_w.value_or(0), *p.power_limit_w);
  }
  if (!lp.complete())
    return lp;
  if (lp.peak_tflops > 0)
    lp.efficiency = tflops_of(lp.flops, lp.time_s) / lp.peak_tflops;
  if (clocks) {
    lp.sm_clock_mhz = clock_time / lp.time_s;
    if (lp.peak_clock_mhz && lp.peak_tflops > 0)
      lp.efficiency_at_clock = lp.flops / (at_clock_tflop * 1e12);
  } else {
    lp.sm_clock_min_mhz.reset();
    lp.sm_clock_max_mhz.reset();
  }
  if (powers)
    lp.power_w = power_time / lp.time_s;
  return lp;
}

} // namespace

std::optional<double> peak_clock_mhz(std::string_view gpu_sku, std::string_view dtype) {
  // The names results/peaks/gpu_peaks.yaml gives these SKUs (its `name`, the record's gpu_sku).
  if (gpu_sku != "H100 SXM 80GB" && gpu_sku != "H200 SXM 141GB")
    return std::nullopt;
  if (dtype == "bf16" || dtype == "fp16" || dtype == "fp8_e4m3" || dtype == "tf32")
    return 1830.0;
  if (dtype == "fp32" || dtype == "fp64")
    return 1980.0;
  return std::nullopt;
}

std::vector<LayerLine> layer_lines(const std::vector<Record> &records) {
  // group -> t -> op -> the op's records (several runs' rounds)
  std::map<TpPointView::Group,
           std::map<std::int64_t, std::map<std::string, std::vector<GemmPoint>>>>
      groups;
  std::map<TpPointView::Group, std::string> labels;
  for (const auto &r : records) {
    const auto v = tp_point_view(r);
    if (!v || v->status != Status::ok)
      continue;
    const auto p = gemm_point(r);
    if (!p)
      continue;
    labels.emplace(v->group(), v->group_label());
    groups[v->group()][v->tp][v->op].push_back(*p);
  }
  std::vector<LayerLine> lines;
  for (const auto &[group, by_tp] : groups) {
    LayerLine line{group, labels.at(group), {}};
    for (const auto &[tp, ops] : by_tp)
      line.points.push_back(layer_point(tp, ops));
    lines.push_back(std::move(line));
  }
  return lines;
}

} // namespace railgauge::gemm::record
