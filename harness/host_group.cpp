#include "harness/host_group.h"

#include <algorithm>

namespace railgauge {

std::string host_group(const std::vector<std::string> &hosts) {
  std::vector<std::string> seen;
  std::string out;
  for (const auto &h : hosts) {
    if (h.empty() || std::find(seen.begin(), seen.end(), h) != seen.end())
      continue;
    seen.push_back(h);
    out += (out.empty() ? "" : std::string(1, kHostGroupSeparator)) + h;
  }
  return out;
}

std::vector<std::string> hosts_of_group(const std::string &group) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= group.size();) {
    const auto end = std::min(group.find(kHostGroupSeparator, start), group.size());
    if (end > start)
      out.push_back(group.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

} // namespace railgauge
