#include "analysis/calibrate/coefficient_file.h"

#include "harness/record.h"

namespace railgauge::calibrate {
namespace {

nlohmann::json table_json(const TableFit &t) {
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json intervals = nlohmann::json::array();
  for (std::size_t r = 0; r < t.table.rows.size(); ++r) {
    rows.push_back({t.table.rows[r].first, t.table.rows[r].second});
    intervals.push_back(to_json(r < t.row_intervals.size() ? t.row_intervals[r] : std::nullopt));
  }
  return {{"name", t.name},
          {"x_unit", t.x_unit},
          {"peak", to_json(t.peak)},
          {"measured", t.measured},
          {"source", t.source},
          {"origin", t.measured ? std::string("measured") : origin_of_source(t.source, false)},
          {"rows", rows},
          // Of each row's efficiency, in row order; null where a row had under two points or
          // the table was assumed.
          {"row_intervals", intervals},
          {"steps", t.steps},
          {"fit", to_json(t.quality)},
          {"notes", t.notes}};
}

nlohmann::json alpha_beta_json(const AlphaBeta &f) {
  return {{"alpha_s", f.alpha_s},
          {"beta_s_per_byte", f.beta_s_per_byte},
          {"alpha_s_interval", to_json(f.alpha_interval)},
          {"beta_s_per_byte_interval", to_json(f.beta_interval)},
          {"gbytes_per_s", f.beta_s_per_byte > 0 ? nlohmann::json(1.0 / f.beta_s_per_byte / 1e9)
                                                 : nlohmann::json(nullptr)},
          {"fit", to_json(f.quality)}};
}

nlohmann::json joint_beta_intervals(const NetworkTier &n) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto &[op, interval] : n.joint_beta_interval)
    out[op] = to_json(interval);
  return out;
}

nlohmann::json gemm_shape_json(const GemmShapeRow &r) {
  const auto &g = r.sample;
  return {{"key", g.key},
          {"op", g.op},
          {"model", g.model},
          {"layer", g.layer},
          {"pass", g.pass},
          {"tp", g.tp},
          {"m", g.m},
          {"n", g.n},
          {"k", g.k},
          {"batch", g.batch},
          {"flops", g.flops},
          {"gemm_count", g.count},
          {"bytes", g.bytes},
          {"bytes_per_call", g.bytes_per_call},
          {"time_s", g.time_s},
          {"tflops", r.tflops},
          {"efficiency", r.efficiency},
          {"memory_s", r.memory_s},
          {"compute_efficiency", r.compute_efficiency}};
}

nlohmann::json network_json(const NetworkTier &n) {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto &[op, f] : n.ops) {
    auto e = alpha_beta_json(f.fit);
    e["table"] = f.table;
    e["single_rank_points"] = f.single_rank_samples;
    ops[op] = e;
  }
  nlohmann::json calculon_ops = nlohmann::json::object();
  for (const auto &[op, so] : n.calculon_ops)
    calculon_ops[op] = {
        {"scalar", so.first},
        {"offset", so.second ? nlohmann::json(*so.second) : nlohmann::json(nullptr)},
        {"source", n.calculon_op_source.at(op)}};
  nlohmann::json joint = nullptr;
  if (n.joint_quality)
    joint = {{"alpha_s", n.joint_alpha_s},
             {"beta_s_per_byte", n.joint_beta_s_per_byte},
             {"alpha_s_interval", to_json(n.joint_alpha_interval)},
             {"beta_s_per_byte_interval", joint_beta_intervals(n)},
             {"fit", to_json(*n.joint_quality)}};
  return {{"index", n.index},
          {"measured", n.measured},
          {"ops", ops},
          {"joint", joint},
          // On a tier taken apart every β (per op and joint) is per byte through one GPU's share
          // of its node's NICs, not per bus byte.
          {"beta_per", n.decomposition ? "fabric byte per GPU" : "bus byte"},
          {"bandwidth_gbytes_per_s", to_json(n.bandwidth_gbytes_per_s)},
          {"efficiency", to_json(n.efficiency)},
          {"size", to_json(n.size)},
          {"latency_s", to_json(n.latency_s)},
          {"processor_usage", to_json(n.processor_usage)},
          {"must_be_filled", n.must_be_filled},
          {"calculon_ops", calculon_ops}};
}

} // namespace

nlohmann::json to_json(const HeldOutError &e) {
  return {
      {"folds", e.folds}, {"points", e.points}, {"mean_rel", e.mean_rel}, {"max_rel", e.max_rel}};
}

nlohmann::json to_json(const FitQuality &q) {
  return {{"points", q.points},
          {"held_out", q.held_out ? to_json(*q.held_out) : nlohmann::json(nullptr)},
          {"in_sample", to_json(q.in_sample)}};
}

nlohmann::json to_json(const Sourced &s) {
  return {
      {"value", s.value}, {"source", s.source}, {"measured", s.measured}, {"origin", origin_of(s)}};
}

nlohmann::json coefficient_file(const Calibration &c) {
  nlohmann::json j;
  j["schema"] = kCoefficientSchema;
  j["created_utc"] = utc_timestamp_now();
  j["runs"] = c.runs;
  j["processing_mode"] = c.options.mode == ProcessingMode::no_overlap ? "no_overlap" : "roofline";

  j["gemm"] = nlohmann::json::object();
  for (const auto &[dtype, t] : c.gemm_by_dtype) {
    nlohmann::json shapes = nlohmann::json::array();
    for (const auto &r : c.gemm_shapes.at(dtype))
      shapes.push_back(gemm_shape_json(r));
    j["gemm"][dtype] = {{"by_flops", table_json(t)}, {"by_shape", shapes}};
  }

  j["memory"] = nlohmann::json::object();
  for (const auto &[tier, t] : c.memory_by_tier)
    j["memory"][tier] = table_json(t);
  j["calculon_tables"] = nlohmann::json::object();
  for (const auto &[dt, t] : c.matrix)
    j["calculon_tables"]["matrix." + dt] = table_json(t);
  for (const auto &[dt, t] : c.vector)
    j["calculon_tables"]["vector." + dt] = table_json(t);
  j["calculon_tables"]["mem1"] = table_json(c.mem1);
  j["calculon_tables"]["mem2"] = table_json(c.mem2);
  j["mem1_stands_for"] =
      c.mem1_tier.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.mem1_tier);
  j["mem1_gib"] = to_json(c.mem1_gib);
  j["mem2_gib"] = to_json(c.mem2_gib);

  j["offload"] = nlohmann::json::object();
  for (const auto &o : c.offload) {
    auto e = alpha_beta_json(o.fit);
    e["direction"] = o.direction;
    e["host_memory"] = o.host_memory;
    e["placement"] = o.placement;
    e["table"] = o.table;
    j["offload"][o.name()] = e;
  }

  j["network"] = nlohmann::json::object();
  for (const auto &n : c.networks)
    j["network"][n.name] = network_json(n);

  j["rdma"] = nlohmann::json::object();
  for (const auto &p : c.p2p)
    j["rdma"][p.verb][p.measure] = alpha_beta_json(p.fit);
  j["overlap"] = c.overlap;

  j["assumptions"] = nlohmann::json::object();
  for (const auto &[k, v] : c.assumptions.given())
    j["assumptions"][k] = v;
  j["notes"] = c.notes;
  j["records"] = {{"used_by_key", c.samples.used_by_key},
                  {"not_ok", c.samples.ignored_status},
                  {"rank_duplicates", c.samples.duplicates_by_key},
                  {"skipped", c.samples.skipped}};
  return j;
}

} // namespace railgauge::calibrate
