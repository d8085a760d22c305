#include "analysis/check/fleet_judgement.h"

#include <fmt/format.h>

#include "analysis/check/noise_text.h"

namespace railgauge::check {
namespace {

const char *reference_name(const FleetBound &fb) { return fb.against_best ? "best" : "median"; }

// The bound and detail of a value against the whole fleet.
void describe_fleet(const Rule &rule, FleetVerdict &v) {
  const auto &fb = *rule.fleet;
  const auto &stats = v.stats;
  const bool higher = rule.op == Op::ge || rule.op == Op::gt;
  const double ref = reference_value(fb, rule.op, stats);
  const char *ref_name = reference_name(fb);
  std::string how;
  if (fb.mads)
    how = fmt::format("{} {} {} {} MAD {}", ref_name, four_digit_text(ref), higher ? "-" : "+",
                      stated_text(*fb.mads), four_digit_text(stats.mad));
  if (fb.fraction)
    how += fmt::format("{}{} x {} {}", how.empty() ? "" : " or ", stated_text(*fb.fraction),
                       ref_name, four_digit_text(ref));
  const char *scope = fb.per_node ? "this node's parts" : "fleet";
  v.bound = fmt::format("{} {} ({} of {}: {})", to_string(rule.op), four_digit_text(v.threshold),
                        scope, stats.n, how);
  const double rel = ref != 0 ? (v.value / ref - 1) * 100 : 0;
  v.detail =
      fmt::format("{:+.1f}% from the {} {}", rel, fb.per_node ? "node's" : "fleet", ref_name);
}

// The bound and detail of a part against its siblings on the node.
void describe_siblings(const Rule &rule, FleetVerdict &v) {
  const auto &fb = *rule.fleet;
  const double ref = reference_value(fb, rule.op, v.stats);
  const char *ref_name = reference_name(fb);
  std::string how = fmt::format("the {} {} of its {} sibling{} on this node", ref_name,
                                four_digit_text(ref), v.stats.n, v.stats.n == 1 ? "" : "s");
  if (fb.fraction)
    how = fmt::format("{} x {}", stated_text(*fb.fraction), how);
  if (fb.mads)
    how += fmt::format(", {} MAD {}", stated_text(*fb.mads), four_digit_text(v.stats.mad));
  v.bound = fmt::format("{} {} ({})", to_string(rule.op), four_digit_text(v.threshold), how);
  const double rel = ref != 0 ? (v.value / ref - 1) * 100 : 0;
  v.detail = fmt::format(
      "{:+.1f}% from its siblings' {}{}", rel, ref_name,
      v.own_values > 1 ? fmt::format("; the median of its {} values", v.own_values) : "");
}

} // namespace

std::vector<FleetVerdict> judge_fleet_values(const Rule &rule, std::span<const double> values) {
  const auto &fb = *rule.fleet;
  const auto stats = fleet_stats(values);
  std::vector<FleetVerdict> out(values.size());
  if (stats.n < fb.min_size) {
    const auto why = fmt::format("fleet of {} value{} is smaller than min_size {}", stats.n,
                                 stats.n == 1 ? "" : "s", fb.min_size);
    for (std::size_t i = 0; i < values.size(); ++i) {
      out[i].value = values[i];
      out[i].detail = why;
    }
    return out;
  }
  const double t = fleet_threshold(fb, rule.op, stats);
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto &v = out[i];
    v.judged = true;
    v.value = values[i];
    v.threshold = t;
    v.pass = compare_pass(rule.op, v.value, t);
    if (v.pass)
      continue;
    v.stats = stats;
    describe_fleet(rule, v);
  }
  return out;
}

std::vector<FleetVerdict>
judge_sibling_values(const Rule &rule, const std::vector<std::vector<double>> &values_by_part) {
  const auto &fb = *rule.fleet;
  const auto stats = sibling_stats(values_by_part);
  std::vector<FleetVerdict> out(stats.size());
  for (std::size_t i = 0; i < stats.size(); ++i) {
    const SiblingStats &s = stats[i];
    auto &v = out[i];
    v.value = s.own;
    v.own_values = s.own_values;
    v.stats = s.siblings;
    const int parts = s.siblings.n + 1;
    v.judged = parts >= fb.min_size;
    if (!v.judged) {
      v.detail = s.siblings.n == 0
                     ? std::string("no sibling on this node measured this point (a part "
                                   "alone has nothing to be compared with)")
                     : fmt::format("{} parts of this node measured this point, fewer "
                                   "than min_size {}",
                                   parts, fb.min_size);
      continue;
    }
    v.threshold = fleet_threshold(fb, rule.op, s.siblings);
    v.pass = compare_pass(rule.op, s.own, v.threshold);
    if (!v.pass)
      describe_siblings(rule, v);
  }
  return out;
}

void fill_fleet_finding(const Rule &rule, const FleetVerdict &verdict, Finding &f) {
  const auto &fb = *rule.fleet;
  if (verdict.own_values > 1 && f.params.is_object())
    for (const auto &name : fb.ignore_params)
      f.params.erase(name);
  // The rule's detail (rule_values put it in the finding from the record) first: what names the
  // part's value (a GPU x NIC pair's GPU) before how far it is from the fleet.
  const std::string from_record = rule.detail ? f.detail : "";
  f.detail = from_record.empty()      ? verdict.detail
             : verdict.detail.empty() ? from_record
                                      : from_record + "; " + verdict.detail;
  if (!verdict.judged) {
    f.missing = true;
    f.level = fb.on_too_small;
    return;
  }
  f.level = rule.severity;
  f.value = verdict.value;
  f.threshold = verdict.threshold;
  f.fleet = verdict.stats;
  f.bound = verdict.bound;
}

} // namespace railgauge::check
