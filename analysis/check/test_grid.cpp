#include "analysis/check/test_grid.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "harness/host_group.h"

namespace railgauge::check {
namespace {

// The order a rack team reads a node in: the GPU's own work first, its links, its health, then
// the network; categories not named here follow in name order.
int category_rank(const std::string &category) {
  static constexpr const char *kOrder[] = {"compute", "memory", "pcie",  "nvlink",
                                           "health",  "nic",    "fabric"};
  const auto *at = std::find(std::begin(kOrder), std::end(kOrder), category);
  return static_cast<int>(at - std::begin(kOrder));
}

// One rule's verdict on one part, as a grid cell (test_grid.h says what each means).
std::string cell_of(const PartResult &part, const std::string &rule) {
  Level violated = Level::pass;
  bool missing = false, cannot_apply = false;
  for (const auto &f : part.findings) {
    if (f.rule_id != rule)
      continue;
    if (f.not_covered) // the input holds nothing the rule reads (an import): "."
      continue;
    if (f.not_applicable || (f.missing && f.level == Level::info))
      cannot_apply = true;
    else if (f.missing)
      missing = missing || f.level >= Level::warn;
    else
      violated = std::max(violated, f.level);
  }
  const auto tally = part.rules.find(rule);
  const bool judged = tally != part.rules.end();
  // A GPU that a burn phase never measured (gpus_not_measured.h) has no finding of its own.
  if (!judged && std::find(part.not_measured.begin(), part.not_measured.end(), rule) !=
                     part.not_measured.end())
    missing = true;
  if (judged)
    for (std::size_t level = 0; level < tally->second.unlisted_missing.size(); ++level)
      if (tally->second.unlisted_missing[level] > 0 && static_cast<Level>(level) != Level::pass)
        (static_cast<Level>(level) == Level::info ? cannot_apply : missing) = true;
  if (violated >= Level::warn)
    return std::string(violated == Level::fail ? "FAIL" : "WARN");
  if (missing)
    return "MISS";
  // A lone GPU's value is counted as checked by a siblings rule that could not compare it: only
  // a value that passed, or one judged with nothing unjudgeable beside it, makes a PASS.
  if (judged && (tally->second.passed > 0 || (tally->second.checked > 0 && !cannot_apply)))
    return "PASS";
  return cannot_apply ? "n/a" : ".";
}

struct Grid {
  std::string host;
  std::string title;
  std::vector<std::string> columns;
  // (category, rule) -> one cell per column; only rules with a cell other than ".".
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> rows;
};

std::string category_of(const CheckResult &r, const std::string &rule) {
  const auto it = r.rule_categories.find(rule);
  return it == r.rule_categories.end() ? std::string("other") : it->second;
}

Grid grid_of(const CheckResult &r, const std::vector<const PartResult *> &parts,
             std::string title) {
  Grid g{parts.front()->key.host, std::move(title), {}, {}};
  std::set<std::string> rules;
  for (const auto *p : parts) {
    g.columns.push_back(p->key.kind == PartKind::node ? "node" : p->label);
    for (const auto &[id, tally] : p->rules)
      rules.insert(id);
    for (const auto &f : p->findings)
      rules.insert(f.rule_id);
    rules.insert(p->not_measured.begin(), p->not_measured.end());
  }
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto &id : rules)
    order.emplace_back(category_of(r, id), id);
  std::sort(order.begin(), order.end(), [](const auto &a, const auto &b) {
    return std::tuple(category_rank(a.first), a.first, a.second) <
           std::tuple(category_rank(b.first), b.first, b.second);
  });
  for (const auto &row : order) {
    std::vector<std::string> cells;
    for (const auto *p : parts)
      cells.push_back(cell_of(*p, row.second));
    if (std::any_of(cells.begin(), cells.end(), [](const auto &c) { return c != "."; }))
      g.rows.emplace_back(row, std::move(cells));
  }
  return g;
}

// Per host: the node and its GPUs in one grid, its NICs in another (eight of each side by side
// would not fit a console line).
std::vector<Grid> grids_of(const CheckResult &r) {
  std::vector<Grid> grids;
  const auto hosts = r.hosts();
  if (hosts.size() > kGridMaxHosts)
    return grids;
  for (const auto &host : hosts) {
    std::vector<const PartResult *> gpus, nics;
    for (const auto &p : r.parts)
      if (p.key.host == host)
        (p.key.kind == PartKind::nic ? nics : gpus).push_back(&p);
    for (auto [parts, what] : {std::pair{&gpus, "node and GPUs"}, std::pair{&nics, "NICs"}}) {
      if (parts->empty())
        continue;
      auto g =
          grid_of(r, *parts, fmt::format("Test x part on {} ({})", group_short_name(host), what));
      if (!g.rows.empty())
        grids.push_back(std::move(g));
    }
  }
  return grids;
}

} // namespace

std::string render_test_grid(const CheckResult &r) {
  const auto grids = grids_of(r);
  if (grids.empty())
    return "";
  std::string out =
      "Per rule and part: PASS, FAIL, WARN; MISS could not be read (counts at the rule's level); "
      "n/a cannot apply; . none\n\n";
  for (const auto &g : grids) {
    std::size_t rule_width = 4;
    for (const auto &[row, cells] : g.rows)
      rule_width = std::max(rule_width, row.second.size() + 2);
    std::vector<std::size_t> widths;
    for (const auto &c : g.columns)
      widths.push_back(std::max<std::size_t>(4, c.size()));
    out += g.title + "\n";
    std::string line = fmt::format("{:<{}}", "", rule_width);
    for (std::size_t i = 0; i < g.columns.size(); ++i)
      line += fmt::format("  {:<{}}", g.columns[i], widths[i]);
    out += line + "\n";
    std::string category;
    for (const auto &[row, cells] : g.rows) {
      if (row.first != category)
        out += (category = row.first) + "\n";
      line = fmt::format("  {:<{}}", row.second, rule_width - 2);
      for (std::size_t i = 0; i < cells.size(); ++i)
        line += fmt::format("  {:<{}}", cells[i], widths[i]);
      while (!line.empty() && line.back() == ' ')
        line.pop_back();
      out += line + "\n";
    }
    out += "\n";
  }
  return out;
}

std::string render_test_grid_markdown(const CheckResult &r) {
  std::string out;
  for (const auto &g : grids_of(r)) {
    out += "### " + g.title + "\n\n| category | rule |";
    for (const auto &c : g.columns)
      out += " " + c + " |";
    out += "\n|---|---|";
    for (std::size_t i = 0; i < g.columns.size(); ++i)
      out += "---|";
    out += "\n";
    for (const auto &[row, cells] : g.rows) {
      out += fmt::format("| {} | {} |", row.first, row.second);
      for (const auto &c : cells)
        out += " " + (c == "FAIL" || c == "WARN" || c == "MISS" ? "**" + c + "**" : c) + " |";
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

nlohmann::json test_grid_json(const CheckResult &r) {
  auto out = nlohmann::json::array();
  for (const auto &g : grids_of(r)) {
    auto rows = nlohmann::json::array();
    for (const auto &[row, cells] : g.rows)
      rows.push_back({{"category", row.first}, {"rule", row.second}, {"cells", cells}});
    out.push_back({{"title", g.title}, {"host", g.host}, {"columns", g.columns}, {"rows", rows}});
  }
  return out;
}

} // namespace railgauge::check
