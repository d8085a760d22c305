#include "analysis/report/series_names.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "analysis/report/report_page.h"

namespace railgauge::report {

using json = nlohmann::json;

const std::set<std::string> kNotSeries = {
    "size_bytes", "passes_per_call", "threads_used", "total_bytes", "gpu",           "rank",
    "numa_node",  "device",          "count",        "source",      "source_format", "tool",
    "iterations", "warmup",          "timeout_s",    "grid_blocks"};

std::pair<double, double> lowest_highest(const std::vector<double> &v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

std::set<std::string> series_params(const analysis::RunSet &runs,
                                    const std::function<bool(const Record &)> &wanted,
                                    bool runs_merged) {
  // A param that some records of a key hold and others lack varies as a value would (algo=tree
  // beside the default); one that another key lacks does not (a kernel's block size beside a
  // memcpy's none).
  constexpr const char *kAbsent = "\x1f(absent)";
  std::map<std::string, std::set<std::string>> values_of;
  std::map<std::string, bool> varies_within_a_run;
  std::map<std::pair<std::string, std::string>, std::size_t> with_in_all; // (key, param)
  std::map<std::string, std::size_t> of_key_in_all;
  for (const auto &run : runs.runs) {
    std::map<std::string, std::set<std::string>> in_run;
    std::map<std::pair<std::string, std::string>, std::size_t> with; // (key, param)
    std::map<std::string, std::size_t> of_key;
    for (const auto &r : run.records)
      if (wanted(r)) {
        ++of_key[r.key];
        for (const auto &[k, v] : r.params.items())
          if (!kNotSeries.count(k)) {
            values_of[k].insert(text(v));
            in_run[k].insert(text(v));
            ++with[{r.key, k}];
          }
      }
    for (const auto &[key_param, n] : with) {
      with_in_all[key_param] += n;
      if (n < of_key[key_param.first])
        in_run[key_param.second].insert(kAbsent);
    }
    for (const auto &[key, n] : of_key)
      of_key_in_all[key] += n;
    for (const auto &[k, values] : in_run)
      varies_within_a_run[k] = varies_within_a_run[k] || values.size() > 1;
  }
  for (const auto &[key_param, n] : with_in_all)
    if (n < of_key_in_all[key_param.first])
      values_of[key_param.second].insert(kAbsent);
  // Without a run label (one run, or a fleet's runs drawn as one) a param that differs only
  // from run to run (world_size, group_hosts) must name the curve itself.
  const bool one_run = runs_merged || run_ids(runs).size() < 2;
  std::set<std::string> out;
  for (const auto &[k, values] : values_of)
    if (values.size() > 1 && (varies_within_a_run[k] || one_run))
      out.insert(k);
  return out;
}

std::string series_name(const Record &r, const std::set<std::string> &naming,
                        const std::string &run) {
  std::string name = r.key.substr(r.key.find('.') + 1);
  for (const auto &[k, v] : r.params.items())
    if (naming.count(k))
      name += " " + k + "=" + text(v);
  return run.empty() ? name : name + " (" + run + ")";
}

} // namespace railgauge::report
