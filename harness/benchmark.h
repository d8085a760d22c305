#pragma once
// The contract of one benchmark (docs/design.md "Benchmarks"; nvbandwidth's testcase.h): a stable
// key `<family>.<name>`, a description, typed axes, supported() and run(). One class per file,
// named after its key; each family lists its benchmarks in register_<family>(Registry&).
//
// run() measures one point through RunContext::measure(), or run_lockstep() where ranks time
// each iteration together, and returns an Outcome; it never writes output. Three benchmarks
// keep clocks of their own, on purpose: gemm.burn runs for a duration (its clock bounds the burn;
// its rate is CUDA events per batch), the MPI all_reduce beside a GEMM times its windows on each
// rank and gathers them as the lockstep loop does, and block.transformer_tp times each phase of
// the block inside the lockstep iteration (the block's time itself is the lockstep's). It may
// throw: the runner turns the exception into an `error` record and carries on with the next
// point.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/axis.h"
#include "harness/record.h"

namespace railgauge {

class RunContext;

class Benchmark {
public:
  virtual ~Benchmark() = default;
  virtual std::string_view key() const = 0;
  virtual std::string_view description() const = 0;
  virtual std::vector<Axis> axes() const = 0;
  // The values an axis takes here when neither the suite nor the command line names any:
  // Axis::defaults unless the benchmark derives them from the machine (every NUMA node, a size
  // sweep that reaches past the last-level cache, every GPU).
  virtual std::vector<AxisValue> defaults_here(const Axis &axis, const RunContext &) const {
    return axis.defaults;
  }
  // Why this point cannot run here (no GPU, built without CUDA, ...), or nullopt when it can.
  virtual std::optional<std::string> supported(const RunContext &ctx, const Point &point) const = 0;
  virtual Outcome run(RunContext &ctx, const Point &point) = 0;
};

// A benchmark whose key and description are given when it is made: for the classes that serve
// several keys, told apart by a kernel, a path, a verb or a collective kind.
class KeyedBenchmark : public Benchmark {
public:
  std::string_view key() const override { return key_; }
  std::string_view description() const override { return description_; }

protected:
  KeyedBenchmark(std::string key, std::string description)
      : key_(std::move(key)), description_(std::move(description)) {}

private:
  std::string key_, description_;
};

} // namespace railgauge
