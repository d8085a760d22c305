#include "analysis/check/evaluate.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analysis/check/inventory_probes.h"
#include "analysis/check/json_path.h"
#include "harness/json_integer.h"
#include "harness/registry.h"

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
  if (family == "gemm")
    return "compute";
  if (family == "memory")
    return "memory";
  if (family == "offload")
    return "pcie";
  if (family == "rdma")
    return "nic";
  if (family == "collectives")
    return "fabric";
  return "health";
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
    return finish();
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
      if (run.manifest.is_object() && run.manifest.contains("inventory") &&
          run.manifest["inventory"].is_object()) {
        inventories_[host].emplace_back(run.dir, &run.manifest["inventory"]);
        index_inventory(host, run.manifest["inventory"]);
      }
      for (const auto &r : run.records)
        part(PartKey{r.host, PartKind::node, ""});
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
  static std::string group_of(const Rule &rule, const std::string &key, const json &params,
                              const std::string &path) {
    json p = params.is_object() ? params : json::object();
    for (const auto &name : rule.fleet->ignore_params)
      p.erase(name);
    return key + " " + p.dump() + " " + path;
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
        std::string how;
        if (fb.mads)
          how = fmt::format("median {} {} {} MAD {}", fmt_num(stats.median), higher ? "-" : "+",
                            fmt_num(*fb.mads), fmt_num(stats.mad));
        if (fb.fraction)
          how += fmt::format("{}{} x median {}", how.empty() ? "" : " or ", fmt_num(*fb.fraction),
                             fmt_num(stats.median));
        f.bound =
            fmt::format("{} {} (fleet of {}: {})", to_string(rule.op), fmt_num(t), stats.n, how);
        const double rel = stats.median != 0 ? (o.value / stats.median - 1) * 100 : 0;
        f.detail = fmt::format("{:+.1f}% from the fleet median", rel);
        add_finding(o.part, std::move(f));
      }
    }
    fleets_.clear();
  }

  void record_rule(const Rule &rule) {
    std::set<std::string> hosts_with_match;
    for (const auto &run : runs_.runs) {
      for (const auto &r : run.records) {
        if (!glob_match(rule.key_glob, r.key) || !params_match(rule.params, r.params))
          continue;
        hosts_with_match.insert(r.host);
        const auto key = part_of(r, &rule, rule.category);
        Finding base;
        base.rule_id = rule.id;
        base.category = rule.category;
        base.key = r.key;
        base.params = r.params;
        base.run = run.dir;
        base.what = rule.metric;
        if (r.status != Status::ok) {
          tally(key, rule.id, false);
          auto m = missing(
              rule, rule.metric,
              fmt::format("record is {}{}", to_string(r.status), r.reason ? ": " + *r.reason : ""),
              rule.on_missing);
          m.key = r.key;
          m.params = r.params;
          m.run = run.dir;
          add_finding(key, std::move(m));
          continue;
        }
        const json doc = {{"metrics", r.metrics}, {"params", r.params}, {"device", r.device}};
        const auto found = resolve_path(doc, rule.metric);
        if (found.empty()) {
          tally(key, rule.id, false);
          auto m = missing(rule, rule.metric, "the record has no such metric", rule.on_missing);
          m.key = r.key;
          m.params = r.params;
          m.run = run.dir;
          add_finding(key, std::move(m));
          continue;
        }
        for (const auto &pv : found) {
          Finding f = base;
          f.what = pv.path;
          observe(rule, key, std::move(f), pv.value,
                  rule.fleet ? group_of(rule, r.key, r.params, pv.path) : "");
        }
      }
    }
    for (const auto &[key, p] : parts_)
      if (key.kind == PartKind::node && !hosts_with_match.count(key.host)) {
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
      const auto it = inventories_.find(host);
      if (it == inventories_.end()) {
        add_finding(node, missing(rule, rule.probe, "no run.json with an inventory for this node",
                                  rule.on_missing));
        continue;
      }
      for (const auto &[dir, inventory] : it->second) {
        const auto probe = run_probe(rule.probe, *inventory);
        if (!probe.available) {
          // No run dir: two ranks' runs of one node lacking NVML are one finding.
          add_finding(node, missing(rule, rule.probe, probe.reason, rule.on_missing));
          continue;
        }
        for (const auto &pv : probe.values) {
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
          observe(rule, key, std::move(f), pv.value,
                  rule.fleet ? rule.probe + " " + pv.detail : "");
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
};

} // namespace

CheckResult evaluate(const RuleSet &rules, const analysis::RunSet &runs) {
  return Evaluator(rules, runs).run();
}

} // namespace railgauge::check
