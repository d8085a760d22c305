#include "analysis/calibrate/fit_report.h"

#include <fmt/format.h>

#include "analysis/calibrate/coefficient_file.h"
#include "analysis/calibrate/execution_error.h"
#include "analysis/calibrate/provenance.h"
#include "analysis/calibrate/tp_sweep_check.h"

namespace railgauge::calibrate {
namespace {

nlohmann::json entry(const std::string &name, const std::string &model, bool measured,
                     const std::string &source, const std::optional<FitQuality> &q) {
  nlohmann::json e = {{"name", name}, {"model", model}, {"measured", measured}, {"source", source}};
  e["fit"] = q ? to_json(*q) : nlohmann::json(nullptr);
  // The plain per-size error: each measured size once, however often it was measured.
  e["held_out_per_size"] =
      q && q->held_out ? per_size_json(q->held_out->per_point) : nlohmann::json(nullptr);
  return e;
}

const std::vector<PointError> &held_out_points(const FitQuality &q) {
  static const std::vector<PointError> none;
  return q.held_out ? q.held_out->per_point : none;
}

// The uses of one target (matrix, mem1, mem2, network i [op]) by an execution.
std::vector<SizeUse> uses_of(const ExecutionSizes &x, const std::string &target, int network = -1,
                             const std::string &op = "") {
  std::vector<SizeUse> out;
  for (const auto &u : x.uses)
    if (u.target == target && (network < 0 || u.network == network) && (op.empty() || u.op == op))
      out.push_back(u);
  return out;
}

const auto kNoTag = [](const SizeUse &) { return std::string(); };
const auto kOpTag = [](const SizeUse &u) { return u.op; };

// The time of one call at a step table's rate: x / (peak · eff(x)).
std::function<double(const SizeUse &)> table_time(const TableFit &t, double unit) {
  return [&t, unit](const SizeUse &u) {
    return u.x / (t.peak.value * unit * t.table.efficiency(u.x));
  };
}

// Calculon's network time from the values written: latency + S·scalar·(1 + offset/n)/(bw·eff).
std::function<double(const SizeUse &)> network_time(const NetworkTier &n) {
  return [&n](const SizeUse &u) {
    const auto it = n.calculon_ops.find(u.op);
    if (it == n.calculon_ops.end())
      return 0.0;
    const double offset = it->second.second.value_or(0.0);
    const double bytes = u.x * it->second.first * (1 + offset / std::max(u.peers, 1));
    return n.latency_s.value + bytes / (n.bandwidth_gbytes_per_s.value * 1e9 * n.efficiency.value);
  };
}

void add_execution(nlohmann::json &e, const FitQuality &q, const std::vector<SizeUse> &uses,
                   const std::function<double(const SizeUse &)> &time_of,
                   const std::function<std::string(const SizeUse &)> &tag_of) {
  if (!q.held_out)
    return;
  e["execution"] = uses.empty()
                       ? nlohmann::json({{"uses", 0}})
                       : to_json(execution_error(held_out_points(q), uses, time_of, tag_of));
}

nlohmann::json execution_json(const ExecutionSizes &x) {
  std::map<std::string, std::pair<std::size_t, double>> by_target;
  for (const auto &u : x.uses) {
    const std::string k =
        u.target == "network" ? fmt::format("networks[{}].{}", u.network, u.op) : u.target;
    auto &[n, calls] = by_target[k];
    ++n;
    calls += u.calls;
  }
  nlohmann::json targets = nlohmann::json::object();
  for (const auto &[k, v] : by_target)
    targets[k] = {{"sizes", v.first}, {"calls", v.second}};
  const auto &e = x.execution;
  return {{"model", x.model.name},
          {"execution", e.name},
          {"tensor_par", e.tensor_par},
          {"pipeline_par", e.pipeline_par},
          {"data_par", e.data_par},
          {"networks",
           {{"tensor_par", e.tensor_par_net},
            {"pipeline_par", e.pipeline_par_net},
            {"data_par", e.data_par_net}}},
          {"microbatch_size", e.microbatch_size},
          {"seq_size", x.model.seq_size},
          {"hidden", x.model.hidden},
          {"tensor_par_comm_type", e.tensor_par_comm_type},
          {"activation_recompute", e.activation_recompute},
          {"datatype", e.datatype},
          {"uses", targets},
          {"notes", x.notes}};
}

nlohmann::json table_entry(const TableFit &t, const std::string &model) {
  auto e = entry(t.name, model, t.measured, t.source,
                 t.measured ? std::optional(t.quality) : std::nullopt);
  e["steps"] = t.steps;
  e["peak"] = to_json(t.peak);
  e["notes"] = t.notes;
  return e;
}

std::string percent(const nlohmann::json &v) {
  return v.is_number() ? fmt::format("{:.2f}%", 100 * v.get<double>()) : "-";
}

std::string error_cells(const nlohmann::json &e) {
  return e.is_object() ? fmt::format("{} | {}", percent(e["mean_rel"]), percent(e["max_rel"]))
                       : "- | -";
}

std::string tp_sweep_markdown(const nlohmann::json &sweeps) {
  if (sweeps.empty())
    return "";
  std::string md =
      "\n## Model GEMMs under tensor parallelism\n\nThe time the fitted matrix table implies "
      "for each GEMM of the block (Calculon's t = F/(peak·eff(F)) + mem1 term) against the "
      "measured time. In-sample: the table written (it saw these points). Leave-t-out: a table "
      "with the same step count fitted without this model's GEMMs at this t. GEMM sum: Σ t over "
      "the block's GEMM records (a record's time is one call, all its GEMMs), never a measured "
      "block: a block run's own time is under \"A block predicted\".\n";
  for (const auto &s : sweeps) {
    md += fmt::format("\n### {} {}: per GEMM in-sample {} (mean | max), leave-t-out {}\n\n",
                      s["model"].get<std::string>(), s["dtype"].get<std::string>(),
                      error_cells(s["in_sample"]), error_cells(s["leave_t_out"]));
    md += "| t | GEMMs | in-sample mean | in-sample max | leave-t-out mean | leave-t-out max | "
          "GEMM sum measured | GEMM sum predicted | GEMM sum error | GEMM sum leave-t-out error "
          "|\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto &d : s["degrees"])
      md += fmt::format(
          "| {} | {} | {} | {} | {:.6g} s | {:.6g} s | {} | {} |\n", d["tp"].get<int>(),
          d["gemms"].get<std::size_t>(), error_cells(d["in_sample"]), error_cells(d["leave_t_out"]),
          d["gemm_sum_measured_s"].get<double>(), d["gemm_sum_predicted_s"].get<double>(),
          percent(d["gemm_sum_in_sample_rel"]), percent(d["gemm_sum_leave_t_out_rel"]));
  }
  return md;
}

nlohmann::json decomposition_json(const NetworkTier &n) {
  const auto &d = *n.decomposition;
  return {{"tier", n.name},
          {"index", n.index},
          {"algorithm", "ring"},
          {"op", d.op},
          {"ranks", d.ranks},
          {"nodes", d.nodes},
          {"gpus_per_node", d.gpus_per_node},
          {"runs", d.runs},
          {"bus_gbytes_per_s", d.bus_gbytes_per_s},
          {"fabric_gbytes_per_s_per_gpu", d.fabric_gbytes_per_s_per_gpu},
          {"intra_node",
           {{"bus_gbytes_per_s", d.intra.bus_gbytes_per_s},
            {"step_latency_s", d.intra.step_latency_s},
            {"op", d.intra.op},
            {"measured", d.intra.measured},
            {"source", d.intra.source}}},
          {"nvlink_load", d.nvlink_load},
          {"fabric_bound", d.fabric_bound},
          {"nvls_tree_gbytes_per_s_per_gpu", d.nvls_tree_gbytes_per_s_per_gpu},
          {"alpha_s", d.alpha_s},
          {"intra_latency_s", d.intra_latency_s},
          {"latency_split", d.latency_split},
          {"latency_s", d.latency_s}};
}

std::string decomposition_markdown(const nlohmann::json &all) {
  if (all.empty())
    return "";
  std::string md =
      "\n## Network tiers taken apart\n\nA collective over several nodes crosses NVLink and the "
      "fabric at once; its busbw is neither. NCCL's ring sends a node's bus bytes through its "
      "NICs, 1/g per GPU, and (g-1)/g of them over NVLink, at the rate of the slower hop: the "
      "tier's bandwidth is 1/β per byte through one GPU's share of the NICs. NVLink load: the "
      "NVLink rate the ring needed at that fabric rate, over the intra-node figure (at 90% or "
      "more the run may be bound inside the node).\n\n| tier | op | nodes × GPUs | runs | busbw | "
      "per-GPU fabric | intra-node figure | NVLink load | α | latency written "
      "|\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto &d : all) {
    const auto &intra = d["intra_node"];
    md += fmt::format(
        "| networks[{}] {} | {} | {} × {} | {} | {:.4g} GB/s | {:.4g} GB/s{} | {:.4g} GB/s ({}) "
        "| {:.0f}% | {:.4g} µs | {:.4g} µs{} |\n",
        d["index"].get<int>(), d["tier"].get<std::string>(), d["op"].get<std::string>(),
        d["nodes"].get<int>(), d["gpus_per_node"].get<int>(),
        fmt::join(d["runs"].get<std::vector<std::string>>(), ", "),
        d["bus_gbytes_per_s"].get<double>(), d["fabric_gbytes_per_s_per_gpu"].get<double>(),
        d["fabric_bound"].get<bool>() ? "" : " (**not fabric-bound**)",
        intra["bus_gbytes_per_s"].get<double>(), intra["source"].get<std::string>(),
        100 * d["nvlink_load"].get<double>(), 1e6 * d["alpha_s"].get<double>(),
        1e6 * d["latency_s"].get<double>(),
        d["latency_split"].get<bool>() ? " (less the intra-node steps)" : " (all of α: not split)");
  }
  return md;
}

// What was not measured, first: each value, what it is and where it came from; another GPU's
// figures are counted in the heading.
std::string not_measured_markdown(const nlohmann::json &values) {
  if (values.empty())
    return "Every value written was measured in the runs read.\n\n";
  std::size_t borrowed = 0;
  for (const auto &a : values)
    borrowed += a.value("origin", std::string()) == "borrowed";
  std::string md = fmt::format(
      "## Not measured: {} value{}{}\n\n| value | = | origin | source |\n|---|---|---|---|\n",
      values.size(), values.size() == 1 ? "" : "s",
      borrowed > 0 ? fmt::format(", {} borrowed from another GPU's file", borrowed) : "");
  for (const auto &a : values) {
    const auto &v = a["value"];
    md += fmt::format("| {} | {} | {} | {} |\n", a["name"].get<std::string>(),
                      v.is_number() ? fmt::format("{:.6g}", v.get<double>())
                                    : fmt::format("table of {} rows", v.size()),
                      a.value("origin", std::string("?")), a["source"].get<std::string>());
  }
  return md + "\n";
}

} // namespace

nlohmann::json fit_report_json(const Calibration &c, const ExecutionSizes *x) {
  nlohmann::json sets = nlohmann::json::array();
  const std::string step = "step table, Calculon per-op time";
  for (const auto &[dt, t] : c.gemm_by_dtype) {
    sets.push_back(table_entry(t, c.options.mode == ProcessingMode::no_overlap
                                      ? "t = F/(peak·eff(F)) + mem1 time (no_overlap)"
                                      : "t = F/(peak·eff(F))"));
    // Every dtype's table is read at the execution's GEMM FLOPs: the shapes do not depend on it.
    if (x)
      add_execution(sets.back(), t.quality, uses_of(*x, "matrix"), table_time(t, 1e12), kNoTag);
  }
  for (const auto &[dt, t] : c.matrix)
    if (!t.measured)
      sets.push_back(table_entry(t, step));
  for (const auto &[dt, t] : c.vector)
    sets.push_back(table_entry(t, step));
  for (const auto &[tier, t] : c.memory_by_tier) {
    sets.push_back(table_entry(t, "t = B/(peak·eff(B))"));
    if (x && tier == c.mem1_tier)
      add_execution(sets.back(), t.quality, uses_of(*x, "mem1"), table_time(t, 1e9), kNoTag);
  }
  if (c.mem1_tier.empty())
    sets.push_back(table_entry(c.mem1, step));
  sets.push_back(table_entry(c.mem2, "t = B/(peak·eff(B))"));
  if (x && c.mem2.measured)
    add_execution(sets.back(), c.mem2.quality, uses_of(*x, "mem2"), table_time(c.mem2, 1e9),
                  kNoTag);
  for (const auto &o : c.offload) {
    sets.push_back(entry("offload." + o.name(), "t = α + β·B", true, "measured", o.fit.quality));
    if (x)
      add_execution(
          sets.back(), o.fit.quality, uses_of(*x, "mem2"),
          [&o](const SizeUse &u) { return o.fit.alpha_s + o.fit.beta_s_per_byte * u.x; }, kNoTag);
  }
  for (const auto &n : c.networks) {
    for (const auto &[op, f] : n.ops)
      if (f.fit.quality.points > 0) {
        sets.push_back(entry(fmt::format("{}.{}", n.name, op), "t = α + β·S·busfactor(n)", true,
                             "measured", f.fit.quality));
        if (x)
          add_execution(sets.back(), f.fit.quality, uses_of(*x, "network", n.index, op),
                        network_time(n), kNoTag);
      }
    // Measured for the ops it was fitted on; the others are named as assumed.
    std::string assumed_ops;
    for (const auto &[op, source] : n.calculon_op_source)
      if (!source.starts_with("measured"))
        assumed_ops += (assumed_ops.empty() ? "" : ", ") + op;
    std::string source = !n.measured           ? n.bandwidth_gbytes_per_s.source
                         : assumed_ops.empty() ? std::string("measured")
                                               : "measured; assumed ops: " + assumed_ops;
    if (n.decomposition)
      source += fmt::format("; taken apart: per-GPU fabric bytes of a ring over {} nodes × {} "
                            "GPUs (Network tiers taken apart)",
                            n.decomposition->nodes, n.decomposition->gpus_per_node);
    sets.push_back(entry(fmt::format("networks[{}] {}", n.index, n.name),
                         n.decomposition ? "Calculon: t = latency + F·scalar/(bandwidth·efficiency)"
                                           ", F = fabric bytes per GPU"
                                         : "Calculon: t = latency + "
                                           "S·scalar·(1+offset/n)/(bandwidth·efficiency)",
                         n.measured, source, n.joint_quality));
    // Each op the execution runs on this tier is read from that op's points of the joint fit.
    if (x && n.measured && n.joint_quality)
      add_execution(sets.back(), *n.joint_quality, uses_of(*x, "network", n.index), network_time(n),
                    kOpTag);
  }
  for (const auto &p : c.p2p)
    sets.push_back(entry(fmt::format("rdma.{}.{}", p.verb, p.measure), "t = α + β·B", true,
                         "measured", p.fit.quality));

  nlohmann::json assumed = nlohmann::json::array();
  for (const auto &v : unmeasured_values(c))
    assumed.push_back(
        {{"name", v.name}, {"value", v.value}, {"source", v.source}, {"origin", v.origin}});
  nlohmann::json decompositions = nlohmann::json::array();
  for (const auto &n : c.networks)
    if (n.decomposition)
      decompositions.push_back(decomposition_json(n));
  nlohmann::json sweeps = nlohmann::json::array();
  for (const auto &check : check_tp_sweeps(c))
    sweeps.push_back(to_json(check));
  nlohmann::json report = {{"schema", "railgauge.fit_report/1"},
                           {"runs", c.runs},
                           {"run_ids", c.run_ids},
                           {"folds", c.options.folds},
                           {"coefficient_sets", sets},
                           {"not_measured", assumed},
                           {"decomposed_tiers", decompositions},
                           {"tp_sweeps", sweeps},
                           {"notes", c.notes},
                           {"records_used", c.samples.used_by_key},
                           {"records_skipped", c.samples.skipped.size()}};
  report["execution"] = x ? execution_json(*x) : nlohmann::json(nullptr);
  return report;
}

std::string fit_report_markdown(const nlohmann::json &r) {
  std::string md = "# Calibration fit report\n\n" + not_measured_markdown(r["not_measured"]);
  // A run of N ranks is N directories (one per rank) and one run.
  const std::size_t dirs = r["runs"].size();
  const std::size_t runs = r.contains("run_ids") ? r["run_ids"].size() : dirs;
  md += fmt::format("Runs: {}{}. Error = |t_model - t_measured| / t_measured per point; held out "
                    "= {}-fold (each point predicted by a fit that did not see it).\n\n",
                    runs, runs == dirs ? "" : fmt::format(" ({} directories)", dirs),
                    r["folds"].get<int>());
  const bool exe = r.contains("execution") && r["execution"].is_object();
  md += "| coefficient set | measured | points | steps | held-out mean | held-out max | "
        "held-out per size |";
  md += exe ? " execution-weighted | outside measured sizes |" : "";
  md += " in-sample mean | in-sample max | source |\n|---|---|---|---|---|---|---|";
  md += exe ? "---|---|" : "";
  md += "---|---|---|\n";
  for (const auto &s : r["coefficient_sets"]) {
    const auto &f = s["fit"];
    const bool has = f.is_object();
    const bool held = has && f["held_out"].is_object();
    const auto per_size = s.value("held_out_per_size", nlohmann::json(nullptr));
    std::string exe_cells;
    if (exe) {
      const auto x = s.value("execution", nlohmann::json(nullptr));
      if (!x.is_object())
        exe_cells = " - | - |";
      else if (x["uses"].get<std::size_t>() == 0)
        exe_cells = " not used | - |";
      else
        exe_cells = fmt::format(
            " {} | {}{} |", percent(x["weighted_mean_rel"]),
            percent(x["share_outside_measured_sizes"]),
            x["share_on_unmeasured_ops"].get<double>() > 0
                ? fmt::format(" (+{} on unmeasured ops)", percent(x["share_on_unmeasured_ops"]))
                : "");
    }
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} |{} {} | {} | {} |\n", s["name"].get<std::string>(),
        s["measured"].get<bool>() ? "yes" : "**no**",
        has ? std::to_string(f["points"].get<std::size_t>()) : "-",
        s.contains("steps") ? std::to_string(s["steps"].get<int>()) : "-",
        held ? percent(f["held_out"]["mean_rel"]) : "-",
        held ? percent(f["held_out"]["max_rel"]) : "-",
        per_size.is_object() ? fmt::format("{} ({} sizes)", percent(per_size["mean_rel"]),
                                           per_size["sizes"].get<std::size_t>())
                             : "-",
        exe_cells, has ? percent(f["in_sample"]["mean_rel"]) : "-",
        has ? percent(f["in_sample"]["max_rel"]) : "-", s["source"].get<std::string>());
  }
  if (exe) {
    const auto &x = r["execution"];
    md += fmt::format(
        "\nExecution-weighted: the held-out error per size read at the sizes Calculon's layer "
        "model asks for under {} on {} (TP {} on networks[{}], PP {} on networks[{}], DP {} on "
        "networks[{}]; microbatch {}, seq {}, hidden {}, {}, recompute {}, {}), interpolated in "
        "log size between the nearest measured sizes, each weighted by its calls per batch × "
        "the time the written coefficients give it. Outside measured sizes: the share of that "
        "weight beyond the measured range (read at its nearest end).\n",
        x["execution"].get<std::string>(), x["model"].get<std::string>(),
        x["tensor_par"].get<std::int64_t>(), x["networks"]["tensor_par"].get<int>(),
        x["pipeline_par"].get<std::int64_t>(), x["networks"]["pipeline_par"].get<int>(),
        x["data_par"].get<std::int64_t>(), x["networks"]["data_par"].get<int>(),
        x["microbatch_size"].get<std::int64_t>(), x["seq_size"].get<std::int64_t>(),
        x["hidden"].get<std::int64_t>(), x["tensor_par_comm_type"].get<std::string>(),
        x["activation_recompute"].get<std::string>(), x["datatype"].get<std::string>());
    for (const auto &n : x["notes"])
      md += "- " + n.get<std::string>() + "\n";
  }
  if (r.contains("decomposed_tiers"))
    md += decomposition_markdown(r["decomposed_tiers"]);
  if (r.contains("tp_sweeps"))
    md += tp_sweep_markdown(r["tp_sweeps"]);
  // The run's notes, then each coefficient set's own (what its fit left out and why).
  std::string notes;
  for (const auto &n : r["notes"])
    notes += "- " + n.get<std::string>() + "\n";
  for (const auto &set : r["coefficient_sets"])
    if (set.contains("notes") && set["notes"].is_array())
      for (const auto &n : set["notes"])
        notes +=
            fmt::format("- {}: {}\n", set.value("name", std::string("?")), n.get<std::string>());
  if (!notes.empty())
    md += "\n## Notes\n\n" + notes;
  return md;
}

} // namespace railgauge::calibrate
