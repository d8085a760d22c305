#include "offload/import_nvbandwidth_command.h"

#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/import/imported_run.h"
#include "offload/nvbandwidth_import.h"

namespace railgauge::offload {

ImportResult import_nvbandwidth_file(const std::string &file, const std::string &out_dir,
                                     const std::string &host, const std::vector<std::string> &argv,
                                     std::ostream &warnings) {
  const NvbDocument doc = parse_nvbandwidth(
      analysis::read_text_file(file, "give the path of a saved nvbandwidth output"), file);
  const std::string run_host = !host.empty() ? host : doc.host;
  const nlohmann::json imported = {{"format", doc.format},
                                   {"version", doc.version},
                                   {"driver_version", doc.driver_version},
                                   {"cuda_runtime_version", doc.cuda_runtime_version},
                                   {"host", doc.host},
                                   {"devices", doc.device_names},
                                   {"device_pci", doc.device_pci},
                                   {"problems", doc.problems}};
  const auto run = analysis::write_imported_run(
      out_dir, run_host, argv, "nvbandwidth", file, imported,
      [&](const RunIdentity &id) { return nvbandwidth_records(doc, id.run_id, id.host); });
  for (const auto &p : doc.problems)
    warnings << "railgauge: warning: " << p << '\n';
  return {run.dir, run.records, doc.problems.size()};
}

void add_import_nvbandwidth_command(CLI::App &app, int &exit_code) {
  CLI::App *import = analysis::import_command(app);
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
