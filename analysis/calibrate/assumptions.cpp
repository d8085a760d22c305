#include "analysis/calibrate/assumptions.h"

#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "analysis/calibrate/gpu_spec.h"
#include "harness/error.h"

namespace railgauge::calibrate {
namespace {

// Calculon's systems/a100_80g.json, as quoted in its repository at caa4b11: an A100's figures,
// borrowed only where nothing else gives the value.
const std::map<std::string, double> &defaults() {
  static const std::map<std::string, double> d = {
      {"matrix.tflops", 312},
      {"vector.tflops", 78},
      {"mem1.GiB", 80},
      {"mem1.GBps", 2048},
      {"mem2.GiB", 512},
      {"mem2.GBps", 32},
      {"networks.0.bandwidth", 300},
      {"networks.0.efficiency", 0.65},
      {"networks.0.size", 8},
      {"networks.0.latency", 1e-5},
      {"networks.0.processor_usage", 0.15},
      {"networks.1.bandwidth", 25},
      {"networks.1.efficiency", 0.9},
      {"networks.1.size", 65536},
      {"networks.1.latency", 2e-5},
      {"networks.1.processor_usage", 0.02},
  };
  return d;
}

const std::map<std::string, EfficiencyRows> &default_tables() {
  static const std::map<std::string, EfficiencyRows> t = {
      {"matrix", {{128, 0.95}, {16, 0.9}, {1, 0.6}, {0, 0.1}}},
      {"vector", {{16, 0.95}, {1, 0.5}, {0, 0.1}}},
      {"mem1", {{100, 0.90}, {10, 0.75}, {1, 0.6}, {0, 0.3}}},
      {"mem2", {{100, 0.95}, {10, 0.9}, {1, 0.7}, {0, 0.3}}},
  };
  return t;
}

const std::regex &key_pattern() {
  static const std::regex re(
      R"(((matrix|vector)\.(float8|float16|bfloat16|float32)\.(tflops|efficiency))|)"
      R"((mem[12]\.(GiB|GBps|efficiency))|)"
      R"((networks\.[01]\.(bandwidth|efficiency|size|latency|processor_usage)))");
  return re;
}

// matrix.float16.tflops -> matrix.tflops: the default does not depend on the datatype.
std::string default_key(const std::string &key) {
  for (const char *family : {"matrix.", "vector."})
    if (key.rfind(family, 0) == 0) {
      const auto last = key.rfind('.');
      return std::string(family) + key.substr(last + 1);
    }
  return key;
}

// The unit a value is read in, where it lies past what any GPU system has (FLOP/s given for
// TFLOP/s, B/s for GB/s, microseconds for seconds): 989e12 for an H100's bf16 once wrote a
// GEMM table 1e8 times too fast, and a latency of 43 replaced the measured 43 us. Nothing here
// limits an efficiency, a processor usage or a size of one.
std::optional<std::string> implausible(const std::string &key, double v) {
  struct Bound {
    const char *suffix;
    double most;
    const char *unit;
  };
  static const Bound bounds[] = {
      {".tflops", 1e5, "TFLOP/s, is past any GPU's (at most 100,000)"},
      {".GBps", 1e5, "GB/s, is past any memory's (at most 100,000)"},
      {".bandwidth", 1e5, "GB/s, is past any network's (at most 100,000)"},
      {".GiB", 1e6, "GiB, is past any memory's (at most 1,000,000)"},
      {".latency", 1.0, "seconds, is past any network's latency (at most 1)"},
      {".size", 1e7, "GPUs, is past any system's (at most 10,000,000)"},
  };
  for (const auto &b : bounds)
    if (key.ends_with(b.suffix) && v > b.most)
      return std::string(b.unit);
  return std::nullopt;
}

} // namespace

Assumptions Assumptions::parse(const std::vector<std::string> &texts) {
  Assumptions a;
  const std::string fix = "give --assume KEY=NUMBER with KEY one of matrix.<dt>.tflops, "
                          "matrix.<dt>.efficiency, vector.<dt>.{tflops,efficiency}, "
                          "mem1.{GiB,GBps,efficiency}, mem2.{GiB,GBps,efficiency}, "
                          "networks.<0|1>.{bandwidth,efficiency,size,latency,processor_usage} "
                          "(<dt>: float8, float16, bfloat16, float32)";
  for (const auto &t : texts) {
    const std::string where = "--assume " + t;
    const auto eq = t.find('=');
    if (eq == std::string::npos)
      throw InputError(fmt::format("'{}' is not KEY=VALUE", t), where, fix);
    const std::string key = t.substr(0, eq);
    if (!std::regex_match(key, key_pattern()))
      throw InputError(fmt::format("unknown key '{}'", key), where, fix);
    double v = 0;
    try {
      std::size_t used = 0;
      v = std::stod(t.substr(eq + 1), &used);
      if (used != t.size() - eq - 1)
        throw std::invalid_argument("trailing text");
    } catch (const std::exception &) {
      throw InputError(fmt::format("'{}' is not a number", t.substr(eq + 1)), where,
                       "give a plain number in the Calculon file's unit, e.g. mem1.GBps=3350");
    }
    bool ok = std::isfinite(v) && v > 0;
    if (key.ends_with("efficiency"))
      ok = ok && v <= 1;
    else if (key.ends_with("processor_usage"))
      ok = std::isfinite(v) && v >= 0 && v < 1;
    else if (key.ends_with("latency"))
      ok = std::isfinite(v) && v >= 0;
    else if (key.ends_with(".size"))
      ok = ok && v == std::floor(v); // a count of GPUs: 2.5 was once rounded to 3 silently
    if (!ok)
      throw InputError(fmt::format("{} = {} is out of range", key, v), where,
                       "an efficiency is in (0, 1], a processor usage in [0, 1), a latency >= 0, "
                       "a network's size a whole number of GPUs and everything else > 0");
    if (const auto unit = implausible(key, v))
      throw InputError(
          fmt::format("{} = {:g}, read in {}: a figure in another unit?", key, v, *unit), where,
          "give the value in the Calculon file's unit: TFLOP/s (989 for an H100's "
          "dense bf16), GB/s (3350 for its HBM), GiB, seconds for a latency (2e-05 "
          "is 20 us), a count of GPUs for a size");
    a.user_[key] = v;
  }
  return a;
}

std::optional<double> Assumptions::user(const std::string &key) const {
  const auto it = user_.find(key);
  if (it == user_.end())
    return std::nullopt;
  return it->second;
}

std::optional<Sourced> Assumptions::value(const std::string &key) const {
  if (auto v = user(key))
    return Sourced{*v, kUserSource, false};
  if (spec_ != nullptr)
    if (const auto s = spec_->values.find(key); s != spec_->values.end())
      return Sourced{s->second.first, s->second.second + " (" + spec_->name + ")", false};
  const auto it = defaults().find(default_key(key));
  if (it == defaults().end())
    return std::nullopt;
  return Sourced{it->second, kBorrowedSource, false};
}

std::optional<double> Assumptions::borrowed(const std::string &key) const {
  const auto it = defaults().find(default_key(key));
  if (it == defaults().end())
    return std::nullopt;
  return it->second;
}

std::string origin_of_source(const std::string &source, bool measured) {
  if (measured || source.starts_with("measured"))
    return "measured";
  if (source == kUserSource)
    return "assumed";
  if (source.starts_with("spec"))
    return "spec";
  if (source.starts_with(kBorrowedPrefix))
    return "borrowed";
  return "derived";
}

std::string origin_of(const Sourced &s) { return origin_of_source(s.source, s.measured); }

std::pair<EfficiencyRows, std::string> Assumptions::table(const std::string &key_prefix,
                                                          const std::string &family) const {
  if (auto e = user(key_prefix + ".efficiency"))
    return {{{0.0, *e}}, kUserSource};
  return {default_tables().at(family), kBorrowedSource};
}

std::optional<std::string> calculon_dtype(const std::string &d) {
  if (d == "fp16")
    return "float16";
  if (d == "bf16")
    return "bfloat16";
  if (d == "fp32" || d == "tf32")
    return "float32";
  if (d == "fp8_e4m3")
    return "float8";
  return std::nullopt;
}

} // namespace railgauge::calibrate
