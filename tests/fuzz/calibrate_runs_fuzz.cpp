// `calibrate` on a run read back from disk (analysis/calibrate/calibration.h), the input split
// into run.json and records.jsonl as run_directory.h says. Whatever the records hold, the fit and
// its five output files (coefficients, Calculon system, ASTRA-sim network, fit report JSON and
// markdown) are made or an InputError says why not: never a crash, a hang or an exception of
// another type, and never a Calculon file the checker of calculon_system.h refuses.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/calibrate/assumptions.h"
#include "analysis/calibrate/astra_network.h"
#include "analysis/calibrate/calculon_system.h"
#include "analysis/calibrate/calibration.h"
#include "analysis/calibrate/coefficient_file.h"
#include "analysis/calibrate/fit_report.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "tests/fuzz/run_directory.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  namespace cal = railgauge::calibrate;
  static const RunDirectory dir;
  const std::string path = dir.write({reinterpret_cast<const char *>(data), size});
  try {
    const auto runs = railgauge::analysis::load_runs({path});
    const auto c = cal::calibrate(runs, cal::Assumptions{}, cal::CalibrateOptions{});
    if (c.samples.used_by_key.empty())
      return 0; // calibrate_command stops here with an InputError
    const auto system = cal::calculon_system(c);
    if (const auto problems = cal::calculon_problems(system); !problems.empty()) {
      for (const auto &p : problems)
        std::fprintf(stderr, "calculon_problems: %s\n", p.c_str());
      std::abort(); // calibrate_command would stop with "internal error"
    }
    (void)system.dump(2);
    (void)cal::coefficient_file(c).dump(2);
    (void)cal::astra_network_yaml(c);
    const auto report = cal::fit_report_json(c);
    (void)report.dump(2);
    (void)cal::fit_report_markdown(report);
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
