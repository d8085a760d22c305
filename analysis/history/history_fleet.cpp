// Pass 1 of the record rules over the database (record_rules.h): the newest runs' records
// streamed once, each value a rule reads kept as a few numbers; and the entry points.
#include "analysis/history/history_fleet.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include <fmt/format.h>

#include "analysis/check/absolute_judgement.h"
#include "analysis/check/curve_figure.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/pair_ends.h"
#include "analysis/check/pair_isolation.h"
#include "analysis/check/run_completeness.h"
#include "analysis/history/record_rules.h"
#include "harness/waiver.h"
#include "records/per_gpu_parts.h"

namespace railgauge::history {

using check::Finding;
using check::PartKey;
using check::Rule;
using json = nlohmann::json;

json RecordRules::parsed(const Value &text) {
  return json::parse(as_text(text), nullptr, /*allow_exceptions=*/false);
}

RecordRulesOutcome RecordRules::read(const check::CheckResult &result) {
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
                           "r.status, r.reason, r.point FROM records r WHERE r.run_id IN (") +
                   newest_.ids + ")",
               {}, [&](const Row &row) { take(row); });
  return out_;
}

void RecordRules::read_runs() {
  db_.for_each(
      std::string("SELECT ru.id, h.name, ru.dir, ru.source, ru.status, ru.run_id, "
                  "ru.incomplete, ru.world_size, ru.world_rank, ru.inventory, ru.lost_ranks "
                  "FROM runs ru JOIN "
                  "hosts "
                  "h ON h.id = ru.host_id WHERE ru.id IN (") +
          newest_.ids + ")",
      {}, [&](const Row &row) {
        auto run = stored_run(row);
        (run.imported ? imported_hosts_ : own_hosts_).insert(run.host);
        if (!run.imported && run.stopped_from_outside())
          stopped_hosts_.insert(run.host);
        // The GPUs its inventory lists, each of which a burn phase must have measured
        // (no_record_on_gpus); NULL or "" in a run stored without one.
        if (const json inventory = parsed(row[9]); !run.imported && inventory.is_object()) {
          index_.add_inventory(run.host, inventory);
          check::add_inventory_gpu_names(inventory, nvml_gpu_names_[run.host]);
        }
        runs_[as_int(row[0]).value_or(0)] = std::move(run);
      });
  out_.runs = static_cast<long long>(runs_.size());
  std::set<std::pair<std::string, std::string>> seen; // a run's ranks on one host are one run
  for (const auto &[id, run] : runs_)
    if (seen.emplace(run.host, run.run_id).second)
      out_.newest.push_back({run.host, run.run_id, run.dir});
}

void RecordRules::take(const Row &row) {
  const auto run_id = as_int(row[1]).value_or(0);
  // An older run judged beside newer ones is judged for the points they did not measure again.
  if (const auto again = newest_.measured_again.find(run_id);
      again != newest_.measured_again.end() && !as_text(row[8]).empty() &&
      again->second.contains(std::strtoull(as_text(row[8]).c_str(), nullptr, 16)))
    return;
  ++out_.records;
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
  if (r.status == Status::ok && check::is_pair_matrix(key))
    pair_isolation(r, row[5], run->second);
  auto [matching, added] = rules_by_key_.try_emplace(key);
  if (added)
    for (std::size_t i = 0; i < rules_.size(); ++i)
      if (check::key_match(*rules_[i].rule, key))
        matching->second.push_back(i);
  // Parsed once, where a rule reads them: a burn's metrics (every GPU's seconds) were parsed
  // twice, for the data check and for the rules.
  const bool read_metrics = !matching->second.empty();
  if (read_metrics)
    r.metrics = parsed(row[5]);
  if (read_metrics && !run->second.imported) {
    if (r.status == Status::ok && check::is_pair_server_end(r))
      pair_ends_.add_server_end(run->second.run_id, run->second.dir, r,
                                index_.part_of(r, nullptr, check::category_of_key(key)));
    else if (check::is_pair_measuring_end(r))
      pair_ends_.add_measuring_end(run->second.run_id, r);
  }
  if (r.status == Status::ok) {
    held_[r.host].add(ruleset_, r, run->second.imported);
    unverified(r, read_metrics ? nullptr : &row[5], run->second.imported);
  }
  check::add_record_gpu_names(r, record_gpu_names_[r.host]); // params alone: metrics below
  if (!read_metrics)
    return;
  Reading at{0, 0, keys_.id(key), 0, as_int(row[0]).value_or(0), run_id, 0};
  for (const auto i : matching->second) {
    auto &state = rules_[i];
    const Rule &rule = *state.rule;
    if (rule.applies_to != check::AppliesTo::any &&
        (rule.applies_to == check::AppliesTo::imported) != run->second.imported)
      continue;
    if (!check::params_match(rule.params, r.params)) {
      if (run->second.imported && r.status == Status::ok &&
          check::selects_but_for_size(rule, key, r.params))
        state.other_sizes_only.try_emplace(r.host, key);
      if ((status == "failed" || status == "error") && !run->second.imported &&
          check::selects_point_of_gpu_parts(rule, key, r.params))
        state.failed_point[r.host].push_back(
            {key, r.params, r.device, check::failed_point_detail(rule, key, status, reason)});
      continue;
    }
    state.hosts_with_match.insert(r.host);
    if (status == "waived" && is_not_applicable(reason)) {
      if (state.not_applicable.insert(r.host).second)
        note(rule, r.host, rule.metric, fmt::format("{}: {}", key, reason), false);
      continue;
    }
    const PartKey part = index_.part_of(r, &rule, rule.category);
    if (part.kind == check::PartKind::gpu && r.params.is_object() &&
        r.params.value(records::kPartParam, "") == records::kPerGpuPart)
      state.gpus_with_match[{r.host, check::burn_phase(key, r.params)}].insert(part.id);
    if (status == "failed" || status == "error")
      continue; // record-status fails its part; it is not also missing here
    at.part = part_id(part);
    if (status != "ok") {
      missing_value(state, at, rule.metric,
                    fmt::format("record is {}{}", status, reason.empty() ? "" : ": " + reason),
                    r.params);
      continue;
    }
    state.windows.saw(r, rule, part, index_);
    values(state, r, at, run->second.imported);
  }
}

void RecordRules::unverified(const Record &r, const Value *unparsed, bool imported) {
  // Most records' metrics are not parsed here: only those that say verified false or that must
  // show their check, and only where take() has not parsed them already (unparsed null).
  const bool must_show = !imported && check::checks_always(r.key);
  if (!unparsed)
    return with_parsed_metrics(r, must_show, imported);
  // An own ok record that counts wrong data fails its data check as over directories: an
  // all_reduce with 3 wrong elements passed here, its metrics never read.
  const auto *text = std::get_if<std::string>(unparsed);
  if (!must_show && (!text || (text->find("\"verified\":false") == std::string::npos &&
                               (imported || !records::may_count_wrong_data(*text)))))
    return;
  Record with_metrics = r;
  with_metrics.metrics = parsed(*unparsed);
  with_parsed_metrics(with_metrics, must_show, imported);
}

void RecordRules::with_parsed_metrics(const Record &r, bool must_show, bool imported) {
  if (const auto why = check::data_check_unshown(r, imported))
    unverified_[r.host].add(r.key, *why, imported);
  if (must_show) // a burn's metrics name each GPU it ran on (profile-gpu)
    check::add_record_gpu_names(r, record_gpu_names_[r.host]);
}

void RecordRules::values(RuleState &state, const Record &r, Reading at, bool imported) {
  const Rule &rule = *state.rule;
  const auto found = check::rule_values(rule, r);
  if (found.empty() && imported) {
    if (state.not_covered.insert(r.host).second)
      note(rule, r.host, rule.metric, "", true);
    return;
  }
  if (found.empty() && check::pair_figure_on_server_end(r, rule.metric)) { // as directories
    if (state.not_applicable.insert(r.host).second)
      note(rule, r.host, rule.metric, check::pair_server_end_detail(), false);
    return;
  }
  if (found.empty())
    missing_value(state, at, rule.metric, "the record has no such metric", r.params,
                  check::no_metric_level(rule, r));
  const Reading of_record = at;
  for (const auto &rv : found) {
    at = of_record; // as the directories' check: a GPU's telemetry value is that GPU's
    at.part = part_id(index_.part_of_value(r, rule, parts_[of_record.part], rv.path));
    if (!rv.unreadable.empty()) {
      missing_value(state, at, rv.what, rv.unreadable, r.params, rv.unreadable_level);
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
                                 check::unjudgeable_level(rule, rv.value)),
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

void RecordRules::curve_point(RuleState &state, const Record &r, const Reading &at,
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
  const auto curve = curves_.id(fmt::format(
      "{} {} {} {} {} {} {}", runs_.at(at.run).dir, part.host, check::to_string(part.kind), part.id,
      keys_[at.key], check::params_key(r.params, spec.ignore_params, spec.over), rv.path));
  ++out_.values;
  state.curve_points.push_back(
      {curve, at.part, at.key, whats_.id(rv.what), at.record, at.run, point.x, point.y});
}

void RecordRules::record_status(const Record &r, const StoredRun &run) {
  const auto part = part_id(index_.part_of(r, nullptr, check::category_of_key(r.key)));
  const bool bad = r.status == Status::failed || r.status == Status::error;
  if (bad && run.is_cut_point(r)) { // as check::Evaluator::record_status_rule: not tallied
    auto f = check::record_status_finding(r, run.dir);
    f.level = std::min(ruleset_.incomplete_runs, check::Level::warn);
    f.missing = true;
    f.detail = run.cut_point_detail(f.detail);
    notes_.emplace_back(parts_[part], std::move(f));
    return;
  }
  auto &tally = status_tallies_[part];
  ++tally.checked;
  tally.passed += bad ? 0 : 1;
  if (bad)
    notes_.emplace_back(parts_[part], check::record_status_finding(r, run.dir));
}

// As check::Evaluator::pair_isolation_rule over directories.
void RecordRules::pair_isolation(Record r, const Value &metrics, const StoredRun &run) {
  r.metrics = parsed(metrics);
  std::map<std::string, std::string> run_dirs; // each host's newest run of this run id
  for (const auto &[id, other] : runs_)
    if (other.run_id == run.run_id)
      run_dirs.try_emplace(other.host, other.dir);
  auto isolation = check::pair_isolation(r, run.dir, run_dirs);
  if (!isolation)
    return;
  for (auto &[part, f] : isolation->findings)
    notes_.emplace_back(part, std::move(f));
  for (const auto &[part, passed] : isolation->tallies) {
    auto &tally = isolation_tallies_[part_id(part)];
    ++tally.checked;
    tally.passed += passed ? 1 : 0;
  }
}

void RecordRules::missing_value(RuleState &state, const Reading &at, const std::string &what,
                                std::string detail, const json &params,
                                std::optional<check::Level> level) {
  const Rule &rule = *state.rule;
  ++state.tallies[at.part].checked;
  auto f = check::missing_finding(rule, what, std::move(detail), level.value_or(rule.on_missing));
  f.key = keys_[at.key];
  f.run = runs_.at(at.run).dir;
  state.missing->add(parts_[at.part], std::move(f), &params);
}

void RecordRules::note(const Rule &rule, const std::string &host, const std::string &what,
                       std::string detail, bool not_covered) {
  auto f = check::missing_finding(
      rule, what, not_covered ? check::kNotCoveredDetail : std::move(detail), check::Level::info);
  (not_covered ? f.not_covered : f.not_applicable) = true;
  notes_.emplace_back(PartKey{host, check::PartKind::node, ""}, std::move(f));
}

std::uint32_t RecordRules::part_id(const PartKey &part) {
  const auto id = part_names_.id(
      fmt::format("{}\x1f{}\x1f{}", part.host, static_cast<int>(part.kind), part.id));
  if (id == parts_.size())
    parts_.push_back(part);
  return id;
}
bool streamed_record_rule(const check::Rule &rule) { return !rule.from_inventory(); }

RecordRulesOutcome judge_record_rules(Database &db, const check::RuleSet &rules,
                                      check::CheckResult &result, NewestRuns newest) {
  RecordRules fleet(db, rules, std::move(newest));
  const auto out = fleet.read(result);
  fleet.judge(result);
  return out;
}

} // namespace railgauge::history
