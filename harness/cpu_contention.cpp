#include "harness/cpu_contention.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace railgauge {
namespace {

// The clock ticks /proc counts in (USER_HZ, 100 on Linux).
double ticks_per_s() {
  const long hz = ::sysconf(_SC_CLK_TCK);
  return hz > 0 ? static_cast<double>(hz) : 100.0;
}

// The first line of /proc/stat: "cpu  user nice system idle iowait irq softirq steal ...".
std::optional<std::vector<double>> all_cpus_line(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line.rfind("cpu ", 0) != 0)
    return std::nullopt;
  std::istringstream fields(line.substr(4));
  std::vector<double> ticks;
  for (double t; fields >> t;)
    ticks.push_back(t);
  if (ticks.size() < 8)
    return std::nullopt;
  return ticks;
}

// utime and stime of /proc/self/stat: the 14th and 15th fields, counted after the command name,
// which is in parentheses and may hold spaces.
std::optional<double> own_ticks(const std::string &path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos)
    return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::vector<std::string> rest;
  for (std::string f; fields >> f;)
    rest.push_back(f);
  // rest[0] is field 3 (state): utime is field 14, stime 15
  if (rest.size() < 13)
    return std::nullopt;
  try {
    return std::stod(rest[11]) + std::stod(rest[12]);
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

} // namespace

std::optional<CpuTimes> read_cpu_times(const std::string &proc_root) {
  const auto all = all_cpus_line(proc_root + "/stat");
  const auto own = own_ticks(proc_root + "/self/stat");
  if (!all || !own)
    return std::nullopt;
  const auto &t = *all; // user nice system idle iowait irq softirq steal
  const double hz = ticks_per_s();
  return CpuTimes{(t[0] + t[1] + t[2] + t[5] + t[6]) / hz, t[7] / hz, *own / hz};
}

std::optional<CpuContention> cpu_contention(const std::optional<CpuTimes> &before,
                                            const std::optional<CpuTimes> &after, double wall_s,
                                            int cpus) {
  if (!before || !after || !(wall_s > 0))
    return std::nullopt;
  CpuContention c;
  const double others = (after->busy_s - before->busy_s) - (after->self_s - before->self_s);
  c.other_cpus = std::max(0.0, others / wall_s); // the two files are read at slightly different
  c.steal_cpus = std::max(0.0, (after->steal_s - before->steal_s) / wall_s); // instants
  c.cpus = cpus;
  c.wall_s = wall_s;
  return c;
}

nlohmann::json CpuContention::to_json() const {
  return {{"other_processes_cpus", other_cpus},
          {"hypervisor_steal_cpus", steal_cpus},
          {"cpus", cpus},
          {"wall_s", wall_s}};
}

std::string CpuContention::text(bool several_ranks) const {
  std::string out;
  if (other_cpus >= 0.1)
    out = fmt::format("other processes{} kept {:.1f} of {} CPUs busy on average while the points "
                      "ran",
                      several_ranks ? " (this run's other ranks on this host among them)" : "",
                      other_cpus, cpus);
  if (steal_cpus >= 0.1)
    out += fmt::format("{}the hypervisor took {:.1f} CPUs for other guests",
                       out.empty() ? "" : "; ", steal_cpus);
  return out;
}

} // namespace railgauge
