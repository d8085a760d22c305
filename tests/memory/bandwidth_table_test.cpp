#include "memory/bandwidth_table.h"

#include <gtest/gtest.h>

namespace railgauge::memory {
namespace {

Record point(const std::string &key, std::int64_t size, double gbps, Status status = Status::ok) {
  Record r;
  r.key = key;
  r.status = status;
  r.params = {{"size_bytes", size}, {"numa_node", 0}, {"threads", 0}, {"threads_used", 2}};
  if (status == Status::ok)
    r.metrics["bandwidth_gbytes_per_s"] = gbps;
  return r;
}

TEST(BandwidthTable, RowsAreSizesColumnsAreKernels) {
  const std::string table = render_bandwidth_table({
      point("memory.host_read", 16384, 120.5), point("memory.host_copy", 16384, 95.25),
      point("memory.host_read", 1 << 30, 17.4),
      point("memory.host_copy", 1 << 30, 0, Status::failed),
      point("gemm.cpu_blas", 16384, 1), // another family: ignored
  });
  EXPECT_EQ(table,
            "\nBandwidth of the host DRAM of NUMA node 0, 2 thread(s): GB/s (1e9 bytes/s, bytes "
            "read + written, median time) per size of each array (row) and kernel (column)\n"
            "      size        read        copy\n"
            "    16 KiB       120.5       95.25\n"
            "     1 GiB        17.4      FAILED\n");
}

TEST(BandwidthTable, AllWaivedGroupsAreLeftOut) {
  Record hbm = point("memory.hbm_copy", 4096, 0, Status::waived);
  hbm.params["gpu"] = 0;
  EXPECT_EQ(render_bandwidth_table({hbm}), "");
}

TEST(BandwidthTable, TheBurnOnEveryGpuIsNotAHostTable) {
  // memory.burn holds its figures per GPU (the burn-in prints them); it once printed as an empty
  // "host DRAM of NUMA node ," table.
  Record burn = point("memory.burn", 1 << 30, 0);
  burn.params = {{"size_bytes", 1 << 30}};
  burn.metrics = {{"gpus", nlohmann::json::array()}};
  EXPECT_EQ(render_bandwidth_table({burn}), "");
}

TEST(BandwidthTable, SizeLabels) {
  EXPECT_EQ(size_label(16384), "16 KiB");
  EXPECT_EQ(size_label(1LL << 30), "1 GiB");
  EXPECT_EQ(size_label(3000), "3000 B");
  EXPECT_EQ(size_label(1536), "1536 B");
}

} // namespace
} // namespace railgauge::memory
