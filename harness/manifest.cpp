#include "harness/manifest.h"
#include "harness/run_fields.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <benchmark/benchmark.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <hwloc.h>
#include <yaml-cpp/yaml.h>

#include "harness/error.h"
#include "harness/node_name.h"
#include "harness/record.h"
#include "harness/source_commit.h"
#include "railgauge/config.h"

namespace railgauge {
namespace fs = std::filesystem;

std::string this_host_name() {
  const std::string name = this_node_name();
  return name.empty() ? "unknown-host" : name;
}

namespace {

// The fix for a directory that could not be made, by its cause: "give --out a directory you can
// write" was the advice for a run id too long for a file name too, where no --out would help.
std::string creation_fix(const std::error_code &ec) {
  switch (ec.value()) {
  case ENAMETOOLONG:
    return "give --out a shorter path, or give a shorter host name: the run directory's name "
           "carries it (a group of many hosts is named by its first and a digest)";
  case ENOSPC:
  case EDQUOT:
    return "free space (or inodes, or quota) on the file system of --out, or give --out another";
  case EROFS:
    return "give --out a directory on a file system mounted read-write";
  default:
    return "give --out a directory you can write";
  }
}

} // namespace

RunIdentity create_run_directory(const std::string &out, const std::string &host, int rank) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec)
    throw InputError(fmt::format("cannot create the output directory: {}", ec.message()), out,
                     creation_fix(ec));
  if (::access(out.c_str(), W_OK | X_OK) != 0)
    throw InputError(fmt::format("the output directory is not writable: {}", std::strerror(errno)),
                     out, "give --out a directory you can write");

  // The process id keeps two runs started in the same second on one host apart (a job step's
  // gemm and collectives runs into two --out directories); the -2, -3 suffix below, two runs of
  // one process in the same second and directory.
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  const std::string base =
      fmt::format("{:%Y-%m-%dT%H-%M-%SZ}-{}-{}", fmt::gmtime(now), host, ::getpid());
  for (int attempt = 1; attempt < 1000; ++attempt) {
    const std::string id = attempt == 1 ? base : fmt::format("{}-{}", base, attempt);
    const fs::path dir = fs::path(out) / id;
    if (fs::create_directory(dir, ec))
      return {id, host, rank, dir.string()};
    if (ec)
      throw InputError(fmt::format("cannot create the run directory: {}", ec.message()),
                       dir.string(), creation_fix(ec));
  }
  throw InputError("too many runs started in the same second", out, "wait a second and retry");
}

Manifest::Manifest(const RunIdentity &id, const std::vector<std::string> &argv) : dir_(id.dir) {
  nlohmann::json backends = nlohmann::json::object();
  for (const auto &b : config::kBackends)
    backends[b.name] = b.enabled;
  data_ = {
      {run_field::kSchema, kRunSchema},
      {run_field::kRun, id.run_id},
      {run_field::kHost, id.host},
      {run_field::kRank, id.rank},
      {run_field::kArgv, argv},
      {run_field::kCwd, fs::current_path().string()},
      {run_field::kStartUtc, utc_timestamp_now()},
      {run_field::kEndUtc, nullptr},
      {run_field::kStatus, run_field::kRunning},
      {run_field::kCounts, nlohmann::json::object()},
      {run_field::kRailgauge,
       {{run_field::kVersion, RAILGAUGE_VERSION},
        {run_field::kCompiler, RAILGAUGE_COMPILER},
        {run_field::kBackends, backends},
        {run_field::kCudaArchitectures, RAILGAUGE_CUDA_ARCHITECTURES},
        {run_field::kCudaToolkit, RAILGAUGE_CUDA_TOOLKIT_VERSION},
        {run_field::kSourceCommit, source_commit().empty()
                                       ? nlohmann::json(nullptr)
                                       : nlohmann::json(std::string(source_commit()))},
        {run_field::kSourceDirty,
         source_commit().empty() ? nlohmann::json(nullptr) : nlohmann::json(source_dirty())}}},
      {run_field::kLibraries,
       {{"hwloc",
         fmt::format("{}.{}.{}", hwloc_get_api_version() >> 16,
                     (hwloc_get_api_version() >> 8) & 0xff, hwloc_get_api_version() & 0xff)}}},
  };
}

Manifest Manifest::load(const std::string &dir) {
  const std::string path = (fs::path(dir) / "run.json").string();
  const std::string fix = "give --resume the run directory <out>/<run-id> that holds run.json";
  std::ifstream in(path);
  if (!in)
    throw InputError(fmt::format("cannot read the run manifest: {}", std::strerror(errno)), path,
                     fix);
  auto data = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (data.is_discarded() || !data.is_object())
    throw InputError("the run manifest is not a JSON object", path, fix);
  if (!data.contains(run_field::kSchema) || data[run_field::kSchema] != kRunSchema)
    throw InputError(fmt::format("the run manifest's schema is not {}", kRunSchema), path, fix);
  return Manifest(dir, std::move(data));
}

void Manifest::write() const {
  const fs::path final_path = fs::path(dir_) / "run.json";
  const fs::path tmp_path = fs::path(dir_) / "run.json.tmp";
  {
    std::ofstream out(tmp_path);
    // Invalid UTF-8 (a device name from sysfs, a topology file) is replaced, never thrown:
    // the manifest must be written whatever its strings hold.
    out << data_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out.flush();
    if (!out)
      throw BackendError(fmt::format("{}: cannot write the run manifest", tmp_path.string()));
  }
  std::error_code ec;
  fs::rename(tmp_path, final_path, ec);
  if (ec)
    throw BackendError(
        fmt::format("{}: cannot replace the run manifest: {}", final_path.string(), ec.message()));
}

void Manifest::finish(const std::string &status, const std::map<std::string, int> &counts) {
  data_[run_field::kEndUtc] = utc_timestamp_now();
  data_[run_field::kStatus] = status;
  data_[run_field::kCounts] = counts;
  write();
}

} // namespace railgauge
