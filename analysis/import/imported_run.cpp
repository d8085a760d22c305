#include "analysis/import/imported_run.h"

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "harness/bounded_input.h"
#include "harness/digest.h"
#include "harness/error.h"
#include "harness/host_group.h"
#include "harness/record_io.h"
#include "harness/run_fields.h"

namespace railgauge::analysis {

CLI::App *import_command(CLI::App &app) {
  for (CLI::App *sub : app.get_subcommands([](CLI::App *) { return true; }))
    if (sub->get_name() == "import")
      return sub;
  auto *import = app.add_subcommand(
      "import", "Read another tool's output into a run directory of records (never measures)");
  import->require_subcommand(1);
  return import;
}

std::string read_text_file(const std::string &path, const std::string &fix) {
  return read_bounded_file(path, fix);
}

std::string host_for_run_id(const std::string &host) {
  std::string out;
  for (char c : host)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ? c : '_';
  if (out.empty())
    return "unknown";
  if (out.size() <= kMaxRunIdHostBytes)
    return out;
  const auto hosts = hosts_of_group(host);
  // One long name is cut here; a group's first host is made safe on its own (a single name
  // again, so this does not recurse further).
  const std::string first = (hosts.size() > 1 ? host_for_run_id(hosts.front()) : out).substr(0, 32);
  const std::string more =
      hosts.size() > 1 ? fmt::format("-and-{}-more", hosts.size() - 1) : std::string();
  return fmt::format("{}{}-{:016x}", first, more, Fnv1a64().add(host).value());
}

namespace {

// Two imports in the same second (a script importing a folder of logs) must not share a run id,
// or calibrate would take them for two ranks of one run: the id carries the file's digest, read
// in chunks so that a log of any size costs no memory.
std::uint32_t file_digest(const std::string &file) {
  RegularFile in(file, "give the path of the file to import");
  Fnv1a64 digest;
  char chunk[1 << 16];
  while (in.stream().read(chunk, sizeof chunk) || in.stream().gcount() > 0)
    digest.add({chunk, static_cast<std::size_t>(in.stream().gcount())});
  return static_cast<std::uint32_t>(digest.add(file).value());
}

} // namespace

ImportedRun write_imported_run(
    const std::string &out_dir, const std::string &host, const std::vector<std::string> &argv,
    const std::string &tool, const std::string &file, nlohmann::json imported,
    std::optional<std::size_t> points_planned,
    const std::function<void(const RunIdentity &, const RecordWriter &)> &write_records) {
  // The node is the one the source names; without a name, the file's (an import never takes the
  // importing machine's name or inventory: they describe a machine that measured nothing).
  std::string node = host;
  if (node.empty())
    node = "unknown-" + std::filesystem::path(file).stem().string();
  RunIdentity id = create_run_directory(
      out_dir, fmt::format("{}-{:08x}", host_for_run_id(node), file_digest(file)), 0);
  id.host = node;
  namespace f = run_field;
  imported[f::kImportedNode] = node;
  imported[f::kImportedNodeFrom] = host.empty() ? "file name" : "source or --host";
  Manifest manifest(id, argv);
  manifest.data()[f::kSuite] = {{f::kSuiteName, "import." + tool}, {f::kSuitePath, file}};
  imported[f::kImportedTool] = tool;
  imported[f::kImportedFile] = file;
  manifest.data()[f::kImported] = std::move(imported);
  if (points_planned)
    manifest.data()[f::kPointsPlanned] = *points_planned;
  std::size_t written = 0;
  std::map<std::string, int> counts;
  try {
    manifest.write();
    RecordFile out(id.dir + "/records.jsonl");
    write_records(id, [&](const Record &r) {
      out.append(r);
      ++counts[std::string(to_string(r.status))];
      ++written;
    });
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(id.dir, ec);
    throw;
  }
  manifest.data()[f::kPointsPlanned] = written;
  manifest.finish(f::kComplete, counts);
  return {id.dir, written};
}

ImportedRun
write_imported_run(const std::string &out_dir, const std::string &host,
                   const std::vector<std::string> &argv, const std::string &tool,
                   const std::string &file, nlohmann::json imported,
                   const std::function<std::vector<Record>(const RunIdentity &)> &make_records) {
  return write_imported_run(out_dir, host, argv, tool, file, std::move(imported), std::nullopt,
                            [&](const RunIdentity &id, const RecordWriter &write) {
                              for (const Record &r : make_records(id))
                                write(r);
                            });
}

} // namespace railgauge::analysis
