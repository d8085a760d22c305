// The other processes on a GPU, from NVML's list in the snapshots before and after a point.
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/inventory/gpu_processes.h"
#include "harness/inventory/gpu_telemetry.h"

namespace railgauge {
namespace {

using nlohmann::json;

json listing(std::initializer_list<unsigned> pids) {
  json processes = json::array();
  for (const unsigned pid : pids)
    processes.push_back({{"pid", pid}, {"name", nullptr}, {"used_memory_bytes", 1 << 20}});
  return {{"compute_processes", processes}};
}

TEST(GpuProcesses, ThisProcessIsNotForeignAndAnotherIsNamedOnce) {
  const json f = foreign_processes(listing({100, 200}), listing({100, 200, 300}), 100);
  EXPECT_EQ(f.at("count"), 2); // 200 in both snapshots counts once; 300 came during the point
  EXPECT_EQ(f.at("processes").size(), 2u);
  EXPECT_EQ(f.at("processes").at(0).at("pid"), 200);
  EXPECT_TRUE(f.at("note").is_null());
  EXPECT_EQ(foreign_processes(listing({100}), listing({100}), 100).at("count"), 0);
}

TEST(GpuProcesses, InAnotherPidNamespaceOneListedProcessIsTakenToBeThisOne) {
  const json alone = foreign_processes(listing({4242}), listing({4242}), 7);
  EXPECT_EQ(alone.at("count"), 0);
  EXPECT_NE(alone.at("note").get<std::string>().find("another PID namespace"), std::string::npos);
  EXPECT_EQ(foreign_processes(listing({4242, 5151}), listing({}), 7).at("count"), 1);
}

TEST(GpuProcesses, NoListIsNullNeverZero) {
  EXPECT_TRUE(foreign_processes(json::object(), json{{"compute_processes", nullptr}}, 1).is_null());
  // telemetry_pair keeps what it could not read as null: a rule reads it as missing, not a pass.
  EXPECT_TRUE(telemetry_pair(json::object(), json::object(), json::object())
                  .at("foreign_processes")
                  .is_null());
}

TEST(GpuProcesses, ThisProcessHasAName) { EXPECT_TRUE(process_name(getpid()).has_value()); }

} // namespace
} // namespace railgauge
