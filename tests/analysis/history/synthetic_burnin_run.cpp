// The synthetic burn-in runs of history_test.cpp (synthetic_burnin_run.h), written by the real
// record writers.
#include "synthetic_burnin_run.h"

#include <cmath>
#include <fstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gemm/cuda/burn.h"
#include "harness/manifest.h"
#include "harness/run_fields.h"
#include "memory/cuda/hbm_burn.h"
#include "tests/analysis/check/synthetic_fleet.h"
#include "tests/support/outcome_record.h"

namespace railgauge::history {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string uuid_of(int gpu, const BurnIn &b) {
  return gpu == 1 ? b.gpu1_uuid : "GPU-0000000" + std::to_string(gpu);
}

std::string serial_of(int gpu, const BurnIn &b) {
  return gpu == 1 ? b.gpu1_serial : "SN-0000000" + std::to_string(gpu);
}

// A small, repeatable wobble of +-0.2 % (healthy parts are not equal from run to run).
double wobble(int run, int gpu) { return 1.0 + 0.002 * std::sin(run * 1.7 + gpu * 2.3); }

Record record_of(const std::string &run_id, int rank, const std::string &key, json params,
                 const Outcome &o, int day) {
  auto r = railgauge::testing::outcome_record(run_id, kBurninHost, key, std::move(params), o,
                                              fmt::format("2026-11-{:02d}T12:00:00.000Z", day));
  r.rank = rank;
  return r;
}

// One rank's directory of the run: its run.json and its two burn records.
void write_rank(const fs::path &dir, const std::string &run_id, int rank, const BurnIn &b,
                const std::vector<gemm::BurnGpuResult> &gemm_gpus,
                const std::vector<memory::HbmBurnGpuResult> &hbm_gpus) {
  const RunIdentity id{run_id, kBurninHost, rank, dir.string()};
  fs::create_directories(id.dir);
  Manifest manifest(id, {"railgauge", "run", "burnin-gpu"});
  json inventory = check::testing::fleet_inventory(1, 8, {});
  for (auto &gpu : inventory["nvml"]["gpus"]) {
    gpu["name"] = "NVIDIA H200";
    gpu["uuid"] = uuid_of(gpu["index"].get<int>(), b);
    if (b.serials)
      gpu["serial"] = serial_of(gpu["index"].get<int>(), b);
  }
  manifest.data()["inventory"] = inventory;
  manifest.data()["suite"] = {{"name", "burnin-gpu"}};
  manifest.data()["start_utc"] = fmt::format("2026-11-{:02d}T11:00:00.000Z", b.run);
  manifest.write();
  std::ofstream records(fs::path(id.dir) / "records.jsonl");
  records << record_of(run_id, rank, "gemm.burn",
                       {{"dtype", "bf16"}, {"m", 8192}, {"layout", "nt"}, {"gpu", -1}},
                       gemm::burn_outcome(gemm_gpus, 2.0 * 8192 * 8192 * 8192), b.run)
                 .json_line()
          << '\n'
          << record_of(run_id, rank, "memory.burn", {{"size_bytes", 1 << 30}, {"gpu", -1}},
                       memory::hbm_burn_outcome(hbm_gpus), b.run)
                 .json_line()
          << '\n';
  // Ended as the runner ends a run whose every point wrote its record: complete. An unfinished
  // run.json says "running", which check fails on run-complete.
  if (b.interrupted) {
    manifest.data()[run_field::kInterrupted] = "SIGTERM";
    manifest.finish(run_field::kInterruptedStatus, {});
  } else if (!b.unfinished) {
    manifest.finish(run_field::kComplete, {});
  }
}

} // namespace

std::string write_burnin(const fs::path &out, const BurnIn &b) {
  const std::string run_id = fmt::format("burnin-{:02d}", b.run);
  std::vector<gemm::BurnGpuResult> gemm_gpus;
  std::vector<memory::HbmBurnGpuResult> hbm_gpus;
  for (int g = 0; g < 8; ++g) {
    const double loss = g == b.drifting_gpu ? std::pow(0.995, b.run - 1) : 1.0;
    gemm::BurnGpuResult x;
    x.index = g;
    x.name = "NVIDIA H200";
    x.uuid = uuid_of(g, b);
    x.pci = check::testing::gpu_bus_id(g);
    x.iterations = 9000;
    x.reference_checked = 4096;
    // the healthy H200 of results/reference/h200-burnin-2026-11-27, sustained at its power cap
    x.tflops = 717.0 * wobble(b.run, g) * loss;
    x.tflops_min = x.tflops * 0.97;
    if (b.corrupt && g == 2) {
      x.bad_iterations = 3;
      x.first_bad_iteration = 4711;
      x.mismatched_elements = 17;
    }
    gemm_gpus.push_back(x);
    memory::HbmBurnGpuResult h;
    h.gpu = g;
    h.name = "NVIDIA H200";
    h.uuid = x.uuid;
    h.pci = x.pci;
    h.bandwidth_gbytes_per_s = 4273.9 * wobble(b.run, g + 8);
    h.calls = 40000;
    h.elements = 1 << 27;
    hbm_gpus.push_back(h);
  }
  for (int rank = 0; rank < b.ranks; ++rank)
    write_rank(b.ranks == 1 ? out / run_id : out / run_id / fmt::format("rank-{:05d}", rank),
               run_id, rank, b, gemm_gpus, hbm_gpus);
  return (out / run_id).string();
}

} // namespace railgauge::history
