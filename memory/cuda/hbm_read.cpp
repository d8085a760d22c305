#include <memory>

#include "memory/cuda/hbm_stream.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

// Read: loads only; each block stores its partial sum, so the loads cannot be optimised away
// and the sum is checked against its closed form. Compare with BabelStream's dot.
class HbmRead final : public HbmStreamBenchmark {
public:
  HbmRead() : HbmStreamBenchmark(HbmKernel::read) {}
  std::string_view key() const override { return record::kHbmRead; }
  std::string_view description() const override {
    return "HBM read bandwidth of one GPU: sum += a[i] in 16-byte vectors, one partial sum per "
           "block (GB/s, 1 array counted)";
  }
};

} // namespace

std::unique_ptr<HbmStreamBenchmark> make_hbm_read() { return std::make_unique<HbmRead>(); }

} // namespace railgauge::memory
