#include "analysis/report/report.h"

#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/report/burnin_sections.h"
#include "analysis/report/comparison_section.h"
#include "analysis/report/curve_sections.h"
#include "analysis/report/fabric_load_sections.h"
#include "analysis/report/layer_section.h"
#include "analysis/report/matrix_sections.h"
#include "analysis/report/report_page.h"
#include "analysis/report/svg.h"
#include "analysis/report/verdict_section.h"

namespace railgauge::report {
namespace {

constexpr const char *kStyle =
    "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
    "table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}"
    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f3f3f3}"
    "tr.fail td{background:#fde2e2}tr.warn td{background:#fff4d6}"
    "figure{margin:8px 0 20px}h2{border-bottom:1px solid #ddd;padding-bottom:4px}"
    "p.meta{color:#666;font-size:12px}"
    ".multiples{display:grid;grid-template-columns:repeat(3,1fr);gap:4px}"
    ".multiples svg{width:100%;height:auto}.multiples figure{margin:0}";

} // namespace

// "run N" of the legends: its run id, hosts and records, when there are several runs.
void runs_table(Page &page, const analysis::RunSet &runs) {
  const auto ids = run_ids(runs);
  if (ids.size() < 2)
    return;
  // One pass over the records: a pass per run was 2,000 x 500,000 comparisons for a fleet.
  std::unordered_map<std::string, std::pair<std::set<std::string>, std::size_t>> of_run;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records) {
      auto &[hosts, records] = of_run[r.run];
      hosts.insert(r.host);
      ++records;
    }
  std::vector<std::vector<std::string>> rows = {{"run", "run id", "hosts", "records"}};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto &[hosts, records] = of_run.at(ids[i]);
    std::string host_text = *hosts.begin();
    if (hosts.size() > 1)
      host_text += fmt::format(" and {} more", hosts.size() - 1);
    rows.push_back({fmt::format("run {}", i + 1), ids[i], host_text, std::to_string(records)});
  }
  page.heading("Runs");
  page.table(rows);
}

// What the loader could not read (a record line cut in half, a run.json that is no JSON, a path
// it cannot open, a copy loaded once): the page draws the rest, and must say what it left out.
void input_problems_section(Page &page, const analysis::RunSet &runs) {
  if (runs.problems.empty())
    return;
  page.heading("Input problems");
  page.para(fmt::format("{} line{} or path{} could not be read, or were loaded once; nothing of "
                        "them is in the figures below:",
                        runs.problems.size(), runs.problems.size() == 1 ? "" : "s",
                        runs.problems.size() == 1 ? "" : "s"));
  std::vector<std::vector<std::string>> rows{{"problem"}};
  for (const auto &p : runs.problems)
    rows.push_back({p});
  page.table(rows, std::vector<std::string>(rows.size(), "warn"));
}

Report build_report(const ReportInput &in) {
  Page page;
  std::string meta;
  if (in.runs) {
    std::set<std::string> hosts;
    std::map<std::string, int> status;
    for (const auto &run : in.runs->runs)
      for (const auto &r : run.records) {
        hosts.insert(r.host);
        ++status[std::string(to_string(r.status))];
      }
    std::string counts;
    for (const auto &[s, n] : status)
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, s);
    meta = fmt::format("{} run director{}, {} host{}, records: {}.", in.runs->runs.size(),
                       in.runs->runs.size() == 1 ? "y" : "ies", hosts.size(),
                       hosts.size() == 1 ? "" : "s", counts.empty() ? "none" : counts);
  } else if (in.comparison) {
    meta = "Comparison of";
    for (std::size_t i = 0; i < in.comparison->labels.size(); ++i)
      meta += fmt::format("{} {} ({} run{})", i ? "," : "", in.comparison->labels[i],
                          in.comparison->inputs[i].size(),
                          in.comparison->inputs[i].size() == 1 ? "" : "s");
    meta += ".";
  }
  page.md = "# " + in.title + "\n\n" + meta + "\n";
  if (in.runs) {
    runs_table(page, *in.runs);
    input_problems_section(page, *in.runs);
  }
  if (in.check)
    verdict_section(page, *in.check);
  if (in.runs) {
    layer_section(page, *in.runs);
    gemm_section(page, *in.runs);
    bandwidth_section(page, *in.runs);
    burnin_section(page, *in.runs, in.rules);
    per_gpu_section(page, *in.runs);
    latency_section(page, *in.runs);
    nvbandwidth_section(page, *in.runs);
    pair_section(page, *in.runs);
    nic_matrix_section(page, *in.runs);
    fabric_load_sections(page, *in.runs);
  }
  if (in.comparison)
    comparison_section(page, *in.comparison);
  for (const auto &section : in.sections)
    section(page);
  Report out;
  out.html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
             xml_escape(in.title) + "</title><style>" + kStyle + "</style></head><body>\n<h1>" +
             xml_escape(in.title) + "</h1>\n<p class=\"meta\">" + xml_escape(meta) + "</p>\n" +
             page.html + "</body></html>\n";
  out.markdown = page.md;
  return out;
}

} // namespace railgauge::report
