#include "analysis/check/rule_yaml.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "analysis/check/inventory_probes.h"
#include "harness/error.h"
#include "harness/number_text.h"
#include "harness/registry.h"
#include "harness/yaml_input.h"

namespace railgauge::check {

std::string yaml_scalar(const YAML::Node &node, const std::string &file, const std::string &what) {
  if (!node.IsScalar())
    throw InputError(fmt::format("'{}' must be a single value", what), at(file, node),
                     fmt::format("write {}: VALUE", what));
  return node.as<std::string>();
}

Level yaml_level(const YAML::Node &node, const std::string &file, const std::string &what,
                 bool allow_info) {
  const auto text = yaml_scalar(node, file, what);
  if (text == "warn")
    return Level::warn;
  if (text == "fail")
    return Level::fail;
  if (allow_info && text == "info")
    return Level::info;
  throw InputError(fmt::format("unknown {} '{}'", what, text), at(file, node),
                   allow_info ? "use info, warn or fail" : "use warn or fail");
}

namespace {

constexpr const char *kCategories[] = {"compute", "memory", "pcie",  "nvlink",
                                       "nic",     "fabric", "health"};

double number(const YAML::Node &node, const std::string &file, const std::string &what) {
  const auto text = yaml_scalar(node, file, what);
  if (const auto v = finite_number(text))
    return *v;
  throw InputError(fmt::format("'{}' must be a number, not '{}'", what, text), at(file, node),
                   fmt::format("write {}: followed by a number such as 0.9", what));
}

Op parse_op(const YAML::Node &node, const std::string &file) {
  const auto text = yaml_scalar(node, file, "compare");
  for (Op op : {Op::ge, Op::gt, Op::le, Op::lt, Op::eq, Op::ne, Op::none_of, Op::any_of})
    if (to_string(op) == text)
      return op;
  throw InputError(fmt::format("unknown comparison '{}'", text), at(file, node),
                   "use one of >=, >, <=, <, ==, !=, none_of, any_of (quote the symbols: "
                   "compare: \">=\")");
}

// YAML scalar -> JSON number, bool or string, so filters compare like record params.
nlohmann::json to_json_value(const YAML::Node &node, const std::string &file) {
  if (node.IsNull()) // `null` or `~`: matches a record without the param
    return nullptr;
  if (node.IsSequence()) {
    auto list = nlohmann::json::array();
    for (const auto &item : node)
      list.push_back(to_json_value(item, file));
    return list;
  }
  if (!node.IsScalar())
    throw InputError("a params filter value must be a scalar or a list of scalars", at(file, node),
                     "write e.g. params: {dtype: bf16, tp: [1, 2, 4, 8]}");
  const auto text = node.as<std::string>();
  if (node.Tag() != "!") { // not a quoted string: try number, bool and null
    if (text == "true" || text == "false")
      return text == "true";
    if (text == "null" || text == "~")
      return nullptr;
    try {
      std::size_t used = 0;
      const long long i = std::stoll(text, &used);
      if (used == text.size())
        return i;
      const double d = std::stod(text, &used);
      if (used == text.size())
        return d;
    } catch (const std::exception &) {
    }
  }
  return text;
}

// A whole number of at least 2 (min_size, min_points).
int count_of_at_least_2(const YAML::Node &node, const std::string &file, const char *what,
                        const char *example) {
  const double n = number(node, file, what);
  // Checked before the cast: 2^31 cast to int wraps, and a negative min_size turns the guard off.
  if (n < 2 || n != std::floor(n) || n > std::numeric_limits<int>::max())
    throw InputError(fmt::format("'{}' must be a whole number from 2 to {}", what,
                                 std::numeric_limits<int>::max()),
                     at(file, node), fmt::format("write e.g. {}: {}", what, example));
  return static_cast<int>(n);
}

FleetBound parse_fleet(const YAML::Node &node, const std::string &file) {
  if (!node.IsMap())
    throw InputError("'fleet' must be a mapping", at(file, node),
                     "write e.g. fleet: {mads: 3, fraction: 0.95}");
  expect_keys(
      node, file, "a fleet bound",
      {"mads", "fraction", "min_size", "on_too_small", "ignore_params", "scope", "reference"});
  FleetBound f;
  if (node["scope"]) {
    const auto scope = yaml_scalar(node["scope"], file, "scope");
    if (scope != "fleet" && scope != "node")
      throw InputError(fmt::format("unknown scope '{}'", scope), at(file, node["scope"]),
                       "use scope: fleet (every node's parts together) or scope: node (each "
                       "node's parts against each other)");
    f.per_node = scope == "node";
  }
  if (node["reference"]) {
    const auto ref = yaml_scalar(node["reference"], file, "reference");
    if (ref != "median" && ref != "best")
      throw InputError(fmt::format("unknown reference '{}'", ref), at(file, node["reference"]),
                       "use reference: median or reference: best");
    f.against_best = ref == "best";
  }
  if (node["mads"]) {
    f.mads = number(node["mads"], file, "mads");
    if (*f.mads < 0)
      throw InputError("'mads' must not be negative", at(file, node["mads"]),
                       "give how many MADs away from the median a value may be, e.g. 3");
  }
  if (node["fraction"]) {
    f.fraction = number(node["fraction"], file, "fraction");
    if (*f.fraction <= 0)
      throw InputError("'fraction' must be positive", at(file, node["fraction"]),
                       "give the threshold as a fraction of the fleet median, e.g. 0.9");
  }
  if (!f.mads && !f.fraction)
    throw InputError("a fleet bound needs 'mads', 'fraction' or both", at(file, node),
                     "write e.g. fleet: {mads: 3, fraction: 0.95}");
  if (node["min_size"])
    f.min_size = count_of_at_least_2(node["min_size"], file, "min_size", "5");
  if (node["on_too_small"])
    f.on_too_small = yaml_level(node["on_too_small"], file, "on_too_small", true);
  if (node["ignore_params"]) {
    const auto list = node["ignore_params"];
    if (!list.IsSequence())
      throw InputError("'ignore_params' must be a list", at(file, list),
                       "write e.g. ignore_params: [gpu, numa_node]");
    f.ignore_params.clear();
    for (const auto &item : list)
      f.ignore_params.push_back(yaml_scalar(item, file, "ignore_params"));
  }
  return f;
}

CurveSpec parse_curve(const YAML::Node &node, const std::string &file) {
  if (!node.IsMap())
    throw InputError("'curve' must be a mapping", at(file, node),
                     "write e.g. curve: {over: size_bytes, take: largest_over_peak}");
  expect_keys(node, file, "a curve", {"over", "take", "ignore_params", "min_points"});
  CurveSpec c;
  if (node["over"])
    c.over = yaml_scalar(node["over"], file, "over");
  if (!node["take"])
    throw InputError(
        "'curve' has no 'take'", at(file, node),
        "add take: largest, peak, largest_over_peak, worst_drop or smallest_over_peak");
  const auto take = yaml_scalar(node["take"], file, "take");
  bool known = false;
  for (CurveTake t : {CurveTake::largest, CurveTake::peak, CurveTake::largest_over_peak,
                      CurveTake::worst_drop, CurveTake::smallest_over_peak})
    if (to_string(t) == take) {
      c.take = t;
      known = true;
    }
  if (!known)
    throw InputError(
        fmt::format("unknown curve figure '{}'", take), at(file, node["take"]),
        "use take: largest, peak, largest_over_peak, worst_drop or smallest_over_peak");
  if (node["ignore_params"]) {
    if (!node["ignore_params"].IsSequence())
      throw InputError("'ignore_params' must be a list", at(file, node["ignore_params"]),
                       "write e.g. ignore_params: [count]");
    c.ignore_params.clear();
    for (const auto &item : node["ignore_params"])
      c.ignore_params.push_back(yaml_scalar(item, file, "ignore_params"));
  }
  if (node["min_points"])
    c.min_points = count_of_at_least_2(node["min_points"], file, "min_points", "3");
  return c;
}

// Whether the rule has `first`: it must have exactly one of `first` and `second`.
bool exactly_one(const YAML::Node &node, const Rule &r, const char *first, const char *second,
                 const std::string &which, const char *fix) {
  const bool has_first = static_cast<bool>(node[first]);
  if (has_first == static_cast<bool>(node[second]))
    throw InputError(fmt::format("rule '{}' needs exactly one {}", r.id, which), r.where, fix);
  return has_first;
}

// id, description, category, severity and on_missing.
void parse_identity(const YAML::Node &node, const std::string &file, Rule &r) {
  if (!node["id"])
    throw InputError("a rule has no 'id'", r.where, "add 'id: short-name' to the rule");
  r.id = yaml_scalar(node["id"], file, "id");
  if (node["description"])
    r.description = yaml_scalar(node["description"], file, "description");

  if (!node["category"])
    throw InputError(fmt::format("rule '{}' has no 'category'", r.id), r.where,
                     "add category: compute, memory, pcie, nvlink, nic, fabric or health");
  r.category = yaml_scalar(node["category"], file, "category");
  if (std::find(std::begin(kCategories), std::end(kCategories), r.category) ==
      std::end(kCategories))
    throw InputError(fmt::format("unknown category '{}'", r.category), at(file, node["category"]),
                     "use compute, memory, pcie, nvlink, nic, fabric or health");

  if (!node["severity"])
    throw InputError(fmt::format("rule '{}' has no 'severity'", r.id), r.where,
                     "add severity: warn or severity: fail");
  r.severity = yaml_level(node["severity"], file, "severity", false);
  r.on_missing =
      node["on_missing"] ? yaml_level(node["on_missing"], file, "on_missing", true) : r.severity;
}

// select: (key globs and params filter) and metric: of a rule that judges records.
void parse_metric_target(const YAML::Node &node, const std::string &file, Rule &r) {
  if (!node["select"])
    throw InputError(fmt::format("rule '{}' has a metric but no 'select'", r.id), r.where,
                     "add select: {key: \"gemm.*\"} to pick the records it judges");
  const auto sel = node["select"];
  if (!sel.IsMap())
    throw InputError("'select' must be a mapping", at(file, sel),
                     "write select: {key: \"memory.host_*\", params: {size_bytes: 1073741824}}");
  expect_keys(sel, file, "a select", {"key", "params"});
  if (!sel["key"])
    throw InputError("'select' has no 'key'", at(file, sel),
                     "add key: followed by a benchmark key or glob such as \"gemm.*\"");
  // One glob, or a list of them (any matches): fnmatch has no {a,b}.
  if (sel["key"].IsSequence()) {
    for (const auto &item : sel["key"]) {
      r.key_globs.push_back(yaml_scalar(item, file, "key"));
      r.key_glob += (r.key_glob.empty() ? "" : ", ") + r.key_globs.back();
    }
  } else {
    r.key_glob = yaml_scalar(sel["key"], file, "key");
    r.key_globs = {r.key_glob};
  }
  if (sel["params"]) {
    if (!sel["params"].IsMap())
      throw InputError("'params' must be a mapping", at(file, sel["params"]),
                       "write params: {dtype: bf16, tp: [1, 8]}");
    for (const auto &kv : sel["params"])
      r.params[yaml_scalar(kv.first, file, "a params name")] = to_json_value(kv.second, file);
  }
  r.metric = yaml_scalar(node["metric"], file, "metric");
  const auto root = r.metric.substr(0, r.metric.find('.'));
  if (root != "metrics" && root != "params" && root != "device")
    throw InputError(fmt::format("metric path '{}' must start with metrics., params. or "
                                 "device.",
                                 r.metric),
                     at(file, node["metric"]),
                     "write e.g. metric: metrics.bandwidth_gbytes_per_s or "
                     "metrics.time_s.median");
}

// applies_to: which runs the rule judges (its own, imported or any).
void parse_applies_to(const YAML::Node &node, const std::string &file, Rule &r) {
  if (node["applies_to"]) {
    const auto text = yaml_scalar(node["applies_to"], file, "applies_to");
    if (text == "own")
      r.applies_to = AppliesTo::own;
    else if (text == "imported")
      r.applies_to = AppliesTo::imported;
    else if (text != "any")
      throw InputError(fmt::format("unknown applies_to '{}'", text), at(file, node["applies_to"]),
                       "use any, own (railgauge's own runs) or imported (runs of `railgauge "
                       "import`)");
  }
}

// curve: and relative_to: (a figure of a size curve, a metric relative to another).
void parse_curve_options(const YAML::Node &node, const std::string &file, bool has_metric,
                         Rule &r) {
  if (node["curve"] || node["relative_to"]) {
    if (!has_metric)
      throw InputError("'curve' and 'relative_to' judge records, not the inventory", r.where,
                       "use them with select: and metric:");
    if (node["curve"])
      r.curve = parse_curve(node["curve"], file);
    if (node["relative_to"]) {
      r.relative_to = yaml_scalar(node["relative_to"], file, "relative_to");
      const auto root = r.relative_to.substr(0, r.relative_to.find('.'));
      if (root != "metrics" && root != "params")
        throw InputError(
            fmt::format("relative_to path '{}' must start with metrics. or params.", r.relative_to),
            at(file, node["relative_to"]), "write e.g. relative_to: metrics.latency.p50_s");
    }
    if (node["on_missing_relative_to"])
      r.on_missing_relative_to =
          yaml_level(node["on_missing_relative_to"], file, "on_missing_relative_to", true);
    if (r.curve && node["fleet"])
      throw InputError("a curve rule takes an absolute 'value', not 'fleet'", r.where,
                       "judge the curve's figure with value: NUMBER");
  }
  if (node["on_missing_relative_to"] && !node["relative_to"])
    throw InputError("'on_missing_relative_to' is the level of a value without its relative_to",
                     at(file, node["on_missing_relative_to"]),
                     "add relative_to: PATH, or write on_missing: instead");
  if (node["empty_list"]) {
    if (yaml_scalar(node["empty_list"], file, "empty_list") != "pass")
      throw InputError("'empty_list' takes one value, pass", at(file, node["empty_list"]),
                       "write empty_list: pass, or leave it out (an empty list is missing)");
    if (!has_metric || r.metric.find(".*.") == std::string::npos || node["fleet"] ||
        node["curve"] || node["relative_to"])
      throw InputError(
          "'empty_list: pass' is for a rule whose metric walks a list with `*` and "
          "judges each item against a value",
          at(file, node["empty_list"]),
          "give metric: PATH.*.FIELD with value:, without fleet, curve or relative_to");
    r.empty_list_passes = true;
  }
}

// detail: {path, text}: a field of the same record a violation's finding shows (rules.h).
void parse_detail(const YAML::Node &node, const std::string &file, bool has_metric, Rule &r) {
  if (!node["detail"])
    return;
  const auto &d = node["detail"];
  const char *example = "write e.g. detail: {path: metrics.telemetry.health_delta."
                        "nvlink_errors_per_link, text: \"NVLink {link}: {crc_flit} flit CRC\"}";
  if (!has_metric)
    throw InputError("'detail' reads the judged record, not the inventory", at(file, d),
                     "use it with select: and metric:");
  if (node["curve"])
    throw InputError("'detail' is shown by a rule that judges records, not curves", at(file, d),
                     "use it with value: NUMBER or fleet:, or remove detail: from this curve rule");
  // Not beside what the judges write there too (a ratio's denominator, a part's siblings), which
  // the fleet history would not give the same words
  if (node["relative_to"] || (node["fleet"] && node["fleet"].IsMap() && node["fleet"]["scope"]))
    throw InputError("'detail' is not shown by a rule with relative_to: or a fleet scope:",
                     at(file, d), "remove detail:, or judge the value on its own");
  if (!d.IsMap() || !d["path"] || !d["text"])
    throw InputError("'detail' must be a mapping with 'path' and 'text'", at(file, d), example);
  expect_keys(d, file, "a detail", {"path", "text"});
  DetailSpec spec{yaml_scalar(d["path"], file, "path"), yaml_scalar(d["text"], file, "text")};
  const auto root = spec.path.substr(0, spec.path.find('.'));
  if ((root != "metrics" && root != "params") || spec.path.find('*') != std::string::npos)
    throw InputError(
        fmt::format("detail path '{}' must start with metrics. or params., without wildcards",
                    spec.path),
        at(file, d["path"]), example);
  const auto open = spec.text.find('{');
  if (open == std::string::npos || spec.text.find('}', open) == std::string::npos)
    throw InputError(fmt::format("detail text '{}' names no field", spec.text), at(file, d["text"]),
                     "name the item's fields in braces, e.g. \"NVLink {link}: {crc_flit}\"");
  r.detail = std::move(spec);
}

// part: the kind of part (node, GPU, NIC) a rule's verdicts name.
void parse_part(const YAML::Node &node, const std::string &file, Rule &r) {
  if (node["part"]) {
    const auto text = yaml_scalar(node["part"], file, "part");
    if (text == "node")
      r.part = PartKind::node;
    else if (text == "gpu")
      r.part = PartKind::gpu;
    else if (text == "nic")
      r.part = PartKind::nic;
    else
      throw InputError(fmt::format("unknown part '{}'", text), at(file, node["part"]),
                       "use node, gpu or nic");
  }
}

// compare: and its bound: values for none_of / any_of, else value: or fleet:.
void parse_bound(const YAML::Node &node, const std::string &file, Rule &r) {
  if (!node["compare"])
    throw InputError(fmt::format("rule '{}' has no 'compare'", r.id), r.where,
                     "add compare: \">=\" (or >, <=, <, ==, !=, none_of, any_of)");
  r.op = parse_op(node["compare"], file);
  const bool set_op = r.op == Op::none_of || r.op == Op::any_of;
  if (set_op) {
    if (!node["values"] || !node["values"].IsSequence())
      throw InputError(fmt::format("'{}' needs a 'values' list", to_string(r.op)), r.where,
                       "write values: [hw_slowdown, hw_thermal_slowdown]");
    if (node["value"] || node["fleet"])
      throw InputError(fmt::format("'{}' takes 'values', not 'value' or 'fleet'", to_string(r.op)),
                       r.where, "remove value:/fleet: from this rule");
    // An empty list would pass every value under none_of (and fail every one under any_of): a
    // rule that reads nothing must not look like one that judges.
    if (node["values"].size() == 0)
      throw InputError(fmt::format("'{}' has an empty 'values' list", to_string(r.op)),
                       at(file, node["values"]), "list the values, e.g. [hw_slowdown]");
    for (const auto &item : node["values"])
      r.values.push_back(yaml_scalar(item, file, "values"));
    return;
  }
  if (node["values"])
    throw InputError("'values' is only for none_of and any_of", at(file, node["values"]),
                     "use value: NUMBER with a numeric comparison");
  if (exactly_one(node, r, "value", "fleet", "bound: 'value' or 'fleet'",
                  "write value: NUMBER for an absolute bound, or fleet: {mads: 3} for one "
                  "relative to the same metric on the other parts"))
    r.value = number(node["value"], file, "value");
  else {
    if (r.op == Op::eq || r.op == Op::ne)
      throw InputError("a fleet bound needs >=, >, <= or <", at(file, node["compare"]),
                       "say which side is bad: \">=\" when lower is worse, \"<=\" when higher");
    r.fleet = parse_fleet(node["fleet"], file);
    const bool higher_is_better = r.op == Op::ge || r.op == Op::gt;
    if (r.fleet->fraction && (higher_is_better ? *r.fleet->fraction > 1 : *r.fleet->fraction < 1))
      throw InputError(
          fmt::format("fraction {} is on the wrong side of the median for compare '{}'",
                      *r.fleet->fraction, to_string(r.op)),
          at(file, node["fleet"]),
          higher_is_better ? "with >= the threshold is below the median: use a fraction <= 1"
                           : "with <= the threshold is above the median: use a fraction >= 1");
  }
}

} // namespace

Rule parse_rule(const YAML::Node &node, const std::string &file) {
  if (!node.IsMap())
    throw InputError("a rule must be a mapping", at(file, node),
                     "start each rule with '- id: NAME' followed by its fields");
  expect_keys(node, file, "a rule",
              {"id", "description", "category", "severity", "on_missing", "select", "metric",
               "inventory", "part", "compare", "value", "values", "fleet", "curve", "relative_to",
               "on_missing_relative_to", "detail", "applies_to", "empty_list"});
  Rule r;
  r.where = at(file, node);
  parse_identity(node, file, r);

  const bool has_metric =
      exactly_one(node, r, "metric", "inventory", "of 'metric' or 'inventory'",
                  "judge records with select: + metric: metrics.NAME, or the run's "
                  "inventory with inventory: PROBE (docs/check.md lists the probes)");
  if (has_metric) {
    parse_metric_target(node, file, r);
  } else {
    if (node["select"])
      throw InputError("an inventory rule takes no 'select'", at(file, node["select"]),
                       "remove select:, or judge records with metric: instead of inventory:");
    r.probe = yaml_scalar(node["inventory"], file, "inventory");
    if (!is_known_probe(r.probe))
      throw InputError(fmt::format("unknown inventory probe '{}'", r.probe),
                       at(file, node["inventory"]), "use one of: " + known_probes_text());
  }
  parse_applies_to(node, file, r);
  parse_curve_options(node, file, has_metric, r);
  parse_detail(node, file, has_metric, r);
  parse_part(node, file, r);
  parse_bound(node, file, r);
  return r;
}

} // namespace railgauge::check
