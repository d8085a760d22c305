#include "memory/bandwidth_table.h"
#include "harness/json_integer.h"
#include "records/memory_record.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace railgauge::memory {
namespace {

std::string param_text(const nlohmann::json &params, const char *name) {
  if (!params.contains(name))
    return "";
  const auto &v = params.at(name);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// "memory.host_copy" -> ("host", "copy"); "memory.hbm_memcpy_d2d" -> ("hbm", "memcpy_d2d").
std::pair<std::string, std::string> tier_and_kernel(const std::string &key) {
  const std::string name = key.substr(key.find('.') + 1);
  const auto underscore = name.find('_');
  if (underscore == std::string::npos)
    return {name, name};
  return {name.substr(0, underscore), name.substr(underscore + 1)};
}

} // namespace

std::string size_label(std::int64_t bytes) {
  constexpr const char *kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::int64_t value = bytes;
  while (unit < 4 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", value, kUnits[unit]);
}

std::string render_bandwidth_table(const std::vector<Record> &records) {
  struct Group {
    std::vector<std::string> kernels;                                 // in first-seen order
    std::map<std::int64_t, std::map<std::string, std::string>> cells; // size -> kernel -> text
    bool any_measured = false;
  };
  std::vector<std::string> order;
  std::map<std::string, Group> groups;
  for (const auto &r : records) {
    if (!r.key.starts_with(std::string(record::kFamily) + ".") ||
        !r.params.contains(record::kSizeBytes))
      continue;
    const auto size_bytes = json_integer<std::int64_t>(r.params[record::kSizeBytes]);
    if (!size_bytes)
      continue;
    const auto [tier, kernel] = tier_and_kernel(r.key);
    if (tier != "hbm" && tier != "host")
      continue; // memory.burn: every GPU at once, its figures per GPU (the burn-in's table)
    const std::string where = tier == "hbm"
                                  ? fmt::format("HBM of GPU {}", param_text(r.params, record::kGpu))
                                  : fmt::format("host DRAM of NUMA node {}, {} thread(s)",
                                                param_text(r.params, record::kNumaNode),
                                                r.params.contains(record::kThreadsUsed)
                                                    ? param_text(r.params, record::kThreadsUsed)
                                                    : param_text(r.params, record::kThreads));
    auto [it, added] = groups.try_emplace(where);
    if (added)
      order.push_back(where);
    Group &g = it->second;
    if (std::find(g.kernels.begin(), g.kernels.end(), kernel) == g.kernels.end())
      g.kernels.push_back(kernel);
    std::string text;
    if (r.status == Status::ok && r.metrics.contains(record::kBandwidthGbytesPerS)) {
      text = fmt::format("{:.4g}", r.metrics[record::kBandwidthGbytesPerS].get<double>());
      g.any_measured = true;
    } else {
      text = r.status == Status::failed ? "FAILED" : std::string(to_string(r.status));
      g.any_measured = g.any_measured || r.status != Status::waived;
    }
    g.cells[*size_bytes][kernel] = text;
  }

  std::string out;
  constexpr int kCellWidth = 11;
  for (const auto &where : order) {
    const Group &g = groups[where];
    if (!g.any_measured)
      continue;
    out += fmt::format("\nBandwidth of the {}: GB/s (1e9 bytes/s, bytes read + written, median "
                       "time) per size of each array (row) and kernel (column)\n",
                       where);
    out += fmt::format("{:>10}", "size");
    for (const auto &k : g.kernels)
      out += fmt::format(" {:>{}}", k, kCellWidth);
    out += "\n";
    for (const auto &[size, row] : g.cells) {
      out += fmt::format("{:>10}", size_label(size));
      for (const auto &k : g.kernels) {
        const auto it = row.find(k);
        out += fmt::format(" {:>{}}", it == row.end() ? "" : it->second, kCellWidth);
      }
      out += "\n";
    }
  }
  return out;
}

} // namespace railgauge::memory
