#pragma once
// Values a calibration needs but the runs did not measure. Each comes from a labelled source:
// the user (`--assume KEY=VALUE`) or the documented default, Calculon's own
// systems/a100_80g.json (calculon-ai/calculon at caa4b11), and the fit report lists every one
// as not measured. Keys are the Calculon system file's paths:
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

inline constexpr const char *kDefaultSource =
    "default: Calculon systems/a100_80g.json (calculon-ai/calculon caa4b11)";
inline constexpr const char *kUserSource = "--assume";

using EfficiencyRows = std::vector<std::pair<double, double>>; // Calculon units: GFLOP or MB

struct Sourced {
  double value = 0;
  std::string source; // "measured: ...", "--assume", or the default's label
  bool measured = false;
};

class Assumptions {
public:
  // Parses KEY=VALUE texts; throws InputError naming the flag and the known keys.
  static Assumptions parse(const std::vector<std::string> &texts);

  // The user's value, if any.
  std::optional<double> user(const std::string &key) const;
  // The user's value, else the default; nullopt for a key without a default.
  std::optional<Sourced> value(const std::string &key) const;
  // The user's flat efficiency as one [0, e] row, else the default table of `family`
  // ("matrix", "vector", "mem1", "mem2"), with its source.
  std::pair<EfficiencyRows, std::string> table(const std::string &key_prefix,
                                               const std::string &family) const;

  const std::map<std::string, double> &given() const { return user_; }

private:
  std::map<std::string, double> user_;
};

// Calculon's datatype for railgauge's GEMM dtype (fp16 -> float16, fp8_e4m3 -> float8, tf32
// and fp32 -> float32); nullopt for one Calculon has no name for (fp64).
std::optional<std::string> calculon_dtype(const std::string &railgauge_dtype);

} // namespace railgauge::calibrate
