#include "memory/bandwidth_table.h"
#include "records/memory_point.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace railgauge::memory {
namespace {

// "" for a field the record does not hold (a waived point planned without it).
std::string text_of(const std::optional<std::int64_t> &value) {
  return value ? fmt::format("{}", *value) : "";
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
    // memory.burn and the other keys of neither tier hold their figures per GPU (the burn-in's
    // table): read() leaves them out.
    const auto p = record::MemoryPoint::read(r);
    if (!p || !p->size_bytes)
      continue;
    const std::string &kernel = p->kind;
    const std::string where =
        p->tier == "hbm"
            ? fmt::format("HBM of GPU {}", text_of(p->gpu))
            : fmt::format("host DRAM of NUMA node {}, {} thread(s)", text_of(p->numa_node),
                          text_of(p->threads_used ? p->threads_used : p->threads));
    auto [it, added] = groups.try_emplace(where);
    if (added)
      order.push_back(where);
    Group &g = it->second;
    if (std::find(g.kernels.begin(), g.kernels.end(), kernel) == g.kernels.end())
      g.kernels.push_back(kernel);
    std::string text;
    if (r.status == Status::ok && p->bandwidth_gbytes_per_s) {
      text = fmt::format("{:.4g}", *p->bandwidth_gbytes_per_s);
      g.any_measured = true;
    } else {
      text = r.status == Status::failed ? "FAILED" : std::string(to_string(r.status));
      g.any_measured = g.any_measured || r.status != Status::waived;
    }
    g.cells[*p->size_bytes][kernel] = text;
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
