#include <memory>

#include "offload/offload_benchmark.h"

namespace railgauge::offload {
namespace {

// SM-driven: a kernel loads HBM and stores it in mapped pinned host memory in 16-byte vectors, the
// path of a kernel that writes offloaded tensors in place.
class ZeroCopyWrite final : public OffloadBenchmark {
public:
  ZeroCopyWrite() : OffloadBenchmark(OffloadPath::zero_copy_write) {}
  std::string_view key() const override { return "offload.zero_copy_write"; }
  std::string_view description() const override {
    return "zero-copy device-to-host: a kernel writes HBM contents into mapped pinned host memory "
           "(16-byte vectors) (GB/s, bytes over the link counted once)";
  }
};

} // namespace

std::unique_ptr<OffloadBenchmark> make_zero_copy_write() {
  return std::make_unique<ZeroCopyWrite>();
}

} // namespace railgauge::offload
