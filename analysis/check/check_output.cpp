#include "analysis/check/check_output.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <pugixml.hpp>

namespace railgauge::check {
namespace {

using json = nlohmann::json;

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), ::toupper);
  return out;
}

// A verdict as printed: info findings (a fleet too small, an optional counter absent) are
// listed but leave the verdict at pass.
std::string_view verdict_text(Level v) { return v == Level::info ? "pass" : to_string(v); }

std::string part_name(const PartResult &p) {
  if (p.key.kind == PartKind::node)
    return "node";
  if (p.key.kind == PartKind::gpu && p.label != "gpu " + p.key.id)
    return fmt::format("{} ({})", p.label, p.key.id);
  return p.label;
}

// Rules violated (not missing) on a part, worst first, each once: "gemm-bf16 (fail), ...".
std::string violated_rules(const PartResult &p) {
  std::vector<std::string> seen;
  std::string out;
  for (const auto &f : p.findings) {
    if (f.not_covered || f.not_applicable)
      continue;
    const auto tag = f.missing ? f.rule_id + " (missing)" : f.rule_id;
    if (std::find(seen.begin(), seen.end(), tag) != seen.end())
      continue;
    seen.push_back(tag);
    out += (out.empty() ? "" : ", ") + tag;
  }
  return out;
}

struct Counts {
  int nodes = 0, parts = 0;
  std::map<Level, int> nodes_by_verdict;
  int violations = 0, missing = 0, not_covered = 0, not_applicable = 0;
};

Counts count(const CheckResult &r) {
  Counts c;
  for (const auto &h : r.hosts()) {
    ++c.nodes;
    ++c.nodes_by_verdict[r.node_verdict(h)];
  }
  for (const auto &p : r.parts) {
    ++c.parts;
    for (const auto &f : p.findings) {
      if (f.not_covered)
        ++c.not_covered;
      else if (f.not_applicable)
        ++c.not_applicable;
      else
        ++(f.missing ? c.missing : c.violations);
    }
  }
  return c;
}

// The family a finding is about: its record's key ("gemm"), else its rule's category.
std::string family_of(const Finding &f) {
  return f.key.empty() ? f.category : f.key.substr(0, f.key.find('.'));
}

// Violations grouped by rule, a few lines each; findings that could not judge collapsed to a
// count per family; not-applicable and not-covered rules named once. The full detail is in
// --json and --markdown.
std::string render_findings_by_rule(const CheckResult &r) {
  constexpr std::size_t kLinesPerRule = 8;
  struct Item {
    const PartResult *part;
    const Finding *finding;
  };
  std::map<std::pair<Level, std::string>, std::vector<Item>, std::greater<>> violated;
  struct MissingTally {
    int findings = 0;
    std::set<std::string> hosts, rules;
    Level worst = Level::info;
    std::string example;
  };
  std::map<std::string, MissingTally> missing;
  std::map<std::string, std::set<std::string>> not_applicable, not_covered; // rule -> hosts
  for (const auto &p : r.parts)
    for (const auto &f : p.findings) {
      if (f.not_applicable)
        not_applicable[f.rule_id].insert(p.key.host);
      else if (f.not_covered)
        not_covered[f.rule_id].insert(p.key.host);
      else if (f.missing) {
        auto &m = missing[family_of(f)];
        ++m.findings;
        m.hosts.insert(p.key.host);
        m.rules.insert(f.rule_id);
        if (m.example.empty() || f.level > m.worst)
          m.example = fmt::format("{} {}: {}", f.rule_id, p.key.host, describe(f));
        m.worst = std::max(m.worst, f.level);
      } else
        violated[{f.level, f.rule_id}].push_back({&p, &f});
    }
  std::string out;
  if (!violated.empty())
    out += "\nFindings by rule (the full list: --json or --markdown)\n";
  for (const auto &[level_rule, items] : violated) {
    std::set<PartKey> parts;
    for (const auto &i : items)
      parts.insert(i.part->key);
    out +=
        fmt::format("{} {} [{}]: {} finding{} on {} part{}\n", upper(to_string(level_rule.first)),
                    level_rule.second, items.front().finding->category, items.size(),
                    items.size() == 1 ? "" : "s", parts.size(), parts.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < items.size() && i < kLinesPerRule; ++i)
      out += fmt::format("  {} {}: {}\n", items[i].part->key.host, part_name(*items[i].part),
                         describe(*items[i].finding));
    if (items.size() > kLinesPerRule)
      out += fmt::format("  ... and {} more\n", items.size() - kLinesPerRule);
  }
  if (!missing.empty()) {
    out += "\nCould not judge (MISSING), per family\n";
    for (const auto &[family, m] : missing)
      out += fmt::format("MISSING/{} {}: {} finding{} of {} rule{} on {} node{}; e.g. {}\n",
                         upper(to_string(m.worst)), family, m.findings, m.findings == 1 ? "" : "s",
                         m.rules.size(), m.rules.size() == 1 ? "" : "s", m.hosts.size(),
                         m.hosts.size() == 1 ? "" : "s", m.example);
  }
  const auto names = [](const std::map<std::string, std::set<std::string>> &rules) {
    std::string list;
    for (const auto &[rule, hosts] : rules)
      list += (list.empty() ? "" : ", ") + rule;
    return list;
  };
  if (!not_applicable.empty())
    out += fmt::format("\nNot applicable (waived by construction, not judged): {}\n",
                       names(not_applicable));
  if (!not_covered.empty()) {
    std::map<std::string, int> by_category;
    for (const auto &[rule, hosts] : not_covered) {
      const auto it = r.rule_categories.find(rule);
      ++by_category[it != r.rule_categories.end() ? it->second : "health"];
    }
    std::string list;
    for (const auto &[category, n] : by_category)
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", category, n);
    out += fmt::format("\nNot covered: {} rule{} ({}) read what the imported output does not hold "
                       "(the rules: --json or --markdown)\n",
                       not_covered.size(), not_covered.size() == 1 ? "" : "s", list);
  }
  return out;
}

std::string summary_line(const CheckResult &r) {
  auto c = count(r);
  std::string uncounted;
  if (c.not_covered > 0)
    uncounted += fmt::format(", {} not covered", c.not_covered);
  if (c.not_applicable > 0)
    uncounted += fmt::format(", {} not applicable", c.not_applicable);
  if (!r.unreadable.empty())
    uncounted += fmt::format(", {} unreadable path{}", r.unreadable.size(),
                             r.unreadable.size() == 1 ? "" : "s");
  return fmt::format("{}: {} node{} ({} pass, {} warn, {} fail), {} violation{}, {} missing{}; "
                     "rules {}",
                     upper(verdict_text(r.verdict)), c.nodes, c.nodes == 1 ? "" : "s",
                     c.nodes_by_verdict[Level::pass] + c.nodes_by_verdict[Level::info],
                     c.nodes_by_verdict[Level::warn], c.nodes_by_verdict[Level::fail], c.violations,
                     c.violations == 1 ? "" : "s", c.missing, uncounted, r.rules_name);
}

std::string escape_md(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// Prometheus label values escape backslash, double quote and newline.
std::string prom_label(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

json finding_json(const Finding &f) {
  json j = {{"rule", f.rule_id},
            {"category", f.category},
            {"level", to_string(f.level)},
            {"missing", f.missing},
            {"what", f.what},
            {"value", f.value},
            {"not_covered", f.not_covered},
            {"not_applicable", f.not_applicable},
            {"bound", f.bound},
            {"detail", f.detail},
            {"run", f.run},
            {"text", describe(f)}};
  j["threshold"] = f.threshold ? json(*f.threshold) : json(nullptr);
  j["fleet"] = f.fleet ? json{{"n", f.fleet->n}, {"median", f.fleet->median}, {"mad", f.fleet->mad}}
                       : json(nullptr);
  j["key"] = f.key.empty() ? json(nullptr) : json(f.key);
  j["params"] = f.key.empty() ? json(nullptr) : f.params;
  return j;
}

} // namespace

std::string render_table(const CheckResult &r) {
  std::string out = fmt::format("Check against {} ({}): verdict per node and per part with a "
                                "finding; findings below\n",
                                r.rules_name, r.rules_file);
  std::size_t wh = 4, wp = 4;
  for (const auto &p : r.parts) {
    wh = std::max(wh, p.key.host.size());
    wp = std::max(wp, part_name(p).size());
  }
  out += fmt::format("{:<{}}  {:<{}}  {:<7}  {}\n", "host", wh, "part", wp, "verdict", "rules");
  for (const auto &p : r.parts) {
    const bool node = p.key.kind == PartKind::node;
    if (!node && p.findings.empty())
      continue;
    const Level v = node ? r.node_verdict(p.key.host) : p.verdict;
    out += fmt::format("{:<{}}  {:<{}}  {:<7}  {}\n", p.key.host, wh, part_name(p), wp,
                       upper(verdict_text(v)), violated_rules(p));
  }
  out += render_findings_by_rule(r);
  for (const auto &u : r.unreadable)
    out += fmt::format("{} unreadable: {}: {}\n", upper(to_string(u.level)), u.path, u.what);
  for (const auto &problem : r.problems)
    out += "problem: " + problem + "\n";
  const auto drain = r.drain();
  if (!drain.empty()) {
    out += "\ndrain:";
    for (const auto &h : drain)
      out += " " + h;
    out += "\n";
  }
  return out + "\n" + summary_line(r) + "\n";
}

std::string render_markdown(const CheckResult &r) {
  std::string out = fmt::format("# Check: {}\n\n**{}**\n\nRules: `{}`. Runs: {}.\n\n", r.rules_name,
                                escape_md(summary_line(r)), r.rules_file, r.inputs.size());
  out += "| host | part | verdict | rules |\n|---|---|---|---|\n";
  for (const auto &p : r.parts) {
    const bool node = p.key.kind == PartKind::node;
    if (!node && p.findings.empty())
      continue;
    const Level v = node ? r.node_verdict(p.key.host) : p.verdict;
    out += fmt::format("| {} | {} | {} | {} |\n", escape_md(p.key.host), escape_md(part_name(p)),
                       upper(verdict_text(v)), escape_md(violated_rules(p)));
  }
  bool header = false;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings) {
      if (!header) {
        out += "\n## Findings\n\n| level | host | part | rule | category | finding |\n"
               "|---|---|---|---|---|---|\n";
        header = true;
      }
      out += fmt::format("| {}{} | {} | {} | {} | {} | {} |\n", upper(to_string(f.level)),
                         f.not_covered      ? " (not covered)"
                         : f.not_applicable ? " (not applicable)"
                         : f.missing        ? " (missing)"
                                            : "",
                         escape_md(p.key.host), escape_md(part_name(p)), escape_md(f.rule_id),
                         f.category, escape_md(describe(f)));
    }
  if (!r.unreadable.empty()) {
    out += "\n## Unreadable inputs\n\n| level | path | why |\n|---|---|---|\n";
    for (const auto &u : r.unreadable)
      out += fmt::format("| {} | {} | {} |\n", upper(to_string(u.level)), escape_md(u.path),
                         escape_md(u.what));
  }
  const auto drain = r.drain();
  if (!drain.empty()) {
    out += "\n## Drain\n\n";
    for (const auto &h : drain)
      out += "- " + escape_md(h) + "\n";
  }
  if (!r.problems.empty()) {
    out += "\n## Input problems\n\n";
    for (const auto &p : r.problems)
      out += "- " + escape_md(p) + "\n";
  }
  return out;
}

json to_json(const CheckResult &r) {
  auto c = count(r);
  json unreadable = json::array();
  for (const auto &u : r.unreadable)
    unreadable.push_back({{"path", u.path}, {"why", u.what}, {"level", to_string(u.level)}});
  json nodes = json::array();
  for (const auto &h : r.hosts())
    nodes.push_back({{"host", h}, {"verdict", verdict_text(r.node_verdict(h))}});
  json parts = json::array();
  for (const auto &p : r.parts) {
    json rules = json::object();
    for (const auto &[id, t] : p.rules)
      rules[id] = {{"checked", t.checked}, {"passed", t.passed}};
    json findings = json::array();
    for (const auto &f : p.findings)
      findings.push_back(finding_json(f));
    parts.push_back({{"host", p.key.host},
                     {"kind", to_string(p.key.kind)},
                     {"id", p.key.id},
                     {"label", p.label},
                     {"verdict", verdict_text(p.verdict)},
                     {"rules", rules},
                     {"findings", findings}});
  }
  return {{"schema", kCheckSchema},
          {"rules", {{"name", r.rules_name}, {"file", r.rules_file}}},
          {"inputs", r.inputs},
          {"verdict", verdict_text(r.verdict)},
          {"exit_status", exit_status(r.verdict)},
          {"summary",
           {{"nodes", c.nodes},
            {"nodes_pass", c.nodes_by_verdict[Level::pass] + c.nodes_by_verdict[Level::info]},
            {"nodes_warn", c.nodes_by_verdict[Level::warn]},
            {"nodes_fail", c.nodes_by_verdict[Level::fail]},
            {"violations", c.violations},
            {"missing", c.missing},
            {"not_covered", c.not_covered},
            {"not_applicable", c.not_applicable}}},
          {"nodes", nodes},
          {"parts", parts},
          {"drain", r.drain()},
          {"problems", r.problems},
          {"unreadable", unreadable}};
}

std::string render_junit(const CheckResult &r) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto suites = doc.append_child("testsuites");
  suites.append_attribute("name") = ("railgauge check " + r.rules_name).c_str();
  // category -> (part, rule) testcases
  std::map<std::string, std::vector<std::pair<const PartResult *, std::string>>> by_category;
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
  int total = 0, total_fail = 0, total_err = 0;
  for (const auto &[category, cases] : by_category) {
    auto suite = suites.append_child("testsuite");
    suite.append_attribute("name") = category.c_str();
    int failures = 0, errors = 0;
    for (const auto &[p, rule] : cases) {
      auto tc = suite.append_child("testcase");
      const std::string cls = p->key.host + (p->key.kind == PartKind::node ? "" : "." + p->label);
      tc.append_attribute("classname") = cls.c_str();
      tc.append_attribute("name") = rule.c_str();
      std::string fail_text, miss_text, warn_text;
      for (const auto &f : p->findings) {
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
    suite.append_attribute("tests") = static_cast<int>(cases.size());
    suite.append_attribute("failures") = failures;
    suite.append_attribute("errors") = errors;
    total += static_cast<int>(cases.size());
    total_fail += failures;
    total_err += errors;
  }
  if (!r.unreadable.empty()) {
    // Paths that could not be read belong to no node: one case each, failing at its level.
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
    total += static_cast<int>(r.unreadable.size());
    total_fail += failures;
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
    for (const auto &[k, v] : n)
      out += fmt::format("railgauge_check_findings{{host=\"{}\",kind=\"{}\",part=\"{}\",rule="
                         "\"{}\",category=\"{}\",level=\"{}\"}} {}\n",
                         prom_label(p.key.host), to_string(p.key.kind), prom_label(p.label),
                         prom_label(std::get<0>(k)), std::get<1>(k), std::get<2>(k), v);
  }
  return out;
}

std::string render_drain(const CheckResult &r) {
  std::string out;
  for (const auto &h : r.drain())
    out += h + "\n";
  return out;
}

} // namespace railgauge::check
