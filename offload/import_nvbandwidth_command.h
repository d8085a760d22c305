#pragma once
// `railgauge import nvbandwidth FILE --out DIR [--host NAME]`: nvbandwidth's text or JSON output
// (nvbandwidth_import.h) written as a run directory <out>/<run-id>/ (run.json, records.jsonl)
// that every analysis command reads like a measured run.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace railgauge::offload {

// Adds `nvbandwidth` under the `import` subcommand (created when no other importer made it yet).
// Its callback stores the exit status in `exit_code`: 0, or 1 when some of the input could not
// be read (the records that could are written all the same).
void add_import_nvbandwidth_command(CLI::App &app, int &exit_code);

// What the command does, for tests: returns the run directory it wrote. Problems with the input
// are printed to `warnings`.
struct ImportResult {
  std::string run_dir;
  std::size_t records = 0;
  std::size_t problems = 0;
};
ImportResult import_nvbandwidth_file(const std::string &file, const std::string &out_dir,
                                     const std::string &host, const std::vector<std::string> &argv,
                                     std::ostream &warnings);

} // namespace railgauge::offload
