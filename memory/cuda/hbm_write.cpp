#include <memory>

#include "memory/cuda/hbm_stream.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

// Write: stores only (a GPU store does not read the line first, so HBM moves what we count).
class HbmWrite final : public HbmStreamBenchmark {
public:
  HbmWrite() : HbmStreamBenchmark(HbmKernel::write) {}
  std::string_view key() const override { return record::kHbmWrite; }
  std::string_view description() const override {
    return "HBM write bandwidth of one GPU: a[i] = s in 16-byte vectors (GB/s, 1 array counted)";
  }
};

} // namespace

std::unique_ptr<HbmStreamBenchmark> make_hbm_write() { return std::make_unique<HbmWrite>(); }

} // namespace railgauge::memory
