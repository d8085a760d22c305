#pragma once
// Ranks as threads: `body` runs once per rank, each on its own thread with its own RunContext
// (this machine's topology, a plain-loop sampler, the given measurement) over one shared store,
// the way srun/mpirun ranks share the run's store. Returns every rank's Outcome in rank order.
// Ranks as threads mostly run a benchmark at its defaults: first_default_point.
#include <functional>
#include <thread>
#include <vector>

#include "harness/benchmark.h"
#include "harness/measure.h"
#include "harness/record.h"
#include "harness/run_context.h"
#include "harness/store/store.h"
#include "tests/support/loop_sampler.h"

namespace railgauge::testing {

// A few samples within 20 ms: enough for a point to run through the whole measurement core.
inline MeasureSpec brief_measure_spec() {
  MeasureSpec spec;
  spec.warmup_runs = 1;
  spec.min_samples = 3;
  spec.max_samples = 10;
  spec.time_budget_s = 0.02;
  return spec;
}

// The benchmark's first default point: every axis at its first default value.
inline Point first_default_point(const Benchmark &bench) {
  Point p;
  for (const Axis &a : bench.axes())
    p.set(a.name, a.defaults.front());
  return p;
}

inline std::vector<Outcome> run_ranks_as_threads(int ranks, Store &store, const MeasureSpec &spec,
                                                 const std::function<Outcome(RunContext &)> &body) {
  Topology topology = Topology::load_this_machine();
  std::vector<Outcome> outs(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      LoopSampler sampler;
      RunContext ctx(topology, sampler, "test", r);
      ctx.set_measure_spec(spec);
      ctx.set_world(ranks, &store);
      // As the runner does: a rank's exception is its point's error, never std::terminate
      // taking every other test down with it.
      try {
        outs[static_cast<std::size_t>(r)] = body(ctx);
      } catch (const std::exception &e) {
        Outcome o;
        o.status = Status::error;
        o.reason = e.what();
        outs[static_cast<std::size_t>(r)] = std::move(o);
      }
    });
  for (auto &t : threads)
    t.join();
  return outs;
}

} // namespace railgauge::testing
