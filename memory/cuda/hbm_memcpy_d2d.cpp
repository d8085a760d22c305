#include <memory>

#include "memory/cuda/hbm_stream.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

// D2D memcpy: what cudaMemcpyAsync(DeviceToDevice) achieves within one GPU, the path libraries
// take for their copies. Counted as read + write (2x), like memory.hbm_copy; nvbandwidth counts
// the bytes copied once.
class HbmMemcpyD2d final : public HbmStreamBenchmark {
public:
  HbmMemcpyD2d() : HbmStreamBenchmark(HbmKernel::library_copy) {}
  std::string_view key() const override { return record::kHbmMemcpyD2d; }
  std::string_view description() const override {
    return "HBM device-to-device cudaMemcpyAsync bandwidth of one GPU (GB/s, read + write counted: "
           "2x the bytes copied, nvbandwidth counts 1x)";
  }
};

} // namespace

std::unique_ptr<HbmStreamBenchmark> make_hbm_memcpy_d2d() {
  return std::make_unique<HbmMemcpyD2d>();
}

} // namespace railgauge::memory
