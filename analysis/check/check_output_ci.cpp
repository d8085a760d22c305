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

namespace railgauge::check {
namespace {

using json = nlohmann::json;

// Prometheus label values escape backslash, double quote and newline.
std::string prom_label(const std::string &s) {
  return escape_chars(s, {{'\\', "\\\\"}, {'"', "\\\""}, {'\n', "\\n"}});
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
    for (const auto &id : rules) {
      const auto it = r.rule_categories.find(id);
      by_category[it != r.rule_categories.end() ? it->second : "health"].emplace_back(&p, id);
    }
  }
  return by_category;
}

// One (part, rule) testcase, counting it in failures or errors where it is one.
void append_junit_case(pugi::xml_node suite, const PartResult &p, const std::string &rule,
                       int &failures, int &errors) {
  auto tc = suite.append_child("testcase");
  const std::string cls = p.key.host + (p.key.kind == PartKind::node ? "" : "." + p.label);
  tc.append_attribute("classname") = cls.c_str();
  tc.append_attribute("name") = rule.c_str();
  std::string fail_text, miss_text, warn_text;
  for (const auto &f : p.findings) {
    if (f.rule_id != rule)
      continue;
    const auto line = describe(f) + "\n";
    if (f.missing && f.level != Level::info)
      miss_text += line;
    else if (!f.missing && f.level == Level::fail)
      fail_text += line;
    else
      warn_text += upper(to_string(f.level)) + (f.missing ? " missing: " : ": ") + line;
  }
  if (const auto t = p.rules.find(rule); t != p.rules.end())
    for (std::size_t level = 0; level < t->second.unlisted_missing.size(); ++level) {
      const int n = t->second.unlisted_missing[level];
      if (n == 0)
        continue;
      const auto line =
          fmt::format("{} more missing value{} counted, not listed\n", n, n == 1 ? "" : "s");
      if (static_cast<Level>(level) != Level::info)
        miss_text += line;
      else
        warn_text += "INFO missing: " + line;
    }
  // fail -> <failure>; a rule that could not judge -> <error>; warnings and info findings
  // keep the case green and are printed in system-out.
  if (!fail_text.empty()) {
    auto e = tc.append_child("failure");
    e.append_attribute("type") = "fail";
    e.append_attribute("message") = fail_text.substr(0, fail_text.find('\n')).c_str();
    e.text() = fail_text.c_str();
    ++failures;
  } else if (!miss_text.empty()) {
    auto e = tc.append_child("error");
    e.append_attribute("type") = "missing";
    e.append_attribute("message") = miss_text.substr(0, miss_text.find('\n')).c_str();
    e.text() = miss_text.c_str();
    ++errors;
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
    tc.append_attribute("name") = u.path.c_str();
    const auto text = "cannot be read: " + u.what;
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
  int total = 0, total_fail = 0, total_err = 0;
  for (const auto &[category, cases] : by_category) {
    auto suite = suites.append_child("testsuite");
    suite.append_attribute("name") = category.c_str();
    int failures = 0, errors = 0;
    for (const auto &[p, rule] : cases)
      append_junit_case(suite, *p, rule, failures, errors);
    suite.append_attribute("tests") = static_cast<int>(cases.size());
    suite.append_attribute("failures") = failures;
    suite.append_attribute("errors") = errors;
    total += static_cast<int>(cases.size());
    total_fail += failures;
    total_err += errors;
  }
  if (!r.unreadable.empty()) {
    total += static_cast<int>(r.unreadable.size());
    total_fail += append_unreadable_suite(suites, r);
  }
  suites.append_attribute("tests") = total;
  suites.append_attribute("failures") = total_fail;
  suites.append_attribute("errors") = total_err;
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

std::string render_prometheus(const CheckResult &r, const PrometheusContext &context) {
  const auto shown = [&](const std::string &host) {
    return !context.only_host || *context.only_host == host;
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
  for (const auto &h : r.hosts())
    if (shown(h))
      out += fmt::format("railgauge_check_node_verdict{{host=\"{}\",rules=\"{}\"}} {}\n",
                         prom_label(h), prom_label(r.rules_name), exit_status(r.node_verdict(h)));
  out += "# HELP railgauge_check_part_verdict Verdict of railgauge check per part (node, gpu, "
         "nic): 0 pass, 1 warn, 2 fail.\n# TYPE railgauge_check_part_verdict gauge\n";
  for (const auto &p : r.parts)
    if (shown(p.key.host))
      out += fmt::format(
          "railgauge_check_part_verdict{{host=\"{}\",kind=\"{}\",part=\"{}\",id=\"{}\"}} {}\n",
          prom_label(p.key.host), to_string(p.key.kind), prom_label(p.label), prom_label(p.key.id),
          exit_status(p.verdict));
  out += "# HELP railgauge_check_findings Findings per part and rule: violations (warn, fail) "
         "and missing values the rule could not judge.\n"
         "# TYPE railgauge_check_findings gauge\n";
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
      out += fmt::format("railgauge_check_findings{{host=\"{}\",kind=\"{}\",part=\"{}\",rule="
                         "\"{}\",category=\"{}\",level=\"{}\"}} {}\n",
                         prom_label(p.key.host), to_string(p.key.kind), prom_label(p.label),
                         prom_label(std::get<0>(k)), std::get<1>(k), std::get<2>(k), v);
  }
  return out;
}

} // namespace railgauge::check
