#include "analysis/calibrate/calibration.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "harness/stats.h"

namespace railgauge::calibrate {
namespace {

constexpr double kGiga = 1e9;
constexpr double kMega = 1e6;
constexpr double kTera = 1e12;

FitQuality quality_of(const StepFit &f, std::size_t n) { return {n, f.held_out, f.in_sample}; }

// A table fitted to measured points.
TableFit fit_table(std::string name, std::string unit, Sourced peak,
                   const std::vector<StepPoint> &points, const CalibrateOptions &o,
                   std::string source) {
  TableFit t;
  t.name = std::move(name);
  t.x_unit = std::move(unit);
  t.peak = std::move(peak);
  t.measured = true;
  t.source = std::move(source);
  const StepFit f = choose_step_table(points, o.max_steps, o.folds, o.seed);
  t.table = f.table;
  t.steps = f.steps;
  t.quality = quality_of(f, points.size());
  return t;
}

// A table taken from an assumption: Calculon rows (GFLOP or MB) into FLOPs or bytes.
TableFit assumed_table(std::string name, std::string unit, Sourced peak,
                       const std::pair<EfficiencyRows, std::string> &rows, double scale) {
  TableFit t;
  t.name = std::move(name);
  t.x_unit = std::move(unit);
  t.peak = std::move(peak);
  t.source = rows.second;
  for (const auto &[x, e] : rows.first)
    t.table.rows.emplace_back(x * scale, e);
  t.steps = static_cast<int>(t.table.rows.size());
  return t;
}

HeldOutError linear_error(const LinearFit &f, const std::vector<LinearSample> &s) {
  HeldOutError e;
  for (const auto &x : s) {
    const double r = std::abs(f.predict(x.x) - x.t) / x.t;
    e.mean_rel += r;
    e.max_rel = std::max(e.max_rel, r);
  }
  e.points = s.size();
  if (!s.empty())
    e.mean_rel /= static_cast<double>(s.size());
  return e;
}

// k-fold held-out error of a robust linear fit. Each held-out point's error is kept under its
// size (size_of[i], else its last regressor) and op (tag_of[i]), to be read per size.
FitQuality linear_quality(const std::vector<LinearSample> &s, const LinearFit &all, int folds,
                          std::uint64_t seed, const std::vector<double> *size_of = nullptr,
                          const std::vector<std::string> *tag_of = nullptr) {
  FitQuality q;
  q.points = s.size();
  q.in_sample = linear_error(all, s);
  // Samples with the same regressors (one size measured again) share a fold.
  std::vector<std::vector<double>> keys;
  keys.reserve(s.size());
  for (const auto &x : s)
    keys.push_back(x.x);
  const auto [group, groups] = groups_of(keys);
  if (groups < 4)
    return q;
  const int k = std::min<int>(folds, static_cast<int>(groups));
  const auto fold = fold_assignment(group, groups, k, seed);
  HeldOutError e;
  e.folds = k;
  for (int f = 0; f < k; ++f) {
    std::vector<LinearSample> train, test;
    for (std::size_t i = 0; i < s.size(); ++i)
      (fold[i] == f ? test : train).push_back(s[i]);
    if (test.empty() || train.empty())
      continue;
    const auto fit = robust_linear_fit(train);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (fold[i] != f)
        continue;
      const auto &x = s[i];
      const double r = std::abs(fit.predict(x.x) - x.t) / x.t;
      e.mean_rel += r;
      e.max_rel = std::max(e.max_rel, r);
      e.per_point.push_back(
          {size_of ? size_of->at(i) : x.x.back(), r, tag_of ? tag_of->at(i) : std::string()});
      ++e.points;
    }
  }
  if (e.points > 0)
    e.mean_rel /= static_cast<double>(e.points);
  q.held_out = e;
  return q;
}

Sourced measured(double v, std::string what) { return {v, "measured: " + std::move(what), true}; }

// ---- memory -------------------------------------------------------------------------------

std::vector<MemorySample> preferred_kinds(const std::vector<MemorySample> &all,
                                          const std::string &tier, std::set<std::string> &kinds) {
  // Calculon's memory term is an op that reads and writes: copy and triad (and the D2D memcpy)
  // stand for it; read-only or write-only kernels only when nothing else was measured.
  // A processor's memory term is what all its cores get: points with fewer threads than the
  // most measured (a single-thread sweep beside a whole-node one) would mix two curves.
  int most_threads = 0;
  for (const auto &s : all)
    if (s.tier == tier)
      most_threads = std::max(most_threads, s.threads);
  std::vector<MemorySample> rw, any;
  for (const auto &s : all) {
    if (s.tier != tier || s.threads != most_threads)
      continue;
    any.push_back(s);
    if (s.kind == "copy" || s.kind == "triad" || s.kind == "memcpy_d2d")
      rw.push_back(s);
  }
  const auto &use = rw.empty() ? any : rw;
  for (const auto &s : use)
    kinds.insert(s.kind);
  return use;
}

// Arrays of at most this many times the cache in front of the memory may be served from it.
constexpr double kCacheResidentFactor = 2;

bool fits_in_cache(const MemorySample &x) {
  return x.cache_bytes > 0 && x.working_set_bytes > 0 &&
         x.working_set_bytes <= kCacheResidentFactor * x.cache_bytes;
}

// Known to exceed the cache: both sizes given, the arrays past twice the cache.
bool beyond_cache(const MemorySample &x) {
  return x.cache_bytes > 0 && x.working_set_bytes > kCacheResidentFactor * x.cache_bytes;
}

TableFit fit_memory(const std::string &name, const std::vector<MemorySample> &s,
                    std::optional<double> user_peak, const CalibrateOptions &o,
                    const std::string &what) {
  // The table is the memory's, not its cache's: on an H200 the copy of two 16 MiB arrays (in the
  // 60 MB L2) ran at 4.9 TB/s, the HBM plateau at 4.3, and a curve through both fits neither
  // (held-out error 22% mean with them). So where points beyond twice the cache exist, the peak
  // is their best and the points that may be served from the cache are left out.
  double best = 0, best_beyond = 0;
  for (const auto &x : s) {
    best = std::max(best, x.bytes / x.time_s / kGiga);
    if (beyond_cache(x))
      best_beyond = std::max(best_beyond, x.bytes / x.time_s / kGiga);
  }
  const Sourced peak =
      user_peak     ? Sourced{*user_peak, kUserSource, false}
      : best_beyond ? measured(best_beyond, "the highest bandwidth measured on arrays beyond twice "
                                            "the cache (no peak given)")
                    : measured(best, "the highest bandwidth measured (no peak given)");
  std::vector<StepPoint> pts;
  int from_cache = 0;
  for (const auto &x : s) {
    if (best_beyond > 0 && fits_in_cache(x)) {
      ++from_cache;
      continue;
    }
    pts.push_back({x.bytes, x.bytes / (peak.value * kGiga), 0, x.time_s});
  }
  TableFit fit =
      fit_table(name, "bytes", peak, pts, o,
                from_cache > 0 ? fmt::format("measured: {} ({} fitted)", what, pts.size())
                               : "measured: " + what);
  if (from_cache > 0)
    fit.notes.push_back(fmt::format(
        "{} point{} left out: arrays within {}x the cache in front of the memory (the GPU's "
        "L2), which may be served from it; smaller transfers take the smallest fitted size's "
        "efficiency",
        from_cache, from_cache == 1 ? "" : "s", kCacheResidentFactor));
  return fit;
}

// The inventory each run's manifest holds (run.json), skipping runs without one.
std::vector<const nlohmann::json *> inventories(const analysis::RunSet &runs) {
  std::vector<const nlohmann::json *> out;
  for (const auto &r : runs.runs)
    if (r.manifest.is_object() && r.manifest.contains("inventory") &&
        r.manifest["inventory"].is_object())
      out.push_back(&r.manifest["inventory"]);
  return out;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The host memory of the NUMA nodes of the first inventory that lists any, in GiB; 0 when none.
double host_memory_gib(const analysis::RunSet &runs) {
  for (const auto *inv : inventories(runs)) {
    if (!inv->contains("machine") || !(*inv)["machine"].contains("numa_nodes"))
      continue;
    double bytes = 0;
    for (const auto &n : (*inv)["machine"]["numa_nodes"])
      if (n.contains("memory_bytes") && n["memory_bytes"].is_number())
        bytes += n["memory_bytes"].get<double>();
    if (bytes > 0)
      return bytes / kGiB;
  }
  return 0;
}

// The memory of the smallest GPU any run's inventory lists (NVML), in GiB; 0 when none does.
double gpu_memory_gib(const analysis::RunSet &runs) {
  double smallest = 0;
  for (const auto *inv : inventories(runs)) {
    const auto &nvml = inv->value("nvml", nlohmann::json::object());
    if (!nvml.is_object() || !nvml.contains("gpus") || !nvml["gpus"].is_array())
      continue;
    for (const auto &g : nvml["gpus"]) {
      const auto bytes = g.value("memory_total_bytes", nlohmann::json());
      if (bytes.is_number() && bytes.get<double>() > 0)
        smallest = smallest == 0 ? bytes.get<double>() : std::min(smallest, bytes.get<double>());
    }
  }
  return smallest / kGiB;
}

// ---- GEMM ---------------------------------------------------------------------------------

double memory_term_s(const Calibration &c, double bytes) {
  if (c.options.mode == ProcessingMode::roofline)
    return 0;
  return bytes / (c.mem1.peak.value * kGiga * c.mem1.table.efficiency(bytes));
}

void fit_gemm(Calibration &c) {
  std::map<std::string, std::vector<GemmSample>> by_dtype;
  for (const auto &g : c.samples.gemm)
    by_dtype[g.dtype].push_back(g);
  for (const auto &[dtype, samples] : by_dtype) {
    const auto cdt = calculon_dtype(dtype);
    const std::string name = "gemm." + dtype;
    // The peak: the user's, else the one the records carry (a GPU's spec peak), else derived
    // from the best point with the memory term taken out (a CPU has no peak in its records).
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
      peak = Sourced{record_peak, "the records' peak_tflops (spec peak)", false};
    if (!peak)
      peak = measured(best, c.options.mode == ProcessingMode::no_overlap
                                ? "the highest compute rate measured, memory term taken out "
                                  "(no spec peak given)"
                                : "the highest rate measured (no spec peak given)");
    std::vector<StepPoint> pts;
    std::vector<GemmShapeRow> rows;
    for (const auto &g : samples) {
      const double mem_s = memory_term_s(c, g.bytes);
      pts.push_back({g.flops, g.flops / (peak->value * kTera), mem_s, g.time_s});
      GemmShapeRow row;
      row.sample = g;
      row.tflops = g.flops / g.time_s / kTera;
      row.efficiency = row.tflops / peak->value;
      row.memory_s = mem_s;
      row.compute_efficiency =
          g.time_s > mem_s ? g.flops / (peak->value * kTera * (g.time_s - mem_s)) : 1.0;
      rows.push_back(row);
    }
    TableFit t = fit_table(name, "flops", *peak, pts, c.options,
                           fmt::format("measured: {} {} GEMM points", samples.size(), dtype));
    if (c.options.mode == ProcessingMode::no_overlap) {
      std::size_t memory_bound = 0;
      for (const auto &r : rows)
        memory_bound += r.memory_s >= r.sample.time_s;
      t.notes.push_back("efficiencies are of the compute term: Calculon's no_overlap mode adds "
                        "the mem1 time of each GEMM's bytes, so that time was taken out first");
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
  for (const auto &[cdt, matrix] : c.matrix) {
    // Calculon's a100_80g.json has a vector peak for float16 only (78 TFLOP/s beside a 312
    // matrix peak): another datatype's, or one beside a measured matrix peak, takes that
    // vector/matrix ratio of its own matrix peak, never the A100's absolute figure.
    Sourced peak = *c.assumptions.value("vector." + cdt + ".tflops");
    if (!c.assumptions.user("vector." + cdt + ".tflops") &&
        (cdt != "float16" || matrix.peak.measured)) {
      const double ratio = c.assumptions.value("vector.float16.tflops")->value /
                           c.assumptions.value("matrix.float16.tflops")->value;
      peak = Sourced{matrix.peak.value * ratio,
                     fmt::format("assumed: matrix.{}.tflops x {:.3g} (vector/matrix float16 "
                                 "peaks of Calculon's a100_80g.json, caa4b11)",
                                 cdt, ratio),
                     false};
    }
    TableFit v = assumed_table("vector." + cdt, "flops", peak,
                               c.assumptions.table("vector." + cdt, "vector"), kGiga);
    v.notes.push_back("railgauge has no vector-op benchmark yet: not measured");
    c.vector[cdt] = v;
  }
}

// ---- networks -----------------------------------------------------------------------------

const std::vector<std::string> &calculon_op_names() {
  static const std::vector<std::string> n = {"p2p", "reduce_scatter", "all_gather", "all_reduce"};
  return n;
}

// The ring algorithm's (scalar, offset): scalar·(1 + offset/n) is bus_factor().
std::pair<double, std::optional<double>> ring_op(const std::string &op) {
  if (op == "p2p")
    return {1.0, std::nullopt};
  if (op == "all_reduce")
    return {2.0, -1.0};
  return {1.0, -1.0};
}

// Calculon's a100_80g ops per tier (the default when a tier has no measurement).
std::pair<double, std::optional<double>> default_op(int tier, const std::string &op) {
  if (op == "p2p")
    return {1.0, std::nullopt};
  if (tier == 0)
    return {op == "all_reduce" ? 2.0 : 1.5, -1.0};
  return {1.0, 0.0};
}

nlohmann::json size_table(const std::vector<CollectiveSample> &s, const std::string &op) {
  std::map<std::pair<int, double>, std::vector<double>> times;
  for (const auto &x : s)
    times[{x.ranks, x.size_bytes}].push_back(x.time_s);
  nlohmann::json t = nlohmann::json::array();
  for (const auto &[k, v] : times) {
    const double time = median(v);
    const double algbw = k.second / time / kGiga;
    t.push_back({{"ranks", k.first},
                 {"size_bytes", k.second},
                 {"time_s", time},
                 {"samples", v.size()},
                 {"algbw_gbytes_per_s", algbw},
                 {"busbw_gbytes_per_s", algbw * bus_factor(op, k.first)}});
  }
  return t;
}

// A scale-out tier is taken apart when every point of Calculon's ops on it says its nodes, lays
// its ranks out in whole nodes and some hold more than one GPU per node: a bus byte of such a
// point crosses NVLink as well as the fabric (tier_decomposition.h).
bool decomposable(const NetworkTier &tier,
                  const std::map<std::string, std::vector<CollectiveSample>> &by_op) {
  if (tier.name != kScaleOut)
    return false;
  bool several_per_node = false;
  for (const auto &op : calculon_op_names()) {
    const auto it = by_op.find(op);
    if (it == by_op.end())
      continue;
    for (const auto &s : it->second) {
      if (s.ranks < 2 && op != "p2p")
        continue;
      if (s.hosts < 2 || !hop_bytes_per_gpu(op, s.size_bytes, s.ranks, s.hosts))
        return false;
      several_per_node |= s.ranks / s.hosts > 1;
    }
  }
  return several_per_node;
}

// The node's own tier as one GPU of a g-GPU node sees it: the same op measured on one node of g
// ranks if the runs have it, else networks[0] as written (measured, given or assumed).
IntraNodeFigure intra_node_figure(const Calibration &c, const std::string &op, int g) {
  std::vector<std::pair<double, double>> xt;
  std::set<std::string> runs;
  for (const auto &s : c.samples.collectives)
    if (s.tier == kScaleUp && s.op == op && s.ranks == g) {
      xt.emplace_back(s.size_bytes * bus_factor(op, g), s.time_s);
      runs.insert(s.run);
    }
  IntraNodeFigure f;
  if (xt.size() >= 2) {
    const auto ab = fit_alpha_beta(xt, c.options.folds, c.options.seed);
    if (ab.beta_s_per_byte > 0) {
      const int steps = ring_steps(op, g);
      f.bus_gbytes_per_s = 1.0 / ab.beta_s_per_byte / kGiga;
      f.step_latency_s = steps > 0 ? ab.alpha_s / steps : ab.alpha_s;
      f.op = op;
      f.source = fmt::format("measured: {} on one node of {} ranks, {} points (runs: {})", op, g,
                             xt.size(), fmt::join(runs, ", "));
      f.measured = true;
      return f;
    }
  }
  const NetworkTier &up = c.networks.at(0);
  const int n = up.group_ranks > 1 ? up.group_ranks
                                   : std::max(2, static_cast<int>(std::lround(up.size.value)));
  f.bus_gbytes_per_s = up.bandwidth_gbytes_per_s.value * up.efficiency.value;
  f.step_latency_s = up.latency_s.value / ring_steps("all_reduce", n);
  f.source = fmt::format("networks[0]: bandwidth ({}) × efficiency ({}); latency ({}) over the "
                         "2({}-1) steps of an all_reduce (no {} on one node of {} ranks measured)",
                         up.bandwidth_gbytes_per_s.source, up.efficiency.source,
                         up.latency_s.source, n, op, g);
  f.measured = up.bandwidth_gbytes_per_s.measured && up.efficiency.measured;
  return f;
}

// The reference op's largest group on the tier, taken apart: its own busbw, the per-GPU fabric
// rate of the joint fit, the intra-node figure it is checked against and the latency split.
TierDecomposition decomposition_of(const Calibration &c, const NetworkTier &tier,
                                   const std::string &ref,
                                   const std::vector<CollectiveSample> &samples) {
  int ranks = 0, hosts = 0;
  for (const auto &s : samples)
    if (s.ranks > ranks || (s.ranks == ranks && s.hosts > hosts))
      ranks = s.ranks, hosts = s.hosts;
  std::vector<std::pair<double, double>> bus;
  std::set<std::string> runs;
  for (const auto &s : samples)
    if (s.ranks == ranks && s.hosts == hosts) {
      bus.emplace_back(s.size_bytes * bus_factor(ref, ranks), s.time_s);
      runs.insert(s.run);
    }
  const double bus_beta = fit_alpha_beta(bus, c.options.folds, c.options.seed).beta_s_per_byte;
  return decompose_tier(ref, ranks, hosts, {runs.begin(), runs.end()}, tier.joint_alpha_s,
                        tier.joint_beta_s_per_byte.at(ref), bus_beta,
                        intra_node_figure(c, ref, ranks / hosts));
}

void fit_tier(Calibration &c, NetworkTier &tier) {
  const std::string net = fmt::format("networks.{}", tier.index);
  std::map<std::string, std::vector<CollectiveSample>> by_op;
  for (const auto &s : c.samples.collectives)
    if (s.tier == tier.name)
      by_op[s.op].push_back(s);
  tier.measured = !by_op.empty();
  const bool decompose = decomposable(tier, by_op);
  // The bytes a point's time is fitted against: the bus bytes on each link, or, on a tier taken
  // apart, the bytes through one GPU's share of its node's NICs.
  const auto regressor = [&](const std::string &op, const CollectiveSample &x) {
    if (decompose)
      if (const auto h = hop_bytes_per_gpu(op, x.size_bytes, x.ranks, x.hosts))
        return h->fabric;
    return x.size_bytes * bus_factor(op, x.ranks);
  };
  std::vector<double> ranks_seen;
  int largest = 0;
  for (const auto &[op, s] : by_op) {
    CollectiveFit f;
    f.op = op;
    f.table = size_table(s, op);
    std::vector<std::pair<double, double>> xt;
    std::vector<double> sizes; // the op size S of each point, the size Calculon asks for
    for (const auto &x : s) {
      if (x.ranks > largest || (x.ranks == largest && x.hosts > tier.group_hosts))
        tier.group_hosts = x.hosts;
      largest = std::max(largest, x.ranks);
      if (x.ranks < 2 && op != "p2p") {
        ++f.single_rank_samples;
        continue;
      }
      xt.emplace_back(regressor(op, x), x.time_s);
      sizes.push_back(x.size_bytes);
      ranks_seen.push_back(x.ranks);
    }
    if (!xt.empty())
      f.fit = fit_alpha_beta(xt, c.options.folds, c.options.seed, &sizes);
    tier.ops[op] = f;
  }

  // The joint model of Calculon's four ops: one α, one β per op. A tier taken apart gets one α
  // per layout (ranks, nodes): NCCL's ring latency grows with both (its intra- and inter-node
  // steps), while its β per fabric byte is one for every node count; a single α over several
  // node counts would bend the β to make up for the latencies it cannot hold.
  std::vector<std::string> cols;
  for (const auto &op : calculon_op_names())
    if (by_op.count(op))
      cols.push_back(op);
  std::vector<std::pair<int, int>> layouts; // (ranks, hosts), each with its own α column
  const auto layout_of = [&](const CollectiveSample &x) -> std::size_t {
    if (!decompose)
      return 0;
    const std::pair<int, int> l{x.ranks, x.hosts};
    const auto it = std::find(layouts.begin(), layouts.end(), l);
    if (it != layouts.end())
      return static_cast<std::size_t>(it - layouts.begin());
    layouts.push_back(l);
    return layouts.size() - 1;
  };
  std::vector<std::pair<std::size_t, std::size_t>> cells; // (α column, op) per sample
  std::vector<const CollectiveSample *> used;
  for (std::size_t j = 0; j < cols.size(); ++j)
    for (const auto &x : by_op[cols[j]]) {
      if (x.ranks < 2 && cols[j] != "p2p")
        continue;
      cells.emplace_back(layout_of(x), j);
      used.push_back(&x);
    }
  const std::size_t alphas = std::max<std::size_t>(1, layouts.size());
  std::vector<LinearSample> joint;
  std::vector<double> joint_sizes;
  std::vector<std::string> joint_ops;
  for (std::size_t i = 0; i < used.size(); ++i) {
    joint_sizes.push_back(used[i]->size_bytes);
    joint_ops.push_back(cols[cells[i].second]);
    LinearSample ls;
    ls.x.assign(alphas + cols.size(), 0.0);
    ls.x[cells[i].first] = 1;
    ls.x[alphas + cells[i].second] = regressor(cols[cells[i].second], *used[i]);
    ls.t = used[i]->time_s;
    joint.push_back(ls);
  }
  std::string ref;
  if (!joint.empty()) {
    const auto fit = robust_linear_fit(joint);
    tier.joint_quality =
        linear_quality(joint, fit, c.options.folds, c.options.seed, &joint_sizes, &joint_ops);
    // The α written is the largest layout's: the group the tier's size comes from.
    std::size_t largest_layout = 0;
    for (std::size_t l = 1; l < layouts.size(); ++l)
      if (layouts[l] > layouts[largest_layout])
        largest_layout = l;
    tier.joint_alpha_s = fit.coef[largest_layout];
    for (std::size_t j = 0; j < cols.size(); ++j)
      tier.joint_beta_s_per_byte[cols[j]] = fit.coef[alphas + j];
    for (const char *candidate : {"all_reduce", "reduce_scatter", "all_gather", "p2p"})
      if (tier.joint_beta_s_per_byte.count(candidate) &&
          tier.joint_beta_s_per_byte[candidate] > 0) {
        ref = candidate;
        break;
      }
  }
  tier.group_ranks = ranks_seen.empty() ? 0 : static_cast<int>(median(ranks_seen));

  const auto assumed = [&](const char *key) { return *c.assumptions.value(net + "." + key); };
  tier.must_be_filled = tier.index == 0;
  if (ref.empty()) {
    if (tier.measured)
      c.notes.push_back(fmt::format("{}: collectives measured, but none of Calculon's four ops on "
                                    "two or more ranks: the tier is assumed",
                                    tier.name));
    tier.measured = false;
    tier.bandwidth_gbytes_per_s = assumed("bandwidth");
    tier.efficiency = assumed("efficiency");
    tier.latency_s = assumed("latency");
    for (const auto &op : calculon_op_names()) {
      tier.calculon_ops[op] = default_op(tier.index, op);
      tier.calculon_op_source[op] = kDefaultSource;
    }
  } else {
    // bytes/s on each link, or through each GPU's share of the NICs on a tier taken apart
    const double bw_ref = 1.0 / tier.joint_beta_s_per_byte[ref];
    if (decompose) {
      tier.decomposition = decomposition_of(c, tier, ref, by_op[ref]);
      const auto &d = *tier.decomposition;
      c.notes.push_back(fmt::format(
          "{}: taken apart (NCCL ring over {} nodes × {} GPUs, runs: {}): {} busbw {:.4g} GB/s "
          "is {:.4g} GB/s per GPU over the fabric; intra-node figure {:.4g} GB/s ({}), which "
          "the ring loaded to {:.0f}%",
          tier.name, d.nodes, d.gpus_per_node, fmt::join(d.runs, ", "), ref, d.bus_gbytes_per_s,
          d.fabric_gbytes_per_s_per_gpu, d.intra.bus_gbytes_per_s, d.intra.source,
          100 * d.nvlink_load));
      if (d.nvls_tree_gbytes_per_s_per_gpu > 0)
        c.notes.push_back(fmt::format(
            "{}: an all_reduce on 2 nodes of NVSwitch GPUs may run NCCL's NVLS tree, which sends "
            "each GPU's 1/{} of the buffer once over the fabric, not a ring's 2({}-1)/{} of it: "
            "read so, the fabric ran at {:.4g} GB/s per GPU, not {:.4g}; a ring figure above "
            "the NIC's line rate says it was the tree",
            tier.name, d.gpus_per_node, d.ranks, d.ranks, d.nvls_tree_gbytes_per_s_per_gpu,
            d.fabric_gbytes_per_s_per_gpu));
      if (!d.fabric_bound)
        c.notes.push_back(fmt::format(
            "{}: the ring would have needed {:.0f}% of the intra-node figure on NVLink: the run "
            "may be bound inside the node, or not a ring (at 2 nodes NCCL's NVLS tree moves "
            "half the fabric bytes of a ring; its tuner doubles their rate, "
            "src/graph/tuning.cc), so {:.4g} GB/s per GPU is not the fabric's rate; give "
            "--assume {}.bandwidth with the NIC's line rate",
            tier.name, 100 * d.nvlink_load, d.fabric_gbytes_per_s_per_gpu, net));
    }
    if (auto u = c.assumptions.user(net + ".bandwidth"))
      tier.bandwidth_gbytes_per_s = {*u, kUserSource, false};
    else if (decompose)
      tier.bandwidth_gbytes_per_s = measured(
          bw_ref / kGiga, fmt::format("1/β of {} per byte through one GPU's share of its node's "
                                      "NICs (the tier taken apart; no link rate given)",
                                      ref));
    else
      tier.bandwidth_gbytes_per_s = measured(
          bw_ref / kGiga, fmt::format("1/β of {} (bus bandwidth; no link rate given)", ref));
    if (auto u = c.assumptions.user(net + ".efficiency")) {
      tier.efficiency = {*u, kUserSource, false};
    } else {
      const double ratio = bw_ref / (tier.bandwidth_gbytes_per_s.value * kGiga);
      tier.efficiency = measured(std::min(1.0, ratio), fmt::format("(1/β of {}) / bandwidth", ref));
      // Never silently: the per-op scalars below then carry the rest (bandwidth × efficiency ×
      // scalar / β stays the measured bus bandwidth for every op).
      if (ratio > 1.0 && decompose)
        c.notes.push_back(fmt::format(
            "{}: the per-GPU fabric rate of {} taken apart ({:.4g} GB/s) is above the given "
            "networks.{}.bandwidth ({:.4g} GB/s): efficiency is capped at 1.0 and the op "
            "scalars carry the difference",
            tier.name, ref, bw_ref / kGiga, tier.index, tier.bandwidth_gbytes_per_s.value));
      else if (ratio > 1.0)
        c.notes.push_back(fmt::format(
            "{}: the measured bus bandwidth of {} ({:.4g} GB/s) is above the given "
            "networks.{}.bandwidth ({:.4g} GB/s): efficiency is capped at 1.0 and the op "
            "scalars carry the difference; a multi-node group's bus bandwidth includes the "
            "NVLink hops inside each node, so give the per-GPU fabric rate times the GPUs per "
            "node, or leave the bandwidth to the fit",
            tier.name, ref, bw_ref / kGiga, tier.index, tier.bandwidth_gbytes_per_s.value));
    }
    const double bw_eff = tier.bandwidth_gbytes_per_s.value * kGiga * tier.efficiency.value;
    for (const auto &op : calculon_op_names()) {
      const auto ring = ring_op(op);
      const auto b = tier.joint_beta_s_per_byte.find(op);
      if (b != tier.joint_beta_s_per_byte.end() && b->second > 0) {
        tier.calculon_ops[op] = {ring.first * b->second * bw_eff, ring.second};
        tier.calculon_op_source[op] = "measured: β of this op × bandwidth × efficiency";
      } else {
        // Not measured: assumed to move its bus bytes at the reference op's bus bandwidth, so
        // that the scalars stay consistent with one another (a bare ring scalar beside a fitted
        // one would price this op apart from the bandwidth the tier was fitted at).
        tier.calculon_ops[op] = {ring.first * tier.joint_beta_s_per_byte[ref] * bw_eff,
                                 ring.second};
        tier.calculon_op_source[op] =
            fmt::format("assumed: not measured; taken to run at {}'s bus bandwidth", ref);
      }
    }
    if (auto u = c.assumptions.user(net + ".latency"))
      tier.latency_s = {*u, kUserSource, false};
    else if (tier.decomposition && tier.decomposition->latency_split)
      tier.latency_s = measured(
          tier.decomposition->latency_s,
          fmt::format("α of the tier's joint fit less its {} intra-node ring steps at {:.3g} µs "
                      "each (the tier taken apart)",
                      ring_steps(ref, tier.decomposition->ranks) -
                          inter_node_steps(ref, tier.decomposition->nodes),
                      tier.decomposition->intra.step_latency_s * 1e6));
    else if (tier.decomposition) {
      const auto &d = *tier.decomposition;
      tier.latency_s = measured(d.alpha_s, "α of the tier's joint fit, whole (an upper bound: "
                                           "the split was not determined)");
      c.notes.push_back(fmt::format(
          "{}: latency not split: the {} intra-node ring steps at {:.3g} µs each (the "
          "intra-node α over its ring steps) come to {:.4g} µs, not below the run's α of {:.4g} "
          "µs; the whole α is kept, an upper bound on the inter-node steps' latency (an α "
          "fitted on large messages holds the pipeline's fill, not a per-step latency)",
          tier.name, ring_steps(ref, d.ranks) - inter_node_steps(ref, d.nodes),
          d.intra.step_latency_s * 1e6, d.intra_latency_s * 1e6, d.alpha_s * 1e6));
    } else
      tier.latency_s = measured(tier.joint_alpha_s, "α of the tier's joint fit");
  }
  if (auto u = c.assumptions.user(net + ".size"))
    tier.size = {*u, kUserSource, false};
  else if (largest > 1)
    tier.size = measured(largest, "the largest group in the runs (a lower bound)");
  else
    tier.size = assumed("size");
  if (!tier.size.measured && tier.size.source != kUserSource)
    c.notes.push_back(fmt::format(
        "{}: size {} is {}, not measured: it sets Calculon's networks[{}].size and ASTRA-sim's "
        "npus_count; give --assume networks.{}.size=N for the real system",
        tier.name, tier.size.value, tier.size.source, tier.index, tier.index));
  else if (tier.size.measured)
    // Calculon refuses a parallel degree above a tier's size: a small test group would forbid
    // the larger ones the machine has.
    c.notes.push_back(fmt::format(
        "{}: size {} is the largest group measured, a lower bound: Calculon maps no parallel "
        "degree above it to networks[{}]; give --assume networks.{}.size=N for the real system",
        tier.name, tier.size.value, tier.index, tier.index));

  std::vector<double> slowdowns;
  for (const auto &o : c.samples.overlap)
    if (o.family == "collectives" && o.tier == tier.name)
      slowdowns.push_back(o.gemm_slowdown);
  if (auto u = c.assumptions.user(net + ".processor_usage"))
    tier.processor_usage = {*u, kUserSource, false};
  else if (!slowdowns.empty())
    tier.processor_usage = measured(std::clamp(1.0 - 1.0 / median(slowdowns), 0.0, 0.99),
                                    "1 - 1/(median GEMM slowdown under a concurrent collective)");
  else
    tier.processor_usage = assumed("processor_usage");
}

} // namespace

std::string OffloadFit::name() const {
  return fmt::format("{}.{}.{}", direction, host_memory, placement);
}

double bus_factor(const std::string &op, int n) {
  const double r = n < 1 ? 1 : n;
  if (op == "all_reduce")
    return 2.0 * (r - 1) / r;
  if (op == "all_gather" || op == "reduce_scatter" || op == "alltoall")
    return (r - 1) / r;
  return 1.0;
}

AlphaBeta fit_alpha_beta(const std::vector<std::pair<double, double>> &x_t, int folds,
                         std::uint64_t seed, const std::vector<double> *size_of) {
  std::vector<LinearSample> s;
  for (const auto &[x, t] : x_t)
    s.push_back({{1.0, x}, t});
  const auto fit = robust_linear_fit(s);
  AlphaBeta ab;
  ab.alpha_s = fit.coef[0];
  ab.beta_s_per_byte = fit.coef[1];
  ab.quality = linear_quality(s, fit, folds, seed, size_of);
  return ab;
}

Calibration calibrate(const analysis::RunSet &runs, const Assumptions &assumptions,
                      const CalibrateOptions &options) {
  Calibration c;
  c.options = options;
  c.assumptions = assumptions;
  std::set<std::string> ids;
  for (const auto &r : runs.runs) {
    c.runs.push_back(r.dir);
    // Every rank of a run writes its own directory under the run's id (run.json "run", each
    // record's "run"); a directory with neither counts as a run of its own.
    if (r.manifest.is_object() && r.manifest.contains("run") && r.manifest["run"].is_string())
      ids.insert(r.manifest["run"].get<std::string>());
    else if (!r.records.empty())
      for (const auto &rec : r.records)
        ids.insert(rec.run);
    else
      ids.insert(r.dir);
  }
  c.run_ids.assign(ids.begin(), ids.end());
  c.samples = extract_samples(runs);
  for (const auto &[why, count] : c.samples.skipped_by_why)
    c.notes.push_back(
        fmt::format("{} ok record{} not used: {}", count, count == 1 ? "" : "s", why));

  // Memory first: the GEMM fit takes the mem1 term out with this table.
  for (const char *tier : {"hbm", "host"}) {
    std::set<std::string> kinds;
    const auto s = preferred_kinds(c.samples.memory, tier, kinds);
    if (s.empty())
      continue;
    const bool is_mem1 = std::string(tier) == "hbm" ||
                         std::none_of(c.samples.memory.begin(), c.samples.memory.end(),
                                      [](const MemorySample &m) { return m.tier == "hbm"; });
    const auto user_peak = is_mem1 ? assumptions.user("mem1.GBps") : std::nullopt;
    std::string kind_list;
    for (const auto &k : kinds)
      kind_list += (kind_list.empty() ? "" : ", ") + k;
    c.memory_by_tier[tier] =
        fit_memory(fmt::format("memory.{}", tier), s, user_peak, options,
                   s.front().threads > 0
                       ? fmt::format("{} memory.{}_* points ({}; {} threads)", s.size(), tier,
                                     kind_list, s.front().threads)
                       : fmt::format("{} memory.{}_* points ({})", s.size(), tier, kind_list));
    if (is_mem1) {
      if (std::string(tier) == "host")
        c.memory_by_tier[tier].notes.push_back(
            "no HBM records: host DRAM (memory.host_*) stands for mem1, the processor's own "
            "memory, as on a CPU");
      c.mem1 = c.memory_by_tier[tier];
      c.mem1.name = "mem1";
      c.mem1_tier = tier;
    }
  }
  if (c.mem1_tier.empty()) {
    c.mem1 = assumed_table("mem1", "bytes", *assumptions.value("mem1.GBps"),
                           assumptions.table("mem1", "mem1"), kMega);
    c.notes.push_back("no memory records: the mem1 table is assumed, not measured");
  }

  {
    std::vector<OffloadSample> use;
    for (const auto &s : c.samples.offload)
      if ((s.direction == "h2d" || s.direction == "d2h") && s.host_memory == "pinned" &&
          s.placement == "near")
        use.push_back(s);
    if (use.empty()) {
      c.mem2 = assumed_table("mem2", "bytes", *assumptions.value("mem2.GBps"),
                             assumptions.table("mem2", "mem2"), kMega);
      c.notes.push_back("no offload.h2d/d2h records (pinned, near): the mem2 table is assumed");
    } else {
      std::vector<MemorySample> m;
      for (const auto &s : use)
        m.push_back({"offload", s.direction, s.bytes, s.time_s, 0, s.key});
      c.mem2 = fit_memory("mem2", m, assumptions.user("mem2.GBps"), options,
                          fmt::format("{} offload.h2d/d2h points (pinned, near)", m.size()));
      // Calculon has one offload tier; pageable or far copies are slower paths of their own.
      c.mem2.notes.push_back("pinned host memory, near placement only: the fast path; every "
                             "path's α/β is under `offload` in coefficients.json");
    }
  }

  if (auto u = assumptions.user("mem1.GiB"))
    c.mem1_gib = {*u, kUserSource, false};
  else if (const double gib = gpu_memory_gib(runs); c.mem1_tier == "hbm" && gib > 0)
    c.mem1_gib = {gib, "the runs' inventory (NVML's memory total of the smallest GPU)", true};
  else if (const double gib = host_memory_gib(runs); c.mem1_tier == "host" && gib > 0)
    c.mem1_gib = {gib, "the runs' inventory (host memory of the NUMA nodes)", true};
  else
    c.mem1_gib = *assumptions.value("mem1.GiB");
  c.mem2_gib = *assumptions.value("mem2.GiB");

  fit_gemm(c);

  std::map<std::tuple<std::string, std::string, std::string>, std::vector<OffloadSample>> by_path;
  for (const auto &s : c.samples.offload)
    by_path[{s.direction, s.host_memory, s.placement}].push_back(s);
  for (const auto &[path, s] : by_path) {
    OffloadFit f;
    std::tie(f.direction, f.host_memory, f.placement) = path;
    std::vector<std::pair<double, double>> xt;
    std::map<double, std::vector<double>> per_size;
    for (const auto &x : s) {
      xt.emplace_back(x.bytes, x.time_s);
      per_size[x.bytes].push_back(x.time_s);
    }
    f.fit = fit_alpha_beta(xt, options.folds, options.seed);
    f.table = nlohmann::json::array();
    for (const auto &[bytes, times] : per_size)
      f.table.push_back({{"bytes", bytes},
                         {"time_s", median(times)},
                         {"gbytes_per_s", bytes / median(times) / kGiga}});
    c.offload.push_back(f);
  }

  for (int i = 0; i < 2; ++i) {
    NetworkTier t;
    t.index = i;
    t.name = i == 0 ? kScaleUp : kScaleOut;
    fit_tier(c, t);
    if (!t.measured)
      c.notes.push_back(
          fmt::format("no collective records for {}: networks[{}] is assumed", t.name, i));
    c.networks.push_back(t);
  }

  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> p2p;
  for (const auto &s : c.samples.p2p)
    p2p[{s.verb, s.measure}].emplace_back(s.bytes, s.time_s);
  for (const auto &[k, xt] : p2p)
    c.p2p.push_back({k.first, k.second, fit_alpha_beta(xt, options.folds, options.seed)});

  std::vector<double> offload_slowdown;
  for (const auto &o : c.samples.overlap)
    if (o.family == "offload")
      offload_slowdown.push_back(o.gemm_slowdown);
  if (!offload_slowdown.empty()) {
    const double m = median(offload_slowdown);
    c.overlap["offload"] = {{"points", offload_slowdown.size()},
                            {"gemm_slowdown_median", m},
                            {"processor_usage", std::clamp(1.0 - 1.0 / m, 0.0, 0.99)}};
  }
  return c;
}

} // namespace railgauge::calibrate
