#include "analysis/import/imported_run.h"

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "harness/record_io.h"

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
  return out.empty() ? "unknown" : out;
}

ImportedRun
write_imported_run(const std::string &out_dir, const std::string &host,
                   const std::vector<std::string> &argv, const std::string &tool,
                   const std::string &file, nlohmann::json imported,
                   const std::function<std::vector<Record>(const RunIdentity &)> &make_records) {
  // The node is the one the source names; without a name, the file's (an import never takes the
  // importing machine's name or inventory: they describe a machine that measured nothing).
  std::string node = host;
  if (node.empty())
    node = "unknown-" + std::filesystem::path(file).stem().string();
  // Two imports in the same second (a script importing a folder of logs) must not share a run
  // id, or calibrate would take them for two ranks of one run: the id carries the file's digest.
  const std::string text = read_text_file(file, "give the path of the file to import");
  RunIdentity id = create_run_directory(
      out_dir,
      fmt::format("{}-{:08x}", host_for_run_id(node),
                  static_cast<std::uint32_t>(std::hash<std::string>{}(text + file))),
      0);
  id.host = node;
  imported["node"] = node;
  imported["node_from"] = host.empty() ? "file name" : "source or --host";
  Manifest manifest(id, argv);
  manifest.data()["suite"] = {{"name", "import." + tool}, {"path", file}};
  imported["tool"] = tool;
  imported["file"] = file;
  manifest.data()["imported"] = std::move(imported);
  const std::vector<Record> records = make_records(id);
  manifest.data()["points_planned"] = records.size();
  manifest.write();
  RecordFile out(id.dir + "/records.jsonl");
  std::map<std::string, int> counts;
  for (const Record &r : records) {
    out.append(r);
    ++counts[std::string(to_string(r.status))];
  }
  manifest.finish("complete", counts);
  return {id.dir, records.size()};
}

} // namespace railgauge::analysis
