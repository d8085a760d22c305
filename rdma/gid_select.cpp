#include "rdma/gid_select.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::rdma {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> first_line(const fs::path &file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line))
    return std::nullopt; // unused GID entries answer EINVAL to a read of their type
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r'))
    line.pop_back();
  return line;
}

bool is_zero_gid(const std::string &gid) {
  return std::all_of(gid.begin(), gid.end(), [](char c) { return c == '0' || c == ':'; });
}

// Lower is better; a port's entries are ranked, then the lowest index of the best rank wins.
int rank_of(const GidEntry &e) {
  if (e.type == GidType::roce_v2)
    return is_ipv4_mapped(e.gid) ? 0 : is_link_local(e.gid) ? 2 : 1;
  if (e.type == GidType::roce_v1)
    return is_ipv4_mapped(e.gid) ? 3 : 4;
  return 5;
}

std::string describe(const GidEntry &e) {
  const char *scope = is_ipv4_mapped(e.gid)  ? "IPv4-mapped"
                      : is_link_local(e.gid) ? "link-local IPv6"
                                             : "IPv6";
  return fmt::format("{} {} ({})", to_string(e.type), scope, e.gid);
}

std::string usable_list(const PortGids &port) {
  std::string out;
  for (const auto &e : port.entries)
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", e.index, describe(e));
  return out.empty() ? "none" : out;
}

} // namespace

const char *to_string(GidType type) {
  switch (type) {
  case GidType::ib:
    return "IB";
  case GidType::roce_v1:
    return "RoCEv1";
  case GidType::roce_v2:
    return "RoCEv2";
  case GidType::unknown:
    return "unknown";
  }
  return "unknown";
}

bool is_ipv4_mapped(const std::string &gid) {
  // 0000:0000:0000:0000:0000:ffff:xxxx:xxxx
  return gid.size() == 39 && gid.compare(0, 30, "0000:0000:0000:0000:0000:ffff:") == 0;
}

bool is_link_local(const std::string &gid) {
  return gid.size() >= 4 && (gid.compare(0, 4, "fe80") == 0 || gid.compare(0, 4, "FE80") == 0);
}

PortGids read_port_gids(const std::string &sysfs_root, const std::string &device, unsigned port) {
  const fs::path port_dir =
      fs::path(sysfs_root) / "class" / "infiniband" / device / "ports" / std::to_string(port);
  const auto link = first_line(port_dir / "link_layer");
  if (!link)
    throw BackendError(fmt::format("cannot read {}: is {} port {} an RDMA port?",
                                   (port_dir / "link_layer").string(), device, port));
  PortGids out;
  out.link_layer = *link == "Ethernet" ? LinkLayer::ethernet : LinkLayer::infiniband;
  std::error_code ec;
  for (const auto &file : fs::directory_iterator(port_dir / "gids", ec)) {
    const std::string name = file.path().filename().string();
    int index = 0;
    const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), index);
    if (err != std::errc() || end != name.data() + name.size())
      continue;
    const auto gid = first_line(file.path());
    if (!gid || is_zero_gid(*gid))
      continue;
    GidEntry e{index, *gid, GidType::unknown};
    const auto type = first_line(port_dir / "gid_attrs" / "types" / name);
    if (out.link_layer == LinkLayer::infiniband)
      e.type = GidType::ib;
    else if (type == "RoCE v2")
      e.type = GidType::roce_v2;
    else if (type == "IB/RoCE v1")
      e.type = GidType::roce_v1;
    out.entries.push_back(std::move(e));
  }
  if (ec)
    throw BackendError(
        fmt::format("cannot list {}: {}", (port_dir / "gids").string(), ec.message()));
  std::sort(out.entries.begin(), out.entries.end(),
            [](const GidEntry &a, const GidEntry &b) { return a.index < b.index; });
  return out;
}

GidChoice choose_gid(const PortGids &port, std::optional<int> requested) {
  if (requested && *requested >= 0) {
    for (const auto &e : port.entries)
      if (e.index == *requested)
        return {e.index, e.type, e.gid,
                fmt::format("requested by gid_index={}: {}", e.index, describe(e))};
    throw InputError(
        fmt::format("GID index {} is empty or does not exist on this port", *requested),
        "axis gid_index", fmt::format("use -1 (automatic) or one of: {}", usable_list(port)));
  }
  if (port.link_layer == LinkLayer::infiniband) {
    for (const auto &e : port.entries)
      if (e.index == 0)
        return {0, e.type, e.gid, "InfiniBand port GID (index 0); peers addressed by LID"};
    throw InputError("InfiniBand port without GID 0", "axis gid_index",
                     "check the port with ibv_devinfo -v; is the subnet manager running?");
  }
  const GidEntry *best = nullptr;
  for (const auto &e : port.entries)
    if (e.type != GidType::unknown && e.type != GidType::ib &&
        (!best || rank_of(e) < rank_of(*best)))
      best = &e;
  if (!best)
    throw InputError("RoCE port without a usable GID", "axis gid_index",
                     "give the netdev an address, or check the port with ibv_devinfo -v");
  return {best->index, best->type, best->gid, fmt::format("automatic: {}", describe(*best))};
}

} // namespace railgauge::rdma
