#include "harness/host_group.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

namespace railgauge {

std::string host_group(const std::vector<std::string> &hosts) {
  std::vector<std::string> sorted;
  std::copy_if(hosts.begin(), hosts.end(), std::back_inserter(sorted),
               [](const std::string &h) { return !h.empty(); });
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (const auto &h : sorted)
    out += (out.empty() ? "" : std::string(1, kHostGroupSeparator)) + h;
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

std::string group_short_name(const std::string &group) {
  const auto hosts = hosts_of_group(group);
  return hosts.size() <= 3 ? group
                           : fmt::format("{} and {} more nodes", hosts.front(), hosts.size() - 1);
}

} // namespace railgauge
