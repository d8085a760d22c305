#include "analysis/history/history_fleet.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/check/absolute_judgement.h"
#include "analysis/check/curve_figure.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/fleet_judgement.h"
#include "analysis/check/missing_list.h"
#include "analysis/check/part_index.h"
#include "analysis/check/rule_values.h"
#include "analysis/check/unjudged_nodes.h"
#include "analysis/history/history_builtins.h"
#include "analysis/history/history_inventory.h"
#include "analysis/history/history_rules.h"
#include "harness/waiver.h"

namespace railgauge::history {
namespace {

using check::Finding;
using check::FleetVerdict;
using check::PartKey;
using check::Rule;
using json = nlohmann::json;

// One value a rule read, as indices: its fleet, part, record key, concrete path, row and run.
struct Reading {
  std::uint32_t group = 0, part = 0, key = 0, what = 0;
  std::int64_t record = 0, run = 0;
  double value = 0;
};

// One point of a curve rule's curve: the curve (run, part, key, params less `over`, path) and
// where the point came from, as indices; its `over` and value.
struct CurvePoint {
  std::uint32_t curve = 0, part = 0, key = 0, what = 0;
  std::int64_t record = 0, run = 0;
  double x = 0, y = 0;
};

// Strings kept once each and named by their index: a fleet's million values share a few.
class Names {
public:
  std::uint32_t id(const std::string &name) {
    const auto [it, added] = ids_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
    if (added)
      names_.push_back(name);
    return it->second;
  }
  const std::string &operator[](std::uint32_t id) const { return names_[id]; }

private:
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
};

json parsed(const Value &text) {
  return json::parse(as_text(text), nullptr, /*allow_exceptions=*/false);
}

// One rule's state: its values until they are judged, its missing values, its tallies.
struct RuleState {
  const Rule *rule = nullptr;
  std::vector<Reading> readings;
  std::vector<CurvePoint> curve_points;
  std::optional<check::MissingList> missing;
  std::unordered_map<std::uint32_t, check::RuleTally> tallies; // by part
  std::set<std::string> hosts_with_match, not_applicable, not_covered;
};

class RecordRules {
public:
  RecordRules(Database &db, const check::RuleSet &rules) : db_(db), ruleset_(rules) {
    for (const auto &rule : rules.rules)
      if (streamed_record_rule(rule))
        rules_.emplace_back().rule = &rule;
  }

  // Pass 1: the rows of the newest runs streamed, each value the rules read kept as numbers, a
  // value against an absolute bound judged at once, every record's status judged.
  RecordRulesOutcome read(const check::CheckResult &result) {
    read_runs();
    hosts_ = result.hosts();
    for (const auto &[id, run] : runs_)
      hosts_.push_back(run.host);
    std::sort(hosts_.begin(), hosts_.end(), check::natural_less);
    hosts_.erase(std::unique(hosts_.begin(), hosts_.end()), hosts_.end());
    for (auto &state : rules_)
      state.missing.emplace(
          check::kMissingListedPerRule, hosts_,
          [this, &state](const PartKey &part, const Finding &f) {
            ++state.tallies[part_id(part)].unlisted_missing[static_cast<std::size_t>(f.level)];
          });
    // A GPU named by its UUID alone is put in its slot as the parts table says.
    db_.for_each("SELECT h.name, p.uuid, p.slot FROM parts p JOIN hosts h ON h.id = p.host_id "
                 "WHERE p.kind = 'gpu' AND p.uuid IS NOT NULL",
                 {}, [&](const Row &row) {
                   index_.add_gpu(as_text(row[0]), as_text(row[1]), as_text(row[2]));
                 });
    db_.for_each(std::string("SELECT r.id, r.run_id, r.key, r.params, r.device, r.metrics, "
                             "r.status, r.reason FROM records r WHERE r.run_id IN (") +
                     kNewestRuns + ")",
                 {}, [&](const Row &row) { take(row); });
    return out_;
  }

  // Pass 2: each fleet judged; everything into `result`.
  void judge(check::CheckResult &result) {
    HistoryJudgement judged;
    result.rule_categories[check::kRecordStatusRule] = "health";
    result.rule_categories[check::kRunCompleteRule] = "health";
    for (const auto &[part, tally] : status_tallies_)
      judged.tallies[{parts_[part], check::kRecordStatusRule}] = tally;
    for (auto &f : incomplete_runs(ruleset_, runs_))
      judged.findings.push_back(std::move(f));
    if (ruleset_.unverified_records != check::Level::info && !unverified_.empty()) {
      result.rule_categories[check::kDataCheckRule] = "health";
      for (const auto &[host, u] : unverified_)
        judged.findings.emplace_back(PartKey{host, check::PartKind::node, ""},
                                     check::data_check_off_finding(ruleset_.unverified_records, u));
    }
    // An import holds no inventory: its inventory rules are not covered, as over directories.
    for (const auto &rule : ruleset_.rules)
      if (rule.from_inventory()) {
        result.rule_categories[rule.id] = rule.category;
        for (const auto &host : imported_hosts_)
          if (!own_hosts_.contains(host))
            note(rule, host, rule.probe, "", true);
      }
    for (auto &state : rules_) {
      const Rule &rule = *state.rule;
      result.rule_categories[rule.id] = rule.category;
      no_record_on_nodes(state);
      if (rule.curve)
        judge_curves(state);
      else
        judge_rule(state);
      for (const auto &[part, tally] : state.tallies)
        judged.tallies[{parts_[part], rule.id}] = tally;
      auto [listed, counts] = state.missing->take();
      for (auto &l : listed)
        judged.findings.emplace_back(l.part, std::move(l.finding));
      for (auto &c : counts)
        result.unlisted_missing.push_back(std::move(c));
      // Done with: its values and sets freed before the next rule is judged.
      state.missing.reset();
      std::vector<Reading>().swap(state.readings);
      std::vector<CurvePoint>().swap(state.curve_points);
      state.tallies = {};
      state.hosts_with_match = {};
    }
    const auto unknown_inventory = inventory_rules(judged, result);
    // Every rule's notes and violations at once: add_history sorts each part's findings.
    for (auto &n : notes_)
      judged.findings.push_back(std::move(n));
    notes_.clear();
    add_history(result, judged);
    // A part's values counted as missing, not listed, weigh in its verdict as listed ones do.
    for (auto &part : result.parts) {
      for (const auto &[rule, tally] : part.rules)
        for (std::size_t level = 0; level < tally.unlisted_missing.size(); ++level)
          if (tally.unlisted_missing[level] > 0)
            part.verdict = std::max(part.verdict, static_cast<check::Level>(level));
      result.verdict = std::max(result.verdict, part.verdict);
    }
    add_nothing_judged(ruleset_, held_, result);
    // Imports only: their runs are whole by construction and hold no inventory.
    if (!own_hosts_.empty())
      name_rules_not_judged(
          ruleset_, unknown_inventory,
          std::any_of(runs_.begin(), runs_.end(),
                      [](const auto &r) { return !r.second.imported && !r.second.incomplete; }),
          result);
  }

private:
  // The inventory rules over the newest runs' stored inventories (history_inventory.h), their
  // counted missing values in the rules' order as over directories. Returns the hosts whose
  // inventory the database does not hold.
  std::set<std::string> inventory_rules(HistoryJudgement &judged, check::CheckResult &result) {
    auto inventory = judge_inventory_rules(db_, ruleset_, hosts_);
    std::move(inventory.judged.findings.begin(), inventory.judged.findings.end(),
              std::back_inserter(judged.findings));
    judged.tallies.merge(inventory.judged.tallies);
    if (inventory.unlisted_missing.empty())
      return inventory.unknown;
    std::move(inventory.unlisted_missing.begin(), inventory.unlisted_missing.end(),
              std::back_inserter(result.unlisted_missing));
    std::map<std::string, std::size_t> order;
    for (std::size_t i = 0; i < ruleset_.rules.size(); ++i)
      order.emplace(ruleset_.rules[i].id, i);
    std::stable_sort(result.unlisted_missing.begin(), result.unlisted_missing.end(),
                     [&](const check::MissingCount &a, const check::MissingCount &b) {
                       return order[a.rule_id] < order[b.rule_id];
                     });
    return inventory.unknown;
  }

  void read_runs() {
    db_.for_each(std::string("SELECT ru.id, h.name, ru.dir, ru.source, ru.status, ru.run_id, "
                             "ru.incomplete, ru.world_size, ru.world_rank FROM runs ru JOIN hosts "
                             "h ON h.id = ru.host_id WHERE ru.id IN (") +
                     kNewestRuns + ")",
                 {}, [&](const Row &row) {
                   auto run = stored_run(row);
                   (run.imported ? imported_hosts_ : own_hosts_).insert(run.host);
                   runs_[as_int(row[0]).value_or(0)] = std::move(run);
                 });
    out_.runs = static_cast<long long>(runs_.size());
  }

  // One record row, as `check` over directories takes a record: its status (Evaluator's
  // record_status_rule), what it holds (nothing_judged_rule), and as each rule selecting it
  // (record_rule and record_values).
  void take(const Row &row) {
    ++out_.records;
    const auto run_id = as_int(row[1]).value_or(0);
    const auto run = runs_.find(run_id);
    if (run == runs_.end())
      return; // a run stored since the runs were read: judged by the next check
    const auto key = as_text(row[2]);
    Record r;
    r.host = run->second.host;
    r.key = key;
    r.params = parsed(row[3]);
    r.device = parsed(row[4]);
    const auto status = as_text(row[6]), reason = as_text(row[7]);
    // A status this build does not know is not a pass.
    r.status = parse_status(status).value_or(Status::error);
    if (!reason.empty())
      r.reason = reason;
    record_status(r, run->second);
    if (r.status == Status::ok) {
      held_[r.host].add(ruleset_, r, run->second.imported);
      unverified(r.host, key, row[5]);
    }
    auto [matching, added] = rules_by_key_.try_emplace(key);
    if (added)
      for (std::size_t i = 0; i < rules_.size(); ++i)
        if (check::key_match(*rules_[i].rule, key))
          matching->second.push_back(i);
    if (matching->second.empty())
      return;
    r.metrics = parsed(row[5]);
    Reading at{0, 0, keys_.id(key), 0, as_int(row[0]).value_or(0), run_id, 0};
    for (const auto i : matching->second) {
      auto &state = rules_[i];
      const Rule &rule = *state.rule;
      if (rule.applies_to != check::AppliesTo::any &&
          (rule.applies_to == check::AppliesTo::imported) != run->second.imported)
        continue;
      if (!check::params_match(rule.params, r.params))
        continue;
      state.hosts_with_match.insert(r.host);
      if (status == "waived" && is_not_applicable(reason)) {
        if (state.not_applicable.insert(r.host).second)
          note(rule, r.host, rule.metric, fmt::format("{}: {}", key, reason), false);
        continue;
      }
      if (status == "failed" || status == "error")
        continue; // record-status fails its part; it is not also missing here
      at.part = part_id(index_.part_of(r, &rule, rule.category));
      if (status != "ok") {
        missing_value(state, at, rule.metric,
                      fmt::format("record is {}{}", status, reason.empty() ? "" : ": " + reason),
                      r.params);
        continue;
      }
      values(state, r, at, run->second.imported);
    }
  }

  // An ok record whose data check was off (the built-in data-check). Only a row whose text says
  // so is parsed: the stored metrics are compact JSON.
  void unverified(const std::string &host, const std::string &key, const Value &metrics) {
    const auto *text = std::get_if<std::string>(&metrics);
    if (!text || text->find("\"verified\":false") == std::string::npos ||
        !check::data_check_off(parsed(metrics)))
      return;
    unverified_[host].add(key);
  }

  // The values of the rule's metric in one ok record.
  void values(RuleState &state, const Record &r, Reading at, bool imported) {
    const Rule &rule = *state.rule;
    const auto found = check::rule_values(rule, r);
    if (found.empty() && imported) {
      if (state.not_covered.insert(r.host).second)
        note(rule, r.host, rule.metric, "", true);
      return;
    }
    if (found.empty())
      missing_value(state, at, rule.metric, "the record has no such metric", r.params);
    for (const auto &rv : found) {
      if (rv.no_denominator) {
        missing_value(state, at, rv.what,
                      fmt::format("the record has no positive {}", rule.relative_to), r.params);
        continue;
      }
      if (rule.curve) {
        curve_point(state, r, at, rv);
        continue;
      }
      // As the directories' check: a number or a bool, or for a set rule also text or a list.
      double x = 0;
      if (rule.fleet ? !check::number_into(rv.value, x) : !check::judgeable(rule, rv.value)) {
        ++state.tallies[at.part].checked;
        state.missing->add(
            parts_[at.part],
            check::missing_finding(rule, rv.what,
                                   fmt::format("value {} is not a number", rv.value.dump()),
                                   rule.on_missing),
            nullptr);
        continue;
      }
      ++out_.values;
      at.what = whats_.id(rv.what);
      if (!rule.fleet) {
        judge_absolute(state, at, rv.value, rv.detail);
        continue;
      }
      at.group = groups_.id(check::fleet_group(rule, r, parts_[at.part], rv.path));
      at.value = x;
      state.readings.push_back(at);
    }
  }

  // A point of the rule's curve, kept until every point of the curve is read. A size-0 row has no
  // bandwidth to judge.
  void curve_point(RuleState &state, const Record &r, const Reading &at,
                   const check::RuleValue &rv) {
    const Rule &rule = *state.rule;
    const auto &spec = *rule.curve;
    const auto point = check::curve_point_of(spec, r.params, rv.value);
    if (point.kind == check::CurveReading::Kind::left_out)
      return;
    if (point.kind == check::CurveReading::Kind::unreadable) {
      ++state.tallies[at.part].checked;
      state.missing->add(parts_[at.part],
                         check::missing_finding(rule, rv.what, point.unreadable, rule.on_missing),
                         nullptr);
      return;
    }
    const PartKey &part = parts_[at.part];
    const auto curve = curves_.id(
        fmt::format("{} {} {} {} {} {} {}", runs_.at(at.run).dir, part.host,
                    check::to_string(part.kind), part.id, keys_[at.key],
                    check::params_key(r.params, spec.ignore_params, spec.over), rv.path));
    ++out_.values;
    state.curve_points.push_back(
        {curve, at.part, at.key, whats_.id(rv.what), at.record, at.run, point.x, point.y});
  }

  // Each curve's figure (curve_figure.h) against the rule's bound, as `check` over directories
  // judges it.
  void judge_curves(RuleState &state) {
    const Rule &rule = *state.rule;
    auto &points = state.curve_points;
    std::stable_sort(points.begin(), points.end(), [](const CurvePoint &a, const CurvePoint &b) {
      return std::tie(a.curve, a.x) < std::tie(b.curve, b.x);
    });
    std::vector<double> xs, ys;
    for (std::size_t begin = 0, end = 0; begin < points.size(); begin = end) {
      end = begin;
      xs.clear();
      ys.clear();
      for (; end < points.size() && points[end].curve == points[begin].curve; ++end) {
        xs.push_back(points[end].x);
        ys.push_back(points[end].y);
      }
      auto figure = check::curve_figure(*rule.curve, xs, ys);
      const CurvePoint &p = points[begin + figure.at];
      const Reading at{0, p.part, p.key, p.what, p.record, p.run, figure.value};
      if (figure.too_short) {
        ++state.tallies[p.part].checked;
        const PartKey &part = parts_[p.part];
        Finding f = base_of(rule, at, !state.missing->counted_only(part));
        f.level = check::Level::info;
        f.missing = true;
        f.detail = std::move(figure.how);
        const auto params = std::move(f.params);
        state.missing->add(part, std::move(f), &params);
        continue;
      }
      judge_absolute(state, at, json(figure.value), std::move(figure.how),
                     fmt::format("{} ({} over {})", whats_[p.what],
                                 check::to_string(rule.curve->take), rule.curve->over));
    }
  }

  // A value against the rule's absolute bound (a record's, as it is read, or a curve's figure):
  // its part's tally, and a finding unless it passed. `what` replaces the value's own path.
  void judge_absolute(RuleState &state, const Reading &at, const json &value, std::string detail,
                      std::optional<std::string> what = std::nullopt) {
    const Rule &rule = *state.rule;
    auto &tally = state.tallies[at.part];
    ++tally.checked;
    const bool pass = check::absolute_pass(rule, value);
    tally.passed += pass ? 1 : 0;
    if (pass)
      return;
    Finding f = base_of(rule, at, true);
    if (what)
      f.what = std::move(*what);
    f.detail = std::move(detail);
    check::fill_absolute_finding(rule, value, f);
    notes_.emplace_back(parts_[at.part], std::move(f));
  }

  // record-status: a record failed or in error fails its part; every record is counted.
  void record_status(const Record &r, const StoredRun &run) {
    const auto part = part_id(index_.part_of(r, nullptr, check::category_of_key(r.key)));
    auto &tally = status_tallies_[part];
    ++tally.checked;
    const bool bad = r.status == Status::failed || r.status == Status::error;
    tally.passed += bad ? 0 : 1;
    if (bad)
      notes_.emplace_back(parts_[part], check::record_status_finding(r, run.dir));
  }

  // A selected value that cannot be judged: a failed tally and a missing value.
  void missing_value(RuleState &state, const Reading &at, const std::string &what,
                     std::string detail, const json &params) {
    const Rule &rule = *state.rule;
    ++state.tallies[at.part].checked;
    auto f = check::missing_finding(rule, what, std::move(detail), rule.on_missing);
    f.key = keys_[at.key];
    f.run = runs_.at(at.run).dir;
    state.missing->add(parts_[at.part], std::move(f), &params);
  }

  // A node's finding at info: the rule does not apply to a record, or an import cannot hold it.
  void note(const Rule &rule, const std::string &host, const std::string &what, std::string detail,
            bool not_covered) {
    auto f = check::missing_finding(
        rule, what, not_covered ? check::kNotCoveredDetail : std::move(detail), check::Level::info);
    (not_covered ? f.not_covered : f.not_applicable) = true;
    notes_.emplace_back(PartKey{host, check::PartKind::node, ""}, std::move(f));
  }

  // A node of the newest runs on which the rule selected no record at all.
  void no_record_on_nodes(RuleState &state) {
    const Rule &rule = *state.rule;
    const std::string filter = rule.params.empty() ? "" : " with params " + rule.params.dump();
    const auto detail = fmt::format("no record of '{}'{} on this node", rule.key_glob, filter);
    for (const auto &host : hosts_) {
      if (state.hosts_with_match.contains(host))
        continue;
      const bool own = own_hosts_.contains(host);
      if (!own && !imported_hosts_.contains(host))
        continue; // a host of the history whose newest runs hold no record at all
      if (!own) {
        note(rule, host, rule.metric, "", true);
        continue;
      }
      if (rule.applies_to == check::AppliesTo::imported)
        continue;
      state.missing->add(PartKey{host, check::PartKind::node, ""},
                         check::missing_finding(rule, rule.metric, detail, rule.on_missing),
                         nullptr);
    }
  }

  std::uint32_t part_id(const PartKey &part) {
    const auto id = part_names_.id(
        fmt::format("{}\x1f{}\x1f{}", part.host, static_cast<int>(part.kind), part.id));
    if (id == parts_.size())
      parts_.push_back(part);
    return id;
  }

  // The finding of a value, its params read back by its row.
  Finding base_of(const Rule &rule, const Reading &v, bool with_params) {
    Finding f;
    f.rule_id = rule.id;
    f.category = rule.category;
    f.what = whats_[v.what];
    f.key = keys_[v.key];
    f.run = runs_.at(v.run).dir;
    if (with_params) {
      const auto rows = db_.query("SELECT params FROM records WHERE id = ?", {v.record});
      if (!rows.empty())
        f.params = parsed(rows.front().at(0));
    }
    return f;
  }

  // Each fleet of the rule judged as `check` over directories judges it.
  void judge_rule(RuleState &state) {
    auto &readings = state.readings;
    std::sort(readings.begin(), readings.end(), [](const Reading &a, const Reading &b) {
      return std::tie(a.group, a.record) < std::tie(b.group, b.record);
    });
    for (std::size_t begin = 0, end = 0; begin < readings.size(); begin = end) {
      end = begin;
      while (end < readings.size() && readings[end].group == readings[begin].group)
        ++end;
      const std::span<const Reading> group(readings.data() + begin, end - begin);
      if (state.rule->fleet->per_node)
        judge_siblings(state, group);
      else
        judge_fleet(state, group);
    }
  }

  void judge_fleet(RuleState &state, std::span<const Reading> group) {
    std::vector<double> numbers;
    numbers.reserve(group.size());
    for (const auto &v : group)
      numbers.push_back(v.value);
    const auto verdicts = check::judge_fleet_values(*state.rule, numbers);
    for (std::size_t i = 0; i < group.size(); ++i)
      report(state, group[i], verdicts[i]);
  }

  // `scope: node`: each part at the median of its values, against its siblings.
  void judge_siblings(RuleState &state, std::span<const Reading> group) {
    std::map<PartKey, std::vector<const Reading *>> by_part;
    for (const auto &v : group)
      by_part[parts_[v.part]].push_back(&v);
    std::vector<std::vector<double>> numbers;
    for (const auto &[part, list] : by_part) {
      numbers.emplace_back();
      for (const auto *v : list)
        numbers.back().push_back(v->value);
    }
    const auto verdicts = check::judge_sibling_values(*state.rule, numbers);
    std::size_t i = 0;
    for (const auto &[part, list] : by_part)
      report(state, *list.front(), verdicts[i++]);
  }

  // A verdict: the part's tally, and a finding or a missing value unless it passed. A missing
  // value only counted (missing_list.h) never reads its params back.
  void report(RuleState &state, const Reading &v, const FleetVerdict &verdict) {
    const Rule &rule = *state.rule;
    const PartKey &part = parts_[v.part];
    auto &tally = state.tallies[v.part];
    ++tally.checked;
    tally.passed += verdict.pass ? 1 : 0;
    if (verdict.pass)
      return;
    Finding f = base_of(rule, v, verdict.judged || !state.missing->counted_only(part));
    check::fill_fleet_finding(rule, verdict, f);
    if (verdict.judged)
      notes_.emplace_back(part, std::move(f));
    else
      state.missing->add(part, std::move(f), nullptr);
  }

  Database &db_;
  const check::RuleSet &ruleset_;
  std::vector<RuleState> rules_;
  RecordRulesOutcome out_;
  std::map<std::int64_t, StoredRun> runs_;
  std::vector<std::string> hosts_; // natural order: of the result and the newest runs
  std::set<std::string> own_hosts_, imported_hosts_;
  check::PartIndex index_;
  std::unordered_map<std::string, std::vector<std::size_t>> rules_by_key_;
  Names groups_, keys_, whats_, part_names_, curves_;
  std::vector<PartKey> parts_;
  // Findings to add, of every rule: notes, violations and failed records.
  std::vector<std::pair<PartKey, Finding>> notes_;
  std::unordered_map<std::uint32_t, check::RuleTally> status_tallies_; // by part
  std::map<std::string, check::HeldRecords> held_;                     // by host: nothing-judged
  // By host: the ok records whose data check was off, and the first one's key (data-check).
  std::map<std::string, check::UnverifiedRecords> unverified_;
};

} // namespace

bool streamed_record_rule(const check::Rule &rule) { return !rule.from_inventory(); }

RecordRulesOutcome judge_record_rules(Database &db, const check::RuleSet &rules,
                                      check::CheckResult &result) {
  RecordRules fleet(db, rules);
  const auto out = fleet.read(result);
  fleet.judge(result);
  return out;
}

} // namespace railgauge::history
