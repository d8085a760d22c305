#pragma once
// The page the report's sections write into, HTML and markdown side by side, and the names that
// several sections give runs and values. Each section is a function of (Page, RunSet).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/run_set.h"

namespace railgauge::report {

struct Page {
  std::string html, md;
  void heading(const std::string &h);
  void para(const std::string &p);
  // rows[0] is the header; row_class[r] ("fail", "warn") colours row r in the HTML.
  void table(const std::vector<std::vector<std::string>> &rows,
             const std::vector<std::string> &row_class = {});
  // A table in the markdown only: the HTML shows the same figures as a chart.
  void markdown_table(const std::vector<std::vector<std::string>> &rows);
};

// A param's value as a name: a string without quotes, anything else as JSON.
std::string text(const nlohmann::json &v);

std::string md_escape(const std::string &s);

// The run ids of a set, in load order, each once: "run N" in a legend is the N-th (1-based),
// and the page lists them (runs_table), so that legends stay short.
std::vector<std::string> run_ids(const analysis::RunSet &runs);

// A run's short name for a legend: "run N", or "" when the set holds one run.
std::string run_label(const analysis::RunSet &runs, const analysis::LoadedRun &run);

} // namespace railgauge::report
