#pragma once
// `railgauge import <tool> FILE`: another tool's saved output becomes a run directory of records
// (docs/design.md "Analysis"), so years of nccl-tests, perftest and nvbandwidth logs can be
// checked, compared and calibrated beside railgauge's own runs. Importing never measures. What
// every importer shares lives here: the `import` command group, reading the file, and writing the
// run directory (manifest with what was imported and from where, then the records).
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/manifest.h"
#include "harness/record.h"

namespace CLI {
class App;
}

namespace railgauge::analysis {

// The `import` subcommand of `app`, created on first use; each tool adds itself under it.
CLI::App *import_command(CLI::App &app);

// The whole file, a regular one of bounded size (harness/bounded_input.h); throws InputError
// naming the path, with `fix` as the advice.
std::string read_text_file(const std::string &path, const std::string &fix);

// A host name fit for a run id: letters, digits, '-', '.', '_' ("unknown" when empty).
std::string host_for_run_id(const std::string &host);

struct ImportedRun {
  std::string dir;
  std::size_t records = 0;
};

// Creates <out_dir>/<run-id>/, writes run.json (suite "import.<tool>", `imported` describing
// the source), asks `make_records` for the records of that run and appends them.
ImportedRun
write_imported_run(const std::string &out_dir, const std::string &host,
                   const std::vector<std::string> &argv, const std::string &tool,
                   const std::string &file, nlohmann::json imported,
                   const std::function<std::vector<Record>(const RunIdentity &)> &make_records);

} // namespace railgauge::analysis
