#include <memory>

#include "offload/offload_benchmark.h"

namespace railgauge::offload {
namespace {

// Host-to-device: cudaMemcpyAsync from pinned memory (the copy engines) or pageable memory, the
// path a prefetch of weights or optimizer state takes.
class H2d final : public OffloadBenchmark {
public:
  H2d() : OffloadBenchmark(OffloadPath::h2d) {}
  std::string_view key() const override { return "offload.h2d"; }
  std::string_view description() const override {
    return "host-to-device cudaMemcpyAsync bandwidth of one GPU, pinned or pageable host memory "
           "near or far from it (GB/s, bytes copied counted once, with the PCIe link's expected "
           "rate)";
  }
};

} // namespace

std::unique_ptr<OffloadBenchmark> make_h2d() { return std::make_unique<H2d>(); }

} // namespace railgauge::offload
