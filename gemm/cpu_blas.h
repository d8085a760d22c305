#pragma once
// The CPU GEMM backend: OpenBLAS's cblas_sgemm (fp32) and cblas_dgemm (fp64), on every core the
// process is given (sched_getaffinity; recorded as blas_threads). A baseline for the GPU numbers
// and a way to try the TP sweep without a GPU (docs/gemm.md).
//
//   gemm.cpu_blas       transformer GEMMs under TP (default: the cpu-small model, fp32,
//                       t = 1, 2, 4, 8: about a minute on 2 cores)
//   gemm.cpu_blas_size  a size sweep (default: square 64..2048 ×2, fp32 and fp64)
//
// One call of the measured operation = every GEMM of the plan (a BMM's two dgrad GEMMs), each
// batch entry one cblas_?gemm call (OpenBLAS 0.3.21 has no batched GEMM), row-major, no
// transposes, alpha 1, beta 0. Operands are seeded, never zero (operand_value()). After the
// measurement, sampled output elements are recomputed in long double and compared with
// verify_bound() (verify_bound.h); a mismatch makes the point `failed` with the counts. Timed with
// HostTimer (steady_clock around the batch: a CPU GEMM is synchronous); under a multi-rank
// launch, in lockstep (run_cpu_blas).
//
// Built without OpenBLAS, every point is waived with "built without OpenBLAS".
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "gemm/gemm_point.h"
#include "harness/benchmark.h"

namespace railgauge::gemm {

// This machine's physical memory (sysconf), in bytes.
double physical_memory_bytes();

// Why the CPU backend cannot run here (built without OpenBLAS), or nullopt.
std::optional<std::string> cpu_blas_unavailable_reason();

// A test hook, called after the measurement and before the data check with each GEMM's output
// (index in the plan, pointer to its float or double elements), so a test can corrupt it.
using BeforeVerify = std::function<void(std::size_t gemm, void *c)>;

// Which operands the copies of a measurement rotate through (the `rotate` axis,
// records/gemm_record.h): B and C (A stays where the previous call left it), all three, or none.
enum class Rotate { bc, abc, none };

// The `rotate` axis of the CPU GEMM benchmarks; the Rotate of its text (throws InputError).
Axis rotate_axis();
Rotate parse_rotate(const std::string &text);

// Runs one point of a plan: operands, measurement, data check, metrics. Under a launch of more
// than one rank, every rank runs the point with all of them in lockstep
// (harness/lockstep_measure.h, `lockstep_name` unique per point): per call the slowest rank's time,
// what a tensor-parallel step waits for, and metrics.lockstep with this rank's own times.
Outcome run_cpu_blas(RunContext &ctx, const GemmPlan &plan, Dtype dtype, double peak_tflops,
                     Rotate rotate, const BeforeVerify &before_verify,
                     const std::string &lockstep_name);

class CpuBlasBenchmark : public KeyedBenchmark {
public:
  using KeyedBenchmark::KeyedBenchmark;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;
  // The GEMMs of a point (plan_tp_point or plan_size_point). Throws InputError.
  virtual GemmPlan plan(const Point &point) const = 0;

  void set_before_verify(BeforeVerify hook) { before_verify_ = std::move(hook); }

private:
  BeforeVerify before_verify_;
};

std::unique_ptr<CpuBlasBenchmark> make_cpu_blas();
std::unique_ptr<CpuBlasBenchmark> make_cpu_blas_size();

} // namespace railgauge::gemm
