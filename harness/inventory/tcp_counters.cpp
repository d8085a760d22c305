#include "harness/inventory/tcp_counters.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "harness/inventory/inventory_fields.h"

namespace railgauge {
namespace {

std::vector<std::string> words(const std::string &line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

// The "<prefix>" header and value lines of /proc/net/snmp or /proc/net/netstat: the first line
// starting with the prefix names the fields, the next one holds their values. Fields that are
// negative (Tcp's MaxConn is -1) or not integers are left out; `keep`, when given, selects.
void read_proc_table(const std::string &path, const std::string &prefix, const std::string &label,
                     const std::vector<std::string> *keep, CounterMap &out,
                     std::vector<std::string> &unreadable) {
  std::ifstream in(path);
  if (!in) {
    unreadable.push_back(label + ": cannot open");
    return;
  }
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) != 0)
      continue;
    const auto fields = words(line);
    if (names.empty()) {
      names = fields;
      continue;
    }
    if (fields.size() != names.size()) {
      unreadable.push_back(label + ": " + prefix + " header and values differ in length");
      return;
    }
    for (std::size_t i = 1; i < fields.size(); ++i) {
      if (keep && std::find(keep->begin(), keep->end(), names[i]) == keep->end())
        continue;
      std::uint64_t v = 0;
      const auto &f = fields[i];
      const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
      if (ec == std::errc() && end == f.data() + f.size())
        out[names[i]] = v;
    }
    return;
  }
  unreadable.push_back(label + ": no " + prefix + " lines");
}

} // namespace

TcpCounters read_tcp_counters(const std::string &proc_root, const std::string &sysfs_root,
                              const std::string &netdev) {
  TcpCounters c;
  read_proc_table(proc_root + "/net/snmp", "Tcp:", "net/snmp", nullptr, c.tcp, c.unreadable);
  read_proc_table(proc_root + "/net/netstat", "TcpExt:", "net/netstat", &kTcpExtKept, c.tcp_ext,
                  c.unreadable);
  c.netdev = netdev;
  if (!netdev.empty())
    read_counter_dir(sysfs_root + "/class/net/" + netdev + "/statistics", "statistics",
                     c.netdev_stats, c.unreadable);
  return c;
}

std::string netdev_of_address(const std::string &address) {
  in6_addr want6{};
  in_addr want4{};
  const bool v4 = inet_pton(AF_INET, address.c_str(), &want4) == 1;
  if (!v4 && inet_pton(AF_INET6, address.c_str(), &want6) != 1)
    return "";
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0)
    return "";
  std::unique_ptr<ifaddrs, void (*)(ifaddrs *)> guard(list, freeifaddrs);
  for (ifaddrs *i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || !i->ifa_name)
      continue;
    if (v4 && i->ifa_addr->sa_family == AF_INET &&
        reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr.s_addr == want4.s_addr)
      return i->ifa_name;
    if (!v4 && i->ifa_addr->sa_family == AF_INET6 &&
        std::memcmp(&reinterpret_cast<sockaddr_in6 *>(i->ifa_addr)->sin6_addr, &want6,
                    sizeof want6) == 0)
      return i->ifa_name;
  }
  return "";
}

nlohmann::json counter_deltas(const TcpCounters &before, const TcpCounters &after) {
  nlohmann::json j = {
      {inventory_field::kHostTcp, counter_deltas(before.tcp, after.tcp)},
      {inventory_field::kHostTcpExt, counter_deltas(before.tcp_ext, after.tcp_ext)}};
  if (!after.netdev.empty()) {
    j[inventory_field::kNetdev] = after.netdev;
    j[inventory_field::kNetdevStatistics] = counter_deltas(before.netdev_stats, after.netdev_stats);
  }
  std::vector<std::string> problems = before.unreadable;
  problems.insert(problems.end(), after.unreadable.begin(), after.unreadable.end());
  std::sort(problems.begin(), problems.end());
  problems.erase(std::unique(problems.begin(), problems.end()), problems.end());
  if (!problems.empty())
    j[inventory_field::kUnreadable] = problems;
  return j;
}

} // namespace railgauge
