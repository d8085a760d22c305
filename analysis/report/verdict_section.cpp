#include "analysis/report/verdict_section.h"

#include <map>
#include <tuple>

#include <fmt/format.h>

#include "analysis/check/check_output.h"
#include "analysis/check/check_result.h"
#include "analysis/report/report.h"
#include "analysis/report/report_page.h"
#include "harness/error.h"

namespace railgauge::report {
namespace {

using json = nlohmann::json;

// The check result's fields this section reads, as check_output.cpp writes them.
const json *field_of(const json &j, const char *name) {
  return j.is_object() && j.contains(name) ? &j.at(name) : nullptr;
}

std::string check_result_problem(const json &check) {
  if (!check.is_object())
    return "it is not a JSON object";
  const json *schema = field_of(check, "schema");
  if (!schema || *schema != check::kCheckSchema)
    return fmt::format("its schema is not {}", check::kCheckSchema);
  const json *rules = field_of(check, "rules");
  if (!rules || !field_of(*rules, "name") || !field_of(*rules, "file"))
    return "'rules' is not an object with a name and a file";
  const json *summary = field_of(check, "summary");
  if (!field_of(check, "verdict") || !summary)
    return "it has no verdict or no summary";
  for (const char *f : {"nodes", "nodes_fail", "nodes_warn", "violations", "missing"})
    if (!field_of(*summary, f))
      return fmt::format("the summary has no '{}'", f);
  const json *parts = field_of(check, "parts");
  if (!parts || !parts->is_array())
    return "'parts' is not a list";
  for (const auto &p : *parts) {
    const json *findings = field_of(p, "findings");
    if (!field_of(p, "host") || !field_of(p, "label") || !findings || !findings->is_array())
      return "a part is not an object with a host, a label and a list of findings";
    for (const auto &f : *findings) {
      const json *missing = field_of(f, "missing");
      if (!missing || !missing->is_boolean())
        return "a finding has no true/false 'missing'";
      for (const char *name : {"rule", "level", "detail", "text"})
        if (!field_of(f, name))
          return fmt::format("a finding has no '{}'", name);
    }
  }
  const json *drain = field_of(check, "drain");
  if (!drain || !drain->is_array())
    return "'drain' is not a list";
  return "";
}

// The test x part grids check drew for a few nodes (analysis/check/test_grid.h), as DCGM prints
// its tests: a row per rule, a column per part; a row with a FAIL, a WARN or a MISS is marked.
// Absent from a check of many nodes, and from a check written before the grid.
void test_grid_tables(Page &page, const json &check) {
  const json *grids = field_of(check, "test_grid");
  if (!grids || !grids->is_array() || grids->empty())
    return;
  page.para("Each rule's verdict per part: PASS, FAIL, WARN; MISS could not be read (counts as "
            "the rule's level); n/a cannot apply here; . reads nothing there.");
  for (const auto &g : *grids) {
    if (!g.is_object() || !g.contains("columns") || !g.contains("rows"))
      continue;
    page.para(text(g.value("title", json(""))));
    std::vector<std::string> head = {"category", "rule"};
    for (const auto &c : g["columns"])
      head.push_back(text(c));
    std::vector<std::vector<std::string>> rows = {head};
    std::vector<std::string> cls = {""};
    for (const auto &row : g["rows"]) {
      std::vector<std::string> cells = {text(row.value("category", json(""))),
                                        text(row.value("rule", json("")))};
      std::string level;
      for (const auto &c : row.value("cells", json::array())) {
        cells.push_back(text(c));
        if (c == "FAIL")
          level = "fail";
        else if ((c == "WARN" || c == "MISS") && level.empty())
          level = "warn";
      }
      rows.push_back(std::move(cells));
      cls.push_back(level);
    }
    page.table(rows, cls);
  }
}

} // namespace

void verdict_section(Page &page, const json &check) {
  page.heading("Verdict");
  // check's "missing" counts what cannot apply here too (on_missing: info, no effect on the
  // verdict); its console says "N missing" less those: "62 missing" beside check's "0 missing,
  // 62 cannot apply here" and its PASS.
  const json &summary = check["summary"];
  const long long cannot_apply = summary.value("cannot_apply_here", 0LL);
  const long long missing_values = summary.value("missing", 0LL) - cannot_apply;
  page.para(fmt::format("Rules {} ({}): {} — {} node(s), {} fail, {} warn; {} violation(s), {} "
                        "missing{}.",
                        text(check["rules"]["name"]), text(check["rules"]["file"]),
                        text(check["verdict"]), text(summary["nodes"]), text(summary["nodes_fail"]),
                        text(summary["nodes_warn"]), text(summary["violations"]), missing_values,
                        cannot_apply ? fmt::format(", {} cannot apply here", cannot_apply) : ""));
  test_grid_tables(page, check);
  // Violations one per row; what could not be judged grouped by rule (a CPU-only run against a
  // GPU profile misses hundreds of values, and one line per rule says it).
  std::vector<std::vector<std::string>> rows = {{"host", "part", "level", "rule", "finding"}};
  std::vector<std::string> cls = {""};
  // rule -> level, n, eg; a value missing at info (cannot apply here, not covered, not
  // applicable) apart: it changes no verdict, and "a missing value is never a pass" is not said
  // of it.
  std::map<std::string, std::tuple<std::string, long long, std::string>> missing, cannot;
  for (const auto &p : check["parts"])
    for (const auto &f : p["findings"]) {
      if (f["missing"].get<bool>()) {
        auto &[level, n, example] =
            (text(f["level"]) == "info" ? cannot : missing)[text(f["rule"])];
        if (level.empty() || (level != "fail" && text(f["level"]) == "fail"))
          level = text(f["level"]);
        if (example.empty()) // a pair's part is labelled with its hosts: said once
          example = text(p["host"]) +
                    (text(p["label"]) == text(p["host"]) ? "" : " " + text(p["label"])) + ": " +
                    text(f["detail"]);
        ++n;
        continue;
      }
      rows.push_back(
          {text(p["host"]), text(p["label"]), text(f["level"]), text(f["rule"]), text(f["text"])});
      cls.push_back(f["level"] == "fail" ? "fail" : "warn");
    }
  // Past a rule's first listed values, check counts the rest per rule, family and reason
  // (missing_unlisted): they are as missing as the listed ones.
  if (const json *unlisted = field_of(check, "missing_unlisted"); unlisted && unlisted->is_array())
    for (const auto &u : *unlisted) {
      const auto u_level = text(u.value("level", json("")));
      auto &[level, n, example] =
          (u_level == "info" ? cannot : missing)[text(u.value("rule", json("")))];
      if (level.empty() || (level != "fail" && u_level == "fail"))
        level = u_level;
      if (example.empty() && u.contains("example") && u["example"].is_object())
        example = text(u["example"].value("host", json(""))) + ": " +
                  text(u["example"].value("text", json("")));
      n += u.value("count", 0LL);
    }
  if (rows.size() == 1)
    page.para("No rule violated.");
  else
    page.table(rows, cls);
  const auto missing_table = [&page](const auto &by_rule) {
    std::vector<std::vector<std::string>> m = {{"rule", "level", "values", "for example"}};
    std::vector<std::string> mcls = {""};
    for (const auto &[rule, v] : by_rule) {
      const auto &[level, n, example] = v;
      m.push_back({rule, level, std::to_string(n), example});
      mcls.push_back(level == "fail" ? "fail" : level == "warn" ? "warn" : "");
    }
    page.table(m, mcls);
  };
  if (!missing.empty()) {
    page.para("Rules that could not judge every value (missing records or metrics, a fleet too "
              "small); a missing value is never a pass:");
    missing_table(missing);
  }
  if (!cannot.empty()) {
    page.para("Cannot apply here (the profile's on_missing: info, or a rule the runs do not "
              "cover); no effect on the verdict:");
    missing_table(cannot);
  }
  if (!check["drain"].empty()) {
    std::string d;
    for (const auto &h : check["drain"])
      d += (d.empty() ? "" : ", ") + text(h);
    page.para("Drain: " + d);
  }
}

void check_result_for_report(const nlohmann::json &check, const std::string &where) {
  if (const auto problem = check_result_problem(check); !problem.empty())
    throw InputError(fmt::format("not a check result: {}", problem), where,
                     "give the file railgauge check --json FILE wrote");
}

} // namespace railgauge::report
