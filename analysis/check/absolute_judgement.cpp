#include "analysis/check/absolute_judgement.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/check/noise_text.h"

namespace railgauge::check {
namespace {

bool set_rule(const Rule &rule) { return rule.op == Op::none_of || rule.op == Op::any_of; }

} // namespace

bool judgeable(const Rule &rule, const nlohmann::json &value) {
  if (set_rule(rule))
    return value.is_string() || value.is_array() || value.is_number() || value.is_boolean();
  return value.is_number() || value.is_boolean();
}

Level unjudgeable_level(const Rule &rule, const nlohmann::json &value) {
  return value.is_null() ? rule.on_missing : std::max(rule.on_missing, rule.severity);
}

double number_of(const nlohmann::json &value) {
  return value.is_boolean() ? (value.get<bool>() ? 1 : 0) : value.get<double>();
}

bool absolute_pass(const Rule &rule, const nlohmann::json &value) {
  return set_rule(rule) ? values_pass(rule.op, value, rule.values)
                        : compare_pass(rule.op, number_of(value), *rule.value);
}

std::string absolute_bound(const Rule &rule) {
  if (set_rule(rule)) {
    std::string list;
    for (const auto &v : rule.values)
      list += (list.empty() ? "" : ", ") + v;
    return fmt::format("{} [{}]", to_string(rule.op), list);
  }
  return fmt::format("{} {}", to_string(rule.op), stated_text(*rule.value));
}

void fill_absolute_finding(const Rule &rule, const nlohmann::json &value, Finding &f) {
  if (!set_rule(rule))
    f.threshold = *rule.value;
  f.level = rule.severity;
  f.value = value;
  f.bound = absolute_bound(rule);
  // A flag judged against 0 or 1 reads as one: "= false, needs == true", not "needs == 1".
  if (value.is_boolean() && !set_rule(rule) && (rule.op == Op::eq || rule.op == Op::ne) &&
      (*rule.value == 0 || *rule.value == 1))
    f.bound = fmt::format("{} {}", to_string(rule.op), *rule.value == 1 ? "true" : "false");
}

} // namespace railgauge::check
