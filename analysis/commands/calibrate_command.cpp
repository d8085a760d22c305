#include "analysis/commands/calibrate_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/calibrate/astra_network.h"
#include "analysis/calibrate/block_prediction.h"
#include "analysis/calibrate/calculon_system.h"
#include "analysis/calibrate/calibration.h"
#include "analysis/calibrate/coefficient_file.h"
#include "analysis/calibrate/execution_sizes.h"
#include "analysis/calibrate/fit_report.h"
#include "analysis/calibrate/processing_mode.h"
#include "analysis/calibrate/provenance.h"
#include "analysis/commands/exit_status_of.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "harness/inventory/inventory_fields.h"
#include "records/collective_record.h"

namespace railgauge::analysis {
namespace {

namespace fs = std::filesystem;
using namespace railgauge::calibrate;

struct CalibrateCommandOptions {
  std::vector<std::string> runs;
  std::string out;
  std::vector<std::string> assume;
  std::string mode = "auto";
  int max_steps = 8;
  int folds = 5;
  std::uint64_t seed = 1;
  bool allow_mixed = false;
  std::string borrow;           // another GPU's file whose figures may fill what was not measured
  std::string execution, model; // Calculon's execution and model files
};

nlohmann::json read_json_file(const std::string &path, const char *option) {
  std::ifstream f(path);
  if (!f)
    throw InputError(fmt::format("cannot read '{}'", path), option, "give a readable JSON file");
  try {
    return nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception &e) {
    throw InputError(fmt::format("'{}' is not JSON: {}", path, e.what()), option,
                     "give a Calculon JSON file");
  }
}

// The sizes the named execution of the named model asks for, or nullopt without them.
std::optional<ExecutionSizes> execution_of(const CalibrateCommandOptions &o) {
  if (o.execution.empty() && o.model.empty())
    return std::nullopt;
  if (o.execution.empty() || o.model.empty())
    throw InputError("--execution and --model go together",
                     o.execution.empty() ? "--model" : "--execution",
                     "give both a Calculon execution file (examples/*.json) and a model file "
                     "(models/*.json)");
  try {
    const auto m = parse_calculon_model(read_json_file(o.model, "--model"),
                                        fs::path(o.model).filename().string());
    const auto e = parse_calculon_execution(read_json_file(o.execution, "--execution"),
                                            fs::path(o.execution).filename().string());
    return execution_sizes(m, e);
  } catch (const std::invalid_argument &e) {
    throw InputError(e.what(), "--execution",
                     "give a Calculon execution and model this layer model can split");
  }
}

// NVML's names of a run's GPUs, as its run.json's inventory lists them ("" without one).
std::string inventory_gpu_names(const nlohmann::json &manifest) {
  std::set<std::string> names;
  namespace inv = inventory_field;
  const auto inventory =
      manifest.is_object() ? manifest.value(inv::kInventory, nlohmann::json()) : nlohmann::json();
  const auto nvml =
      inventory.is_object() ? inventory.value(inv::kNvml, nlohmann::json()) : nlohmann::json();
  if (nvml.is_object() && nvml.value(inv::kGpus, nlohmann::json()).is_array())
    for (const auto &gpu : nvml[inv::kGpus])
      if (gpu.is_object() && gpu.value(inv::kName, nlohmann::json()).is_string())
        names.insert(gpu[inv::kName].get<std::string>());
  return fmt::format("{}", fmt::join(names, " + "));
}

// The hardware a record was measured on, as far as calibration cares: the host CPU (OpenBLAS,
// MPI on host memory, host DRAM) or a GPU, named by params.gpu_name where the record has it, else
// by its run's inventory (a burn-in's gemm.burn and memory.burn carry no gpu_name: an H100's and
// an H200's burns were once fitted together as one unnamed "gpu").
std::string hardware_of(const Record &r, const std::string &run_gpus) {
  for (const char *cpu : {"gemm.cpu_blas", "collectives.mpi_", "memory.host_"})
    if (r.key.starts_with(cpu))
      return "cpu";
  const char *name = collectives::record::kGpuName; // gemm, memory and offload write the same
  if (r.params.contains(name) && r.params[name].is_string())
    return "gpu " + r.params[name].get<std::string>();
  return run_gpus.empty() ? "gpu" : "gpu " + run_gpus;
}

// One coefficient set stands for one machine: CPU figures in a GPU's tiers, or two GPU models
// averaged, give a system that is neither. Refused unless the user asks for it.
void refuse_mixed_hardware(const RunSet &runs, const Samples &used, bool allow) {
  std::map<std::string, std::string> example; // hardware -> a key measured on it
  for (const auto &run : runs.runs) {
    const auto run_gpus = inventory_gpu_names(run.manifest);
    for (const auto &r : run.records)
      if (r.status == Status::ok && used.used_by_key.count(r.key))
        example.emplace(hardware_of(r, run_gpus), r.key);
  }
  std::set<std::string> gpus;
  for (const auto &[hw, key] : example)
    if (hw.starts_with("gpu "))
      gpus.insert(hw);
  const bool cpu_and_gpu = example.count("cpu") && example.size() > 1;
  if (allow || (!cpu_and_gpu && gpus.size() < 2))
    return;
  std::string what;
  for (const auto &[hw, key] : example)
    what += fmt::format("{}{} ({})", what.empty() ? "" : "; ", hw, key);
  throw InputError(fmt::format("the runs were measured on different hardware: {}", what),
                   "calibrate",
                   "calibrate each machine's runs apart, or give --allow-mixed to fit them "
                   "together anyway");
}

// An --assume of a matrix or vector datatype the system file has no table of would be kept in
// coefficients.json and written nowhere: a prediction would read it as given and run on another
// table. Refused, naming the tables there are.
void refuse_unused_assumptions(const Calibration &c, const Assumptions &assumptions) {
  for (const auto &[key, value] : assumptions.given())
    for (const auto &[family, tables] : {std::pair{"matrix.", &c.matrix}, {"vector.", &c.vector}})
      if (key.starts_with(family)) {
        const auto dtype =
            key.substr(std::string(family).size(), key.rfind('.') - std::string(family).size());
        if (tables->contains(dtype))
          continue;
        std::vector<std::string> have;
        for (const auto &[name, t] : *tables)
          have.push_back(name);
        throw InputError(
            fmt::format("{}{} has no table in this calibration (it has {}): the value would be "
                        "written nowhere",
                        family, dtype,
                        have.empty() ? "none" : fmt::format("{}", fmt::join(have, ", "))),
            "--assume " + key,
            fmt::format("measure {} GEMMs, or give --assume for one of the tables written", dtype));
      }
}

// A system file holds no other GPU's figure unless the user asked for that file by name
// (--borrow a100_80g); otherwise nothing is written and each value is named with a way to give it.
void refuse_borrowed(const Calibration &c, const std::string &borrow) {
  if (!borrow.empty() && borrow != kBorrowableFile)
    throw InputError(fmt::format("unknown file '{}'", borrow), "--borrow",
                     fmt::format("give --borrow {} (Calculon's systems/{}.json, the only other "
                                 "GPU's file railgauge knows), or leave --borrow out",
                                 kBorrowableFile, kBorrowableFile));
  const auto borrowed = borrowed_values(c);
  if (!borrow.empty() || borrowed.empty())
    return;
  std::vector<std::string> names;
  bool network = false;
  for (const auto &v : borrowed) {
    names.push_back(v.name);
    network = network || v.name.starts_with("networks.");
  }
  // Collectives of one rank were read and set aside: the runs hold no network tier because of
  // how they were launched, which the user fixes with more ranks, not with another GPU's file.
  int one_rank = 0;
  for (const auto &[why, n] : c.samples.skipped_by_why)
    if (why.starts_with("a group of one rank"))
      one_rank += n;
  const std::string launch =
      network && one_rank > 0
          ? fmt::format("; the runs' {} collective record(s) are of a group of one rank, which "
                        "measure no network: run the collectives over 2 or more GPUs of a node "
                        "for networks.0 (mpirun -np 8 railgauge collectives) and over 2 or more "
                        "nodes for networks.1",
                        one_rank)
          : std::string();
  throw InputError(
      fmt::format("{} value(s) would come from another GPU's file (Calculon's {}.json, an "
                  "A100): {}",
                  borrowed.size(), kBorrowableFile, fmt::join(names, ", ")),
      "calibrate (not measured in the runs given, and no spec figure for their GPU)",
      fmt::format("measure them, give each with --assume KEY=VALUE (an efficiency table as "
                  "KEY.efficiency=E, e.g. --assume {}=...), or pass --borrow {} to write the "
                  "A100's figures, listed at the top of the fit report{}",
                  names.front(), kBorrowableFile, launch));
}

// Whole file or nothing: written beside, then renamed over.
void write_file(const fs::path &path, const std::string &text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    if (!f)
      throw InputError(fmt::format("cannot write '{}'", tmp.string()), "--out",
                       "give a directory you can write to");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    throw InputError(fmt::format("cannot rename '{}': {}", tmp.string(), ec.message()), "--out",
                     "give a directory you can write to");
}

int run_calibrate(const CalibrateCommandOptions &o) {
  if (o.runs.empty())
    throw InputError("no run directories", "calibrate",
                     "give one or more run directories: railgauge calibrate RUN... --out DIR");
  if (o.out.empty())
    throw InputError("no output directory", "--out", "give --out DIR");
  CalibrateOptions opt;
  if (o.mode == "no_overlap")
    opt.mode = ProcessingMode::no_overlap;
  else if (o.mode == "roofline")
    opt.mode = ProcessingMode::roofline;
  else if (o.mode != "auto")
    throw InputError(fmt::format("unknown processing mode '{}'", o.mode), "--processing-mode",
                     "give auto (the one the GEMM records fit better), no_overlap (Calculon adds "
                     "memory time to compute time) or roofline (the larger of the two)");
  if (o.max_steps < 1 || o.max_steps > 32)
    throw InputError(fmt::format("--max-steps {} is outside 1..32", o.max_steps), "--max-steps",
                     "give a number of table rows from 1 to 32");
  if (o.folds < 2 || o.folds > 100)
    throw InputError(fmt::format("--folds {} is outside 2..100", o.folds), "--folds",
                     "give k from 2 to 100");
  opt.max_steps = o.max_steps;
  opt.folds = o.folds;
  opt.seed = o.seed;
  const auto assumptions = Assumptions::parse(o.assume);
  const auto execution = execution_of(o);

  const RunSet runs = load_runs(o.runs);
  for (const auto &p : runs.problems)
    std::cerr << "railgauge: warning: " << p << '\n';
  const Calibration c = o.mode == "auto" ? calibrate_choosing_mode(runs, assumptions, opt)
                                         : railgauge::calibrate::calibrate(runs, assumptions, opt);
  refuse_mixed_hardware(runs, c.samples, o.allow_mixed);
  refuse_borrowed(c, o.borrow);
  refuse_unused_assumptions(c, assumptions);
  if (c.samples.used_by_key.empty())
    throw InputError(fmt::format("none of the {} records can be calibrated from ({} not ok, {} "
                                 "unusable)",
                                 runs.record_count(), c.samples.ignored_status.size(),
                                 c.samples.skipped.size()),
                     o.runs.front(),
                     "give runs with ok gemm.*, memory.*, offload.*, collectives.* or rdma.* "
                     "records");

  const auto system = calculon_system(c);
  if (const auto problems = calculon_problems(system); !problems.empty()) {
    for (const auto &p : problems)
      std::cerr << "railgauge: internal error: Calculon file: " << p << '\n';
    return code(ExitStatus::internal);
  }
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec)
    throw InputError(fmt::format("cannot create '{}': {}", o.out, ec.message()), "--out",
                     "give a directory you can write to");
  const fs::path dir(o.out);
  auto report = fit_report_json(c, execution ? &*execution : nullptr);
  // block.transformer_tp records, predicted from the coefficients (never fitted on).
  report["block_predictions"] = to_json(predict_blocks(runs, c));
  const std::string markdown =
      fit_report_markdown(report) + block_prediction_markdown(report["block_predictions"]);
  write_file(dir / "coefficients.json", coefficient_file(c).dump(2) + "\n");
  write_file(dir / "calculon_system.json", system.dump(2) + "\n");
  write_file(dir / "astra_network.yml", astra_network_yaml(c));
  write_file(dir / "fit_report.json", report.dump(2) + "\n");
  write_file(dir / "fit_report.md", markdown);
  std::cout << markdown
            << fmt::format("\nWrote coefficients.json, calculon_system.json, astra_network.yml, "
                           "fit_report.json and fit_report.md to {}\n",
                           dir.string());
  // What the model will take as fact without a measurement behind it: said on the console too,
  // not only in the report's table.
  std::vector<std::string> assumed;
  for (const auto &a : report["not_measured"])
    assumed.push_back(a["name"].get<std::string>());
  if (!assumed.empty())
    std::cerr << fmt::format("railgauge: warning: {} value(s) in the written files are assumed, "
                             "not measured (fit_report.md, \"Not measured\"): {}\n",
                             assumed.size(), fmt::join(assumed, ", "));
  return 0;
}

} // namespace

void add_calibrate_command(CLI::App &app, int &exit_code) {
  auto o = std::make_shared<CalibrateCommandOptions>();
  auto *cmd = app.add_subcommand(
      "calibrate", "Fit model coefficients (GEMM, memory, offload, network α/β) from run "
                   "directories; write railgauge's coefficient file, a Calculon system file, an "
                   "ASTRA-sim network file and a fit report with held-out errors");
  cmd->add_option("runs", o->runs,
                  "Run directories, directories holding many, or records.jsonl files");
  cmd->add_option("--out", o->out, "Directory that receives the five output files");
  cmd->add_option("--assume", o->assume,
                  "KEY=VALUE for what the runs did not measure (Calculon paths: "
                  "matrix.float16.tflops, mem1.GBps, networks.0.bandwidth, ...); "
                  "see docs/calibrate.md");
  cmd->add_option("--processing-mode", o->mode,
                  "Calculon processing_mode: auto (the mode whose GEMM tables predict "
                  "held-out points better), no_overlap (compute efficiency after taking the "
                  "memory time out) or roofline (the larger of compute and memory time)")
      ->capture_default_str();
  cmd->add_option("--max-steps", o->max_steps, "Most rows of a fitted efficiency table")
      ->capture_default_str();
  cmd->add_option("--folds", o->folds, "k of the k-fold held-out error")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the fold assignment")->capture_default_str();
  cmd->add_option("--execution", o->execution,
                  "A Calculon execution file (examples/*.json): the report also weights each "
                  "coefficient set's held-out error by the sizes it asks for (with --model)");
  cmd->add_option("--model", o->model, "A Calculon model file (models/*.json) for --execution");
  cmd->add_option("--borrow", o->borrow,
                  "a100_80g: fill what was neither measured, given (--assume) nor in the GPU's "
                  "spec table with Calculon's A100 figures (systems/a100_80g.json); refused "
                  "without it");
  cmd->add_flag("--allow-mixed", o->allow_mixed,
                "Fit runs of different hardware together (CPU and GPU, or two GPU models); "
                "refused without it");
  cmd->callback([o, &exit_code] { exit_code = exit_status_of([&] { return run_calibrate(*o); }); });
}

} // namespace railgauge::analysis
