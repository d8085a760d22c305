// The NVML path with values: query_nvml and the telemetry's health delta over a scripted
// libnvidia-ml (fake_nvml.cpp), whose script each test writes and rewrites between two reads.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "harness/inventory/gpu_telemetry.h"
#include "harness/inventory/nvml_query.h"

namespace railgauge {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// An H100 SXM as NVML describes it, with 18 NVLinks of which `down` is down.
json h100(int index, int down = -1) {
  json links = json::array();
  for (int link = 0; link < 18; ++link)
    links.push_back(link == down ? "down" : "up");
  return {
      {"name", "NVIDIA H100 80GB HBM3"},
      {"uuid", "GPU-0000000" + std::to_string(index)},
      {"serial", "165232300000" + std::to_string(index)},
      {"pci_bus_id", index == 0 ? "00000000:19:00.0" : "00000000:3B:00.0"},
      {"pcie",
       {{"gen_current", 5},
        {"gen_max", 5},
        {"width_current", 16},
        {"width_max", 16},
        {"replay_count", 0}}},
      {"sm_clock_mhz", {{"current", 1980}, {"max", 1980}}},
      {"mem_clock_mhz", {{"current", 2619}, {"max", 2619}}},
      {"memory_total_bytes", 85520809984ULL},
      {"power_limit_mw", 700000},
      {"power_usage_mw", 118250},
      {"temperature_c", 34},
      {"clocks_event_reasons", 1}, // gpu_idle
      {"ecc_mode", {{"current", true}, {"pending", true}}},
      {"ecc",
       {{"volatile", {{"corrected", 0}, {"uncorrected", 0}}},
        {"aggregate", {{"corrected", 2}, {"uncorrected", 0}}}}},
      {"remapped_rows", {{"correctable", 0}, {"uncorrectable", 0}, {"pending", 0}, {"failure", 0}}},
      {"nvlink",
       {{"links", links},
        {"errors", {{"crc_flit", 0}, {"crc_data", 0}, {"replay", 0}, {"recovery", 0}}},
        {"per_link", json::object()}}},
      {"compute_processes", json::array()}};
}

class NvmlFake : public ::testing::Test {
protected:
  void SetUp() override {
    script_ =
        fs::path(::testing::TempDir()) /
        ("fake-nvml-" +
         std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
    setenv("RAILGAUGE_FAKE_NVML_SCRIPT", script_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("RAILGAUGE_FAKE_NVML_SCRIPT");
    fs::remove(script_);
  }
  // Writes the node's GPUs as the script and reads them through NVML.
  json query(const json &gpus) {
    std::ofstream(script_) << json{
        {"driver_version", "550.54.15"}, {"nvml_version", "12.550.54.15"}, {"gpus", gpus}};
    return query_nvml(RAILGAUGE_FAKE_NVML);
  }
  fs::path script_;
};

TEST_F(NvmlFake, ATwoGpuNodeReadsAsScripted) {
  json busy = h100(1, 3);
  busy["compute_processes"] = {{{"pid", 4242}, {"used_memory_bytes", 1073741824}}};
  const json nvml = query({h100(0), busy});
  ASSERT_TRUE(nvml.at("available")) << nvml.dump();
  EXPECT_EQ(nvml.at("driver_version"), "550.54.15");
  ASSERT_EQ(nvml.at("gpus").size(), 2u);
  const json &gpu0 = nvml["gpus"][0];
  EXPECT_EQ(gpu0.at("name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu0.at("uuid"), "GPU-00000000");
  EXPECT_EQ(gpu0.at("pci_bus_id"), "0000:19:00.0");
  EXPECT_EQ(gpu0.at("power_limit_w"), 700.0);
  EXPECT_EQ(gpu0.at("ecc").at("enabled_current"), true);
  EXPECT_EQ(gpu0.at("ecc").at("aggregate").at("corrected"), 2);
  EXPECT_EQ(gpu0.at("remapped_rows").at("uncorrectable"), 0);
  EXPECT_TRUE(gpu0.at("retired_pages").is_null()); // the fake, as Hopper, has no page retirement
  EXPECT_EQ(gpu0.at("nvlink").at("up"), 18);
  EXPECT_EQ(gpu0.at("compute_processes"), json::array());
  EXPECT_EQ(gpu0.at("errors"), json::object()) << gpu0["errors"].dump();
  const json &gpu1 = nvml["gpus"][1];
  EXPECT_EQ(gpu1.at("pci_bus_id"), "0000:3b:00.0");
  EXPECT_EQ(gpu1.at("nvlink").at("down"), 1);
  EXPECT_EQ(gpu1.at("nvlink").at("links").at(3), "down");
  ASSERT_EQ(gpu1.at("compute_processes").size(), 1u);
  EXPECT_EQ(gpu1["compute_processes"][0].at("pid"), 4242);
  EXPECT_EQ(gpu1["compute_processes"][0].at("used_memory_bytes"), 1073741824);
}

TEST_F(NvmlFake, AGpuNvmlCannotOpenIsListedWithNvmlsError) {
  const json nvml = query({h100(0), {{"handle", "NVML_ERROR_GPU_IS_LOST"}}});
  ASSERT_EQ(nvml.at("gpus").size(), 2u);
  EXPECT_EQ(nvml["gpus"][0].at("uuid"), "GPU-00000000");
  EXPECT_EQ(nvml["gpus"][1].at("index"), 1);
  EXPECT_EQ(nvml["gpus"][1].at("errors").at("handle"), "GPU is lost");
  EXPECT_FALSE(nvml["gpus"][1].contains("uuid"));
}

TEST_F(NvmlFake, AFieldThatFailsIsNullWithItsErrorAndNotSupportedIsNullAlone) {
  json gpu = h100(0);
  gpu["power_limit_mw"] = "NVML_ERROR_NO_PERMISSION";
  gpu.erase("serial");
  const json g = query(json::array({gpu})).at("gpus").at(0);
  EXPECT_TRUE(g.at("power_limit_w").is_null());
  EXPECT_EQ(g.at("errors").at("power_limit_w"), "Insufficient Permissions");
  EXPECT_TRUE(g.at("serial").is_null());
  EXPECT_FALSE(g.at("errors").contains("serial"));
}

// GPU 0's telemetry out of a query, as a burn phase's snapshot before or after it holds it.
json snapshot(const json &nvml) { return gpu_telemetry_from_nvml(nvml, "GPU-00000000"); }

TEST_F(NvmlFake, ALinkThatCountedDuringAPhaseIsNamedWithItsCounts) {
  json gpu = h100(0);
  gpu["nvlink"]["per_link"] = {{"7", {{"crc_flit", 3}}}}; // counted before the phase
  gpu["nvlink"]["errors"]["crc_flit"] = 3;
  const json before = snapshot(query(json::array({gpu})));
  gpu["nvlink"]["per_link"]["7"]["crc_flit"] = 15;
  gpu["nvlink"]["errors"]["crc_flit"] = 15;
  const json inventory = query(json::array({gpu}));
  EXPECT_EQ(inventory["gpus"][0]["nvlink"]["errors_per_link"]["crc_flit"].size(), 18u);
  EXPECT_EQ(inventory["gpus"][0]["nvlink"]["errors_per_link"]["crc_flit"][7], 15);
  EXPECT_EQ(inventory["gpus"][0]["nvlink"]["errors_per_link"]["replay"][7], 0);
  const json delta = telemetry_pair(before, json::object(), snapshot(inventory)).at("health_delta");
  EXPECT_EQ(delta.at("nvlink_errors"), 12);
  EXPECT_EQ(
      delta.at("nvlink_errors_per_link"),
      (json{{{"link", 7}, {"crc_flit", 12}, {"crc_data", 0}, {"replay", 0}, {"recovery", 0}}}));
}

TEST_F(NvmlFake, PerLinkCountersTheDriverLacksAreNullNotZeroAndTheTotalsStillCount) {
  json gpu = h100(0);
  gpu["nvlink"]["per_link"] = "NVML_ERROR_NOT_SUPPORTED";
  const json before_nvml = query(json::array({gpu}));
  EXPECT_TRUE(before_nvml["gpus"][0]["nvlink"].at("errors_per_link").is_null());
  EXPECT_FALSE(before_nvml["gpus"][0]["errors"].contains("nvlink.errors_per_link"));
  gpu["nvlink"]["errors"]["replay"] = 2;
  const json delta =
      telemetry_pair(snapshot(before_nvml), json::object(), snapshot(query(json::array({gpu}))))
          .at("health_delta");
  EXPECT_EQ(delta.at("nvlink_errors"), 2);
  EXPECT_TRUE(delta.at("nvlink_errors_per_link").is_null());
  // Read, and nothing counted: an empty list, which a rule may pass.
  gpu["nvlink"]["per_link"] = json::object();
  const json quiet = snapshot(query(json::array({gpu})));
  EXPECT_EQ(
      telemetry_pair(quiet, json::object(), quiet).at("health_delta").at("nvlink_errors_per_link"),
      json::array());
  // CRC read, replay not: every link is listed with its replay null, never the empty list that
  // the replay rules pass (they would have passed a counter no one read).
  gpu["nvlink"]["per_link"] = {{"*", {{"replay", "NVML_ERROR_NOT_SUPPORTED"}}}};
  const json no_replay = snapshot(query(json::array({gpu})));
  const json links = telemetry_pair(no_replay, json::object(), no_replay)
                         .at("health_delta")
                         .at("nvlink_errors_per_link");
  ASSERT_TRUE(links.is_array());
  ASSERT_FALSE(links.empty());
  for (const auto &link : links) {
    EXPECT_TRUE(link.at("replay").is_null()) << link;
    EXPECT_EQ(link.at("crc_flit"), 0) << link;
  }
}

TEST_F(NvmlFake, ADriverThatFailsToInitialiseSaysWhy) {
  std::ofstream(script_) << json{{"init", "NVML_ERROR_DRIVER_NOT_LOADED"}};
  const json nvml = query_nvml(RAILGAUGE_FAKE_NVML);
  EXPECT_FALSE(nvml.at("available"));
  EXPECT_EQ(nvml.at("reason"), "nvmlInit_v2: Driver Not Loaded");
}

} // namespace
} // namespace railgauge
