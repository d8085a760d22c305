// GpuDirectBuffer on a GPU: page-aligned and rounded to 2 MiB, zeroed, copies both ways land
// where they should, out-of-range copies are refused, and dma-buf export gives a descriptor or
// a reason (never both, never neither).
#include <gtest/gtest.h>

#include <unistd.h>

#include <numeric>
#include <variant>
#include <vector>

#include "harness/cuda/gpudirect_buffer.h"
#include "harness/error.h"

namespace railgauge::gpu {
namespace {

TEST(GpuDirectBufferGpu, AlignedZeroedAndCopiesRoundTrip) {
  GpuDirectBuffer buffer(0, 3000);
  EXPECT_EQ(buffer.size_bytes(), std::size_t{2} << 20);
  EXPECT_EQ(buffer.address() % 4096, 0u);
  std::vector<std::uint8_t> back(3000, 0xff);
  buffer.copy_out(0, back.data(), back.size());
  EXPECT_EQ(std::accumulate(back.begin(), back.end(), 0u), 0u) << "not zeroed";
  std::vector<std::uint8_t> data(3000);
  std::iota(data.begin(), data.end(), std::uint8_t{7});
  buffer.copy_in(1000, data.data(), data.size());
  buffer.copy_out(1000, back.data(), back.size());
  EXPECT_EQ(back, data);
  EXPECT_THROW(buffer.copy_in(buffer.size_bytes() - 10, data.data(), 11), BackendError);
}

TEST(GpuDirectBufferGpu, DmaBufExportGivesADescriptorOrAReason) {
  GpuDirectBuffer buffer(0, 1 << 20);
  const auto exported = buffer.export_dmabuf();
  if (const auto *why = std::get_if<std::string>(&exported)) {
    EXPECT_FALSE(why->empty());
    GTEST_SKIP() << "no dma-buf here: " << *why;
  }
  const auto &dmabuf = std::get<DmaBuf>(exported);
  EXPECT_GE(dmabuf.fd, 0);
  EXPECT_EQ(dmabuf.offset, 0u);
  ::close(dmabuf.fd);
}

} // namespace
} // namespace railgauge::gpu
