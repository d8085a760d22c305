#include "analysis/calibrate/block_prediction.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/calibrate/si_prefixes.h"
#include "harness/stats.h"
#include "records/block_record.h"

namespace railgauge::calibrate {
namespace {

namespace rec = block::record;

std::string model_label(const rec::BlockPointView &v) {
  return fmt::format("{} (h {}, s {}, b {}, {} heads, ffn {}{})", v.model, v.hidden, v.seq,
                     v.micro_batch, v.heads, v.ffn,
                     v.key == rec::kTransformerTpGpu ? fmt::format("; GPU, {}", v.dtype) : "");
}

// The block's phases of one name, in block order: GEMMs by op ("scores.dgrad" holds dq and dk,
// as one gemm.cpu_blas record does), collectives by op.
struct PhaseGroup {
  std::string name, kind;
  int calls = 0;
  double flops = 0, measured_s = 0;
  std::vector<double> sizes_bytes; // collectives: each call's size
};

std::vector<PhaseGroup> group_phases(const std::vector<rec::PhaseFields> &phases) {
  std::vector<PhaseGroup> out;
  for (const auto &p : phases) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const PhaseGroup &g) { return g.name == p.op && g.kind == p.kind; });
    if (it == out.end())
      it = out.insert(out.end(), PhaseGroup{p.op, p.kind, 0, 0, 0, {}});
    ++it->calls;
    it->measured_s += p.time_s;
    if (p.kind == rec::kGemmPhase)
      it->flops += p.flops();
    else
      it->sizes_bytes.push_back(p.size_bytes);
  }
  return out;
}

// Which collective samples stand for a block's collective phase: the same op on a group of the
// same size, through the same library over the same memory (NCCL on GPUs, MPI on host memory),
// as a whole world (the block's TP group is its world, never one of several split groups that
// share links), of the same element type, on as many hosts.
struct CollectiveKey {
  std::string op;
  int ranks = 0;
  std::string backend, group_type, dtype;
  int hosts = 0; // 0: unknown, any
  auto operator<=>(const CollectiveKey &) const = default;
  std::string text() const {
    return fmt::format("collectives {} on {} ranks ({}, {}, {} group{})", op, ranks, backend, dtype,
                       group_type, hosts > 0 ? fmt::format(", {} host(s)", hosts) : "");
  }
};

// The block writes fp32, the collectives float32: one type.
bool same_dtype(const std::string &a, const std::string &b) {
  const auto norm = [](const std::string &d) { return d == "fp32" ? std::string("float32") : d; };
  return norm(a) == norm(b);
}

// α/β per CollectiveKey from the collective samples, fitted once.
class CollectiveFits {
public:
  explicit CollectiveFits(const Calibration &c) : c_(c) {}
  const std::optional<std::pair<AlphaBeta, std::size_t>> &get(const CollectiveKey &key) {
    auto it = fits_.find(key);
    if (it != fits_.end())
      return it->second;
    std::vector<std::pair<double, double>> x_t;
    std::set<double> sizes;
    for (const auto &s : c_.samples.collectives)
      if (s.op == key.op && s.ranks == key.ranks && s.backend == key.backend &&
          s.group_type == key.group_type && same_dtype(s.dtype, key.dtype) &&
          (key.hosts == 0 || s.hosts == 0 || s.hosts == key.hosts) && s.time_s > 0) {
        x_t.emplace_back(s.size_bytes * bus_factor(key.op, key.ranks), s.time_s);
        sizes.insert(s.size_bytes);
      }
    std::optional<std::pair<AlphaBeta, std::size_t>> fit;
    if (sizes.size() >= 2)
      fit.emplace(fit_alpha_beta(x_t, c_.options.folds, c_.options.seed), x_t.size());
    return fits_.emplace(key, std::move(fit)).first->second;
  }

private:
  const Calibration &c_;
  std::map<CollectiveKey, std::optional<std::pair<AlphaBeta, std::size_t>>> fits_;
};

// The gemm records of a block's GEMM op at its t: those whose ranks had cores of their own, or,
// when there are none, the others.
std::vector<const GemmShapeRow *> matching_rows(const std::vector<GemmShapeRow> &rows,
                                                const PhaseGroup &g, int tp) {
  std::vector<const GemmShapeRow *> own, shared;
  for (const auto &row : rows) {
    const auto &s = row.sample;
    if (s.op != g.name || s.tp != tp || std::abs(s.flops - g.flops) > 1e-9 * g.flops)
      continue;
    (s.cores.shared() ? shared : own).push_back(&row);
  }
  return own.empty() ? shared : own;
}

// One row per block point: the runs of one point (the same model, t, sequence parallelism and
// ranks per core, measured in rounds between the GEMM runs: scripts/block_prediction.sh) give the
// median of their medians, p10s and p90s; the run of the median stands for the point's phases.
// Predictions of one point are the same in every run: they read the same coefficients.
std::vector<BlockPrediction> merge_repeated_points(std::vector<BlockPrediction> all) {
  const auto point = [](const BlockPrediction &b) {
    return std::make_tuple(b.model, b.sequence_parallel, b.tp, b.cores.ranks_per_core());
  };
  std::sort(all.begin(), all.end(), [&](const BlockPrediction &a, const BlockPrediction &b) {
    return std::make_tuple(point(a), a.measured_s, a.run) <
           std::make_tuple(point(b), b.measured_s, b.run);
  });
  std::vector<BlockPrediction> out;
  for (auto first = all.begin(); first != all.end();) {
    const auto last = std::find_if(
        first, all.end(), [&](const BlockPrediction &b) { return point(b) != point(*first); });
    std::vector<double> measured, p10, p90;
    for (auto it = first; it != last; ++it) {
      measured.push_back(it->measured_s);
      p10.push_back(it->measured_p10_s);
      p90.push_back(it->measured_p90_s);
    }
    BlockPrediction b = std::move(*(first + (last - first - 1) / 2));
    b.runs = static_cast<int>(measured.size());
    b.run_medians_s = measured; // ascending: the points were sorted by measured_s
    b.measured_s = median(measured);
    b.measured_p10_s = median(p10);
    b.measured_p90_s = median(p90);
    out.push_back(std::move(b));
    first = last;
  }
  return out;
}

} // namespace

double gemm_time_s(double flops, double peak_tflops, double efficiency, double memory_s,
                   ProcessingMode mode) {
  const double compute_s = flops / (peak_tflops * kTera * efficiency);
  return mode == ProcessingMode::no_overlap ? compute_s + memory_s : std::max(compute_s, memory_s);
}

double collective_time_s(const std::string &op, double size_bytes, int ranks, double alpha_s,
                         double beta_s_per_byte) {
  return alpha_s + beta_s_per_byte * size_bytes * bus_factor(op, ranks);
}

std::optional<double> BlockPrediction::error() const {
  if (!predicted_s || !(measured_s > 0))
    return std::nullopt;
  return (*predicted_s - measured_s) / measured_s;
}

namespace {

// What one block's phases add up to as they are predicted one by one.
struct PhaseSums {
  double gemm_s = 0, collective_s = 0, table_s = 0;
  bool table_complete = true;
};

// The block's measured side and the cores its ranks ran on, from its record.
BlockPrediction measured_block(const Record &r, const rec::BlockPointView &view, int host_cores) {
  BlockPrediction b;
  b.run = r.run;
  b.model = model_label(view);
  b.tp = view.tp;
  b.sequence_parallel = view.sequence_parallel;
  // A GPU block's GEMMs run on its GPUs, whatever the host's cores.
  if (view.key != rec::kTransformerTpGpu)
    b.cores = {view.ranks_per_host, view.blas_threads, host_cores};
  b.measured_s = view.time_s.value_or(0);
  b.measured_p10_s = view.time_p10_s.value_or(0);
  b.measured_p90_s = view.time_p90_s.value_or(0);
  b.measured_gemm_s = view.gemm_time_s;
  b.measured_collective_s = view.collective_time_s;
  return b;
}

void predict_gemm_phase(const Calibration &c, const rec::BlockPointView &view, const PhaseGroup &g,
                        BlockPrediction &b, BlockPhasePrediction &p, PhaseSums &sums) {
  const int per_core = b.cores.ranks_per_core();
  // The GEMM coefficients of the block's dtype: fp32 (gemm.cpu_blas) on CPUs, bf16
  // (gemm.cublaslt) on GPUs.
  const auto gemm_fit = c.gemm_by_dtype.find(view.dtype);
  const auto rows_it = c.gemm_shapes.find(view.dtype);
  const std::string gemm_source =
      view.key == rec::kTransformerTpGpu ? "gemm.cublaslt" : "gemm.cpu_blas";
  // The efficiency gemm.cpu_blas measured at this op's shape under this t: every record
  // of it (one per rank of its run), the median of their predicted times. Records whose
  // ranks had cores of their own come first: a lockstep time of ranks taking turns
  // leaves out the turns (each rank's clock starts when it runs).
  std::vector<double> per_record, per_record_table;
  if (gemm_fit != c.gemm_by_dtype.end() && rows_it != c.gemm_shapes.end()) {
    const double peak = gemm_fit->second.peak.value;
    std::vector<const GemmShapeRow *> rows = matching_rows(rows_it->second, g, b.tp);
    for (const GemmShapeRow *row : rows) {
      const auto &s = row->sample;
      // Ranks taking turns on a core give it the sum of their own times: each rank's own
      // call, not the lockstep call that waits for the slowest of them.
      const double turns =
          per_core > 1 && s.own_time_s > 0 ? per_core * s.own_time_s / s.time_s : per_core;
      per_record.push_back(turns * gemm_time_s(s.flops, peak, row->compute_efficiency,
                                               row->memory_s, c.options.mode));
      per_record_table.push_back(turns *
                                 gemm_fit->second.table.predict_s(
                                     {s.flops, s.flops / (peak * kTera), row->memory_s, s.time_s}));
    }
    if (!rows.empty())
      p.source = fmt::format(
          "{} {} {} at tp {}: {} record(s){}{}", gemm_source, view.dtype, g.name, b.tp, rows.size(),
          rows.front()->sample.cores.shared() ? " (their ranks shared cores too)" : "",
          per_core > 1 ? fmt::format(", × {} ranks per core on their "
                                     "own call times",
                                     per_core)
                       : "");
  }
  if (!per_record.empty()) {
    p.predicted_s = median(per_record);
    p.step_table_s = median(per_record_table);
    sums.gemm_s += *p.predicted_s;
    sums.table_s += *p.step_table_s;
  } else {
    sums.table_complete = false;
    b.missing.push_back(fmt::format("{} {} {} at tp {} ({:.4g} FLOP)", gemm_source, view.dtype,
                                    g.name, b.tp, g.flops));
  }
}

void predict_collective_phase(CollectiveFits &collective_fits, const rec::BlockPointView &view,
                              const PhaseGroup &g, BlockPrediction &b, BlockPhasePrediction &p,
                              PhaseSums &sums) {
  const bool gpu = view.key == rec::kTransformerTpGpu;
  const CollectiveKey key{
      g.name,
      b.tp,
      gpu ? "nccl" : "mpi",
      "world",
      view.dtype,
      view.ranks_per_host > 0 ? (b.tp + view.ranks_per_host - 1) / view.ranks_per_host : 0};
  const auto &fit = collective_fits.get(key);
  if (fit) {
    double t = 0;
    for (double size : g.sizes_bytes)
      t += collective_time_s(g.name, size, b.tp, fit->first.alpha_s, fit->first.beta_s_per_byte);
    p.predicted_s = t;
    p.source = fmt::format("{}: α {:.4g} s, β {:.4g} s/B ({} points)", key.text(),
                           fit->first.alpha_s, fit->first.beta_s_per_byte, fit->second);
    sums.collective_s += t;
    sums.table_s += t;
  } else {
    sums.table_complete = false;
    b.missing.push_back(key.text() + " at two sizes or more");
  }
}

} // namespace

std::vector<BlockPrediction> predict_blocks(const analysis::RunSet &runs, const Calibration &c) {
  std::vector<BlockPrediction> out;
  CollectiveFits collective_fits(c);
  for (const auto &run : runs.runs) {
    const int host_cores = manifest_host_cores(run.manifest);
    for (const auto &r : run.records) {
      const auto view = rec::block_point_view(r);
      if (!view || r.status != Status::ok || r.rank != 0)
        continue;
      BlockPrediction b = measured_block(r, *view, host_cores);
      if (!view->phases)
        continue;
      PhaseSums sums;
      sums.table_complete = c.gemm_by_dtype.find(view->dtype) != c.gemm_by_dtype.end();
      for (const auto &g : group_phases(*view->phases)) {
        BlockPhasePrediction p;
        p.name = g.name;
        p.kind = g.kind;
        p.calls = g.calls;
        p.measured_s = g.measured_s;
        if (g.kind == rec::kGemmPhase)
          predict_gemm_phase(c, *view, g, b, p, sums);
        else
          predict_collective_phase(collective_fits, *view, g, b, p, sums);
        b.phases.push_back(std::move(p));
      }
      if (b.missing.empty()) {
        b.predicted_s = sums.gemm_s + sums.collective_s;
        b.predicted_gemm_s = sums.gemm_s;
        b.predicted_collective_s = sums.collective_s;
      }
      if (sums.table_complete && b.missing.empty())
        b.step_table_s = sums.table_s;
      out.push_back(std::move(b));
    }
  }
  return merge_repeated_points(std::move(out));
}

nlohmann::json to_json(const std::vector<BlockPrediction> &predictions) {
  nlohmann::json out = nlohmann::json::array();
  const auto opt = [](const std::optional<double> &v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  for (const auto &b : predictions) {
    nlohmann::json phases = nlohmann::json::array();
    for (const auto &p : b.phases)
      phases.push_back({{"name", p.name},
                        {"kind", p.kind},
                        {"calls", p.calls},
                        {"measured_s", p.measured_s},
                        {"predicted_s", opt(p.predicted_s)},
                        {"step_table_s", opt(p.step_table_s)},
                        {"source", p.source}});
    out.push_back({{"run", b.run},
                   {"model", b.model},
                   {"tp", b.tp},
                   {"sequence_parallel", b.sequence_parallel},
                   {"blas_threads", b.cores.threads_per_rank},
                   {"ranks_per_host", b.cores.ranks_per_host},
                   {"host_cores", b.cores.host_cores},
                   {"shares_cores", b.shares_cores()},
                   {"ranks_per_core", b.cores.ranks_per_core()},
                   {"runs", b.runs},
                   {"measured_s", b.measured_s},
                   {"measured_p10_s", b.measured_p10_s},
                   {"measured_p90_s", b.measured_p90_s},
                   {"measured_runs_s", b.run_medians_s},
                   {"measured_gemm_s", b.measured_gemm_s},
                   {"measured_collective_s", b.measured_collective_s},
                   {"predicted_s", opt(b.predicted_s)},
                   {"predicted_gemm_s", opt(b.predicted_gemm_s)},
                   {"predicted_collective_s", opt(b.predicted_collective_s)},
                   {"step_table_s", opt(b.step_table_s)},
                   {"error", opt(b.error())},
                   {"missing", b.missing},
                   {"phases", std::move(phases)}});
  }
  return out;
}

namespace {

// The block's spread (its iterations' p10 to p90, its runs' medians lowest to highest) over its
// median, past kNoisyBlockSpread. Files of before the runs' medians were kept have the p10-p90.
bool noisy(const nlohmann::json &b) {
  const double measured = b.value("measured_s", 0.0);
  if (!(measured > 0))
    return false;
  double spread = b.value("measured_p90_s", 0.0) - b.value("measured_p10_s", 0.0);
  if (const auto runs = b.find("measured_runs_s"); runs != b.end() && runs->size() > 1)
    spread = std::max(spread, runs->back().get<double>() - runs->front().get<double>());
  return spread / measured > kNoisyBlockSpread;
}

} // namespace

std::string block_prediction_markdown(const nlohmann::json &predictions) {
  if (!predictions.is_array() || predictions.empty())
    return "";
  const auto cell = [](const nlohmann::json &v, const char *fmt_spec) {
    return v.is_number() ? fmt::format(fmt::runtime(fmt_spec), v.get<double>()) : std::string("–");
  };
  std::string md =
      "\n## A block predicted\n\n"
      "block.transformer_tp (CPU, fp32) and block.transformer_tp_gpu (GPU, bf16) measured beside "
      "the time the coefficients alone predict: each GEMM at the efficiency gemm.cpu_blas or "
      "gemm.cublaslt measured at its shape, dtype and t, each TP collective at the α "
      "and β fitted on the collectives runs of its op and group size, nothing overlapped "
      "(docs/calibrate.md). *step table*: the GEMMs through the fitted Calculon matrix table "
      "instead. † r per core: ranks took turns on the host's cores, r to a core, and each GEMM's "
      "predicted time is r times its time with a core of its own. ≈ measured noisily: the "
      "block's p10–p90, or the spread of its runs' medians, exceeds " +
      fmt::format("{:.0f}", 100 * kNoisyBlockSpread) +
      " % of its median (the host was not quiet; an error inside that spread measures the host "
      "more than the coefficients: run it again on a quiet host).\n\n"
      "| model | t | sequence parallel | measured s (p10–p90) | predicted s | error % | GEMM "
      "measured / predicted s | collectives measured / predicted s | step table s | step table "
      "error % |\n|---|---|---|---|---|---|---|---|---|---|\n";
  // Files of before the core count was recorded have no shares_cores.
  const auto shares = [](const nlohmann::json &b) { return b.value("shares_cores", false); };
  const auto t_cell = [&](const nlohmann::json &b) {
    const int t = b["tp"].get<int>();
    if (!shares(b))
      return fmt::format("{}", t);
    // Files of before the prediction scaled by it have no ranks_per_core.
    return b.contains("ranks_per_core")
               ? fmt::format("{} † {} per core", t, b["ranks_per_core"].get<int>())
               : fmt::format("{} †", t);
  };
  for (const auto &b : predictions) {
    const double measured = b["measured_s"].get<double>();
    const char *noisy_mark = noisy(b) ? " ≈" : "";
    const auto table_error =
        b["step_table_s"].is_number() && measured > 0
            ? nlohmann::json((b["step_table_s"].get<double>() - measured) / measured)
            : nlohmann::json(nullptr);
    md += fmt::format(
        "| {} | {} | {} | {:.4f} ({:.4f}–{:.4f}){}{} | {} | {} | {:.4f} / {} | {:.4f} / {} | {} | "
        "{} |\n",
        b["model"].get<std::string>(), t_cell(b), b["sequence_parallel"].get<bool>() ? "yes" : "no",
        measured, b["measured_p10_s"].get<double>(), b["measured_p90_s"].get<double>(),
        b.value("runs", 1) > 1 ? fmt::format(", {} runs", b.value("runs", 1)) : "", noisy_mark,
        cell(b["predicted_s"], "{:.4f}"),
        b["error"].is_number() ? fmt::format("{:+.2f}", 100 * b["error"].get<double>()) : "–",
        b["measured_gemm_s"].get<double>(), cell(b["predicted_gemm_s"], "{:.4f}"),
        b["measured_collective_s"].get<double>(), cell(b["predicted_collective_s"], "{:.4f}"),
        cell(b["step_table_s"], "{:.4f}"),
        table_error.is_number() ? fmt::format("{:+.2f}", 100 * table_error.get<double>()) : "–");
  }
  const auto noisy_rows = std::count_if(predictions.begin(), predictions.end(), noisy);
  // The error's range apart where each rank had its cores and where ranks took turns.
  std::vector<double> own_cores, shared_cores;
  for (const auto &b : predictions)
    if (b["error"].is_number())
      (shares(b) ? shared_cores : own_cores).push_back(100 * b["error"].get<double>());
  const auto range = [](const std::vector<double> &errors) {
    const auto [lo, hi] = std::minmax_element(errors.begin(), errors.end());
    const auto within =
        std::count_if(errors.begin(), errors.end(), [](double e) { return std::fabs(e) <= 3.0; });
    return fmt::format("error {:+.2f} to {:+.2f} %, {} of {} within 3 %", *lo, *hi, within,
                       errors.size());
  };
  if (!own_cores.empty())
    md += fmt::format("\nWhere every rank has cores of its own: {}.\n", range(own_cores));
  if (!shared_cores.empty())
    md += fmt::format(
        "\n† Where ranks take turns on cores: {}. Calculon's model gives each rank a processor of "
        "its own and has no such term; on a GPU cluster r is 1.\n",
        range(shared_cores));
  if (noisy_rows > 0)
    md += fmt::format("\n≈ {} of {} rows measured noisily: their errors are not evidence for or "
                      "against the coefficients.\n",
                      noisy_rows, predictions.size());
  for (const auto &b : predictions)
    for (const auto &m : b["missing"])
      md += fmt::format("\n- {} t = {}: no coefficient for {}", b["model"].get<std::string>(),
                        b["tp"].get<int>(), m.get<std::string>());
  md += "\n";
  return md;
}

} // namespace railgauge::calibrate
