#include "analysis/commands/import_commands.h"

#include <cctype>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/import/imported_run.h"
#include "analysis/import/nccl_tests_import.h"
#include "analysis/import/nvbandwidth_import.h"
#include "analysis/import/perftest_import.h"
#include "harness/bounded_input.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "harness/host_group.h"

namespace railgauge::analysis {
namespace {

struct ImportOptions {
  std::string file;
  std::string out = "runs";
  std::string host;
};

CLI::App *add_import_subcommand(CLI::App &app, const std::string &tool,
                                const std::string &description, ImportOptions &o) {
  auto *cmd = import_command(app)->add_subcommand(tool, description);
  cmd->add_option("file", o.file, fmt::format("A saved {} output", tool))->required();
  cmd->add_option("--out", o.out, "Directory that receives the run directory <out>/<run-id>/")
      ->capture_default_str();
  cmd->add_option("--host", o.host,
                  "The host the output came from (default: the host the output names, else "
                  "unknown-<file name>)");
  return cmd;
}

std::vector<std::string> import_argv(const std::string &tool, const ImportOptions &o) {
  std::vector<std::string> argv = {"railgauge", "import", tool, o.file, "--out", o.out};
  if (!o.host.empty())
    argv.insert(argv.end(), {"--host", o.host});
  return argv;
}

// Records carry the run directory's identity, whatever the importer put there.
Record with_identity(Record r, const RunIdentity &id) {
  r.run = id.run_id;
  r.host = id.host;
  if (r.time_utc.empty())
    r.time_utc = utc_timestamp_now();
  return r;
}

std::vector<Record> with_identity(std::vector<Record> records, const RunIdentity &id) {
  for (auto &r : records)
    r = with_identity(std::move(r), id);
  return records;
}

// nccl-tests output from a file, each record to `sink`. Text is streamed, so a log of any size
// is imported in the memory of a line; JSON (-J, one document) is read whole, bounded in size.
importers::NcclTestsImport read_nccl_tests_file(const std::string &file,
                                                std::optional<collectives::Kind> kind,
                                                const std::string &host,
                                                const importers::RecordSink &sink) {
  constexpr const char *kFix = "give the path of a saved nccl-tests output (stdout, or -J FILE)";
  RegularFile in(file, kFix);
  auto &stream = in.stream();
  while (std::isspace(stream.peek()))
    stream.get();
  if (stream.peek() != '{')
    return importers::import_nccl_tests_text(stream, file, kind, "", host, sink);
  auto parsed = importers::import_nccl_tests_json(read_text_file(file, kFix), file, kind, "", host);
  for (auto &r : parsed.records)
    sink(std::move(r));
  parsed.records.clear();
  return parsed;
}

std::optional<collectives::Kind> kind_from_file_name(const std::string &path) {
  std::string name = std::filesystem::path(path).filename().string();
  std::string squeezed;
  for (char c : name)
    if (c != '_' && c != '-')
      squeezed += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::optional<collectives::Kind> found;
  for (const char *kind :
       {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "sendrecv"}) {
    std::string plain;
    for (const char *c = kind; *c; ++c)
      if (*c != '_')
        plain += *c;
    if (squeezed.find(plain) == std::string::npos)
      continue;
    if (found) // two names in one file name: ambiguous, ask for --kind
      return std::nullopt;
    found = collectives::parse_kind(kind);
  }
  return found;
}

void report(const std::string &file, const ImportedRun &run) {
  std::cout << fmt::format("imported {} record(s) from {} into {}\n", run.records, file, run.dir);
}

} // namespace

void add_import_nccl_tests_command(CLI::App &app, int &exit_code) {
  auto o = std::make_shared<ImportOptions>();
  auto kind = std::make_shared<std::string>();
  auto *cmd = add_import_subcommand(
      app, "nccl-tests",
      "nccl-tests' output (all_reduce_perf and siblings; its text, or the JSON of -J) as "
      "collectives.nccl_<kind> records, two per size row (out of place, in place)",
      *o);
  cmd->add_option("--kind", *kind,
                  "The collective, when the log has no 'Collective test starting' header (JSON: "
                  "when args[0] is not <kind>_perf) "
                  "(all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, "
                  "sendrecv)");
  cmd->callback([&exit_code, o, kind] {
    std::optional<collectives::Kind> k;
    if (!kind->empty()) {
      k = collectives::parse_kind(*kind);
      if (!k)
        throw InputError(fmt::format("unknown collective '{}'", *kind), "--kind",
                         "give one of all_reduce, all_gather, reduce_scatter, alltoall, "
                         "broadcast, reduce, sendrecv");
    }
    // Read twice: once for what the run directory is named and described by, then into it,
    // so that neither pass holds the records (a log of 500 MB of rows once needed 14.7 GB).
    const auto discard = [](Record) {};
    importers::NcclTestsImport parsed;
    try {
      parsed = read_nccl_tests_file(o->file, k, o->host, discard);
    } catch (const InputError &) {
      // A log whose header does not name its collective may say it in its file name
      // (all_reduce_perf.log, allreduce_16n.txt): taken from there, and said so.
      const auto from_name = k ? std::nullopt : kind_from_file_name(o->file);
      if (!from_name)
        throw;
      k = from_name;
      parsed = read_nccl_tests_file(o->file, k, o->host, discard);
      std::cerr << fmt::format("railgauge: {} names no collective in its header; {} is taken "
                               "from its file name (--kind overrides)\n",
                               o->file, collectives::to_string(*from_name));
    }
    nlohmann::json imported = parsed.about;
    imported["ranks"] = parsed.ranks;
    if (parsed.avg_busbw_gbytes_per_s)
      imported["avg_busbw_gbytes_per_s"] = *parsed.avg_busbw_gbytes_per_s;
    if (!parsed.failures.empty())
      imported["failures"] = parsed.failures;
    if (parsed.other_lines > 0)
      imported["other_lines_skipped"] = parsed.other_lines;
    if (parsed.repeated_zero_rows > 0)
      imported["repeated_zero_byte_rows_skipped"] = parsed.repeated_zero_rows;
    // What `check --rules auto` picks a fabric profile by.
    if (!parsed.network.empty())
      imported["network"] = {{"transport", parsed.network}, {"line", parsed.network_line}};
    // The node is the log's own: the hosts its rank lines name ("a+b" for a multi-node run,
    // whose figures belong to the group), unless --host says otherwise.
    auto hosts = importers::rank_hosts(parsed.ranks);
    if (hosts.empty()) { // failed before its rank lines: its failure lines name the host
      hosts = importers::failure_hosts(parsed.failures);
      if (!hosts.empty())
        imported["hosts_from"] = "failure lines";
    }
    imported["hosts"] = hosts;
    const std::string node = !o->host.empty() ? o->host : host_group(hosts);
    // A failed nccl-tests run keeps the rows it measured, and one error record says where it
    // stopped: a check of the imported run then fails instead of passing on what is there.
    const std::size_t planned = parsed.record_count + (parsed.failures.empty() ? 0 : 1);
    const auto run = write_imported_run(
        o->out, node, import_argv("nccl-tests", *o), "nccl-tests", o->file, imported, planned,
        [&](const RunIdentity &id, const RecordWriter &write) {
          const auto again = read_nccl_tests_file(
              o->file, k, o->host, [&](Record r) { write(with_identity(std::move(r), id)); });
          if (!again.failures.empty())
            write(with_identity(importers::nccl_tests_failure_record(again, "", o->host), id));
        });
    report(o->file, run);
    if (parsed.other_lines > 0)
      std::cerr << fmt::format("railgauge: skipped {} line(s) of {} that are neither nccl-tests' "
                               "header nor its result rows (NCCL_DEBUG output, launcher "
                               "messages)\n",
                               parsed.other_lines, o->file);
    if (parsed.repeated_zero_rows > 0)
      std::cerr << fmt::format("railgauge: {} rows of 0 bytes after the first in {} are one point "
                               "(sizes that round to no element per rank): kept once\n",
                               parsed.repeated_zero_rows, o->file);
    exit_code = code(ExitStatus::ok);
    if (!parsed.failures.empty()) {
      std::cerr << fmt::format("railgauge: warning: {} says nccl-tests failed:\n", o->file);
      for (const auto &failure : parsed.failures)
        std::cerr << "  " << failure << "\n";
      std::cerr << "  the rows before the failure are imported, with an error record saying "
                   "where it stopped\n";
      exit_code = code(ExitStatus::problems);
    }
  });
}

void add_import_nvbandwidth_command(CLI::App &app, int &exit_code) {
  auto o = std::make_shared<ImportOptions>();
  auto *cmd = add_import_subcommand(app, "nvbandwidth",
                                    "nvbandwidth's text or JSON (-j) output as records "
                                    "import.nvbandwidth.<testcase>, one per matrix cell",
                                    *o);
  cmd->callback([&exit_code, o] {
    const auto result = importers::import_nvbandwidth_file(
        o->file, o->out, o->host, import_argv("nvbandwidth", *o), std::cerr);
    std::cout << fmt::format("imported {} record(s) from {} into {}\n", result.records, o->file,
                             result.run_dir);
    exit_code = code(result.problems > 0 ? ExitStatus::problems : ExitStatus::ok);
  });
}

void add_import_perftest_command(CLI::App &app, int &exit_code) {
  auto o = std::make_shared<ImportOptions>();
  auto *cmd = add_import_subcommand(
      app, "perftest",
      "perftest's text output (ib_write_bw, ib_read_lat, ...) as rdma.<verb>_<bw|lat> records", *o);
  cmd->callback([&exit_code, o] {
    const auto records = importers::import_perftest(
        read_text_file(o->file, "give the path of a saved perftest output (client or server)"),
        o->file);
    const auto run =
        write_imported_run(o->out, o->host, import_argv("perftest", *o), "perftest", o->file, {},
                           [&](const RunIdentity &id) { return with_identity(records, id); });
    report(o->file, run);
    // A link that never came up is imported as a failed point: a problem, said here too.
    exit_code = code(ExitStatus::ok);
    for (const auto &r : records)
      if (r.status != Status::ok) {
        std::cerr << fmt::format("  {} {}: {}\n", r.key, to_string(r.status),
                                 r.reason.value_or(""));
        exit_code = code(ExitStatus::problems);
      }
  });
}

} // namespace railgauge::analysis
