// Writes one record of every status the runner produces (ok, waived, failed, error) to the
// records file named on the command line, through the real planner, runner and RecordFile, so
// that tests/harness/cli validates each kind against results/schema/record.schema.json.
#include <cstdio>
#include <exception>

#include "cli/printers.h"
#include "fake_benchmark.h"
#include "harness/runner.h"

int main(int argc, char **argv) {
  using namespace railgauge;
  if (argc != 2) {
    std::fprintf(stderr, "usage: emit_record_kinds RECORDS_JSONL\n");
    return 2;
  }
  try {
    Topology topology = Topology::load_this_machine();
    GBenchSampler sampler;
    RunContext ctx(topology, sampler, "testhost", 0);
    Registry registry;
    registry.add(std::make_unique<testing::FakeBenchmark>("fake.alpha"));
    SuiteEntry entry;
    entry.key_glob = "fake.alpha";
    entry.where = "emit_record_kinds";
    entry.measure.min_samples = 2;
    entry.measure.time_budget_s = 0.01;
    entry.axes["mode"] = "ok,waive,fail,throw";
    entry.axis_where["mode"] = "emit_record_kinds";
    const auto plan =
        make_plan(registry, {entry}, {parse_axis_override("size_bytes=4KiB")}, std::nullopt, ctx);
    RecordFile file(argv[1]);
    PrinterMultiplex printer;
    execute_plan(plan, ctx, {"2026-11-22T10-00-00Z-testhost", "testhost", 0, "."},
                 {file, printer, false});
  } catch (const std::exception &e) {
    std::fprintf(stderr, "emit_record_kinds: %s\n", e.what());
    return 1;
  }
  return 0;
}
