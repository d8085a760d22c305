#include "analysis/import/imported_run.h"

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>

#include "harness/error.h"
#include "harness/inventory/inventory.h"
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
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError("cannot read the file", path, fix);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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
  const RunIdentity id = create_run_directory(out_dir, host_for_run_id(host), 0);
  Manifest manifest(id, argv);
  InventoryOptions inventory_options; // the importing machine; the imported one is in "imported"
  inventory_options.query_nvml = false;
  inventory_options.query_verbs = false;
  manifest.data()["inventory"] = collect_inventory(inventory_options);
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
