#include "records/with_gemm_figures.h"

#include "harness/record_fields.h"
#include "records/offload_record.h"

namespace railgauge::offload::record {

void WithGemmFigures::write(nlohmann::json &metrics) const {
  metrics[kBytesPerCopy] = bytes_per_copy;
  metrics[kBandwidthGbytesPerS] = copy_concurrent_gbytes_per_s;
  metrics[kCopyAloneGbytesPerS] = copy_alone_gbytes_per_s;
  metrics[kCopyConcurrentGbytesPerS] = copy_concurrent_gbytes_per_s;
  metrics[kGemmAloneTflops] = gemm_alone_tflops;
  metrics[kGemmConcurrentTflops] = gemm_concurrent_tflops;
  metrics[kCopySlowdown] = copy_slowdown;
  metrics[kGemmSlowdown] = gemm_slowdown;
}

std::optional<WithGemmFigures> WithGemmFigures::read(const nlohmann::json &metrics) {
  namespace f = record_fields;
  const auto bytes = f::integer(metrics, kBytesPerCopy);
  const auto copy_alone = f::number(metrics, kCopyAloneGbytesPerS);
  const auto copy_concurrent = f::number(metrics, kCopyConcurrentGbytesPerS);
  const auto gemm_alone = f::number(metrics, kGemmAloneTflops);
  const auto gemm_concurrent = f::number(metrics, kGemmConcurrentTflops);
  const auto copy_slowdown = f::number(metrics, kCopySlowdown);
  const auto gemm_slowdown = f::number(metrics, kGemmSlowdown);
  if (!bytes || *bytes < 0 || !copy_alone || !copy_concurrent || !gemm_alone || !gemm_concurrent ||
      !copy_slowdown || !gemm_slowdown)
    return std::nullopt;
  return WithGemmFigures{static_cast<std::uint64_t>(*bytes),
                         *copy_alone,
                         *copy_concurrent,
                         *gemm_alone,
                         *gemm_concurrent,
                         *copy_slowdown,
                         *gemm_slowdown};
}

} // namespace railgauge::offload::record
