#include "records/gemm_cublaslt_fields.h"

#include <array>
#include <utility>

#include "harness/record_fields.h"
#include "records/gemm_record.h"

namespace railgauge::gemm::record {
namespace {

namespace f = record_fields;

template <typename T>
void put(nlohmann::json &metrics, const char *name, const std::optional<T> &v) {
  if (v)
    metrics[name] = *v;
}

void put(nlohmann::json &metrics, const char *name, const nlohmann::json &value) {
  if (!value.is_null())
    metrics[name] = value;
}

nlohmann::json whole(const nlohmann::json &metrics, const char *name) {
  const auto *value = f::field(metrics, name);
  return value ? *value : nlohmann::json();
}

std::optional<bool> flag(const nlohmann::json &metrics, const char *name) {
  const auto *value = f::field(metrics, name);
  return value && value->is_boolean() ? std::optional(value->get<bool>()) : std::nullopt;
}

// The optional figures of a type by their names: the one list its write() and read() go through.
template <typename Rates> auto rate_figures(Rates &r) {
  return std::array{
      std::pair{kFlopsPerCall, &r.flops_per_call},  std::pair{kBytesPerCall, &r.bytes_per_call},
      std::pair{kFlopsPerByte, &r.flops_per_byte},  std::pair{kTflopsMax, &r.tflops_max},
      std::pair{kPeakTflopsMetric, &r.peak_tflops}, std::pair{kEfficiency, &r.efficiency}};
}
template <typename Best> auto best_figures(Best &b) {
  return std::array{std::pair{kBestTflopsMax, &b.tflops_max},
                    std::pair{kBestEfficiency, &b.efficiency},
                    std::pair{kBestVsHeuristic, &b.vs_heuristic}};
}

template <typename Figures> void write_figures(nlohmann::json &metrics, const Figures &figures) {
  for (const auto &[name, figure] : figures)
    put(metrics, name, *figure);
}
template <typename Figures>
void read_figures(const nlohmann::json &metrics, const Figures &figures) {
  for (const auto &[name, figure] : figures)
    *figure = f::number(metrics, name);
}

} // namespace

GemmRates GemmRates::of(double flops, double bytes, const Summary &time_s, double peak_tflops) {
  GemmRates r;
  r.flops_per_call = flops;
  r.bytes_per_call = bytes;
  r.flops_per_byte = flops / bytes;
  r.tflops = tflops_of(flops, time_s.median);
  r.tflops_max = tflops_of(flops, time_s.min);
  if (peak_tflops > 0) {
    r.peak_tflops = peak_tflops;
    r.efficiency = r.tflops / peak_tflops;
  }
  return r;
}

void GemmRates::write(nlohmann::json &metrics) const {
  metrics[kTflops] = tflops;
  write_figures(metrics, rate_figures(*this));
}

std::optional<GemmRates> GemmRates::read(const nlohmann::json &metrics) {
  const auto tflops = f::number(metrics, kTflops);
  if (!tflops)
    return std::nullopt;
  GemmRates r;
  r.tflops = *tflops;
  read_figures(metrics, rate_figures(r));
  return r;
}

BestPick BestPick::of(double flops, const Summary &time_s, const GemmRates &heuristic,
                      bool is_heuristic) {
  BestPick b;
  b.time_s = time_s;
  b.tflops = tflops_of(flops, time_s.median);
  b.tflops_max = tflops_of(flops, time_s.min);
  if (heuristic.peak_tflops)
    b.efficiency = b.tflops / *heuristic.peak_tflops;
  b.vs_heuristic = heuristic.tflops > 0 ? b.tflops / heuristic.tflops : 0.0;
  b.is_heuristic = is_heuristic;
  return b;
}

bool BestPick::operator==(const BestPick &o) const {
  // Summary has no comparison: its fields compare as the record holds them.
  const auto summary = [](const std::optional<Summary> &s) {
    return s ? to_json(*s) : nlohmann::json();
  };
  return summary(time_s) == summary(o.time_s) && tflops == o.tflops && tflops_max == o.tflops_max &&
         efficiency == o.efficiency && vs_heuristic == o.vs_heuristic &&
         is_heuristic == o.is_heuristic;
}

void BestPick::write(nlohmann::json &metrics) const {
  if (time_s)
    metrics[kBestTimeS] = to_json(*time_s);
  metrics[kBestTflops] = tflops;
  write_figures(metrics, best_figures(*this));
  put(metrics, kBestIsHeuristic, is_heuristic);
}

std::optional<BestPick> BestPick::read(const nlohmann::json &metrics) {
  const auto tflops = f::number(metrics, kBestTflops);
  if (!tflops)
    return std::nullopt;
  BestPick b;
  b.time_s = summary_from_json(f::field(metrics, kBestTimeS));
  b.tflops = *tflops;
  read_figures(metrics, best_figures(b));
  b.is_heuristic = flag(metrics, kBestIsHeuristic);
  return b;
}

void CublasLtFields::write(nlohmann::json &metrics) const {
  rates.write(metrics);
  if (best)
    best->write(metrics);
  put(metrics, kHeuristicAlgos, heuristic_algos);
  put(metrics, kBestAlgos, best_algos);
  put(metrics, kLaunchedKernels, launched_kernels);
  put(metrics, kCandidates, candidates);
  put(metrics, kRefusedAlgos, refused_algos);
  put(metrics, kLtTypes, lt_types);
  put(metrics, kGemms, gemms);
  put(metrics, kVerified, verified);
  if (check) {
    metrics[kVerifiedElements] = check->verified_elements;
    metrics[kWrongElements] = check->wrong_elements;
    // NaN is not JSON: a NaN or Inf output is counted, and the worst written as null.
    metrics[kWorstErrorOverBound] = check->worst_error_over_bound
                                        ? nlohmann::json(*check->worst_error_over_bound)
                                        : nlohmann::json(nullptr);
    metrics[kErrorBound] = check->error_bound;
  }
}

std::optional<CublasLtFields> CublasLtFields::read(const nlohmann::json &metrics) {
  const auto rates = GemmRates::read(metrics);
  if (!rates)
    return std::nullopt;
  CublasLtFields c;
  c.rates = *rates;
  c.best = BestPick::read(metrics);
  c.heuristic_algos = whole(metrics, kHeuristicAlgos);
  c.best_algos = whole(metrics, kBestAlgos);
  c.launched_kernels = whole(metrics, kLaunchedKernels);
  c.candidates = whole(metrics, kCandidates);
  c.refused_algos = whole(metrics, kRefusedAlgos);
  c.lt_types = whole(metrics, kLtTypes);
  c.gemms = whole(metrics, kGemms);
  c.verified = flag(metrics, kVerified);
  const auto checked = f::integer(metrics, kVerifiedElements);
  const auto wrong = f::integer(metrics, kWrongElements);
  if (checked && wrong)
    c.check = DataCheckFields{*checked, *wrong, f::number(metrics, kWorstErrorOverBound),
                              whole(metrics, kErrorBound)};
  return c;
}

} // namespace railgauge::gemm::record
