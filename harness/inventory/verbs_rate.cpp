// The pure arithmetic of verbs_query.h; compiled with or without libibverbs.
#include "harness/inventory/verbs_query.h"

namespace railgauge {
namespace {

struct Speed {
  unsigned
      code; // ibv_port_attr::active_speed (IB_SPEED_* in the kernel); XDR needs active_speed_ex
  const char *name;
  double lane_gbps;
};
constexpr Speed kSpeeds[] = {{1, "SDR", 2.5},    {2, "DDR", 5.0},     {4, "QDR", 10.0},
                             {8, "FDR10", 10.0}, {16, "FDR", 14.0},   {32, "EDR", 25.0},
                             {64, "HDR", 50.0},  {128, "NDR", 100.0}, {256, "XDR", 200.0}};

} // namespace

std::string_view ib_speed_name(unsigned active_speed) {
  for (const Speed &s : kSpeeds)
    if (s.code == active_speed)
      return s.name;
  return "unknown";
}

unsigned ib_width_lanes(unsigned active_width) {
  switch (active_width) { // IB_WIDTH_1X=1, 4X=2, 8X=4, 12X=8, 2X=16
  case 1:
    return 1;
  case 2:
    return 4;
  case 4:
    return 8;
  case 8:
    return 12;
  case 16:
    return 2;
  default:
    return 0;
  }
}

double ib_rate_gbps(unsigned active_speed, unsigned active_width) {
  for (const Speed &s : kSpeeds)
    if (s.code == active_speed)
      return s.lane_gbps * ib_width_lanes(active_width);
  return 0.0;
}

std::string_view ib_phys_state_name(unsigned phys_state) {
  switch (phys_state) {
  case 1:
    return "sleep";
  case 2:
    return "polling";
  case 3:
    return "disabled";
  case 4:
    return "port_configuration_training";
  case 5:
    return "link_up";
  case 6:
    return "link_error_recovery";
  case 7:
    return "phy_test";
  default:
    return "unknown";
  }
}

unsigned ib_mtu_bytes(unsigned mtu_enum) {
  return (mtu_enum >= 1 && mtu_enum <= 5) ? 128u << mtu_enum : 0u;
}

} // namespace railgauge
