// The forms CI systems and node_exporter read: JUnit XML and the Prometheus textfile
// (check_output.h).
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "analysis/check/check_output.h"
#include "analysis/check/output_text.h"
#include "harness/host_group.h"

namespace railgauge::check {
namespace {

using json = nlohmann::json;

// Prometheus label values escape backslash, double quote and newline.
std::string prom_label(const std::string &s) {
  return escape_chars(s, {{'\\', "\\\\"}, {'"', "\\\""}, {'\n', "\\n"}});
}

// XML 1.0 allows no control character but tab, newline and carriage return: a record's reason
// in ANSI colours (ESC) made the whole file unreadable to the CI system that was to fail it.
std::string xml_text(std::string s) {
  for (auto &c : s)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
      c = '?';
  return s;
}

using CasesByCategory =
    std::map<std::string, std::vector<std::pair<const PartResult *, std::string>>>;

// category -> (part, rule) testcases
CasesByCategory junit_cases_by_category(const CheckResult &r) {
  CasesByCategory by_category;
  for (const auto &p : r.parts) {
    std::set<std::string> rules;
    for (const auto &[id, t] : p.rules)
      rules.insert(id);
    for (const auto &f : p.findings)
      rules.insert(f.rule_id);
    rules.insert(p.not_measured.begin(), p.not_measured.end());
    for (const auto &id : rules) {
      const auto it = r.rule_categories.find(id);
      by_category[it != r.rule_categories.end() ? it->second : "health"].emplace_back(&p, id);
    }
  }
  return by_category;
}

// The level of a rule a GPU was not measured on: its node's missing finding of the rule (the
// rule's on_missing), else the GPU's verdict. The GPU's verdict alone coloured a warning red on a
// GPU that failed another rule.
Level not_measured_level(const CheckResult &r, const PartResult &gpu, const std::string &rule) {
  for (const auto &p : r.parts)
    if (p.key.host == gpu.key.host && p.key.kind == PartKind::node)
      for (const auto &f : p.findings)
        if (f.rule_id == rule && f.missing)
          return f.level;
  return gpu.verdict;
}

// One (part, rule) testcase, counting it in failures or errors where it is one.
struct CaseCounts {
  int failures = 0, errors = 0, skipped = 0;
};

void append_junit_case(pugi::xml_node suite, const CheckResult &r, const PartResult &p,
                       const std::string &rule, bool label_repeats, CaseCounts &counts) {
  auto tc = suite.append_child("testcase");
  // Two GPUs of one label on a host (a board moved or replaced between two runs) are told apart
  // by their bus ids: one name for both read as one GPU that both passed and failed.
  std::string cls = p.key.host + (p.key.kind == PartKind::node ? "" : "." + p.label);
  if (label_repeats)
    cls += "@" + p.key.id;
  tc.append_attribute("classname") = xml_text(cls).c_str();
  tc.append_attribute("name") = xml_text(rule).c_str();
  std::string fail_text, miss_text, warn_text, skip_text;
  bool warned = false;
  for (const auto &f : p.findings) {
    if (f.rule_id != rule)
      continue;
    const auto line = xml_text(describe(f)) + "\n";
    warned = warned || f.level >= Level::warn;
    if (skip_text.empty() && f.level == Level::info &&
        (f.not_covered || f.not_applicable || f.missing))
      skip_text = line;
    // The level decides, missing or not: a value unread at warn turned CI red while a warning
    // violated (a million NVLink errors) kept it green.
    if (f.missing && f.level == Level::fail)
      miss_text += line;
    else if (!f.missing && f.level == Level::fail)
      fail_text += line;
    else
      warn_text += upper(to_string(f.level)) + (f.missing ? " missing: " : ": ") + line;
  }
  // A GPU a burn phase never measured: its verdict's level, with no finding of its own.
  if (std::find(p.not_measured.begin(), p.not_measured.end(), rule) != p.not_measured.end())
    if (const Level level = not_measured_level(r, p, rule); level >= Level::warn)
      (level == Level::fail ? miss_text : warn_text) +=
          std::string(level == Level::fail ? "" : "WARN ") +
          "not measured: its node holds no figure of this rule for the GPU\n";
  if (const auto t = p.rules.find(rule); t != p.rules.end())
    for (std::size_t level = 0; level < t->second.unlisted_missing.size(); ++level) {
      const int n = t->second.unlisted_missing[level];
      if (n == 0)
        continue;
      const auto line =
          fmt::format("{} more missing value{} counted, not listed\n", n, n == 1 ? "" : "s");
      if (static_cast<Level>(level) == Level::fail)
        miss_text += line;
      else
        warn_text += upper(to_string(static_cast<Level>(level))) + " missing: " + line;
    }
  // fail -> <failure>; a fail rule that could not judge -> <error>; warnings and info findings,
  // violated or unread, keep the case green and are printed in system-out (the exit status,
  // 1, says a warning).
  // A rule that judged no value here and said no more than why (another tool's output does not
  // hold it, it cannot apply here): skipped, never a test that passed.
  const auto tally = p.rules.find(rule);
  const bool judged = tally != p.rules.end() && tally->second.checked > 0;
  if (!fail_text.empty()) {
    auto e = tc.append_child("failure");
    e.append_attribute("type") = "fail";
    e.append_attribute("message") = fail_text.substr(0, fail_text.find('\n')).c_str();
    e.text() = fail_text.c_str();
    ++counts.failures;
  } else if (!miss_text.empty()) {
    auto e = tc.append_child("error");
    e.append_attribute("type") = "missing";
    e.append_attribute("message") = miss_text.substr(0, miss_text.find('\n')).c_str();
    e.text() = miss_text.c_str();
    ++counts.errors;
  } else if (!judged && !warned && !skip_text.empty()) {
    tc.append_child("skipped").append_attribute("message") =
        skip_text.substr(0, skip_text.size() - 1).c_str();
    ++counts.skipped;
  }
  if (!warn_text.empty())
    tc.append_child("system-out").text() = warn_text.c_str();
}

// Paths that could not be read belong to no node: one case each, failing at its level. Returns
// the failures.
int append_unreadable_suite(pugi::xml_node suites, const CheckResult &r) {
  auto suite = suites.append_child("testsuite");
  suite.append_attribute("name") = "input";
  int failures = 0;
  for (const auto &u : r.unreadable) {
    auto tc = suite.append_child("testcase");
    tc.append_attribute("classname") = "input";
    tc.append_attribute("name") = xml_text(u.path).c_str();
    const auto text = xml_text(u.refused ? u.what : "cannot be read: " + u.what);
    if (u.level == Level::warn || u.level == Level::info) {
      tc.append_child("system-out").text() = text.c_str();
      continue;
    }
    auto e = tc.append_child("failure");
    e.append_attribute("message") = text.c_str();
    ++failures;
  }
  suite.append_attribute("tests") = static_cast<int>(r.unreadable.size());
  suite.append_attribute("failures") = failures;
  suite.append_attribute("errors") = 0;
  return failures;
}

} // namespace

std::string render_junit(const CheckResult &r) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto suites = doc.append_child("testsuites");
  suites.append_attribute("name") = ("railgauge check " + r.rules_name).c_str();
  const auto by_category = junit_cases_by_category(r);
  std::map<std::pair<std::string, std::string>, std::set<std::string>> ids_of_label;
  for (const auto &p : r.parts)
    if (p.key.kind != PartKind::node)
      ids_of_label[{p.key.host, p.label}].insert(p.key.id);
  int total = 0, total_fail = 0, total_err = 0, total_skipped = 0;
  for (const auto &[category, cases] : by_category) {
    auto suite = suites.append_child("testsuite");
    suite.append_attribute("name") = category.c_str();
    CaseCounts counts;
    for (const auto &[p, rule] : cases)
      append_junit_case(suite, r, *p, rule, ids_of_label[{p->key.host, p->label}].size() > 1,
                        counts);
    suite.append_attribute("tests") = static_cast<int>(cases.size());
    suite.append_attribute("failures") = counts.failures;
    suite.append_attribute("errors") = counts.errors;
    suite.append_attribute("skipped") = counts.skipped;
    total += static_cast<int>(cases.size());
    total_fail += counts.failures;
    total_err += counts.errors;
    total_skipped += counts.skipped;
  }
  if (!r.unreadable.empty()) {
    total += static_cast<int>(r.unreadable.size());
    total_fail += append_unreadable_suite(suites, r);
  }
  suites.append_attribute("tests") = total;
  suites.append_attribute("failures") = total_fail;
  suites.append_attribute("errors") = total_err;
  suites.append_attribute("skipped") = total_skipped;
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

std::string render_prometheus(const CheckResult &r, const PrometheusContext &context) {
  // A node's file holds its own series and those of every group ("a+b") it is one of: the group's
  // figures judged it too.
  const auto shown = [&](const std::string &host) {
    if (!context.only_host)
      return true;
    const auto nodes = hosts_of_group(host);
    return std::find(nodes.begin(), nodes.end(), *context.only_host) != nodes.end();
  };
  std::string out;
  if (context.unix_time_s)
    out += fmt::format("# HELP railgauge_check_time_seconds When railgauge check judged the runs "
                       "(Unix time): a stale file is an old verdict.\n# TYPE "
                       "railgauge_check_time_seconds gauge\nrailgauge_check_time_seconds{{rules="
                       "\"{}\"}} {}\n",
                       prom_label(r.rules_name), *context.unix_time_s);
  if (!context.run_ids_by_host.empty()) {
    out += "# HELP railgauge_check_run_info The runs judged for a node (one series per run id), "
           "value 1.\n# TYPE railgauge_check_run_info gauge\n";
    for (const auto &[host, ids] : context.run_ids_by_host)
      if (shown(host))
        for (const auto &id : ids)
          out += fmt::format("railgauge_check_run_info{{host=\"{}\",run=\"{}\"}} 1\n",
                             prom_label(host), prom_label(id));
  }
  out += "# HELP railgauge_check_node_verdict Verdict of railgauge check per node: 0 pass, "
         "1 warn, 2 fail.\n# TYPE railgauge_check_node_verdict gauge\n";
  for (const auto &m : r.machines())
    if (!context.only_host || *context.only_host == m.host)
      out += fmt::format("railgauge_check_node_verdict{{host=\"{}\",rules=\"{}\"}} {}\n",
                         prom_label(m.host), prom_label(r.rules_name), exit_status(m.verdict));
  out += "# HELP railgauge_check_part_verdict Verdict of railgauge check per part (node, gpu, "
         "nic): 0 pass, 1 warn, 2 fail.\n# TYPE railgauge_check_part_verdict gauge\n";
  for (const auto &p : r.parts)
    if (shown(p.key.host))
      out += fmt::format(
          "railgauge_check_part_verdict{{host=\"{}\",kind=\"{}\",part=\"{}\",id=\"{}\"}} {}\n",
          prom_label(p.key.host), to_string(p.key.kind), prom_label(p.label), prom_label(p.key.id),
          exit_status(p.verdict));
  if (!context.only_host && !r.unreadable.empty()) {
    out += "# HELP railgauge_check_unreadable_inputs Paths the runs could not be read from, by "
           "level: a node may be missing from the verdicts above.\n"
           "# TYPE railgauge_check_unreadable_inputs gauge\n";
    std::map<std::string, int> by_level;
    for (const auto &u : r.unreadable)
      ++by_level[std::string(to_string(u.level))];
    for (const auto &[level, n] : by_level)
      out += fmt::format("railgauge_check_unreadable_inputs{{rules=\"{}\",level=\"{}\"}} {}\n",
                         prom_label(r.rules_name), level, n);
  }
  // After every other metric's samples: a metric's samples follow its own HELP and TYPE.
  out += "# HELP railgauge_check_findings Findings per part and rule: violations (warn, fail) "
         "and missing values the rule could not judge.\n"
         "# TYPE railgauge_check_findings gauge\n";
  for (const auto &p : r.parts) {
    if (!shown(p.key.host))
      continue;
    std::map<std::tuple<std::string, std::string, std::string>, int> n;
    for (const auto &f : p.findings)
      ++n[std::make_tuple(f.rule_id, f.category,
                          f.missing ? "missing_" + std::string(to_string(f.level))
                                    : std::string(to_string(f.level)))];
    for (const auto &[rule, t] : p.rules)
      for (std::size_t level = 0; level < t.unlisted_missing.size(); ++level)
        if (t.unlisted_missing[level] > 0) {
          const auto it = r.rule_categories.find(rule);
          n[std::make_tuple(rule, it != r.rule_categories.end() ? it->second : "health",
                            "missing_" + std::string(to_string(static_cast<Level>(level))))] +=
              t.unlisted_missing[level];
        }
    for (const auto &[k, v] : n)
      // id as in part_verdict: two GPUs of one label (a board moved or replaced between two runs)
      // were one series twice.
      out += fmt::format("railgauge_check_findings{{host=\"{}\",kind=\"{}\",part=\"{}\",id=\"{}\","
                         "rule=\"{}\",category=\"{}\",level=\"{}\"}} {}\n",
                         prom_label(p.key.host), to_string(p.key.kind), prom_label(p.label),
                         prom_label(p.key.id), prom_label(std::get<0>(k)), std::get<1>(k),
                         std::get<2>(k), v);
  }
  return out;
}

} // namespace railgauge::check
