#include "offload/import_nvbandwidth_command.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "harness/error.h"
#include "harness/inventory/inventory.h"
#include "harness/manifest.h"
#include "harness/record_io.h"
#include "offload/nvbandwidth_import.h"

namespace railgauge::offload {
namespace {

CLI::App *import_command(CLI::App &app) {
  for (CLI::App *sub : app.get_subcommands([](CLI::App *) { return true; }))
    if (sub->get_name() == "import")
      return sub;
  auto *import = app.add_subcommand(
      "import", "Read another tool's output into a run directory of records (never measures)");
  import->require_subcommand(1);
  return import;
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError("cannot read the file", path, "give the path of a saved nvbandwidth output");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A host name fit for a run id: letters, digits, '-', '.', '_'.
std::string safe_host(const std::string &host) {
  std::string out;
  for (char c : host)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ? c : '_';
  return out.empty() ? "unknown" : out;
}

} // namespace

ImportResult import_nvbandwidth_file(const std::string &file, const std::string &out_dir,
                                     const std::string &host, const std::vector<std::string> &argv,
                                     std::ostream &warnings) {
  const NvbDocument doc = parse_nvbandwidth(read_file(file), file);
  const std::string run_host = safe_host(!host.empty() ? host : doc.host);
  const RunIdentity id = create_run_directory(out_dir, run_host, 0);
  Manifest manifest(id, argv);
  InventoryOptions inventory_options; // the importing machine; the imported one is in "imported"
  inventory_options.query_nvml = false;
  inventory_options.query_verbs = false;
  manifest.data()["inventory"] = collect_inventory(inventory_options);
  manifest.data()["suite"] = {{"name", "import.nvbandwidth"}, {"path", file}};
  manifest.data()["imported"] = {{"tool", "nvbandwidth"},
                                 {"file", file},
                                 {"format", doc.format},
                                 {"version", doc.version},
                                 {"driver_version", doc.driver_version},
                                 {"cuda_runtime_version", doc.cuda_runtime_version},
                                 {"host", doc.host},
                                 {"devices", doc.device_names},
                                 {"device_pci", doc.device_pci},
                                 {"problems", doc.problems}};
  const std::vector<Record> records = nvbandwidth_records(doc, id.run_id, run_host);
  manifest.data()["points_planned"] = records.size();
  manifest.write();
  RecordFile out(id.dir + "/records.jsonl");
  std::map<std::string, int> counts;
  for (const Record &r : records) {
    out.append(r);
    ++counts[std::string(to_string(r.status))];
  }
  manifest.finish("complete", counts);
  for (const auto &p : doc.problems)
    warnings << "railgauge: warning: " << p << '\n';
  return {id.dir, records.size(), doc.problems.size()};
}

void add_import_nvbandwidth_command(CLI::App &app, int &exit_code) {
  CLI::App *import = import_command(app);
  auto *cmd =
      import->add_subcommand("nvbandwidth", "nvbandwidth's text or JSON (-j) output as records "
                                            "import.nvbandwidth.<testcase>, one per matrix cell");
  auto file = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>("results");
  auto host = std::make_shared<std::string>();
  cmd->add_option("file", *file, "A saved nvbandwidth output, text or JSON")->required();
  cmd->add_option("--out", *out, "Directory that receives the run directory <out>/<run-id>/")
      ->capture_default_str();
  cmd->add_option("--host", *host,
                  "The host the output came from (default: the name nvbandwidth printed)");
  cmd->callback([&exit_code, file, out, host, cmd] {
    std::vector<std::string> argv = {"railgauge", "import", "nvbandwidth", *file, "--out", *out};
    if (!host->empty())
      argv.insert(argv.end(), {"--host", *host});
    (void)cmd;
    const ImportResult result = import_nvbandwidth_file(*file, *out, *host, argv, std::cerr);
    std::cout << fmt::format("imported {} record(s) from {} into {}\n", result.records, *file,
                             result.run_dir);
    exit_code = result.problems > 0 ? 1 : 0;
  });
}

} // namespace railgauge::offload
