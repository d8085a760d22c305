#include <memory>

#include "offload/offload_benchmark.h"

namespace railgauge::offload {
namespace {

// Both directions at once on one GPU, one stream each (nvbandwidth's bidirectional CE tests measure
// one stream while the other interferes; here both are measured and summed).
class Bidir final : public OffloadBenchmark {
public:
  Bidir() : OffloadBenchmark(OffloadPath::bidir) {}
  std::string_view key() const override { return "offload.bidir"; }
  std::string_view description() const override {
    return "host<->device bidirectional cudaMemcpyAsync of one GPU, two streams started together: "
           "each direction's GB/s and their sum (bytes counted once per direction)";
  }
};

} // namespace

std::unique_ptr<OffloadBenchmark> make_bidir() { return std::make_unique<Bidir>(); }

} // namespace railgauge::offload
