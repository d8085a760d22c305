#include "analysis/calibrate/calculon_system.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::calibrate {
namespace {

// v to `digits` significant digits; v itself when the scale would overflow (subnormal or huge
// values), so that rounding never turns a finite number into inf or NaN.
double round_sig(double v, int digits) {
  if (v == 0 || !std::isfinite(v))
    return v;
  const double scale =
      std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(v)))));
  const double r = std::round(v * scale) / scale;
  return std::isfinite(scale) && std::isfinite(r) ? r : v;
}

// A number the Calculon file needs finite and positive; degenerate runs (a time of 1e-300 s, a
// rate that overflows) give inf, NaN or 0 here, and the user is told which coefficient and
// where it came from instead of receiving a file Calculon would reject.
double checked_number(double v, bool positive, const std::string &name, const std::string &source) {
  if (!std::isfinite(v) || (positive ? !(v > 0) : v < 0))
    throw InputError(fmt::format("the calibrated {} is {}, not a {} finite number", name, v,
                                 positive ? "positive" : "non-negative"),
                     fmt::format("calibrate ({})", source),
                     "check the records behind it (time_s, flops_per_call, bytes_per_call, "
                     "size_bytes) or give the value with --assume");
  return v;
}
double positive_finite(double v, const std::string &name, const std::string &source) {
  return checked_number(v, true, name, source);
}

// Rows in Calculon's unit (GFLOP or MB): thresholds to 6 significant digits, efficiencies to 4.
// Two thresholds closer than 6 digits can round to one value; Calculon's lookup takes the first
// row whose threshold x reaches, so the later of two equal rows is never used and is dropped
// (likewise a threshold that overflows the unit). The last row's threshold stays 0.
nlohmann::json rows(const TableFit &t, double unit) {
  nlohmann::json out = nlohmann::json::array();
  double previous = INFINITY;
  for (const auto &[x, e] : t.table.rows) {
    const double threshold = round_sig(x / unit, 6);
    if (!(threshold < previous))
      continue;
    if (std::isnan(e))
      throw InputError(
          fmt::format("the {} table has no efficiency above {} {}", t.name, x, t.x_unit),
          fmt::format("calibrate ({})", t.source),
          "check the records behind it, or give the table with --assume");
    out.push_back({threshold, std::clamp(round_sig(e, 4), kMinEfficiency, 1.0)});
    previous = threshold;
  }
  return out;
}

const std::set<std::string> kDatatypes = {"float8", "float16", "bfloat16", "float32"};
const std::set<std::string> kNetworkKeys = {
    "bandwidth", "efficiency", "size", "latency", "ops", "must_be_filled", "processor_usage"};
const std::set<std::string> kOps = {"p2p", "reduce_scatter", "all_gather", "all_reduce"};

void check_rows(const nlohmann::json &r, const std::string &where,
                std::vector<std::string> &problems) {
  if (!r.is_array() || r.empty()) {
    problems.push_back(where + ": not a non-empty list of [threshold, efficiency] rows");
    return;
  }
  double previous = INFINITY;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", where, i);
    const auto &row = r[i];
    if (!row.is_array() || row.size() != 2 || !row[0].is_number() || !row[1].is_number()) {
      problems.push_back(at + ": not a [threshold, efficiency] pair of numbers");
      continue;
    }
    const double x = row[0].get<double>(), e = row[1].get<double>();
    if (!(x < previous))
      problems.push_back(at + ": threshold not strictly below the row above");
    if (x < 0)
      problems.push_back(at + ": negative threshold");
    if (!(e > 0 && e <= 1))
      problems.push_back(at + ": efficiency outside (0, 1]");
    previous = x;
  }
  const auto &last = r.back();
  if (last.is_array() && last.size() == 2 && last[0].is_number() && last[0].get<double>() != 0)
    problems.push_back(where +
                       ": the last row's threshold is not 0 (small ops would hit an assert)");
}

void check_compute(const nlohmann::json &s, const char *family, std::vector<std::string> &p) {
  if (!s.contains(family) || !s[family].is_object() || s[family].empty()) {
    p.push_back(fmt::format("{}: missing or empty", family));
    return;
  }
  for (const auto &[dt, v] : s[family].items()) {
    const std::string at = fmt::format("{}.{}", family, dt);
    if (!kDatatypes.count(dt))
      p.push_back(at + ": not one of Calculon's datatypes float8, float16, bfloat16, float32");
    if (!v.is_object() || !v.contains("tflops") || !v["tflops"].is_number() ||
        !(v["tflops"].get<double>() > 0))
      p.push_back(at + ".tflops: missing or not > 0");
    if (!v.is_object() || !v.contains("gflops_efficiency"))
      p.push_back(at + ".gflops_efficiency: missing");
    else
      check_rows(v["gflops_efficiency"], at + ".gflops_efficiency", p);
  }
}

void check_memory(const nlohmann::json &s, const char *tier, std::vector<std::string> &p) {
  if (!s.contains(tier) || !s[tier].is_object()) {
    p.push_back(fmt::format("{}: missing", tier));
    return;
  }
  const auto &m = s[tier];
  for (const char *k : {"GiB", "GBps"})
    if (!m.contains(k) || !m[k].is_number() || !(m[k].get<double>() > 0))
      p.push_back(fmt::format("{}.{}: missing or not > 0", tier, k));
  if (!m.contains("MB_efficiency"))
    p.push_back(fmt::format("{}.MB_efficiency: missing", tier));
  else
    check_rows(m["MB_efficiency"], fmt::format("{}.MB_efficiency", tier), p);
}

void check_network(const nlohmann::json &n, const std::string &at, std::vector<std::string> &p) {
  if (!n.is_object()) {
    p.push_back(at + ": not an object");
    return;
  }
  for (const auto &k : kNetworkKeys)
    if (!n.contains(k))
      p.push_back(fmt::format("{}.{}: missing", at, k));
  for (const auto &[k, v] : n.items())
    if (!kNetworkKeys.count(k))
      p.push_back(fmt::format("{}.{}: not a network key", at, k));
  const auto num = [&](const char *k) {
    return n.contains(k) && n[k].is_number() ? std::optional(n[k].get<double>()) : std::nullopt;
  };
  if (auto v = num("bandwidth"); !v || !(*v > 0))
    p.push_back(at + ".bandwidth: not > 0");
  if (auto v = num("efficiency"); !v || !(*v > 0 && *v <= 1))
    p.push_back(at + ".efficiency: outside (0, 1]");
  if (!n.contains("size") || !n["size"].is_number_integer() || n["size"].get<long long>() < 1)
    p.push_back(at + ".size: not a positive integer");
  if (auto v = num("latency"); !v || *v < 0)
    p.push_back(at + ".latency: not >= 0");
  if (auto v = num("processor_usage"); !v || !(*v >= 0 && *v < 1))
    p.push_back(at + ".processor_usage: outside [0, 1)");
  if (!n.contains("must_be_filled") || !n["must_be_filled"].is_boolean())
    p.push_back(at + ".must_be_filled: not true or false");
  if (!n.contains("ops") || !n["ops"].is_object())
    return;
  for (const auto &op : kOps)
    if (!n["ops"].contains(op))
      p.push_back(fmt::format("{}.ops.{}: missing", at, op));
  for (const auto &[op, v] : n["ops"].items()) {
    const std::string o = fmt::format("{}.ops.{}", at, op);
    if (!kOps.count(op))
      p.push_back(o + ": not one of p2p, reduce_scatter, all_gather, all_reduce");
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !(v[0].get<double>() > 0)) {
      p.push_back(o + ": not [scalar > 0, offset]");
      continue;
    }
    if (op == "p2p" && !v[1].is_null())
      p.push_back(o + ": the p2p offset must be null");
    if (op != "p2p" && !v[1].is_number())
      p.push_back(o + ": the offset must be a number");
  }
}

} // namespace

nlohmann::json calculon_system(const Calibration &c) {
  nlohmann::json s;
  const auto peak = [](const TableFit &t, const char *unit) {
    return round_sig(
        positive_finite(t.peak.value, fmt::format("{} peak ({})", t.name, unit), t.peak.source), 6);
  };
  for (const auto &[dt, t] : c.matrix)
    s["matrix"][dt] = {{"tflops", peak(t, "TFLOP/s")}, {"gflops_efficiency", rows(t, 1e9)}};
  for (const auto &[dt, t] : c.vector)
    s["vector"][dt] = {{"tflops", peak(t, "TFLOP/s")}, {"gflops_efficiency", rows(t, 1e9)}};
  const auto memory = [&](const TableFit &t, const Sourced &gib) {
    return nlohmann::json{
        {"GiB", round_sig(positive_finite(gib.value, t.name + " capacity (GiB)", gib.source), 6)},
        {"GBps", peak(t, "GB/s")},
        {"MB_efficiency", rows(t, 1e6)}};
  };
  s["mem1"] = memory(c.mem1, c.mem1_gib);
  s["mem2"] = memory(c.mem2, c.mem2_gib);
  s["processing_mode"] = c.options.mode == ProcessingMode::no_overlap ? "no_overlap" : "roofline";
  s["networks"] = nlohmann::json::array();
  for (const auto &n : c.networks) {
    const auto checked = [&](const Sourced &v, const char *what, bool positive = true) {
      return checked_number(v.value, positive, fmt::format("{} {}", n.name, what), v.source);
    };
    nlohmann::json ops = nlohmann::json::object();
    for (const auto &[op, so] : n.calculon_ops)
      ops[op] = {
          round_sig(positive_finite(so.first, fmt::format("{} {} scalar", n.name, op),
                                    n.calculon_op_source.count(op) ? n.calculon_op_source.at(op)
                                                                   : std::string("the tier's fit")),
                    4),
          so.second ? nlohmann::json(*so.second) : nlohmann::json(nullptr)};
    s["networks"].push_back(
        {{"bandwidth", round_sig(checked(n.bandwidth_gbytes_per_s, "bandwidth (GB/s)"), 6)},
         {"efficiency",
          std::clamp(round_sig(checked(n.efficiency, "efficiency"), 4), kMinEfficiency, 1.0)},
         {"size", static_cast<long long>(
                      std::llround(std::clamp(checked(n.size, "size (ranks)"), 1.0, 1e15)))},
         {"latency", round_sig(checked(n.latency_s, "latency (s)", false), 4)},
         {"ops", ops},
         {"must_be_filled", n.must_be_filled},
         // Calculon requires processor usage in [0, 1).
         {"processor_usage",
          std::clamp(round_sig(checked(n.processor_usage, "processor usage", false), 4), 0.0,
                     0.99)}});
  }
  return s;
}

std::vector<std::string> calculon_problems(const nlohmann::json &s) {
  std::vector<std::string> p;
  if (!s.is_object())
    return {"(top): not a JSON object"};
  const std::set<std::string> top = {"matrix", "vector",          "mem1",
                                     "mem2",   "processing_mode", "networks"};
  for (const auto &k : top)
    if (!s.contains(k))
      p.push_back(k + ": missing");
  for (const auto &[k, v] : s.items())
    if (!top.count(k))
      p.push_back(k + ": not a Calculon system key");
  check_compute(s, "matrix", p);
  check_compute(s, "vector", p);
  check_memory(s, "mem1", p);
  check_memory(s, "mem2", p);
  if (s.contains("processing_mode") &&
      !(s["processing_mode"] == "no_overlap" || s["processing_mode"] == "roofline"))
    p.push_back("processing_mode: neither no_overlap nor roofline");
  if (s.contains("matrix") && s.contains("vector") && s["matrix"].is_object() &&
      s["vector"].is_object())
    for (const auto &[dt, v] : s["matrix"].items())
      if (!s["vector"].contains(dt))
        p.push_back(fmt::format(
            "vector.{}: missing (matrix has {}; an op of that datatype needs both)", dt, dt));
  if (!s.contains("networks") || !s["networks"].is_array() || s["networks"].empty())
    p.push_back("networks: not a non-empty list");
  else
    for (std::size_t i = 0; i < s["networks"].size(); ++i)
      check_network(s["networks"][i], fmt::format("networks[{}]", i), p);
  return p;
}

} // namespace railgauge::calibrate
