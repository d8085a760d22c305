#include <memory>

#include "offload/offload_benchmark.h"

namespace railgauge::offload {
namespace {

// Every visible GPU copies host-to-device at once, one thread per GPU pinned near (or far from) it,
// released together: the aggregate and each GPU's share show a shared PCIe switch or root port that
// single-GPU tests cannot.
class AllGpusH2d final : public OffloadBenchmark {
public:
  AllGpusH2d() : OffloadBenchmark(OffloadPath::all_gpus_h2d) {}
  std::string_view key() const override { return "offload.all_gpus_h2d"; }
  std::string_view description() const override {
    return "host-to-device cudaMemcpyAsync on every visible GPU at once: aggregate GB/s, each "
           "GPU's GB/s and share";
  }
};

} // namespace

std::unique_ptr<OffloadBenchmark> make_all_gpus_h2d() { return std::make_unique<AllGpusH2d>(); }

} // namespace railgauge::offload
