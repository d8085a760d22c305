#include "analysis/calibrate/gemm_fit.h"

#include "analysis/calibrate/gpu_spec.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/calibrate/si_prefixes.h"
#include "analysis/calibrate/table_fit.h"

namespace railgauge::calibrate {
namespace {

double memory_term_s(const Calibration &c, double bytes) {
  if (c.options.mode == ProcessingMode::roofline)
    return 0;
  return bytes / (c.mem1.peak.value * kGiga * c.mem1.table.efficiency(bytes));
}

// The peak: the user's, else the one the records carry (a GPU's spec peak), else derived from
// the best point with the memory term taken out (a CPU has no peak in its records).
Sourced gemm_peak(const Calibration &c, const std::vector<GemmSample> &samples,
                  const std::optional<std::string> &cdt) {
  std::optional<Sourced> peak;
  if (cdt)
    if (auto u = c.assumptions.user("matrix." + *cdt + ".tflops"))
      peak = Sourced{*u, kUserSource, false};
  double record_peak = 0, best = 0;
  for (const auto &g : samples) {
    record_peak = std::max(record_peak, g.peak_tflops);
    const double compute_s = g.time_s - memory_term_s(c, g.bytes);
    if (compute_s > 0)
      best = std::max(best, g.flops / compute_s / kTera);
  }
  if (!peak && record_peak > 0)
    peak = Sourced{record_peak, "spec: the records' peak_tflops (results/peaks/gpu_peaks.yaml)",
                   false};
  // Records without a peak (a burn-in's GEMM) on a GPU with a spec: the spec's dense peak.
  if (const auto *spec = c.assumptions.spec(); !peak && cdt && spec != nullptr)
    if (const auto s = spec->values.find("matrix." + *cdt + ".tflops"); s != spec->values.end())
      peak = Sourced{s->second.first, s->second.second + " (" + spec->name + ")", false};
  if (!peak)
    peak = measured(best, c.options.mode == ProcessingMode::no_overlap
                              ? "the highest compute rate measured, memory term taken out "
                                "(no spec peak given)"
                              : "the highest rate measured (no spec peak given)");
  return *peak;
}

void fit_vector_tables(Calibration &c) {
  for (const auto &[cdt, matrix] : c.matrix) {
    // Calculon's a100_80g.json has a vector peak for float16 only (78 TFLOP/s beside a 312
    // matrix peak): without a user's or a spec's figure, another datatype's, or one beside a
    // measured matrix peak, takes that vector/matrix ratio of its own matrix peak, never the
    // A100's absolute figure. Either is an A100's, so it is labelled borrowed.
    Sourced peak = *c.assumptions.value("vector." + cdt + ".tflops");
    if (origin_of(peak) == "borrowed" &&
        (cdt != "float16" || matrix.peak.measured || origin_of(matrix.peak) != "borrowed")) {
      // The A100's own two figures: a spec's vector peak beside the A100's matrix one would
      // make a ratio of neither GPU.
      const double ratio = *c.assumptions.borrowed("vector.float16.tflops") /
                           *c.assumptions.borrowed("matrix.float16.tflops");
      peak = Sourced{matrix.peak.value * ratio,
                     fmt::format("{}: matrix.{}.tflops x {:.3g} (vector/matrix float16 peaks "
                                 "of Calculon's a100_80g.json, caa4b11)",
                                 kBorrowedPrefix, cdt, ratio),
                     false};
    }
    TableFit v = assumed_table("vector." + cdt, "flops", peak,
                               c.assumptions.table("vector." + cdt, "vector"), kGiga);
    v.notes.push_back("railgauge has no vector-op benchmark yet: not measured");
    c.vector[cdt] = v;
  }
}

} // namespace

void fit_gemm(Calibration &c) {
  std::map<std::string, std::vector<GemmSample>> by_dtype;
  for (const auto &g : c.samples.gemm)
    by_dtype[g.dtype].push_back(g);
  for (const auto &[dtype, samples] : by_dtype) {
    const auto cdt = calculon_dtype(dtype);
    const std::string name = "gemm." + dtype;
    const Sourced peak = gemm_peak(c, samples, cdt);
    // No step may claim more than the best GEMM measured: in no_overlap mode Calculon adds each
    // GEMM's mem1 time, and where that term is most of a measured time the compute term left is
    // faster than the peak. On the H200 run that made a step of 1.0 (989 TFLOP/s for 9-535
    // GFLOP GEMMs) beside a best measured 850 TFLOP/s.
    double best_efficiency = kMinEfficiency;
    for (const auto &g : samples)
      best_efficiency = std::max(best_efficiency, g.flops / (peak.value * kTera * g.time_s));
    best_efficiency = std::min(best_efficiency, 1.0);
    std::vector<StepPoint> pts;
    std::vector<GemmShapeRow> rows;
    for (const auto &g : samples) {
      const double mem_s = memory_term_s(c, g.bytes);
      pts.push_back({g.flops, g.flops / (peak.value * kTera), mem_s, g.time_s});
      GemmShapeRow row;
      row.sample = g;
      row.tflops = g.flops / g.time_s / kTera;
      row.efficiency = row.tflops / peak.value;
      row.memory_s = mem_s;
      row.compute_efficiency =
          g.time_s > mem_s ? g.flops / (peak.value * kTera * (g.time_s - mem_s)) : 1.0;
      rows.push_back(row);
    }
    // In no_overlap mode each step is the measured time less a mem1 term: where mem1 was not
    // measured, every step leans on the figure it came from, and the source says so.
    const bool assumed_mem1 = c.options.mode == ProcessingMode::no_overlap && !c.mem1.measured;
    TableFit t =
        fit_table(name, "flops", peak, pts, c.options,
                  fmt::format("measured: {} {} GEMM points{}", samples.size(), dtype,
                              assumed_mem1 ? fmt::format(", less a mem1 time not measured ({})",
                                                         c.mem1.source)
                                           : std::string()),
                  best_efficiency);
    if (c.options.mode == ProcessingMode::no_overlap) {
      std::size_t memory_bound = 0;
      for (const auto &r : rows)
        memory_bound += r.memory_s >= r.sample.time_s;
      t.notes.push_back("efficiencies are of the compute term: Calculon's no_overlap mode adds "
                        "the mem1 time of each GEMM's bytes, so that time was taken out first");
      t.notes.push_back(fmt::format("no step above {:.4g}, the highest efficiency measured "
                                    "(whole time, {:.4g} TFLOP/s)",
                                    best_efficiency, best_efficiency * peak.value));
      if (memory_bound > 0)
        t.notes.push_back(fmt::format("{} points take less time than their mem1 term alone; "
                                      "their efficiency is capped at 1",
                                      memory_bound));
    }
    c.gemm_by_dtype[dtype] = t;
    c.gemm_shapes[dtype] = rows;
    if (cdt) {
      // fp32 and tf32 both map to float32: the exact name wins.
      const bool exact = dtype != "tf32";
      if (!c.matrix.count(*cdt) || exact) {
        TableFit m = t;
        m.name = "matrix." + *cdt;
        c.matrix[*cdt] = m;
      }
    } else {
      c.notes.push_back(fmt::format("{} GEMMs are in the coefficient file only: Calculon has no "
                                    "datatype for them",
                                    dtype));
    }
  }
  if (c.matrix.empty()) {
    const auto peak = *c.assumptions.value("matrix.float16.tflops");
    c.matrix["float16"] = assumed_table("matrix.float16", "flops", peak,
                                        c.assumptions.table("matrix.float16", "matrix"), kGiga);
    c.notes.push_back("no GEMM records: the matrix table is assumed, not measured");
  }
  fit_vector_tables(c);
}

} // namespace railgauge::calibrate
