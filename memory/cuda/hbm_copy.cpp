#include <memory>

#include "memory/cuda/hbm_stream.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

// Copy by SM kernel: BabelStream's copy. memory.hbm_memcpy_d2d copies through cudaMemcpyAsync.
class HbmCopy final : public HbmStreamBenchmark {
public:
  HbmCopy() : HbmStreamBenchmark(HbmKernel::copy) {}
  std::string_view key() const override { return record::kHbmCopy; }
  std::string_view description() const override {
    return "HBM copy bandwidth of one GPU by an SM kernel: c[i] = a[i] in 16-byte vectors (GB/s, 2 "
           "arrays counted)";
  }
};

} // namespace

std::unique_ptr<HbmStreamBenchmark> make_hbm_copy() { return std::make_unique<HbmCopy>(); }

} // namespace railgauge::memory
