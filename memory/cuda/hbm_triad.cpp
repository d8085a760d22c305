#include <memory>

#include "memory/cuda/hbm_stream.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

// Triad: STREAM's and BabelStream's triad, two loads and one store per element.
class HbmTriad final : public HbmStreamBenchmark {
public:
  HbmTriad() : HbmStreamBenchmark(HbmKernel::triad) {}
  std::string_view key() const override { return record::kHbmTriad; }
  std::string_view description() const override {
    return "HBM triad bandwidth of one GPU: a[i] = b[i] + s * c[i] in 16-byte vectors (GB/s, 3 "
           "arrays counted)";
  }
};

} // namespace

std::unique_ptr<HbmStreamBenchmark> make_hbm_triad() { return std::make_unique<HbmTriad>(); }

} // namespace railgauge::memory
