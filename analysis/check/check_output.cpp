#include "analysis/check/check_output.h"
#include "analysis/check/output_text.h"

#include "analysis/check/missing_list.h"
#include "analysis/check/output_counts.h"
#include "analysis/check/test_grid.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pugixml.hpp>

#include "harness/host_group.h"
#include "records/burnin_phase_name.h"

namespace railgauge::check {
namespace {

int unlisted_that_count(const RuleTally &t) {
  int n = 0;
  for (std::size_t level = 0; level < t.unlisted_missing.size(); ++level)
    if (static_cast<Level>(level) != Level::info)
      n += t.unlisted_missing[level];
  return n;
}

// Rules violated (not missing) on a part, worst first, each once: "gemm-bf16 (fail), ...". And
// the rules that never measured it (a GPU of a node without their records), unless the node's
// row names them already as its own missing values.
std::string violated_rules(const PartResult &p, bool with_not_measured = true) {
  std::vector<std::string> seen;
  std::string out;
  for (const auto &f : p.findings) {
    if (f.not_covered || f.not_applicable || cannot_apply_here(f))
      continue;
    const auto tag = f.missing ? f.rule_id + " (missing)" : f.rule_id;
    if (std::find(seen.begin(), seen.end(), tag) != seen.end())
      continue;
    seen.push_back(tag);
    out += (out.empty() ? "" : ", ") + tag;
  }
  for (const auto &[rule, t] : p.rules) {
    const auto tag = rule + " (missing)";
    if (unlisted_that_count(t) > 0 && std::find(seen.begin(), seen.end(), tag) == seen.end()) {
      seen.push_back(tag);
      out += (out.empty() ? "" : ", ") + tag;
    }
  }
  if (with_not_measured && !p.not_measured.empty())
    out += fmt::format("{}not measured, its node holds no figure of: {}", out.empty() ? "" : "; ",
                       fmt::join(p.not_measured, ", "));
  return out;
}

// The values no rule could judge on these nodes (one GPU, one node, an imported log: not this
// machine, which may have measured none of them), in one counted line (cannot_apply_here).
std::string cannot_apply_line(const std::map<std::string, long long> &cannot_apply) {
  if (cannot_apply.empty())
    return "";
  long long values = 0;
  std::string list;
  for (const auto &[rule, n] : cannot_apply) {
    values += n;
    list += (list.empty() ? "" : ", ") + rule;
  }
  return fmt::format("\nCannot apply here (the profile's on_missing: info; no effect on "
                     "the verdict): {} value{} of {} rule{}: {}\n",
                     values, values == 1 ? "" : "s", cannot_apply.size(),
                     cannot_apply.size() == 1 ? "" : "s", list);
}

// The findings of a result grouped as the table lists them below its rows.
struct FindingGroups {
  struct Item {
    const PartResult *part;
    const Finding *finding;
  };
  struct MissingTally {
    long long findings = 0, unlisted = 0;
    std::set<std::string> hosts, rules;
    Level worst = Level::info;
    std::string example;
  };
  std::map<std::pair<Level, std::string>, std::vector<Item>, std::greater<>> violated;
  std::map<std::string, MissingTally> missing;                              // family -> tally
  std::map<std::string, std::set<std::string>> not_applicable, not_covered; // rule -> hosts
  std::map<std::string, long long> cannot_apply;                            // rule -> values
};

FindingGroups group_findings(const CheckResult &r) {
  FindingGroups g;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings) {
      if (f.not_applicable)
        g.not_applicable[f.rule_id].insert(p.key.host);
      else if (f.not_covered)
        g.not_covered[f.rule_id].insert(p.key.host);
      else if (cannot_apply_here(f))
        ++g.cannot_apply[f.rule_id];
      else if (f.missing) {
        auto &m = g.missing[family_of(f)];
        ++m.findings;
        m.hosts.insert(p.key.host);
        m.rules.insert(f.rule_id);
        if (m.example.empty() || f.level > m.worst)
          m.example = fmt::format("{} {}: {}", f.rule_id, p.key.host, describe(f));
        m.worst = std::max(m.worst, f.level);
      } else
        g.violated[{f.level, f.rule_id}].push_back({&p, &f});
    }
  const auto hosts = r.hosts();
  for (const auto &c : r.unlisted_missing) {
    if (c.level == Level::info) {
      g.cannot_apply[c.rule_id] += c.count;
      continue;
    }
    auto &m = g.missing[c.family];
    m.findings += c.count;
    m.unlisted += c.count;
    for (std::size_t i = 0; i < c.hosts.size() && i < hosts.size(); ++i)
      if (c.hosts[i])
        m.hosts.insert(hosts[i]);
    m.rules.insert(c.rule_id);
    if (m.example.empty() || c.level > m.worst)
      m.example = fmt::format("{} {}: {}", c.rule_id, c.example_part.host, describe(c.example));
    m.worst = std::max(m.worst, c.level);
  }
  return g;
}

// Whether two findings of a rule read the same on the same part, in the same run: the same
// value, bound and detail (a foreign process seen in every phase), so that they print as one line
// and the records they came from after it. Compared field by field, never by the rounded text.
bool same_reading(const FindingGroups::Item &a, const FindingGroups::Item &b) {
  const Finding &x = *a.finding, &y = *b.finding;
  return a.part->key == b.part->key && x.missing == y.missing && x.what == y.what &&
         x.value == y.value && x.bound == y.bound && x.detail == y.detail && x.run == y.run;
}

// Each violated rule, worst first, with its first few findings; a part's findings that read the
// same in one run (the burn-in's phases) folded into one line and the records they came from.
std::string violated_lines(const FindingGroups &g) {
  constexpr std::size_t kLinesPerRule = 8;
  std::string out;
  if (!g.violated.empty())
    out += "\nFindings by rule (the full list: --json or --markdown)\n";
  for (const auto &[level_rule, items] : g.violated) {
    std::set<PartKey> parts;
    for (const auto &i : items)
      parts.insert(i.part->key);
    out +=
        fmt::format("{} {} [{}]: {} finding{} on {} part{}\n", upper(to_string(level_rule.first)),
                    level_rule.second, items.front().finding->category, items.size(),
                    items.size() == 1 ? "" : "s", parts.size(), parts.size() == 1 ? "" : "s");
    std::vector<bool> shown(items.size(), false);
    std::size_t lines = 0, printed = 0;
    for (std::size_t i = 0; i < items.size() && lines < kLinesPerRule; ++i) {
      if (shown[i])
        continue;
      std::vector<std::string> also;
      for (std::size_t j = i + 1; j < items.size(); ++j)
        if (!shown[j] && same_reading(items[i], items[j])) {
          shown[j] = true;
          also.push_back(burnin_column_of(items[j].finding->key, items[j].finding->params));
        }
      out += fmt::format("  {} {}: {}\n", items[i].part->key.host, part_name(*items[i].part),
                         describe(*items[i].finding));
      if (!also.empty())
        out += fmt::format("    the same in {} more record{}: {}\n", also.size(),
                           also.size() == 1 ? "" : "s", fmt::join(also, ", "));
      shown[i] = true;
      printed += 1 + also.size();
      ++lines;
    }
    if (printed < items.size())
      out += fmt::format("  ... and {} more\n", items.size() - printed);
  }
  return out;
}

// What could not judge, one line per family, and how many of it were counted past the list.
std::string missing_lines(const CheckResult &r, const FindingGroups &g) {
  if (g.missing.empty())
    return "";
  std::string out = "\nCould not judge (MISSING), per family\n";
  for (const auto &[family, m] : g.missing)
    out += fmt::format("MISSING/{} {}: {} finding{} of {} rule{} on {} node{}; e.g. {}\n",
                       upper(to_string(m.worst)), family, m.findings, m.findings == 1 ? "" : "s",
                       m.rules.size(), m.rules.size() == 1 ? "" : "s", m.hosts.size(),
                       m.hosts.size() == 1 ? "" : "s", m.example);
  long long unlisted = 0;
  for (const auto &c : r.unlisted_missing)
    unlisted += c.level == Level::info ? 0 : c.count;
  if (unlisted > 0)
    out += fmt::format("({} of them counted, not listed: past the first {} of a rule; the "
                       "counts per rule, family and reason: --json or --markdown)\n",
                       unlisted, kMissingListedPerRule);
  return out;
}

// The rules that judged nothing: waived by construction, reading what an import lacks, or not
// applied by this check at all.
std::string unjudged_lines(const CheckResult &r, const FindingGroups &g) {
  std::string out;
  if (!g.not_applicable.empty()) {
    std::string list;
    for (const auto &[rule, hosts] : g.not_applicable)
      list += (list.empty() ? "" : ", ") + rule;
    out += fmt::format("\nNot applicable (waived by construction, not judged): {}\n", list);
  }
  if (!g.not_covered.empty()) {
    std::map<std::string, int> by_category;
    for (const auto &[rule, hosts] : g.not_covered) {
      const auto it = r.rule_categories.find(rule);
      ++by_category[it != r.rule_categories.end() ? it->second : "health"];
    }
    std::string list;
    for (const auto &[category, n] : by_category)
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", category, n);
    out += fmt::format("\nNot covered: {} rule{} ({}) read what the imported output does not hold "
                       "(the rules: --json or --markdown)\n",
                       g.not_covered.size(), g.not_covered.size() == 1 ? "" : "s", list);
  }
  if (!r.not_judged.empty()) {
    out += fmt::format("\nNot judged: {} rule{} of the profile, so no node passed or failed them\n",
                       r.not_judged.size(), r.not_judged.size() == 1 ? "" : "s");
    for (const auto &line : r.not_judged)
      out += "  " + line + "\n";
  }
  return out;
}

// Violations grouped by rule, a few lines each; findings that could not judge collapsed to a
// count per family; not-applicable and not-covered rules named once. The full detail is in
// --json and --markdown.
std::string render_findings_by_rule(const CheckResult &r) {
  const auto groups = group_findings(r);
  return violated_lines(groups) + missing_lines(r, groups) +
         cannot_apply_line(groups.cannot_apply) + unjudged_lines(r, groups);
}

std::string summary_line(const CheckResult &r) {
  auto c = count_result(r);
  std::string uncounted;
  // A finding at info is a note, not a violation: "PASS ..., 2 violations" read as a contradiction.
  if (c.notes > 0)
    uncounted += fmt::format(", {} note{}", c.notes, c.notes == 1 ? "" : "s");
  if (c.cannot_apply > 0)
    uncounted += fmt::format(", {} cannot apply here", c.cannot_apply);
  if (c.not_covered > 0)
    uncounted += fmt::format(", {} not covered", c.not_covered);
  if (c.not_applicable > 0)
    uncounted += fmt::format(", {} not applicable", c.not_applicable);
  if (!r.unreadable.empty())
    uncounted += fmt::format(", {} unreadable path{}", r.unreadable.size(),
                             r.unreadable.size() == 1 ? "" : "s");
  if (!r.not_judged.empty())
    uncounted += fmt::format(", {} rule{} not judged", r.not_judged.size(),
                             r.not_judged.size() == 1 ? "" : "s");
  return fmt::format("{}: {} node{} ({} pass, {} warn, {} fail), {} violation{}, {} missing{}; "
                     "rules {}",
                     upper(verdict_text(r.verdict)), c.nodes, c.nodes == 1 ? "" : "s",
                     c.nodes_by_verdict[Level::pass] + c.nodes_by_verdict[Level::info],
                     c.nodes_by_verdict[Level::warn], c.nodes_by_verdict[Level::fail], c.violations,
                     c.violations == 1 ? "" : "s", c.missing - c.cannot_apply, uncounted,
                     r.rules_name);
}

std::string escape_md(const std::string &s) { return escape_chars(s, {{'|', "\\|"}, {'\n', " "}}); }

// The node row's cause: its own rules and the parts at the node's verdict with theirs
// ("gpu0: burn-gemm-floor, burn-hbm-floor"); a part's violation before what the node could only
// not read (a run older than a rule: "burn-hbm-pattern-coverage (missing)").
std::string node_cause(const CheckResult &r, const PartResult &node, Level verdict) {
  const auto own = violated_rules(node);
  std::string parts;
  for (const auto &p : r.parts)
    if (p.key.host == node.key.host && p.key.kind != PartKind::node && p.verdict == verdict &&
        verdict > Level::info) {
      if (const auto rules = violated_rules(p, false); !rules.empty())
        parts += fmt::format("{}{}: {}", parts.empty() ? "" : "; ", p.label, rules);
    }
  if (parts.empty() || own.empty())
    return own.empty() ? parts : own;
  const bool own_only_missing =
      std::all_of(node.findings.begin(), node.findings.end(), [](const Finding &f) {
        return f.missing || f.not_covered || f.not_applicable || cannot_apply_here(f);
      });
  return own_only_missing ? parts + "; " + own : own + "; " + parts;
}

// A console line cut to kTableColumns unless --wide (the full text is in --wide, --json and
// --markdown); the lists a reader acts on (the hosts to drain, the rules that could not apply)
// are wrapped instead, indented.
// A multi-node group's line: the table names it short ("a and 9 more nodes"), this line names
// every node of it, wrapped rather than cut.
constexpr std::string_view kGroupNodesPrefix = "nodes of ";

std::string group_nodes_lines(const CheckResult &r) {
  std::string out;
  for (const auto &host : r.hosts())
    if (const auto nodes = hosts_of_group(host); group_short_name(host) != host)
      out += fmt::format("{}{}: {}\n", kGroupNodesPrefix, group_short_name(host),
                         fmt::join(nodes, " "));
  return out;
}

std::string fit(const std::string &line, bool wide) {
  if (wide || line.size() <= kTableColumns)
    return line + "\n";
  if (!line.starts_with("drain:") && !line.starts_with("Cannot apply") &&
      !line.starts_with(kGroupNodesPrefix))
    return line.substr(0, kTableColumns - 3) + "...\n";
  const std::string indent = "  ";
  std::string out, current;
  std::istringstream words(line);
  for (std::string word; words >> word;) {
    if (current.size() > indent.size() && current.size() + 1 + word.size() > kTableColumns) {
      out += current + "\n";
      current = indent;
    }
    current += (current.empty() || current == indent ? "" : " ") + word;
  }
  return out + current + "\n";
}

std::string fit_lines(const std::string &text, bool wide) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out += fit(line, wide);
  return out;
}

} // namespace

std::string render_table(const CheckResult &r, bool wide) {
  std::string out = fmt::format("Check against {} ({}): verdict per node and per part with a "
                                "finding; findings below\n",
                                r.rules_name, r.rules_file);
  if (const auto grid = render_test_grid(r); !grid.empty())
    out += "\n" + grid;
  std::size_t wh = 4, wp = 4;
  for (const auto &p : r.parts) {
    wh = std::max(wh, group_short_name(p.key.host).size());
    wp = std::max(wp, part_name(p).size());
  }
  out += fmt::format("{:<{}}  {:<{}}  {:<7}  {}\n", "host", wh, "part", wp, "verdict", "rules");
  // A fleet's passing nodes are one counted line: among 2,000 rows the one FAIL sat at line
  // 1,106, named again only beside the drain list. --wide lists every node.
  const auto nodes = std::count_if(r.parts.begin(), r.parts.end(), [](const PartResult &p) {
    return p.key.kind == PartKind::node;
  });
  const bool collapse = !wide && nodes > static_cast<long>(kNodesListedWhole);
  std::size_t passed_unlisted = 0;
  for (const auto &p : r.parts) {
    const bool node = p.key.kind == PartKind::node;
    // A part whose only problems are missing values counted, not listed, fails all the same.
    if (!node && p.findings.empty() && p.not_measured.empty() && p.verdict <= Level::info)
      continue;
    const Level v = node ? r.node_verdict(p.key.host) : p.verdict;
    if (collapse && r.node_verdict(p.key.host) <= Level::info) {
      passed_unlisted += node ? 1 : 0;
      continue;
    }
    out +=
        fmt::format("{:<{}}  {:<{}}  {:<7}  {}\n", group_short_name(p.key.host), wh, part_name(p),
                    wp, upper(verdict_text(v)), node ? node_cause(r, p, v) : violated_rules(p));
  }
  if (passed_unlisted)
    out += fmt::format("... and {} node{} that PASS, not listed (--wide lists every node)\n",
                       passed_unlisted, passed_unlisted == 1 ? "" : "s");
  out += group_nodes_lines(r);
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
  return fit_lines(out + "\n" + summary_line(r) + "\n", wide);
}

std::string render_markdown(const CheckResult &r) {
  std::string out = fmt::format("# Check: {}\n\n**{}**\n\nRules: `{}`. Runs: {}.\n\n", r.rules_name,
                                escape_md(summary_line(r)), r.rules_file, r.inputs.size());
  out += render_test_grid_markdown(r);
  out += "| host | part | verdict | rules |\n|---|---|---|---|\n";
  for (const auto &p : r.parts) {
    const bool node = p.key.kind == PartKind::node;
    // A part whose only problems are missing values counted, not listed, fails all the same.
    if (!node && p.findings.empty() && p.not_measured.empty() && p.verdict <= Level::info)
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
  if (!r.unlisted_missing.empty()) {
    out += fmt::format("\n## Missing values counted, not listed\n\nPast the first {} missing "
                       "values of a rule, each further one is counted here.\n\n| level | rule | "
                       "family | why | values | nodes | e.g. |\n|---|---|---|---|---|---|---|\n",
                       kMissingListedPerRule);
    for (const auto &c : r.unlisted_missing)
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} {}: {} |\n", upper(to_string(c.level)),
                         escape_md(c.rule_id), c.family, escape_md(c.detail), c.count,
                         std::count(c.hosts.begin(), c.hosts.end(), true),
                         escape_md(c.example_part.host), to_string(c.example_part.kind),
                         escape_md(describe(c.example)));
  }
  if (!r.not_judged.empty()) {
    out += "\n## Not judged\n\nRules of the profile this check could not apply: no node passed or "
           "failed them.\n\n";
    for (const auto &line : r.not_judged)
      out += "- " + escape_md(line) + "\n";
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

std::string render_drain(const CheckResult &r) {
  std::string out;
  for (const auto &h : r.drain())
    out += h + "\n";
  return out;
}

} // namespace railgauge::check
