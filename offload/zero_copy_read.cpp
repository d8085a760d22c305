#include <memory>

#include "offload/offload_benchmark.h"

namespace railgauge::offload {
namespace {

// SM-driven: a kernel loads mapped pinned host memory in 16-byte vectors over PCIe and stores it in
// HBM, the path of a kernel that reads offloaded tensors in place.
class ZeroCopyRead final : public OffloadBenchmark {
public:
  ZeroCopyRead() : OffloadBenchmark(OffloadPath::zero_copy_read) {}
  std::string_view key() const override { return "offload.zero_copy_read"; }
  std::string_view description() const override {
    return "zero-copy host-to-device: a kernel reads mapped pinned host memory (16-byte vectors) "
           "into HBM (GB/s, bytes over the link counted once)";
  }
};

} // namespace

std::unique_ptr<OffloadBenchmark> make_zero_copy_read() { return std::make_unique<ZeroCopyRead>(); }

} // namespace railgauge::offload
