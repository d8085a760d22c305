// A GPU kernel that never finishes (label gpu): the CUDA-event timer's synchronisation waits
// for it forever, so the point's watchdog records it as `error`, marks run.json and ends the
// process with kWatchdogExitCode, within seconds.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/resources.h"
#include "harness/record_io.h"
#include "harness/run_failure.h"
#include "harness/runner.h"
#include "harness/watchdog.h"
#include "tests/reliability/never_ending_kernel.h"
#include "tests/reliability/temp_dir.h"
#include "tests/support/null_printer.h"

namespace railgauge {
namespace {

class NeverEndingKernelBenchmark final : public Benchmark {
public:
  std::string_view key() const override { return "fake.gpu_hang"; }
  std::string_view description() const override { return "a kernel that never finishes"; }
  std::vector<Axis> axes() const override {
    return {{"gpu", AxisType::integer, "device", {std::int64_t{0}}, {}}};
  }
  std::optional<std::string> supported(const RunContext &, const Point &) const override {
    return gpu::cuda_unavailable_reason();
  }
  Outcome run(RunContext &ctx, const Point &) override {
    gpu::CudaEventTimer timer(0);
    const gpu::DeviceGuard guard(0);
    gpu::DeviceBuffer stop(sizeof(int));
    RAILGAUGE_CUDA_CALL(cudaMemset(stop.get(), 0, sizeof(int)));
    const Measurement m = ctx.measure(timer, [&] {
      testing::launch_never_ending_kernel(timer.stream(), static_cast<const int *>(stop.get()));
    });
    Outcome o;
    o.metrics = m.to_json();
    return o;
  }
};

// Everything, CUDA included, happens in the death test's child (threadsafe style: a fresh
// process, since CUDA does not survive fork()).
void run_until_the_watchdog_ends_it() {
  const testing::TempDir dir("gpu_hang");
  const RunIdentity id{"run-1", "testhost", 0, dir.path()};
  Manifest manifest(id, {"railgauge", "run"});
  manifest.write();
  Topology topology = Topology::load_this_machine();
  GBenchSampler sampler;
  RunContext ctx(topology, sampler, "testhost", 0);
  Registry registry;
  registry.add(std::make_unique<NeverEndingKernelBenchmark>());
  SuiteEntry entry;
  entry.key_glob = "fake.gpu_hang";
  entry.where = "test";
  entry.measure.warmup_runs = 0;
  entry.measure.min_samples = 1;
  const auto plan = make_plan(registry, {entry}, {}, std::nullopt, ctx);
  const std::string path = dir.path() + "/records.jsonl";
  RecordFile file(path);
  testing::NullPrinter printer;
  RunnerOutput out{file, printer, false};
  out.point_timeout_s = 3;
  out.on_point_hung = [&](const Record &r) { end_hung_run(manifest, r, path, "--resume"); };
  execute_plan(plan, ctx, id, out);
}

TEST(NeverEndingGpuKernel, WatchdogReportsItAndTheProcessExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_until_the_watchdog_ends_it(), ::testing::ExitedWithCode(kWatchdogExitCode),
              "watchdog: fake.gpu_hang: did not finish within 3 s");
}

} // namespace
} // namespace railgauge
