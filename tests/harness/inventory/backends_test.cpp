// The parts of the NVML and verbs backends that need no GPU or NIC: their pure helpers, and
// what they report when the library or the devices are absent.
#include <gtest/gtest.h>

#include "harness/inventory/nvml_query.h"
#include "harness/inventory/verbs_query.h"
#include "railgauge/config.h"
#include "tests/harness/inventory/fixtures.h"

namespace railgauge {
namespace {

TEST(VerbsRate, LanesTimesPerLaneRate) {
  EXPECT_DOUBLE_EQ(ib_rate_gbps(128, 2), 400.0);  // NDR 4x
  EXPECT_DOUBLE_EQ(ib_rate_gbps(64, 2), 200.0);   // HDR 4x
  EXPECT_DOUBLE_EQ(ib_rate_gbps(32, 2), 100.0);   // EDR 4x
  EXPECT_DOUBLE_EQ(ib_rate_gbps(64, 16), 100.0);  // HDR 2x (HDR100 splitter)
  EXPECT_DOUBLE_EQ(ib_rate_gbps(16, 2), 56.0);    // FDR 4x
  EXPECT_DOUBLE_EQ(ib_rate_gbps(1, 1), 2.5);      // SDR 1x
  EXPECT_DOUBLE_EQ(ib_rate_gbps(128, 8), 1200.0); // NDR 12x
  EXPECT_DOUBLE_EQ(ib_rate_gbps(3, 2), 0.0);      // not a speed code
  EXPECT_DOUBLE_EQ(ib_rate_gbps(128, 3), 0.0);    // not a width code
  EXPECT_EQ(ib_speed_name(128), "NDR");
  EXPECT_EQ(ib_speed_name(0), "unknown");
}

TEST(VerbsRate, MtuAndPhysicalState) {
  EXPECT_EQ(ib_mtu_bytes(5), 4096u); // IBV_MTU_4096
  EXPECT_EQ(ib_mtu_bytes(3), 1024u);
  EXPECT_EQ(ib_mtu_bytes(1), 256u);
  EXPECT_EQ(ib_mtu_bytes(0), 0u);
  EXPECT_EQ(ib_phys_state_name(5), "link_up");
  EXPECT_EQ(ib_phys_state_name(2), "polling");
  EXPECT_EQ(ib_phys_state_name(42), "unknown");
}

TEST(Verbs, AnswersWithoutDevicesOrLibrary) {
  // On a machine without RDMA devices: an empty list, not an error; in a build without
  // libibverbs: available=false with the reason.
  const nlohmann::json verbs = query_verbs(test::fake_sysfs());
  ASSERT_TRUE(verbs["devices"].is_array());
  if constexpr (RAILGAUGE_HAS_IBVERBS == 0) {
    EXPECT_FALSE(verbs["available"].get<bool>());
  }
  if (!verbs["available"].get<bool>()) {
    EXPECT_TRUE(verbs["reason"].is_string());
  }
  for (const auto &device : verbs["devices"])
    EXPECT_TRUE(device.contains("ports"));
}

TEST(Nvml, MissingLibraryIsUnavailableWithTheLoaderMessage) {
  const nlohmann::json nvml = query_nvml("libnvidia-ml-does-not-exist.so.1");
  EXPECT_FALSE(nvml["available"].get<bool>());
  ASSERT_TRUE(nvml["reason"].is_string());
  if constexpr (RAILGAUGE_HAS_NVML != 0) { // dlerror names the file it could not open
    EXPECT_NE(nvml["reason"].get<std::string>().find("libnvidia-ml-does-not-exist.so.1"),
              std::string::npos);
  }
  EXPECT_TRUE(nvml["gpus"].empty());
}

TEST(Nvml, LibraryWithoutNvmlSymbolsIsUnavailable) {
  if constexpr (RAILGAUGE_HAS_NVML == 0) {
    GTEST_SKIP() << "built without NVML headers";
  }
  const nlohmann::json nvml = query_nvml("libc.so.6");
  EXPECT_FALSE(nvml["available"].get<bool>());
  EXPECT_NE(nvml["reason"].get<std::string>().find("nvmlInit_v2"), std::string::npos);
}

TEST(Nvml, ClocksEventReasonNames) {
  EXPECT_TRUE(clocks_event_reason_names(0).empty());
  EXPECT_EQ(clocks_event_reason_names(0x1), std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(clocks_event_reason_names(0x4 | 0x40),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(clocks_event_reason_names(0x80 | 0x1000),
            (std::vector<std::string>{"hw_power_brake_slowdown", "0x1000"}));
}

} // namespace
} // namespace railgauge
