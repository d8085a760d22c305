#include "cli/burnin_gpu_table.h"

#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/burnin_plan.h"
#include "cli/printers.h"
#include "records/per_gpu_parts.h"

namespace railgauge {
namespace {

// A column's name: the phase's (a GEMM burn's dtype but bf16's), with the placement where a
// phase has more than one.
std::string column_of(const Record &r) { return burnin_column_of(r.key, r.params); }

double number_at(const nlohmann::json &j, const nlohmann::json::json_pointer &where) {
  return j.contains(where) && j.at(where).is_number() ? j.at(where).get<double>() : -1;
}

// What the telemetry saw during one GPU's sustained GEMM, as the last four cells of its row.
std::vector<std::string> gemm_telemetry_cells(const nlohmann::json &telemetry) {
  const nlohmann::json::json_pointer during("/during");
  if (!telemetry.is_object() || !telemetry.contains(during) ||
      !telemetry.at(during).value("available", false))
    return {"-", "-", "-", "-"};
  const auto &d = telemetry.at(during);
  const auto cell = [&](const char *where, const char *format) {
    const double v = number_at(d, nlohmann::json::json_pointer(where));
    return v < 0 ? std::string("-") : fmt::format(fmt::runtime(format), v);
  };
  const double limit = number_at(d, nlohmann::json::json_pointer("/power_limit_w"));
  std::string power = cell("/power_w/median", "{:.0f}");
  if (limit > 0)
    power += fmt::format(" / {:.0f}", limit);
  std::string reasons;
  if (d.contains("reason_fraction") && d["reason_fraction"].is_object())
    for (const auto &[name, share] : d["reason_fraction"].items())
      if (share.is_number() && share.get<double>() >= 0.01)
        reasons += fmt::format("{}{} {:.0f}%", reasons.empty() ? "" : ", ", name,
                               100 * share.get<double>());
  return {power, cell("/sm_clock_mhz/median", "{:.0f}"), cell("/temperature_c/max", "{:.0f}"),
          reasons.empty() ? "none" : reasons};
}

// The other processes the telemetry found on one GPU during one phase, added to `seen` as
// "name (pid)"; false where the phase could not list them.
bool add_foreign_processes(const nlohmann::json &telemetry, std::set<std::string> &seen) {
  const nlohmann::json::json_pointer where("/foreign_processes");
  if (!telemetry.is_object() || !telemetry.contains(where) || !telemetry.at(where).is_object())
    return false;
  const auto &f = telemetry.at(where);
  if (f.value("count", 0) > 0 && f.contains("processes") && f["processes"].is_array())
    for (const auto &p : f["processes"])
      seen.insert(fmt::format(
          "{} ({})",
          p.value("name", nlohmann::json(nullptr)).is_string() ? p["name"].get<std::string>() : "?",
          p.value("pid", 0)));
  return true;
}

// A headline metric's unit, for a narrow column header.
std::string unit_of(const std::string &metric) {
  if (metric == "tflops")
    return "TFLOPS";
  if (metric == "bandwidth_gbytes_per_s")
    return "GB/s";
  if (metric == "busbw_gbytes_per_s")
    return "busbw GB/s";
  return metric;
}

} // namespace

std::string render_burnin_gpu_table(const std::vector<Record> &records) {
  std::vector<std::string> columns;
  std::map<std::string, std::string> metric_of;                    // column -> its headline metric
  std::map<std::string, std::map<std::string, std::string>> cells; // gpu -> column -> text
  std::map<std::string, std::vector<std::string>> telemetry;       // gpu -> last cells
  std::map<std::string, std::string> verdict;                      // gpu -> worst part status
  std::map<std::string, std::set<std::string>> others;             // gpu -> foreign processes
  std::set<std::string> listed;                                    // gpus whose processes were read
  std::vector<std::string> gpus;                                   // "index pci", in order met
  for (const auto &r : records) {
    const auto parts = records::per_gpu_parts(r);
    if (parts.empty())
      continue;
    const std::string column = column_of(r);
    if (std::find(columns.begin(), columns.end(), column) == columns.end())
      columns.push_back(column);
    for (const auto &part : parts) {
      const auto g = records::gpu_part(part);
      const std::string gpu = fmt::format("{} {}", g.gpu, g.pci.empty() ? "?" : g.pci);
      if (std::find(gpus.begin(), gpus.end(), gpu) == gpus.end())
        gpus.push_back(gpu);
      const auto head = headline_metric(part);
      std::string text = part.status == Status::ok && !head.name.empty()
                             ? fmt::format("{:.4g}", head.value)
                             : std::string(to_string(part.status));
      if (!head.name.empty())
        metric_of[column] = head.name;
      cells[gpu][column] = text;
      if (part.status == Status::failed || part.status == Status::error)
        verdict[gpu] = fmt::format("{} {}", to_string(part.status), r.key);
      if (column == "gemm.burn") // the sustained bf16 GEMM's, not a shorter dtype's after it
        telemetry[gpu] = gemm_telemetry_cells(g.telemetry);
      if (add_foreign_processes(g.telemetry, others[gpu]))
        listed.insert(gpu);
    }
  }
  if (gpus.empty())
    return "";
  std::vector<std::string> header = {"gpu", "pci"};
  for (const auto &c : columns)
    header.push_back(metric_of.contains(c) ? fmt::format("{} {}", c, unit_of(metric_of[c])) : c);
  for (const char *h : {"GEMM W / limit", "GEMM SM MHz", "GEMM max C", "GEMM clock events",
                        "other processes", "data"})
    header.emplace_back(h);
  std::vector<std::vector<std::string>> rows;
  for (const auto &gpu : gpus) {
    const auto space = gpu.find(' ');
    std::vector<std::string> row = {gpu.substr(0, space), gpu.substr(space + 1)};
    for (const auto &c : columns)
      row.push_back(cells[gpu].contains(c) ? cells[gpu][c] : "-");
    const auto t =
        telemetry.contains(gpu) ? telemetry[gpu] : std::vector<std::string>{"-", "-", "-", "-"};
    row.insert(row.end(), t.begin(), t.end());
    std::string processes = listed.contains(gpu) ? "none" : "-";
    if (!others[gpu].empty())
      processes = fmt::format("{}", fmt::join(others[gpu], ", "));
    row.push_back(processes);
    row.push_back(verdict.contains(gpu) ? verdict[gpu] : "ok");
    rows.push_back(std::move(row));
  }
  return "\n" + render_table("Per GPU: each phase's figure for the GPU (median over its window; "
                             "GB = 1e9 bytes), its telemetry during the sustained GEMM (median "
                             "power and SM clock, clock-event reasons over 1 % of the window), the "
                             "other processes NVML listed on it in any phase, and whether every "
                             "result it held was right",
                             header, rows);
}

} // namespace railgauge
