#include "analysis/check/evaluate.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analysis/check/inventory_probes.h"
#include "analysis/check/json_path.h"
#include "analysis/check/run_completeness.h"
#include "harness/json_integer.h"
#include "harness/registry.h"
#include "harness/waiver.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/per_gpu_parts.h"
#include "records/rdma_record.h"

namespace railgauge::check {
namespace {

using json = nlohmann::json;

// What a host's inventory says about its GPUs: bus id by UUID, and an index for labels.
struct HostIndex {
  std::map<std::string, std::string> pci_by_uuid;
  std::map<std::string, int> index_by_pci;
};

std::string fmt_num(double v) { return fmt::format("{:.4g}", v); }

// A field of run.json read back: a file, it may hold anything. Missing or of another type, the
// field is absent (never the JSON library's type_error, never a float cast out of range).
std::string text_field(const json &j, const char *name) {
  return j.is_object() && j.contains(name) && j.at(name).is_string() ? j.at(name).get<std::string>()
                                                                     : "";
}

std::optional<int> int_field(const json &j, const char *name) {
  if (!j.is_object() || !j.contains(name))
    return std::nullopt;
  return json_integer<int>(j.at(name));
}

std::string category_of_key(const std::string &key) {
  const auto family = key.substr(0, key.find('.'));
  for (const auto &[name, category] :
       {std::pair{gemm::record::kFamily, gemm::record::kCategory},
        std::pair{memory::record::kFamily, memory::record::kCategory},
        std::pair{offload::record::kFamily, offload::record::kCategory},
        std::pair{rdma::record::kFamily, rdma::record::kCategory},
        std::pair{collectives::record::kFamily, collectives::record::kCategory}})
    if (family == name)
      return category;
  return "health";
}

bool is_imported(const analysis::LoadedRun &run) {
  return run.manifest.is_object() && run.manifest.contains("imported");
}

bool applies(const Rule &rule, const analysis::LoadedRun &run) {
  if (rule.applies_to == AppliesTo::any)
    return true;
  return (rule.applies_to == AppliesTo::imported) == is_imported(run);
}

// A number read from a record (a bool counts as 0 or 1) into `out`; false when it is none.
bool number_into(const json &v, double &out) {
  if (v.is_boolean())
    out = v.get<bool>() ? 1 : 0;
  else if (v.is_number())
    out = v.get<double>();
  else
    return false;
  return true;
}

class Evaluator {
public:
  Evaluator(const RuleSet &rules, const analysis::RunSet &runs) : rules_(rules), runs_(runs) {}

  CheckResult run() {
    index_hosts();
    for (const auto &rule : rules_.rules) {
      result_.rule_categories[rule.id] = rule.category;
      if (rule.from_inventory())
        inventory_rule(rule);
      else
        record_rule(rule);
    }
    record_status_rule();
    run_complete_rule();
    auto result = finish();
    for (const auto &u : runs_.unreadable)
      result.unreadable.push_back({u.path, u.what, rules_.unreadable_inputs});
    if (!result.unreadable.empty())
      result.verdict = std::max(result.verdict, rules_.unreadable_inputs);
    return result;
  }

private:
  struct Observation {
    PartKey part;
    Finding base; // what, key, params, run filled in
    double value = 0;
  };

  void index_hosts() {
    for (const auto &run : runs_.runs) {
      std::string host = text_field(run.manifest, "host");
      if (host.empty() && !run.records.empty())
        host = run.records.front().host;
      if (host.empty())
        host = run.dir;
      run_host_[run.dir] = host;
      part(PartKey{host, PartKind::node, ""});
      const bool imported = is_imported(run);
      for (const auto &r : run.records)
        (imported ? imported_hosts_ : own_hosts_).insert(r.host);
      (imported ? imported_hosts_ : own_hosts_).insert(host);
      // An import's run.json describes the machine that imported it, never the one measured:
      // its inventory is not judged.
      if (!imported && run.manifest.is_object() && run.manifest.contains("inventory") &&
          run.manifest["inventory"].is_object()) {
        inventories_[host].emplace_back(run.dir, &run.manifest["inventory"]);
        index_inventory(host, run.manifest["inventory"]);
      }
      if (imported)
        index_imported_gpus(host, run.manifest.at("imported"));
      for (const auto &r : run.records)
        part(PartKey{r.host, PartKind::node, ""});
    }
  }

  // An import has no inventory, but its source may list the GPUs' bus ids by CUDA ordinal
  // (nvbandwidth's device list): its GPUs are then labelled gpu<ordinal> as on an own run.
  void index_imported_gpus(const std::string &host, const json &imported) {
    if (!imported.is_object() || !imported.contains("device_pci") ||
        !imported.at("device_pci").is_array())
      return;
    int ordinal = 0;
    for (const auto &bus : imported.at("device_pci")) {
      if (bus.is_string() && !bus.get<std::string>().empty())
        hosts_[host].index_by_pci.emplace(normalize_bus_id(bus.get<std::string>()), ordinal);
      ++ordinal;
    }
  }

  void index_inventory(const std::string &host, const json &inv) {
    auto &idx = hosts_[host];
    const auto add = [&](const json &g, const char *bus_field, int index) {
      const std::string bus = text_field(g, bus_field);
      if (bus.empty())
        return;
      const auto pci = normalize_bus_id(bus);
      if (const auto uuid = text_field(g, "uuid"); !uuid.empty())
        idx.pci_by_uuid[uuid] = pci;
      idx.index_by_pci.emplace(pci, index);
    };
    const auto gpus = [&](const char *section) -> const json & {
      static const json none = json::array();
      if (!inv.contains(section) || !inv.at(section).is_object())
        return none;
      const auto &s = inv.at(section);
      return s.contains("gpus") && s.at("gpus").is_array() ? s.at("gpus") : none;
    };
    for (const auto &g : gpus("nvml"))
      add(g, "pci_bus_id", int_field(g, "index").value_or(0));
    int i = 0;
    for (const auto &g : gpus("rail_map")) {
      const auto nvml_index = int_field(g, "nvml_index");
      add(g, "bus_id", nvml_index ? *nvml_index : i++);
    }
  }

  PartResult &part(const PartKey &key) {
    auto [it, inserted] = parts_.try_emplace(key);
    if (inserted) {
      it->second.key = key;
      part(PartKey{key.host, PartKind::node, ""}); // every part's node is listed too
    }
    return it->second;
  }

  PartKey part_of(const Record &r, const Rule *rule, const std::string &category) {
    const auto has = [&](const char *f) {
      return r.device.is_object() && r.device.contains(f) && r.device[f].is_string() &&
             !r.device[f].get<std::string>().empty();
    };
    const bool gpu = has("gpu") || has("pci");
    const bool nic = has("nic");
    PartKind kind = PartKind::node;
    const bool network = category == "nic" || category == "fabric";
    if (rule && rule->part)
      kind = *rule->part;
    else if (nic && (network || !gpu))
      kind = PartKind::nic;
    else if (gpu)
      kind = PartKind::gpu;
    if (kind == PartKind::gpu && gpu) {
      std::string id;
      if (has("pci"))
        id = normalize_bus_id(r.device["pci"].get<std::string>());
      else {
        const auto uuid = r.device["gpu"].get<std::string>();
        const auto &idx = hosts_[r.host];
        const auto it = idx.pci_by_uuid.find(uuid);
        id = it != idx.pci_by_uuid.end() ? it->second : uuid;
      }
      return {r.host, PartKind::gpu, id};
    }
    if (kind == PartKind::nic && nic)
      return {r.host, PartKind::nic, r.device["nic"].get<std::string>()};
    return {r.host, PartKind::node, ""};
  }

  void add_finding(const PartKey &key, Finding f) {
    auto &p = part(key);
    p.findings.push_back(std::move(f));
  }

  void tally(const PartKey &key, const std::string &rule, bool passed) {
    auto &t = part(key).rules[rule];
    ++t.checked;
    t.passed += passed ? 1 : 0;
  }

  Finding missing(const Rule &rule, std::string what, std::string detail, Level level) {
    Finding f;
    f.rule_id = rule.id;
    f.category = rule.category;
    f.level = level;
    f.missing = true;
    f.what = std::move(what);
    f.detail = std::move(detail);
    return f;
  }

  std::string absolute_bound(const Rule &rule) const {
    if (rule.op == Op::none_of || rule.op == Op::any_of) {
      std::string list;
      for (const auto &v : rule.values)
        list += (list.empty() ? "" : ", ") + v;
      return fmt::format("{} [{}]", to_string(rule.op), list);
    }
    return fmt::format("{} {}", to_string(rule.op), fmt_num(*rule.value));
  }

  // Judges a value that needs no fleet; returns false when it is not judgeable.
  void judge_absolute(const Rule &rule, const PartKey &key, Finding f, const json &value) {
    bool pass = false;
    if (rule.op == Op::none_of || rule.op == Op::any_of) {
      pass = values_pass(rule.op, value, rule.values);
    } else {
      const double v = value.is_boolean() ? (value.get<bool>() ? 1 : 0) : value.get<double>();
      pass = compare_pass(rule.op, v, *rule.value);
      f.threshold = *rule.value;
    }
    tally(key, rule.id, pass);
    if (pass)
      return;
    f.level = rule.severity;
    f.value = value;
    f.bound = absolute_bound(rule);
    add_finding(key, std::move(f));
  }

  // Number, bool, or (for set comparisons) string/list; anything else is not judgeable.
  static bool judgeable(const Rule &rule, const json &v) {
    if (rule.op == Op::none_of || rule.op == Op::any_of)
      return v.is_string() || v.is_array() || v.is_number() || v.is_boolean();
    return v.is_number() || v.is_boolean();
  }

  // The fleet a value belongs to: same rule, key, params (less those naming the part) and path.
  static std::string group_of(const Rule &rule, const PartKey &part, const std::string &key,
                              const json &params, const std::string &path) {
    json p = params.is_object() ? params : json::object();
    for (const auto &name : rule.fleet->ignore_params)
      p.erase(name);
    const std::string scope = rule.fleet->per_node ? part.host + " " : "";
    return scope + key + " " + p.dump() + " " + path;
  }

  void observe(const Rule &rule, const PartKey &key, Finding f, const json &value,
               const std::string &group) {
    if (!judgeable(rule, value)) {
      tally(key, rule.id, false);
      add_finding(key, missing(rule, f.what, fmt::format("value {} is not a number", value.dump()),
                               rule.on_missing));
      return;
    }
    if (!rule.fleet) {
      judge_absolute(rule, key, std::move(f), value);
      return;
    }
    const double v = value.is_boolean() ? (value.get<bool>() ? 1 : 0) : value.get<double>();
    fleets_[group].push_back({key, std::move(f), v});
  }

  void judge_fleets(const Rule &rule) {
    if (rule.fleet->per_node) {
      for (auto &[group, obs] : fleets_)
        judge_siblings(rule, obs);
      fleets_.clear();
      return;
    }
    for (auto &[group, obs] : fleets_) {
      std::vector<double> values;
      for (const auto &o : obs)
        values.push_back(o.value);
      const auto stats = fleet_stats(values);
      const auto &fb = *rule.fleet;
      for (auto &o : obs) {
        if (stats.n < fb.min_size) {
          tally(o.part, rule.id, false);
          auto m = missing(rule, o.base.what,
                           fmt::format("fleet of {} value{} is smaller than min_size {}", stats.n,
                                       stats.n == 1 ? "" : "s", fb.min_size),
                           fb.on_too_small);
          m.key = o.base.key;
          m.params = o.base.params;
          m.run = o.base.run;
          add_finding(o.part, std::move(m));
          continue;
        }
        const double t = fleet_threshold(fb, rule.op, stats);
        const bool pass = compare_pass(rule.op, o.value, t);
        tally(o.part, rule.id, pass);
        if (pass)
          continue;
        Finding f = std::move(o.base);
        f.level = rule.severity;
        f.value = o.value;
        f.threshold = t;
        f.fleet = stats;
        const bool higher = rule.op == Op::ge || rule.op == Op::gt;
        const double ref = reference_value(fb, rule.op, stats);
        const char *ref_name = fb.against_best ? "best" : "median";
        std::string how;
        if (fb.mads)
          how = fmt::format("{} {} {} {} MAD {}", ref_name, fmt_num(ref), higher ? "-" : "+",
                            fmt_num(*fb.mads), fmt_num(stats.mad));
        if (fb.fraction)
          how += fmt::format("{}{} x {} {}", how.empty() ? "" : " or ", fmt_num(*fb.fraction),
                             ref_name, fmt_num(ref));
        const char *scope = fb.per_node ? "this node's parts" : "fleet";
        f.bound = fmt::format("{} {} ({} of {}: {})", to_string(rule.op), fmt_num(t), scope,
                              stats.n, how);
        const double rel = ref != 0 ? (o.value / ref - 1) * 100 : 0;
        f.detail =
            fmt::format("{:+.1f}% from the {} {}", rel, fb.per_node ? "node's" : "fleet", ref_name);
        add_finding(o.part, std::move(f));
      }
    }
    fleets_.clear();
  }

  // `scope: node`: each part of one node and point against its siblings (the node's other
  // parts), each part at the median of its own values (see sibling_stats).
  void judge_siblings(const Rule &rule, std::vector<Observation> &obs) {
    std::map<PartKey, std::vector<Observation *>> by_part;
    for (auto &o : obs)
      by_part[o.part].push_back(&o);
    std::vector<std::vector<double>> values;
    for (const auto &[part, list] : by_part) {
      values.emplace_back();
      for (const auto *o : list)
        values.back().push_back(o->value);
    }
    const auto stats = sibling_stats(values);
    const auto &fb = *rule.fleet;
    std::size_t i = 0;
    for (auto &[part, list] : by_part) {
      const SiblingStats &s = stats[i++];
      Finding base = std::move(list.front()->base);
      if (s.own_values > 1) {
        // Several values (a row of a GPU x GPU matrix): the params that tell them apart name a
        // peer, not the point.
        for (const auto &name : fb.ignore_params)
          base.params.erase(name);
      }
      const int parts = s.siblings.n + 1;
      if (parts < fb.min_size) {
        tally(part, rule.id, false);
        auto m = missing(rule, base.what,
                         s.siblings.n == 0
                             ? std::string("no sibling on this node measured this point (a part "
                                           "alone has nothing to be compared with)")
                             : fmt::format("{} parts of this node measured this point, fewer "
                                           "than min_size {}",
                                           parts, fb.min_size),
                         fb.on_too_small);
        m.key = base.key;
        m.params = base.params;
        m.run = base.run;
        add_finding(part, std::move(m));
        continue;
      }
      const double t = fleet_threshold(fb, rule.op, s.siblings);
      const bool pass = compare_pass(rule.op, s.own, t);
      tally(part, rule.id, pass);
      if (pass)
        continue;
      const double ref = reference_value(fb, rule.op, s.siblings);
      const char *ref_name = fb.against_best ? "best" : "median";
      Finding f = std::move(base);
      f.level = rule.severity;
      f.value = s.own;
      f.threshold = t;
      f.fleet = s.siblings;
      std::string how = fmt::format("the {} {} of its {} sibling{} on this node", ref_name,
                                    fmt_num(ref), s.siblings.n, s.siblings.n == 1 ? "" : "s");
      if (fb.fraction)
        how = fmt::format("{} x {}", fmt_num(*fb.fraction), how);
      if (fb.mads)
        how += fmt::format(", {} MAD {}", fmt_num(*fb.mads), fmt_num(s.siblings.mad));
      f.bound = fmt::format("{} {} ({})", to_string(rule.op), fmt_num(t), how);
      const double rel = ref != 0 ? (s.own / ref - 1) * 100 : 0;
      f.detail = fmt::format(
          "{:+.1f}% from its siblings' {}{}", rel, ref_name,
          s.own_values > 1 ? fmt::format("; the median of its {} values", s.own_values) : "");
      add_finding(part, std::move(f));
    }
  }

  // One point of a curve: the record's figure at its `over` value.
  struct CurvePoint {
    double x = 0, y = 0;
    Finding base;
  };
  struct Curve {
    PartKey part;
    std::vector<CurvePoint> points;
  };

  static std::string curve_of(const Rule &rule, const std::string &run, const PartKey &part,
                              const Record &r) {
    json p = r.params.is_object() ? r.params : json::object();
    p.erase(rule.curve->over);
    for (const auto &name : rule.curve->ignore_params)
      p.erase(name);
    return fmt::format("{} {} {} {} {} {}", run, part.host, to_string(part.kind), part.id, r.key,
                       p.dump());
  }

  // The figure a curve rule judges, with the point it names and how it was found.
  void judge_curve(const Rule &rule, Curve &curve) {
    auto &pts = curve.points;
    std::sort(pts.begin(), pts.end(),
              [](const CurvePoint &a, const CurvePoint &b) { return a.x < b.x; });
    const CurveSpec &spec = *rule.curve;
    const bool shape = spec.take == CurveTake::largest_over_peak ||
                       spec.take == CurveTake::worst_drop ||
                       spec.take == CurveTake::smallest_over_peak;
    if (shape && static_cast<int>(pts.size()) < spec.min_points) {
      tally(curve.part, rule.id, false);
      auto m = missing(rule, pts.back().base.what,
                       fmt::format("a curve of {} point{} is shorter than min_points {}",
                                   pts.size(), pts.size() == 1 ? "" : "s", spec.min_points),
                       Level::info);
      m.key = pts.back().base.key;
      m.params = pts.back().base.params;
      m.run = pts.back().base.run;
      add_finding(curve.part, std::move(m));
      return;
    }
    const auto x_text = [&](double x) {
      return spec.over == "size_bytes" ? bytes_text(x) : fmt_num(x);
    };
    std::size_t at = pts.size() - 1, from = 0;
    double value = pts.back().y;
    std::string how;
    std::size_t best = 0;
    for (std::size_t i = 1; i < pts.size(); ++i)
      if (pts[i].y > pts[best].y)
        best = i;
    switch (spec.take) {
    case CurveTake::largest:
      how = fmt::format("at the largest {} measured, {}", spec.over, x_text(pts[at].x));
      break;
    case CurveTake::peak:
      at = best;
      value = pts[best].y;
      how = fmt::format("best over {} points, at {}", pts.size(), x_text(pts[at].x));
      break;
    case CurveTake::largest_over_peak:
      from = best;
      value = pts[best].y > 0 ? pts.back().y / pts[best].y : 0;
      how = fmt::format("{} at {} against the peak {} at {}", fmt_num(pts.back().y),
                        x_text(pts.back().x), fmt_num(pts[best].y), x_text(pts[best].x));
      break;
    case CurveTake::smallest_over_peak:
      at = 0;
      from = best;
      value = pts[best].y > 0 ? pts.front().y / pts[best].y : 0;
      how = fmt::format("{} at {} against the peak {} at {}", fmt_num(pts.front().y),
                        x_text(pts.front().x), fmt_num(pts[best].y), x_text(pts[best].x));
      break;
    case CurveTake::worst_drop: {
      value = 1;
      std::size_t peak = 0;
      for (std::size_t i = 1; i < pts.size(); ++i) {
        if (pts[peak].y > 0 && pts[i].y / pts[peak].y < value) {
          value = pts[i].y / pts[peak].y;
          at = i;
          from = peak;
        }
        if (pts[i].y > pts[peak].y)
          peak = i;
      }
      how = value < 1 ? fmt::format("falls from {} at {} to {} at {}", fmt_num(pts[from].y),
                                    x_text(pts[from].x), fmt_num(pts[at].y), x_text(pts[at].x))
                      : "never falls";
      break;
    }
    }
    Finding f = pts[at].base;
    f.what = fmt::format("{} ({} over {})", f.what, to_string(spec.take), spec.over);
    f.detail = how;
    judge_absolute(rule, curve.part, std::move(f), json(value));
  }

  static std::string bytes_text(double b) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
      b /= 1024;
      ++u;
    }
    return fmt::format("{:.4g} {}", b, units[u]);
  }

  void note_not_applicable(const Rule &rule, const PartKey &node, const std::string &detail) {
    auto &seen = not_applicable_[{rule.id, node.host}];
    if (seen++ > 0)
      return;
    auto f = missing(rule, rule.metric, detail, Level::info);
    f.not_applicable = true;
    add_finding(node, std::move(f));
  }

  void note_not_covered(const Rule &rule, const std::string &host, const std::string &what) {
    auto f = missing(rule, what,
                     "the imported output of this node does not hold it (another tool prints "
                     "other figures)",
                     Level::info);
    f.not_covered = true;
    add_finding(PartKey{host, PartKind::node, ""}, std::move(f));
  }

  bool only_imported(const std::string &host) const {
    return !own_hosts_.count(host) && imported_hosts_.count(host);
  }

  // A record the rule selected but cannot judge: counted against the part, at on_missing.
  void record_missing(const Rule &rule, const PartKey &part, const Record &r,
                      const std::string &run, const std::string &what, std::string detail) {
    tally(part, rule.id, false);
    auto m = missing(rule, what, std::move(detail), rule.on_missing);
    m.key = r.key;
    m.params = r.params;
    m.run = run;
    add_finding(part, std::move(m));
  }

  void record_rule(const Rule &rule) {
    std::set<std::string> hosts_with_match;
    std::map<std::string, Curve> curves;
    for (const auto &run : runs_.runs) {
      if (!applies(rule, run))
        continue;
      for (const auto &r : run.records) {
        if (!key_match(rule, r.key) || !params_match(rule.params, r.params))
          continue;
        hosts_with_match.insert(r.host);
        if (r.status == Status::waived && r.reason && is_not_applicable(*r.reason)) {
          note_not_applicable(rule, PartKey{r.host, PartKind::node, ""},
                              fmt::format("{}: {}", r.key, *r.reason));
          continue;
        }
        const auto key = part_of(r, &rule, rule.category);
        Finding base;
        base.rule_id = rule.id;
        base.category = rule.category;
        base.key = r.key;
        base.params = r.params;
        base.run = run.dir;
        base.what = rule.metric;
        if (r.status == Status::failed || r.status == Status::error)
          continue; // record-status fails its part; it is not also missing here
        if (r.status != Status::ok) {
          record_missing(
              rule, key, r, run.dir, rule.metric,
              fmt::format("record is {}{}", to_string(r.status), r.reason ? ": " + *r.reason : ""));
          continue;
        }
        const json doc = {{"metrics", r.metrics}, {"params", r.params}, {"device", r.device}};
        const auto found = resolve_path(doc, rule.metric);
        if (found.empty() && is_imported(run)) {
          // Another tool's output has only the figures it prints (perftest no port counters).
          if (not_covered_metric_.insert({rule.id, r.host}).second)
            note_not_covered(rule, r.host, rule.metric);
          continue;
        }
        if (found.empty()) {
          record_missing(rule, key, r, run.dir, rule.metric, "the record has no such metric");
          continue;
        }
        for (const auto &pv : found) {
          Finding f = base;
          f.what = pv.path;
          json value = pv.value;
          if (!rule.relative_to.empty()) {
            const auto denominator = resolve_path(doc, rule.relative_to);
            double d = 0, v = 0;
            if (denominator.size() != 1 || !number_into(denominator.front().value, d) ||
                !number_into(value, v) || d <= 0) {
              record_missing(rule, key, r, run.dir, pv.path,
                             fmt::format("the record has no positive {}", rule.relative_to));
              continue;
            }
            f.what = fmt::format("{} / {}", pv.path, rule.relative_to);
            f.detail = fmt::format("{} over {}", fmt_num(v), fmt_num(d));
            value = v / d;
          }
          if (rule.curve) {
            double x = 0, y = 0;
            if (!r.params.contains(rule.curve->over) ||
                !number_into(r.params[rule.curve->over], x) || !number_into(value, y) || x <= 0)
              continue; // a size-0 row has no bandwidth to judge
            auto &curve = curves[curve_of(rule, run.dir, key, r) + " " + pv.path];
            curve.part = key;
            curve.points.push_back({x, y, std::move(f)});
            continue;
          }
          observe(rule, key, std::move(f), value,
                  rule.fleet ? group_of(rule, key, r.key, r.params, pv.path) : "");
        }
      }
    }
    for (auto &[id, curve] : curves)
      judge_curve(rule, curve);
    for (const auto &[key, p] : parts_) {
      if (key.kind != PartKind::node || hosts_with_match.count(key.host))
        continue;
      if (only_imported(key.host)) {
        note_not_covered(rule, key.host, rule.metric);
        continue;
      }
      if (!own_hosts_.count(key.host) && rule.applies_to == AppliesTo::own)
        continue;
      if (rule.applies_to == AppliesTo::imported)
        continue; // an own run cannot hold it; an import that lacks it is listed below
      std::string filter = rule.params.empty() ? "" : " with params " + rule.params.dump();
      add_finding(key,
                  missing(rule, rule.metric,
                          fmt::format("no record of '{}'{} on this node", rule.key_glob, filter),
                          rule.on_missing));
    }
    if (rule.fleet)
      judge_fleets(rule);
  }

  void inventory_rule(const Rule &rule) {
    std::vector<std::string> hosts;
    for (const auto &[key, p] : parts_)
      if (key.kind == PartKind::node)
        hosts.push_back(key.host);
    for (const auto &host : hosts) {
      const PartKey node{host, PartKind::node, ""};
      if (only_imported(host)) {
        note_not_covered(rule, host, rule.probe);
        continue;
      }
      const auto it = inventories_.find(host);
      if (it == inventories_.end()) {
        add_finding(node, missing(rule, rule.probe, "no run.json with an inventory for this node",
                                  rule.on_missing));
        continue;
      }
      // A node's runs that report the same value for a part are one observation: 15 runs of a
      // one-GPU node are one "gpu_count = 1" finding, and one value in a fleet, not 15.
      std::set<std::string> judged;
      for (const auto &[dir, inventory] : it->second) {
        const auto probe = run_probe(rule.probe, *inventory);
        if (!probe.available) {
          // No run dir: two ranks' runs of one node lacking NVML are one finding.
          add_finding(node, missing(rule, rule.probe, probe.reason, rule.on_missing));
          continue;
        }
        for (const auto &pv : probe.values) {
          if (!judged
                   .insert(fmt::format("{}\x1f{}\x1f{}\x1f{}", static_cast<int>(pv.kind), pv.id,
                                       pv.detail, pv.value.dump()))
                   .second)
            continue;
          const PartKey key{host, pv.kind, pv.id};
          Finding f;
          f.rule_id = rule.id;
          f.category = rule.category;
          f.what = pv.detail.empty() ? rule.probe : rule.probe + " (" + pv.detail + ")";
          f.run = dir;
          if (pv.value.is_null()) {
            tally(key, rule.id, false);
            auto m = missing(rule, f.what, "not reported in the inventory", rule.on_missing);
            m.run = dir;
            add_finding(key, std::move(m));
            continue;
          }
          const std::string scope = rule.fleet && rule.fleet->per_node ? host + " " : "";
          observe(rule, key, std::move(f), pv.value,
                  rule.fleet ? scope + rule.probe + " " + pv.detail : "");
        }
      }
    }
    if (rule.fleet)
      judge_fleets(rule);
  }

  void record_status_rule() {
    result_.rule_categories[kRecordStatusRule] = "health";
    for (const auto &run : runs_.runs)
      for (const auto &r : run.records) {
        const auto category = category_of_key(r.key);
        const auto key = part_of(r, nullptr, category);
        const bool bad = r.status == Status::failed || r.status == Status::error;
        tally(key, kRecordStatusRule, !bad);
        if (!bad)
          continue;
        Finding f;
        f.rule_id = kRecordStatusRule;
        f.category = category;
        f.level = Level::fail;
        f.what = "status";
        f.value = std::string(to_string(r.status));
        f.bound = "ok or waived";
        f.detail = r.reason.value_or("");
        f.key = r.key;
        f.params = r.params;
        f.run = run.dir;
        add_finding(key, std::move(f));
      }
  }

  // A run cut short, or whose run.json counts records it does not hold, is missing evidence for
  // its node, whatever the records it does hold say.
  void run_complete_rule() {
    result_.rule_categories[kRunCompleteRule] = "health";
    for (const auto &run : runs_.runs) {
      const PartKey node{run_host_[run.dir], PartKind::node, ""};
      const auto why = incompleteness(run);
      if (why.empty())
        continue;
      Finding f;
      f.rule_id = kRunCompleteRule;
      f.category = "health";
      f.level = rules_.incomplete_runs;
      f.missing = true;
      f.what = "run " + run.dir;
      for (const auto &w : why)
        f.detail += (f.detail.empty() ? "" : "; ") + w;
      f.run = run.dir;
      add_finding(node, std::move(f));
    }
  }

  CheckResult finish() {
    result_.rules_name = rules_.name;
    result_.rules_file = rules_.file;
    for (const auto &run : runs_.runs)
      result_.inputs.push_back(run.dir);
    std::sort(result_.inputs.begin(), result_.inputs.end());
    result_.problems = runs_.problems;
    std::sort(result_.problems.begin(), result_.problems.end());
    for (auto &[key, p] : parts_) {
      std::sort(p.findings.begin(), p.findings.end());
      // The same fact seen in two runs of one node (two ranks' inventories) is one finding.
      p.findings.erase(std::unique(p.findings.begin(), p.findings.end()), p.findings.end());
      for (const auto &f : p.findings)
        p.verdict = std::max(p.verdict, f.level);
      p.label = label_of(key);
      result_.verdict = std::max(result_.verdict, p.verdict);
      result_.parts.push_back(std::move(p));
    }
    return std::move(result_);
  }

  std::string label_of(const PartKey &key) const {
    if (key.kind == PartKind::node)
      return key.host;
    if (key.kind == PartKind::gpu) {
      const auto h = hosts_.find(key.host);
      if (h != hosts_.end()) {
        const auto it = h->second.index_by_pci.find(key.id);
        if (it != h->second.index_by_pci.end())
          return fmt::format("gpu{}", it->second);
      }
      // An import that printed no bus id names a GPU by its CUDA ordinal alone.
      if (!key.id.empty() && key.id.find_first_not_of("0123456789") == std::string::npos)
        return "gpu" + key.id;
      return "gpu " + key.id;
    }
    return key.id;
  }

  const RuleSet &rules_;
  const analysis::RunSet &runs_;
  CheckResult result_;
  std::map<PartKey, PartResult> parts_;
  std::map<std::string, HostIndex> hosts_;
  std::map<std::string, std::string> run_host_;
  std::map<std::string, std::vector<std::pair<std::string, const json *>>> inventories_;
  std::map<std::string, std::vector<Observation>> fleets_;
  std::set<std::string> own_hosts_, imported_hosts_;
  std::set<std::pair<std::string, std::string>> not_covered_metric_;  // (rule, host)
  std::map<std::pair<std::string, std::string>, int> not_applicable_; // (rule, host) -> records
};

} // namespace

CheckResult evaluate(const RuleSet &rules, const analysis::RunSet &runs) {
  // Each GPU of a point that ran on every GPU at once (a burn-in phase) is judged as a part of
  // its own: its object in the record is read as a record (records/per_gpu_parts.h). The runs
  // are copied only when some record holds such objects.
  std::optional<analysis::RunSet> with_parts;
  for (std::size_t i = 0; i < runs.runs.size(); ++i)
    for (const auto &r : runs.runs[i].records)
      for (auto &part : records::per_gpu_parts(r)) {
        if (!with_parts)
          with_parts = runs;
        with_parts->runs[i].records.push_back(std::move(part));
      }
  return Evaluator(rules, with_parts ? *with_parts : runs).run();
}

} // namespace railgauge::check
