#include <memory>

#include "offload/offload_benchmark.h"

namespace railgauge::offload {
namespace {

// Every visible GPU copies device-to-host at once, one thread per GPU, released together.
class AllGpusD2h final : public OffloadBenchmark {
public:
  AllGpusD2h() : OffloadBenchmark(OffloadPath::all_gpus_d2h) {}
  std::string_view key() const override { return "offload.all_gpus_d2h"; }
  std::string_view description() const override {
    return "device-to-host cudaMemcpyAsync on every visible GPU at once: aggregate GB/s, each "
           "GPU's GB/s and share";
  }
};

} // namespace

std::unique_ptr<OffloadBenchmark> make_all_gpus_d2h() { return std::make_unique<AllGpusD2h>(); }

} // namespace railgauge::offload
