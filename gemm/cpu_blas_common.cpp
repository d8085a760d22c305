// The parts of the CPU GEMM benchmarks that need no OpenBLAS: waivers and the point's plan
// (run_cpu_blas() is in cpu_blas_run.cpp or its stub).
#include <unistd.h>

#include <fmt/format.h>

#include "gemm/cpu_blas.h"
#include "harness/error.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

// Operands may take at most this share of the machine's physical memory: the rest is the OS's,
// and a point that swaps measures the disk.
constexpr double kMaxMemoryShare = 0.5;

} // namespace

Axis rotate_axis() {
  return Axis{record::kRotate,
              AxisType::text,
              "operands the copies rotate through: abc (all three), bc (B and C; A is read where "
              "the previous call left it, as in a block), none (one set, called again and again)",
              {std::string(record::kRotateAbc)},
              {record::kRotateBc, record::kRotateAbc, record::kRotateNone}};
}

Rotate parse_rotate(const std::string &text) {
  if (text == record::kRotateBc)
    return Rotate::bc;
  if (text == record::kRotateAbc)
    return Rotate::abc;
  if (text == record::kRotateNone)
    return Rotate::none;
  throw InputError(fmt::format("'{}' is not an operand rotation", text), "-a rotate",
                   "give bc, abc or none");
}

double physical_memory_bytes() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

std::optional<std::string> CpuBlasBenchmark::supported(const RunContext &,
                                                       const Point &point) const {
  if (auto why = cpu_blas_unavailable_reason())
    return why;
  try {
    const GemmPlan p = plan(point);
    const double bytes = p.bytes(dtype_bytes(point_dtype(point)));
    if (bytes > kMaxMemoryShare * physical_memory_bytes())
      return fmt::format("the operands need {:.3g} GB, more than {:.0f}% of this machine's {:.3g} "
                         "GB: use a larger tp or a smaller seq",
                         bytes / 1e9, 100 * kMaxMemoryShare, physical_memory_bytes() / 1e9);
  } catch (const InputError &e) {
    return e.problem();
  }
  return std::nullopt;
}

Outcome CpuBlasBenchmark::run(RunContext &ctx, const Point &point) {
  const GemmPlan p = plan(point);
  Outcome out = run_cpu_blas(ctx, p, point_dtype(point), point.real(record::kPeakTflops),
                             parse_rotate(point.text(record::kRotate)), before_verify_,
                             fmt::format("lockstep/{}/{}", key(), point.label()));
  for (const auto &[name, value] : p.derived.items())
    out.derived_params[name] = value;
  if (!p.gemm_list.is_null())
    out.metrics[record::kGemms] = p.gemm_list;
  return out;
}

} // namespace railgauge::gemm
