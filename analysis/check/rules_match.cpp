// What a rule selects (its key globs and params filter) and whether a value passes its
// comparison.
#include "analysis/check/rules.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "harness/metric_names.h"
#include "harness/registry.h"

namespace railgauge::check {
namespace {

// ">=1073741824" -> (ge, 1073741824): a numeric range in a params filter.
std::optional<std::pair<Op, double>> parse_range(const std::string &text) {
  for (Op op : {Op::ge, Op::le, Op::gt, Op::lt}) {
    const auto sym = to_string(op);
    if (text.starts_with(sym)) {
      try {
        std::size_t used = 0;
        const auto rest = text.substr(sym.size());
        const double v = std::stod(rest, &used);
        if (used == rest.size())
          return std::pair{op, v};
      } catch (const std::exception &) {
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

} // namespace

bool key_match(const Rule &rule, const std::string &key) {
  for (const auto &glob : rule.key_globs)
    if (glob_match(glob, key))
      return true;
  return false;
}

bool selects_but_for_size(const Rule &rule, const std::string &key, const nlohmann::json &params) {
  if (!rule.params.is_object() || !rule.params.contains(metric::kSizeBytes) ||
      !params.is_object() || !params.contains(metric::kSizeBytes) || !key_match(rule, key))
    return false;
  auto other_sizes = rule.params;
  other_sizes.erase(metric::kSizeBytes);
  return params_match(other_sizes, params);
}

std::string other_sizes_only(const std::string &no_record, const std::string &key) {
  return fmt::format("{}; the imported output holds '{}' at other sizes only (a run that "
                     "stopped below the sizes the rule reads, as nccl-tests -e 512M does): give "
                     "a log that reaches them",
                     no_record, key);
}

const Rule *floor_rule(const RuleSet &rules, const std::string &key, const std::string &metric,
                       const nlohmann::json &params) {
  // A warning floor and a failing one below it (burn-gemm-tf32-floor, -fail-floor): the higher
  // is the line a GPU must reach to be named by neither.
  const Rule *highest = nullptr;
  for (const auto &rule : rules.rules)
    if (rule.value && rule.op == Op::ge && !rule.fleet && !rule.curve &&
        rule.metric == "metrics." + metric && key_match(rule, key) &&
        params_match(rule.params, params) && (!highest || *rule.value > *highest->value))
      highest = &rule;
  return highest;
}

namespace {

// A filter's `ranks_per_host` where the record does not state it: its group's ranks over its
// hosts, when they divide evenly (a collective of 8 GPUs and NICs per node); null otherwise.
nlohmann::json derived_param(const std::string &name, const nlohmann::json &params) {
  if (name != "ranks_per_host")
    return nullptr;
  const auto size = params.find("group_size"), hosts = params.find("group_hosts");
  if (size == params.end() || hosts == params.end() || !size->is_number_integer() ||
      !hosts->is_number_integer() || hosts->get<long long>() <= 0 ||
      size->get<long long>() % hosts->get<long long>() != 0)
    return nullptr;
  return size->get<long long>() / hosts->get<long long>();
}

} // namespace

bool params_match(const nlohmann::json &filter, const nlohmann::json &params) {
  for (const auto &[name, want] : filter.items()) {
    const auto it = params.find(name);
    const nlohmann::json derived =
        it == params.end() || it->is_null() ? derived_param(name, params) : nlohmann::json();
    const nlohmann::json *value =
        it != params.end() && !it->is_null() ? &*it : (derived.is_null() ? nullptr : &derived);
    if (!value) {
      // null (YAML ~ or null) in the filter matches a record without the param.
      const bool absent_ok =
          want.is_null() ||
          (want.is_array() && std::any_of(want.begin(), want.end(),
                                          [](const nlohmann::json &w) { return w.is_null(); }));
      if (!absent_ok)
        return false;
      continue;
    }
    const auto one = [&](const nlohmann::json &w) {
      if (w.is_string() && value->is_number())
        if (const auto range = parse_range(w.get_ref<const std::string &>()))
          return compare_pass(range->first, value->get<double>(), range->second);
      if (w.is_number() && value->is_number())
        return w.get<double>() == value->get<double>();
      if (w.is_string() && value->is_string())
        return glob_match(w.get_ref<const std::string &>(), value->get_ref<const std::string &>());
      if (w.is_string())
        return glob_match(w.get_ref<const std::string &>(), value->dump());
      return w == *value;
    };
    bool any = false;
    if (want.is_array()) {
      for (const auto &w : want)
        any = any || one(w);
    } else {
      any = one(want);
    }
    if (!any)
      return false;
  }
  return true;
}

bool compare_pass(Op op, double value, double threshold) {
  switch (op) {
  case Op::ge:
    return value >= threshold;
  case Op::gt:
    return value > threshold;
  case Op::le:
    return value <= threshold;
  case Op::lt:
    return value < threshold;
  case Op::eq:
    return value == threshold;
  case Op::ne:
    return value != threshold;
  case Op::none_of:
  case Op::any_of:
    return false;
  }
  return false;
}

bool values_pass(Op op, const nlohmann::json &value, const std::vector<std::string> &values) {
  std::vector<std::string> seen;
  if (value.is_string())
    seen.push_back(value.get<std::string>());
  else if (value.is_array())
    for (const auto &v : value)
      seen.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  else
    seen.push_back(value.dump());
  bool hit = false;
  for (const auto &s : seen)
    hit = hit || std::find(values.begin(), values.end(), s) != values.end();
  return op == Op::none_of ? !hit : hit;
}

} // namespace railgauge::check
