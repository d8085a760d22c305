#pragma once
// Values a calibration needs but the runs did not measure. Each comes from a labelled source, in
// this order: the user (`--assume KEY=VALUE`), the spec table of the GPU the runs found
// (gpu_spec.h), else Calculon's own systems/a100_80g.json (calculon-ai/calculon at caa4b11):
// another GPU's figures, labelled "borrowed", which `railgauge calibrate` refuses to write unless
// asked to (`--borrow a100_80g`). The fit report lists every one as not measured. Keys are the
// Calculon system file's paths:
//   matrix.<dt>.tflops  matrix.<dt>.efficiency  vector.<dt>.tflops  vector.<dt>.efficiency
//   mem1.GiB  mem1.GBps  mem1.efficiency  mem2.GiB  mem2.GBps  mem2.efficiency
//   networks.<i>.bandwidth  .efficiency  .size  .latency  .processor_usage   (i = 0 scale-up,
//   1 scale-out)
// with <dt> one of float8, float16, bfloat16, float32. An `efficiency` replaces a whole table by
// one row [0, e]; a peak (tflops, GBps, bandwidth) given by the user replaces the measured one.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railgauge::calibrate {

// Every source of another GPU's figure starts with this.
inline constexpr const char *kBorrowedPrefix = "borrowed from another GPU";
inline constexpr const char *kBorrowedSource =
    "borrowed from another GPU: Calculon systems/a100_80g.json (calculon-ai/calculon caa4b11)";
// The only other GPU's file `--borrow` accepts.
inline constexpr const char *kBorrowableFile = "a100_80g";
inline constexpr const char *kUserSource = "--assume";

struct GpuSpec;

using EfficiencyRows = std::vector<std::pair<double, double>>; // Calculon units: GFLOP or MB

struct Sourced {
  double value = 0;
  std::string source; // "measured: ...", "--assume", "spec: ...", or kBorrowedSource
  bool measured = false;
};

// Where a value came from: "measured" (in the runs read, imported logs included), "assumed"
// (--assume), "spec" (a published figure of the GPU found), "borrowed" (another GPU's file) or
// "derived" (from measured values by a stated assumption).
std::string origin_of(const Sourced &s);
std::string origin_of_source(const std::string &source, bool measured);

class Assumptions {
public:
  // Parses KEY=VALUE texts; throws InputError naming the flag and the known keys.
  static Assumptions parse(const std::vector<std::string> &texts);

  // The user's value, if any.
  std::optional<double> user(const std::string &key) const;
  // The user's value, else the spec's, else the borrowed default; nullopt for a key without one.
  std::optional<Sourced> value(const std::string &key) const;
  // The borrowed default alone (Calculon's a100_80g figure), whatever the user or spec give.
  std::optional<double> borrowed(const std::string &key) const;
  // The spec table of the GPU the runs found (nullptr: none); not owned.
  void use_spec(const GpuSpec *spec) { spec_ = spec; }
  const GpuSpec *spec() const { return spec_; }
  // The user's flat efficiency as one [0, e] row, else the default table of `family`
  // ("matrix", "vector", "mem1", "mem2"), with its source.
  std::pair<EfficiencyRows, std::string> table(const std::string &key_prefix,
                                               const std::string &family) const;

  const std::map<std::string, double> &given() const { return user_; }

private:
  std::map<std::string, double> user_;
  const GpuSpec *spec_ = nullptr;
};

// Calculon's datatype for railgauge's GEMM dtype (fp16 -> float16, fp8_e4m3 -> float8, tf32
// and fp32 -> float32); nullopt for one Calculon has no name for (fp64).
std::optional<std::string> calculon_dtype(const std::string &railgauge_dtype);

} // namespace railgauge::calibrate
