#include "harness/suite.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "harness/data_paths.h"
#include "harness/error.h"
#include "harness/yaml_input.h"

namespace railgauge {
namespace {

std::string scalar_or_list(const YAML::Node &node, const std::string &where) {
  if (node.IsScalar())
    return node.Scalar();
  if (node.IsSequence()) {
    std::string spec;
    for (const auto &item : node) {
      if (!item.IsScalar())
        throw InputError("axis values must be scalars", where,
                         "write a list of values such as [1, 2, 4] or a spec \"1:64:*2\"");
      spec += (spec.empty() ? "" : ",") + item.Scalar();
    }
    return spec;
  }
  throw InputError("axis values must be a scalar spec or a list", where,
                   "write e.g. size_bytes: \"4KiB:1GiB:*2\" or threads: [1, 2]");
}

void apply_measure_map(MeasureSpec &spec, const YAML::Node &node, const std::string &path) {
  if (!node.IsMap())
    throw InputError("'measure' must be a mapping", at(path, node),
                     "write e.g. measure: {time_budget_s: 0.5, max_rel_noise: 0.02}");
  for (const auto &kv : node)
    apply_measure_setting(spec, text_of(kv.first, path, "a measurement setting's name"),
                          text_of(kv.second, path, "a measurement setting", kv.first),
                          at(path, kv.first));
  check_measure_spec(spec, at(path, node));
}

} // namespace

void apply_measure_setting(MeasureSpec &spec, const std::string &name, const std::string &value,
                           const std::string &where) {
  const auto number = [&](double lo) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(value, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used != value.size() || !(v >= lo))
      throw InputError(fmt::format("bad value '{}' for measurement setting '{}'", value, name),
                       where, fmt::format("'{}' takes a number >= {}", name, lo));
    return v;
  };
  const auto count = [&](int lo) {
    const double v = number(lo);
    if (v != std::floor(v) || v > std::numeric_limits<int>::max())
      throw InputError(fmt::format("bad value '{}' for measurement setting '{}'", value, name),
                       where,
                       fmt::format("'{}' takes a whole number from {} to {}", name, lo,
                                   std::numeric_limits<int>::max()));
    return static_cast<int>(v);
  };
  if (name == measure_setting::kTimeBudgetS)
    spec.time_budget_s = number(1e-6);
  else if (name == measure_setting::kMaxRelNoise)
    spec.max_rel_noise = number(0);
  else if (name == measure_setting::kNoiseBound)
    spec.noise_bound = number(0);
  else if (name == measure_setting::kNoiseRetries) {
    // Each measurement has its own --point-timeout: a point may run 1 + this many times as long
    spec.noise_retries = count(0);
    if (spec.noise_retries > kMostNoiseRetries)
      throw InputError(fmt::format("bad value '{}' for measurement setting '{}'", value, name),
                       where,
                       fmt::format("'{}' takes a whole number from 0 to {}: a point noisy that "
                                   "often judges the machine's load, not a retry's luck",
                                   name, kMostNoiseRetries));
  }
  else if (name == measure_setting::kMinSamples)
    spec.min_samples = count(1);
  else if (name == measure_setting::kMaxSamples)
    spec.max_samples = count(1);
  else if (name == measure_setting::kWarmupRuns)
    spec.warmup_runs = count(0);
  else if (name == measure_setting::kWarmupS)
    spec.warmup_s = number(0);
  else if (name == measure_setting::kSettleMaxS)
    spec.settle_max_s = number(0);
  else if (name == measure_setting::kGpuMinTimedS)
    spec.gpu_min_timed_s = number(0);
  else if (name == measure_setting::kMinSampleS)
    spec.min_sample_s = number(0);
  else if (name == measure_setting::kBatch)
    spec.batch = count(0);
  else
    throw InputError(fmt::format("unknown measurement setting '{}'", name), where,
                     fmt::format("use {} or {}",
                                 fmt::join(std::begin(measure_setting::kAll),
                                           std::prev(std::end(measure_setting::kAll)), ", "),
                                 *std::prev(std::end(measure_setting::kAll))));
}

void check_measure_spec(const MeasureSpec &spec, const std::string &where) {
  if (spec.max_samples < spec.min_samples)
    throw InputError(fmt::format("max_samples ({}) is below min_samples ({})", spec.max_samples,
                                 spec.min_samples),
                     where, "raise max_samples or lower min_samples");
}

Suite parse_suite(const std::string &yaml_text, const std::string &path) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception &e) {
    throw InputError(fmt::format("YAML syntax error: {}", e.msg),
                     e.mark.line >= 0 ? fmt::format("{}:{}", path, e.mark.line + 1) : path,
                     "fix the YAML syntax at that line");
  }
  // Whatever yaml-cpp still throws on a shape not foreseen below becomes an InputError too.
  try {
    if (!root.IsMap())
      throw InputError("a suite must be a YAML mapping", path,
                       "start with 'suite: NAME' and a 'benchmarks:' list");
    expect_keys(root, path, "a suite", {"suite", "description", "measure", "benchmarks"});
    Suite suite;
    suite.path = path;
    if (!root["suite"] || !root["suite"].IsScalar())
      throw InputError("the suite has no 'suite: NAME' field", path, "add 'suite: NAME'");
    suite.name = root["suite"].Scalar();
    if (root["description"])
      suite.description = text_of(root["description"], path, "'description'");
    MeasureSpec defaults;
    if (root["measure"])
      apply_measure_map(defaults, root["measure"], path);
    const auto list = root["benchmarks"];
    if (!list || !list.IsSequence() || list.size() == 0)
      throw InputError("the suite has no 'benchmarks:' list", at(path, root),
                       "add 'benchmarks:' with entries such as '- key: memory.host_copy'");
    for (const auto &item : list) {
      const auto where = at(path, item);
      if (!item.IsMap())
        throw InputError("a benchmarks entry must be a mapping", where,
                         "write '- key: KEY' with optional 'axes:' and 'measure:'");
      expect_keys(item, path, "a benchmarks entry", {"key", "axes", "measure"});
      if (!item["key"] || !item["key"].IsScalar())
        throw InputError("a benchmarks entry has no 'key'", where,
                         "add 'key: <family>.<name>' (a glob such as memory.* works too)");
      SuiteEntry entry;
      entry.key_glob = item["key"].Scalar();
      entry.where = at(path, item["key"]);
      entry.measure = defaults;
      if (item["measure"])
        apply_measure_map(entry.measure, item["measure"], path);
      if (const auto axes = item["axes"]) {
        if (!axes.IsMap())
          throw InputError("'axes' must be a mapping of axis name to values", at(path, axes),
                           "write e.g. axes: {size_bytes: \"4KiB:1GiB:*2\"}");
        for (const auto &kv : axes) {
          const auto name = text_of(kv.first, path, "an axis name");
          const auto axis_where = at(path, kv.second);
          entry.axes[name] = scalar_or_list(kv.second, axis_where);
          entry.axis_where[name] = axis_where;
        }
      }
      suite.entries.push_back(std::move(entry));
    }
    return suite;
  } catch (const YAML::Exception &e) {
    throw InputError(fmt::format("unexpected YAML structure: {}", e.msg),
                     e.mark.line >= 0 ? fmt::format("{}:{}", path, e.mark.line + 1) : path,
                     "compare the suite with results/suites/node.yaml");
  }
}

Suite load_suite_file(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw InputError("cannot read the suite file", path, "give a readable YAML suite");
  std::stringstream text;
  text << in.rdbuf();
  return parse_suite(text.str(), path);
}

std::string find_suite(const std::string &name_or_path, const std::vector<std::string> &dirs) {
  return find_named_yaml("suite", name_or_path, dirs);
}

} // namespace railgauge
