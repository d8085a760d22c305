#include "analysis/calibrate/provenance.h"

#include <fmt/format.h>

#include "analysis/calibrate/si_prefixes.h"

namespace railgauge::calibrate {
namespace {

// A table's rows in Calculon's unit (GFLOP or MB).
nlohmann::json calculon_rows(const TableFit &t) {
  const double unit = t.x_unit == "flops" ? kGiga : kMega;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto &[x, e] : t.table.rows)
    rows.push_back({x / unit, e});
  return rows;
}

} // namespace

std::vector<UnmeasuredValue> unmeasured_values(const Calibration &c) {
  std::vector<UnmeasuredValue> out;
  const auto add = [&](const std::string &name, const Sourced &s) {
    if (!s.measured)
      out.push_back({name, s.value, s.source, origin_of(s)});
  };
  const auto add_table = [&](const std::string &name, const TableFit &t) {
    if (!t.measured)
      out.push_back({name, calculon_rows(t), t.source, origin_of_source(t.source, false)});
  };
  for (const auto &[dt, t] : c.matrix)
    add("matrix." + dt + ".tflops", t.peak);
  for (const auto &[dt, t] : c.vector)
    add("vector." + dt + ".tflops", t.peak);
  add("mem1.GBps", c.mem1.peak);
  add("mem1.GiB", c.mem1_gib);
  add("mem2.GBps", c.mem2.peak);
  add("mem2.GiB", c.mem2_gib);
  for (const auto &[dt, t] : c.matrix)
    add_table("matrix." + dt + ".efficiency", t);
  for (const auto &[dt, t] : c.vector)
    add_table("vector." + dt + ".efficiency", t);
  add_table("mem1.efficiency", c.mem1);
  add_table("mem2.efficiency", c.mem2);
  for (const auto &n : c.networks) {
    const std::string p = fmt::format("networks.{}.", n.index);
    add(p + "bandwidth", n.bandwidth_gbytes_per_s);
    add(p + "efficiency", n.efficiency);
    add(p + "size", n.size);
    add(p + "latency", n.latency_s);
    add(p + "processor_usage", n.processor_usage);
    for (const auto &[op, source] : n.calculon_op_source)
      if (!source.starts_with("measured") && n.calculon_ops.count(op))
        out.push_back({fmt::format("networks.{}.{}.scalar", n.index, op),
                       n.calculon_ops.at(op).first, source, origin_of_source(source, false)});
  }
  return out;
}

std::vector<UnmeasuredValue> borrowed_values(const Calibration &c) {
  std::vector<UnmeasuredValue> out;
  for (auto &v : unmeasured_values(c))
    if (v.origin == "borrowed")
      out.push_back(std::move(v));
  return out;
}

} // namespace railgauge::calibrate
