// The check result as railgauge.check/1 JSON (check_output.h): everything, for scripts and for
// `railgauge report --check`.
#include "analysis/check/check_output.h"

#include "analysis/check/output_counts.h"
#include "analysis/check/output_text.h"
#include "analysis/check/test_grid.h"

namespace railgauge::check {
namespace {

using json = nlohmann::json;

json unlisted_json(const CheckResult &r) {
  const auto hosts = r.hosts();
  json out = json::array();
  for (const auto &c : r.unlisted_missing) {
    int nodes = 0;
    std::string first;
    for (std::size_t i = 0; i < c.hosts.size(); ++i)
      if (c.hosts[i])
        ++nodes;
    out.push_back({{"rule", c.rule_id},
                   {"category", c.category},
                   {"family", c.family},
                   {"level", to_string(c.level)},
                   {"reason", c.detail},
                   {"count", c.count},
                   {"nodes", nodes},
                   {"example",
                    {{"host", c.example_part.host},
                     {"kind", to_string(c.example_part.kind)},
                     {"id", c.example_part.id},
                     {"text", describe(c.example)}}}});
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
  j["noise_rel"] = f.noise_rel ? json(*f.noise_rel) : json(nullptr);
  j["fleet"] = f.fleet ? json{{"n", f.fleet->n}, {"median", f.fleet->median}, {"mad", f.fleet->mad}}
                       : json(nullptr);
  j["key"] = f.key.empty() ? json(nullptr) : json(f.key);
  j["params"] = f.key.empty() ? json(nullptr) : f.params;
  return j;
}

} // namespace

json to_json(const CheckResult &r) {
  auto c = count_result(r);
  json unreadable = json::array();
  for (const auto &u : r.unreadable)
    unreadable.push_back({{"path", u.path}, {"why", u.what}, {"level", to_string(u.level)}});
  // Machines, as drain and the summary count them; "groups" names the multi-node parts ("a+b")
  // whose figures judged the node beside its own.
  json nodes = json::array();
  for (const auto &m : r.machines()) {
    nodes.push_back({{"host", m.host}, {"verdict", verdict_text(m.verdict)}});
    if (!m.groups.empty())
      nodes.back()["groups"] = m.groups;
  }
  json parts = json::array();
  for (const auto &p : r.parts) {
    json rules = json::object();
    for (const auto &[id, t] : p.rules) {
      rules[id] = {{"checked", t.checked}, {"passed", t.passed}};
      for (std::size_t level = 0; level < t.unlisted_missing.size(); ++level)
        if (t.unlisted_missing[level] > 0)
          rules[id]["missing_unlisted"][std::string(to_string(static_cast<Level>(level)))] =
              t.unlisted_missing[level];
    }
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
    if (!p.not_measured.empty())
      parts.back()["not_measured"] = p.not_measured;
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
            {"notes", c.notes},
            // missing counts the values that cannot apply here too; the console's "N missing"
            // is missing less cannot_apply_here.
            {"missing", c.missing},
            {"cannot_apply_here", c.cannot_apply},
            {"missing_unlisted", c.unlisted},
            {"not_covered", c.not_covered},
            {"not_applicable", c.not_applicable}}},
          {"not_judged", r.not_judged},
          {"nodes", nodes},
          {"test_grid", test_grid_json(r)},
          {"parts", parts},
          {"missing_unlisted", unlisted_json(r)},
          {"drain", r.drain()},
          {"problems", r.problems},
          {"unreadable", unreadable}};
}

} // namespace railgauge::check
