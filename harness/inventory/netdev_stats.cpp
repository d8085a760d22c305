#include "harness/inventory/netdev_stats.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace railgauge {
namespace {

namespace fs = std::filesystem;

// Bounds what a driver may claim, so a broken one cannot make this allocate without limit.
constexpr std::uint32_t kMaxStats = 1 << 16;

class Fd {
public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }

private:
  int fd_;
};

void ethtool(int fd, const std::string &ifname, void *command, const char *what) {
  ifreq request{};
  std::strncpy(request.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  request.ifr_data = static_cast<char *>(command);
  if (::ioctl(fd, SIOCETHTOOL, &request) != 0)
    throw std::runtime_error(
        fmt::format("ethtool {} on {}: {}", what, ifname, std::strerror(errno)));
}

} // namespace

std::string rdma_port_netdev(const std::string &sysfs_root, const std::string &device,
                             unsigned port) {
  const fs::path dev = fs::path(sysfs_root) / "class" / "infiniband" / device;
  std::ifstream ndev(dev / "ports" / std::to_string(port) / "gid_attrs" / "ndevs" / "0");
  std::string name;
  if (ndev && std::getline(ndev, name) && !name.empty())
    return name;
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(dev / "device" / "net", ec))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names.empty() ? "" : names.front();
}

bool is_fabric_counter(const std::string &name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char *part :
       {"pause", "pfc", "discard", "drop", "out_of_buffer", "ecn", "cnp", "congest"})
    if (lower.find(part) != std::string::npos)
      return true;
  return false;
}

CounterMap read_ethtool_stats(const std::string &ifname) {
  if (ifname.empty() || ifname.size() >= IFNAMSIZ)
    throw std::runtime_error(fmt::format("'{}' is not a network device name", ifname));
  Fd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0)
    throw std::runtime_error(fmt::format("socket for ethtool: {}", std::strerror(errno)));

  // How many statistics: a string-set info request for ETH_SS_STATS (its answer follows the
  // struct, one 32-bit count per set asked for).
  std::vector<std::uint8_t> sset(sizeof(ethtool_sset_info) + sizeof(std::uint32_t));
  auto *info = reinterpret_cast<ethtool_sset_info *>(sset.data());
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = 1ull << ETH_SS_STATS;
  ethtool(fd.get(), ifname, info, "GSSET_INFO");
  const std::uint32_t n = (info->sset_mask & (1ull << ETH_SS_STATS)) ? info->data[0] : 0;
  if (n == 0)
    return {};
  if (n > kMaxStats)
    throw std::runtime_error(fmt::format("{} claims {} statistics", ifname, n));

  std::vector<std::uint8_t> strings(sizeof(ethtool_gstrings) + std::size_t{n} * ETH_GSTRING_LEN);
  auto *gstrings = reinterpret_cast<ethtool_gstrings *>(strings.data());
  gstrings->cmd = ETHTOOL_GSTRINGS;
  gstrings->string_set = ETH_SS_STATS;
  gstrings->len = n;
  ethtool(fd.get(), ifname, gstrings, "GSTRINGS");

  std::vector<std::uint8_t> values(sizeof(ethtool_stats) + std::size_t{n} * sizeof(std::uint64_t));
  auto *stats = reinterpret_cast<ethtool_stats *>(values.data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = n;
  ethtool(fd.get(), ifname, stats, "GSTATS");

  CounterMap out;
  const std::uint32_t got = std::min(n, std::min(gstrings->len, stats->n_stats));
  for (std::uint32_t i = 0; i < got; ++i) {
    const char *raw = reinterpret_cast<const char *>(gstrings->data) + i * ETH_GSTRING_LEN;
    const std::string name(raw, strnlen(raw, ETH_GSTRING_LEN));
    if (!name.empty())
      out[name] = stats->data[i];
  }
  return out;
}

CounterMap read_fabric_counters(const std::string &ifname, const NetdevStatsReader &reader,
                                std::vector<std::string> &unreadable) {
  CounterMap kept;
  try {
    for (const auto &[name, value] : reader(ifname))
      if (is_fabric_counter(name))
        kept[name] = value;
  } catch (const std::exception &e) {
    unreadable.push_back(fmt::format("netdev {}: {}", ifname, e.what()));
  }
  return kept;
}

} // namespace railgauge
