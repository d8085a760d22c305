#include "analysis/calibrate/calibration.h"

#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/calibrate/gemm_fit.h"
#include "analysis/calibrate/gpu_spec.h"
#include "analysis/calibrate/linear_quality.h"
#include "analysis/calibrate/memory_capacity.h"
#include "analysis/calibrate/memory_fit.h"
#include "analysis/calibrate/network_tier_fit.h"
#include "analysis/calibrate/processor_usage.h"
#include "analysis/calibrate/si_prefixes.h"
#include "harness/run_fields.h"
#include "harness/stats.h"

namespace railgauge::calibrate {
namespace {

// c.runs (the directories read) and c.run_ids (the distinct runs among them).
void read_runs(Calibration &c, const analysis::RunSet &runs) {
  std::set<std::string> ids;
  for (const auto &r : runs.runs) {
    c.runs.push_back(r.dir);
    // Every rank of a run writes its own directory under the run's id (run.json "run", each
    // record's "run"); a directory with neither counts as a run of its own.
    if (r.manifest.is_object() && r.manifest.contains(run_field::kRun) &&
        r.manifest[run_field::kRun].is_string())
      ids.insert(r.manifest[run_field::kRun].get<std::string>());
    else if (!r.records.empty())
      for (const auto &rec : r.records)
        ids.insert(rec.run);
    else
      ids.insert(r.dir);
  }
  c.run_ids.assign(ids.begin(), ids.end());
}

// The capacities of mem1 and mem2: given, else the runs' inventory, else assumed.
void fit_capacities(Calibration &c, const analysis::RunSet &runs) {
  if (auto u = c.assumptions.user("mem1.GiB"))
    c.mem1_gib = {*u, kUserSource, false};
  else if (const double gib = gpu_memory_gib(runs); c.mem1_tier == "hbm" && gib > 0)
    c.mem1_gib = {gib, "the runs' inventory (NVML's memory total of the smallest GPU)", true};
  else if (const double gib = host_memory_gib(runs); c.mem1_tier == "host" && gib > 0)
    c.mem1_gib = {gib, "the runs' inventory (host memory of the NUMA nodes)", true};
  else
    c.mem1_gib = *c.assumptions.value("mem1.GiB");
  // Calculon's mem2 is the offload tier: on a GPU node, the host's memory.
  if (auto u = c.assumptions.user("mem2.GiB"))
    c.mem2_gib = {*u, kUserSource, false};
  else if (const double gib = host_memory_gib(runs); c.mem1_tier == "hbm" && gib > 0)
    c.mem2_gib = {gib, "the runs' inventory (host memory of the NUMA nodes)", true};
  else
    c.mem2_gib = *c.assumptions.value("mem2.GiB");
}

// One α-β fit and size table per offload path (direction, host memory, placement).
void fit_offload_paths(Calibration &c) {
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
    f.fit = fit_alpha_beta(xt, c.options.folds, c.options.seed);
    f.table = nlohmann::json::array();
    for (const auto &[bytes, times] : per_size)
      f.table.push_back({{"bytes", bytes},
                         {"time_s", median(times)},
                         {"gbytes_per_s", bytes / median(times) / kGiga}});
    c.offload.push_back(f);
  }
}

// networks[0] (scale_up) and networks[1] (scale_out).
void fit_networks(Calibration &c) {
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
}

// One α-β fit per RDMA verb and measure.
void fit_p2p(Calibration &c) {
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> p2p;
  for (const auto &s : c.samples.p2p)
    p2p[{s.verb, s.measure}].emplace_back(s.bytes, s.time_s);
  for (const auto &[k, xt] : p2p)
    c.p2p.push_back({k.first, k.second, fit_alpha_beta(xt, c.options.folds, c.options.seed)});
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
  const auto intervals = linear_fit_intervals(s, seed);
  ab.alpha_interval = intervals[0];
  ab.beta_interval = intervals[1];
  return ab;
}

Calibration calibrate(const analysis::RunSet &runs, const Assumptions &assumptions,
                      const CalibrateOptions &options) {
  Calibration c;
  c.options = options;
  c.assumptions = assumptions;
  // Unmeasured values of a GPU with a spec table come from it, not from another GPU's file.
  if (c.assumptions.spec() == nullptr)
    c.assumptions.use_spec(gpu_spec_of(runs));
  read_runs(c, runs);
  c.samples = extract_samples(runs);
  for (const auto &[why, count] : c.samples.skipped_by_why)
    c.notes.push_back(
        fmt::format("{} ok record{} not used: {}", count, count == 1 ? "" : "s", why));
  // Memory first: the GEMM fit takes the mem1 term out with this table.
  fit_memory_tables(c);
  fit_mem2(c);
  fit_capacities(c, runs);
  fit_gemm(c);
  fit_offload_paths(c);
  fit_networks(c);
  fit_p2p(c);
  fit_offload_overlap(c);
  return c;
}

} // namespace railgauge::calibrate
