#pragma once
// `railgauge import <tool> FILE`: another tool's saved output becomes a run directory of records
// (docs/design.md "Analysis"), so years of nccl-tests, perftest and nvbandwidth logs can be
// checked, compared and calibrated beside railgauge's own runs. Importing never measures. What
// every importer shares lives here: the `import` command group, reading the file, and writing the
// run directory (manifest with what was imported and from where, then the records).
#include <cstddef>
#include <functional>
#include <optional>
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

// The longest host part of an imported run's id. A run id is a directory name (NAME_MAX, 255
// bytes, with the time, the digest and the process id beside it): a log of 30 hosts, whose node
// is every host joined ("a+b+..."), could not be imported ("File name too long").
inline constexpr std::size_t kMaxRunIdHostBytes = 64;

// A host name fit for a run id: letters, digits, '-', '.', '_' ("unknown" when empty). One longer
// than kMaxRunIdHostBytes is its first host's first characters, how many more hosts the group
// has, and a digest of the whole: "node001-and-29-more-1c2d3e4f5a6b7c8d".
std::string host_for_run_id(const std::string &host);

struct ImportedRun {
  std::string dir;
  std::size_t records = 0;
};

// Hands one record of the run to the run directory's records.jsonl.
using RecordWriter = std::function<void(const Record &)>;

// Creates <out_dir>/<run-id>/, writes run.json (suite "import.<tool>", `imported` describing
// the source, `points_planned` when known before), then asks `write_records` to hand it the
// records of that run one by one: an importer that streams holds none of them. When that
// throws, the run directory is removed: nothing of a failed import stays.
ImportedRun write_imported_run(
    const std::string &out_dir, const std::string &host, const std::vector<std::string> &argv,
    const std::string &tool, const std::string &file, nlohmann::json imported,
    std::optional<std::size_t> points_planned,
    const std::function<void(const RunIdentity &, const RecordWriter &)> &write_records);

// The same for an importer that makes all its records at once.
ImportedRun
write_imported_run(const std::string &out_dir, const std::string &host,
                   const std::vector<std::string> &argv, const std::string &tool,
                   const std::string &file, nlohmann::json imported,
                   const std::function<std::vector<Record>(const RunIdentity &)> &make_records);

} // namespace railgauge::analysis
