#include "analysis/check/rule_values.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/check/health_delta_agreement.h"
#include "analysis/check/json_path.h"
#include "analysis/check/noise_text.h"
#include "analysis/check/reading_agreement.h"
#include "harness/noise_bound.h"

namespace railgauge::check {

using json = nlohmann::json;

// Without copying the object or building a json per name: a copy and a dump of it per value was
// an eighth of a large fleet's check. Fields are "name\x1evalue\x1f"; strings are taken as they
// are, a type letter first, so that 8 and "8" stay apart.
std::string params_key(const json &params, const std::vector<std::string> &leave_out,
                       const std::string &also_leave_out) {
  if (!params.is_object())
    return params.dump();
  std::string out;
  out.reserve(128);
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string &name = it.key();
    if (name == also_leave_out ||
        std::find(leave_out.begin(), leave_out.end(), name) != leave_out.end())
      continue;
    out += name;
    out += '\x1e';
    const json &value = it.value();
    if (value.is_string()) {
      out += 's';
      out += value.get_ref<const std::string &>();
    } else if (value.is_number_unsigned()) {
      out += 'u';
      out += std::to_string(value.get<unsigned long long>());
    } else if (value.is_number_integer()) {
      out += 'i';
      out += std::to_string(value.get<long long>());
    } else {
      out += 'j';
      out += value.dump();
    }
    out += '\x1f';
  }
  return out;
}

bool number_into(const json &v, double &out) {
  if (v.is_boolean())
    out = v.get<bool>() ? 1 : 0;
  else if (v.is_number())
    out = v.get<double>();
  else
    return false;
  return true;
}

Finding missing_finding(const Rule &rule, std::string what, std::string detail, Level level) {
  Finding f;
  f.rule_id = rule.id;
  f.category = rule.category;
  f.level = level;
  f.missing = true;
  f.what = std::move(what);
  f.detail = std::move(detail);
  return f;
}

namespace {

// A field of a detail's item as its text says it: a count as an integer, not "12.0".
std::string field_text(const json &v) {
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (x == static_cast<double>(static_cast<long long>(x)) && x < 1e15 && x > -1e15)
      return std::to_string(static_cast<long long>(x));
    return fmt::format("{:.4g}", x);
  }
  return v.dump();
}

std::string filled(const std::string &text, const json &item) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto open = text.find('{', at);
    const auto close = open == std::string::npos ? open : text.find('}', open);
    if (close == std::string::npos) {
      out += text.substr(at);
      break;
    }
    out += text.substr(at, open - at);
    out += field_text(item.value(text.substr(open + 1, close - open - 1), json(nullptr)));
    at = close + 1;
  }
  return out;
}

} // namespace

std::string detail_of(const DetailSpec &spec, const Record &r) {
  const auto found = resolve_record_path(r, spec.path);
  if (found.size() != 1)
    return "";
  const json &v = found.front().value;
  std::string out;
  for (const json &item : v.is_array() ? v : json::array({v}))
    if (item.is_object())
      out += (out.empty() ? "" : "; ") + filled(spec.text, item);
    else if (item.is_string() || item.is_number() || item.is_boolean()) // a param: `{value}`
      out += (out.empty() ? "" : "; ") + filled(spec.text, json{{"value", item}});
  return out;
}

bool timed_figure(const std::string &path) {
  const auto dot = path.rfind('.');
  const std::string_view leaf =
      std::string_view(path).substr(dot == std::string::npos ? 0 : dot + 1);
  return path.starts_with("metrics.time_s.") || leaf.find("_per_s") != std::string_view::npos ||
         leaf == "tflops" || leaf == "efficiency";
}

namespace {

// `path` (a concrete path the pattern reached) less the segments after the pattern's last
// wildcard: the element of a `*` or `**` walk it is in ("metrics.telemetry.per_gpu.3" for
// "metrics.telemetry.**.during.power_w" at per_gpu[3]); the whole path for a plain pattern.
std::string element_of(const std::string &path, const std::string &pattern) {
  const auto wildcard = pattern.rfind('*');
  if (wildcard == std::string::npos)
    return path;
  const auto tail = static_cast<std::size_t>(
      std::count(pattern.begin() + static_cast<std::ptrdiff_t>(wildcard), pattern.end(), '.'));
  auto end = path.size();
  for (std::size_t i = 0; i < tail && end != std::string::npos; ++i)
    end = end == 0 ? std::string::npos : path.rfind('.', end - 1);
  return end == std::string::npos ? "" : path.substr(0, end);
}

// The denominators of a value at `path`: every one relative_to reaches, or, where it reaches
// several through a wildcard, the one in the value's own element (a GPU's limit beside its
// reading in an all_reduce's per_gpu[]).
std::vector<PathValue> denominators_of(const Rule &rule, const Record &r, const std::string &path) {
  auto all = resolve_record_path(r, rule.relative_to);
  if (all.size() <= 1)
    return all;
  const auto element = element_of(path, rule.metric);
  std::vector<PathValue> same;
  for (auto &d : all)
    if (!element.empty() && element_of(d.path, rule.relative_to) == element)
      same.push_back(std::move(d));
  return same;
}

} // namespace

std::vector<RuleValue> rule_values(const Rule &rule, const Record &r) {
  std::vector<RuleValue> out;
  for (auto &pv : resolve_record_path(
           r, rule.metric, rule.empty_list_passes ? EmptyLists::held : EmptyLists::none)) {
    RuleValue v{pv.path, pv.path, "", std::move(pv.value), "", Level::fail, timed_figure(pv.path)};
    if (pv.empty) {
      v.empty = true;
      out.push_back(std::move(v));
      continue;
    }
    if (!rule.relative_to.empty()) {
      const auto denominator = denominators_of(rule, r, pv.path);
      double d = 0, x = 0;
      if (denominator.size() != 1 || !number_into(denominator.front().value, d) || d <= 0) {
        v.unreadable = fmt::format("the record has no positive {}", rule.relative_to);
        v.unreadable_level = rule.on_missing_relative_to.value_or(rule.on_missing);
      } else if (!number_into(v.value, x)) {
        // The denominator was read and the value was not (a sensor that returned nothing): what
        // the rule holds to its limit is unknown, at the rule's on_missing.
        v.unreadable = fmt::format("value {} is not a number (over {:.4g})", v.value.dump(), d);
        v.unreadable_level = rule.on_missing;
      } else {
        v.what = fmt::format("{} / {}", v.path, rule.relative_to);
        v.detail = fmt::format("{} over {:.4g}",
                               noise_text(x, v.timed ? relative_noise(r) : std::nullopt), d);
        // Over a stated figure (an expected rate, a limit) the ratio is as noisy as the value;
        // over another timed figure of the same samples, how noisy is not known.
        if (timed_figure(denominator.front().path))
          v.timed = false;
        v.value = x / d;
      }
    }
    // A health counter's growth below zero: the counter restarted between the phase's readings,
    // as the GPU's volatile ECC, replay and Xid counts do when it is reset. What the phase logged
    // is then unknown, and a reset under load is itself a fault: never a pass at 0.
    double grown = 0;
    if (v.unreadable.empty() && pv.path.find(".health_delta.") != std::string::npos &&
        number_into(v.value, grown) && grown < 0) {
      v.unreadable = fmt::format("the counter went backwards ({:g}): it restarted during the "
                                 "phase (a GPU reset or a driver reload?); read the GPU's Xid log",
                                 grown);
      v.unreadable_level = rule.severity;
    } else if (v.unreadable.empty() && pv.path.find(".health_delta.") != std::string::npos &&
               number_into(v.value, grown)) {
      if (auto why = health_delta_disagreement(r, pv.path, grown)) {
        v.unreadable = std::move(*why);
        v.unreadable_level = rule.severity;
      }
    } else if (v.unreadable.empty() && v.value.is_null()) {
      // A counter the writer could not read says why beside it (the kernel log without root).
      if (auto why = health_counter_unread_note(r, pv.path)) {
        v.unreadable = std::move(*why);
        v.unreadable_level = rule.on_missing;
      }
    } else if (v.unreadable.empty() && rule.relative_to.empty() && number_into(v.value, grown)) {
      if (auto why = reading_disagreement(r, pv.path, grown)) {
        v.unreadable = std::move(*why);
        v.unreadable_level = rule.severity;
      }
    }
    if (rule.detail)
      if (const auto d = detail_of(*rule.detail, r); !d.empty())
        v.detail += (v.detail.empty() ? "" : "; ") + d;
    out.push_back(std::move(v));
  }
  return out;
}

Level no_metric_level(const Rule &rule, const Record &r) {
  if (rule.relative_to.empty() || !rule.on_missing_relative_to)
    return rule.on_missing;
  double d = 0;
  for (const auto &pv : resolve_record_path(r, rule.relative_to))
    if (number_into(pv.value, d) && d > 0)
      return rule.on_missing;
  return *rule.on_missing_relative_to;
}

std::string fleet_group(const Rule &rule, const Record &r, const PartKey &part,
                        const std::string &path) {
  return fmt::format("{}{} {} {}", rule.fleet->per_node ? part.host + " " : "", r.key,
                     params_key(r.params, rule.fleet->ignore_params), path);
}

} // namespace railgauge::check
