#include <memory>

#include "offload/offload_benchmark.h"

namespace railgauge::offload {
namespace {

// Device-to-host: cudaMemcpyAsync into pinned or pageable memory, the path an offload of
// activations or optimizer state takes.
class D2h final : public OffloadBenchmark {
public:
  D2h() : OffloadBenchmark(OffloadPath::d2h) {}
  std::string_view key() const override { return "offload.d2h"; }
  std::string_view description() const override {
    return "device-to-host cudaMemcpyAsync bandwidth of one GPU, pinned or pageable host memory "
           "near or far from it (GB/s, bytes copied counted once, with the PCIe link's expected "
           "rate)";
  }
};

} // namespace

std::unique_ptr<OffloadBenchmark> make_d2h() { return std::make_unique<D2h>(); }

} // namespace railgauge::offload
