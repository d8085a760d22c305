// libibverbs queries. Verbs calls return the errno itself: the return value is reported,
// never the global errno, except for ibv_get_device_list, which signals failure with NULL.
#include <arpa/inet.h>
#include <endian.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/verbs_query.h"

namespace railgauge {
namespace {

struct DeviceListFree {
  void operator()(ibv_device **list) const { ibv_free_device_list(list); }
};
struct ContextClose {
  void operator()(ibv_context *context) const { ibv_close_device(context); }
};

// First line of a sysfs file, or null when it cannot be read (GID attrs of empty entries
// answer EINVAL on read).
nlohmann::json sysfs_line(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line))
    return nullptr;
  while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
    line.pop_back();
  if (line.empty())
    return nullptr;
  return line;
}

std::string gid_type_name(const nlohmann::json &sysfs_type, int link_layer) {
  if (sysfs_type.is_string()) {
    const std::string text = sysfs_type.get<std::string>();
    if (text == "RoCE v2")
      return "RoCEv2";
    if (text == "IB/RoCE v1")
      return link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCEv1" : "IB";
    return text;
  }
  return link_layer == IBV_LINK_LAYER_ETHERNET ? "unknown" : "IB";
}

std::string guid_text(__be64 guid_be) {
  const std::uint64_t guid = be64toh(guid_be);
  return fmt::format("{:04x}:{:04x}:{:04x}:{:04x}", (guid >> 48) & 0xffff, (guid >> 32) & 0xffff,
                     (guid >> 16) & 0xffff, guid & 0xffff);
}

nlohmann::json query_port(ibv_context *context, const std::string &device_dir, uint8_t port) {
  ibv_port_attr attr{};
  nlohmann::json j = {{inventory_field::kPort, port}};
  if (const int rc = ibv_query_port(context, port, &attr); rc != 0) {
    j[inventory_field::kError] = fmt::format("ibv_query_port: {} ({})", std::strerror(rc), rc);
    return j;
  }
  const bool ethernet = attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  j[inventory_field::kState] = ibv_port_state_str(attr.state);
  j[inventory_field::kPhysicalState] = ib_phys_state_name(attr.phys_state);
  j[inventory_field::kLinkLayer] = ethernet ? "Ethernet" : "InfiniBand";
  j[inventory_field::kActiveSpeed] = ib_speed_name(attr.active_speed);
  j[inventory_field::kActiveWidthLanes] = ib_width_lanes(attr.active_width);
  j[inventory_field::kRateGbitsPerS] = ib_rate_gbps(attr.active_speed, attr.active_width);
  j[inventory_field::kActiveMtuBytes] = ib_mtu_bytes(attr.active_mtu);
  j[inventory_field::kMaxMtuBytes] = ib_mtu_bytes(attr.max_mtu);
  j[inventory_field::kLid] = ethernet ? nlohmann::json(nullptr) : nlohmann::json(attr.lid);
  j[inventory_field::kSmLid] = ethernet ? nlohmann::json(nullptr) : nlohmann::json(attr.sm_lid);

  nlohmann::json gids = nlohmann::json::array();
  const std::string attrs_dir = fmt::format("{}/ports/{}/gid_attrs", device_dir, port);
  for (int index = 0; index < attr.gid_tbl_len; ++index) {
    ibv_gid gid{};
    if (ibv_query_gid(context, port, index, &gid) != 0)
      continue;
    static constexpr std::uint8_t kZero[16] = {};
    if (std::memcmp(gid.raw, kZero, sizeof kZero) == 0)
      continue; // unused entry
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(AF_INET6, gid.raw, text, sizeof text);
    const nlohmann::json type = sysfs_line(fmt::format("{}/types/{}", attrs_dir, index));
    gids.push_back(
        {{inventory_field::kIndex, index},
         {inventory_field::kGid, text},
         {inventory_field::kType, gid_type_name(type, attr.link_layer)},
         {inventory_field::kNetdev, sysfs_line(fmt::format("{}/ndevs/{}", attrs_dir, index))}});
  }
  j[inventory_field::kGids] = std::move(gids);
  return j;
}

} // namespace

nlohmann::json query_verbs(const std::string &sysfs_root) {
  int count = 0;
  std::unique_ptr<ibv_device *, DeviceListFree> list(ibv_get_device_list(&count));
  if (!list) {
    // ENOSYS: no kernel RDMA support at all - the same as "no devices" for an inventory.
    const int err = errno;
    if (err == ENOSYS)
      return {{inventory_field::kAvailable, true},
              {inventory_field::kReason, nullptr},
              {inventory_field::kDevices, nlohmann::json::array()}};
    return {{inventory_field::kAvailable, false},
            {inventory_field::kReason, fmt::format("ibv_get_device_list: {}", std::strerror(err))},
            {inventory_field::kDevices, nlohmann::json::array()}};
  }
  nlohmann::json devices = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    ibv_device *device = list.get()[i];
    const std::string name = ibv_get_device_name(device);
    nlohmann::json j = {{inventory_field::kName, name},
                        {inventory_field::kNodeGuid, guid_text(ibv_get_device_guid(device))}};
    std::unique_ptr<ibv_context, ContextClose> context(ibv_open_device(device));
    if (!context) {
      j[inventory_field::kError] = fmt::format("ibv_open_device: {}", std::strerror(errno));
      j[inventory_field::kPorts] = nlohmann::json::array();
      devices.push_back(std::move(j));
      continue;
    }
    ibv_device_attr attr{};
    nlohmann::json ports = nlohmann::json::array();
    if (const int rc = ibv_query_device(context.get(), &attr); rc != 0) {
      j[inventory_field::kError] = fmt::format("ibv_query_device: {} ({})", std::strerror(rc), rc);
    } else {
      j[inventory_field::kFwVersion] = attr.fw_ver;
      const std::string device_dir = fmt::format("{}/class/infiniband/{}", sysfs_root, name);
      for (uint8_t port = 1; port <= attr.phys_port_cnt; ++port)
        ports.push_back(query_port(context.get(), device_dir, port));
    }
    j[inventory_field::kPorts] = std::move(ports);
    devices.push_back(std::move(j));
  }
  return {{inventory_field::kAvailable, true},
          {inventory_field::kReason, nullptr},
          {inventory_field::kDevices, std::move(devices)}};
}

} // namespace railgauge
