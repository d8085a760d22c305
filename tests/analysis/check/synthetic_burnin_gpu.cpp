// The synthetic burn-in node of burnin_gpu_test.cpp (synthetic_burnin_gpu.h): each phase's
// records written by the burn-in's own writers from made-up per-GPU figures.
#include "synthetic_burnin_gpu.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "gemm/cuda/burn.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_telemetry.h"
#include "memory/cuda/hbm_burn.h"
#include "memory/cuda/hbm_pattern.h"
#include "memory/cuda/peer_copy.h"
#include "synthetic_fleet.h"
#include "tests/support/outcome_record.h"

namespace railgauge::check::testing {
namespace {

using nlohmann::json;

std::string pci(int gpu) { return gpu_bus_id(gpu); }

// A GPU monitor's summary of 60 s under load at 20 Hz: power-capped (sw_power_cap) half the
// time at ~1,700 MHz, as the committed H200 GEMM records show; `hw_thermal` adds HW thermal
// slowdown to that share of the samples.
// An H200's 18 NVLinks' error counters as the telemetry snapshot holds them (one list per
// counter, indexed by link), link 7 having counted `link7_flit_crc` flit CRC errors.
json nvlink_counters(int link7_flit_crc) {
  json zeros = json::array();
  for (int link = 0; link < 18; ++link)
    zeros.push_back(0);
  json per_link = {
      {"crc_flit", zeros}, {"crc_data", zeros}, {"replay", zeros}, {"recovery", zeros}};
  per_link["crc_flit"][7] = link7_flit_crc;
  return per_link;
}

// A snapshot before or after a phase: NVML's counters and the kernel log's Xids for the GPU, and
// its NVLink error counters where `nvlink` holds them (nvlink_counters).
json snapshot(std::uint64_t last_seq, json xids, bool cotenant = false, json nvlink = nullptr) {
  // NVML lists this process on every GPU it burns, and a co-tenant beside it where there is one.
  json processes = json::array({{{"pid", static_cast<unsigned>(getpid())},
                                 {"name", "railgauge"},
                                 {"used_memory_bytes", 4u << 30}}});
  if (cotenant)
    processes.push_back(
        {{"pid", 31337u}, {"name", "cotenant_spin"}, {"used_memory_bytes", 1u << 30}});
  json nvlink_totals = nullptr;
  if (nvlink.is_object())
    nvlink_totals = {
        {"crc_flit", nvlink["crc_flit"][7]}, {"crc_data", 0}, {"replay", 0}, {"recovery", 0}};
  return {{"nvlink_errors", nvlink_totals},
          {"nvlink_errors_per_link", nvlink},
          {"compute_processes", processes},
          {"pcie_replay_count", 0},
          {"pcie_aer",
           {{"available", true},
            {"correctable", {{"TOTAL_ERR_COR", 0}}},
            {"nonfatal", {{"TOTAL_ERR_NONFATAL", 0}}},
            {"fatal", {{"TOTAL_ERR_FATAL", 0}}}}},
          {"throttled", false},
          {"ecc_uncorrected_volatile", 0},
          {"ecc_corrected_volatile", 0},
          {"remapped_rows_uncorrectable", 0},
          {"remapped_rows_correctable", 0},
          {"remapped_rows_pending", 0},
          {"remapped_rows_failure", 0},
          {"kernel_log", {{"available", true}, {"last_seq", last_seq}, {"xids", xids}}}};
}

// `nvlink_errors`: the flit CRC errors NVLink 7 counted during the phase; negative, a GPU
// without NVLink counters (one GPU alone, or a phase that does not read them here).
json telemetry(double hw_thermal_share, bool xid = false, bool cotenant = false,
               int nvlink_errors = -1) {
  std::vector<GpuSample> samples;
  for (int i = 0; i < 1200; ++i) {
    GpuSample s;
    s.t_s = i * 0.05;
    const bool capped = i % 2 == 0, hot = i < hw_thermal_share * 1200;
    s.sm_clock_mhz = capped ? 1650 : 1755;
    s.mem_clock_mhz = 3201;
    s.power_w = capped ? 699 : 655;
    s.temperature_c = hot ? 87 : 62;
    s.clocks_event_reasons = (capped ? 0x4 : 0x0) | (hot ? 0x40 : 0x0);
    s.pcie_gen = 5; // the link sampled under load, as the committed H200 burn-ins read it
    s.pcie_width = 16;
    samples.push_back(s);
  }
  GpuCounters start, end;
  start.power_limit_w = 700;
  start.energy_mj = 0;
  end.energy_mj = 40'620'000; // 677 W over 60 s
  const json xids =
      xid ? json::array({{{"seq", 900}, {"xid", 48}, {"text", "Xid 48"}}}) : json::array();
  const auto links = [&](int count) {
    return nvlink_errors < 0 ? json(nullptr) : nvlink_counters(count);
  };
  return telemetry_pair(snapshot(100, json::array(), cotenant, links(3)),
                        summarize_gpu_samples(samples, 60, start, end),
                        snapshot(1000, xids, cotenant, links(3 + nvlink_errors)));
}

// NVLink errors a GPU counted in a healthy phase: none on a node, unread (no links) on one GPU.
int links_of(int gpus) { return gpus == 1 ? -1 : 0; }

Record record_of(const std::string &key, json params, const Outcome &o) {
  return railgauge::testing::outcome_record("burnin-run", kBurninHost, key, std::move(params), o,
                                            "2026-11-26T12:00:00.000Z");
}

// One H200's HBM pattern test: 98% of its free memory written and checked, 4 rounds.
memory::HbmPatternGpuResult pattern_tested(int g, int gpus, const Sick &sick) {
  memory::HbmPatternGpuResult p;
  p.gpu = g;
  p.name = "NVIDIA H200";
  p.uuid = uuid(g);
  p.pci = pci(g);
  p.free_memory_bytes = 149'000'000'000;
  p.margin_bytes = 2'980'000'000;
  p.covered_bytes = g == sick.pattern_short_gpu ? 126'650'000'000 : 146'020'000'000;
  p.chunks = 136;
  p.rounds = 4;
  p.pattern_time_s = 1.2;
  p.telemetry = telemetry(0.0, false, false, links_of(gpus));
  if (g == sick.pattern_error_gpu) {
    p.wrong_words = 1;
    p.wrong_words_by_pattern[static_cast<int>(memory::HbmPattern::address)] = 1;
    memory::HbmPatternBadWord w;
    w.address = 0x7f4a00001040;
    w.expected = w.address;
    w.read = w.address ^ (1ull << 17);
    w.pattern = static_cast<std::int32_t>(memory::HbmPattern::address);
    p.bad_words.push_back(w);
  }
  return p;
}

// The FP64 and TF32 burns after the bf16 one (`gemm_gpus`), 30 s each, at one healthy H200's
// figures (results/reference/h200-burnin-2026-11-28), and the FP64 burn below its power limit,
// which no rule asks it to reach.
std::vector<Record> dtype_burns(const std::vector<gemm::BurnGpuResult> &gemm_gpus,
                                const Sick &sick) {
  std::vector<Record> records;
  for (const auto &[dtype, tflops] : {std::pair{"fp64", 60.52}, std::pair{"tf32", 353.3}}) {
    std::vector<gemm::BurnGpuResult> burns = gemm_gpus;
    for (auto &b : burns) {
      b.tflops = tflops * (b.index == sick.lone_gpu ? sick.dtype_gemm_factor : 1.0);
      b.tflops_min = 0.97 * tflops;
      b.bad_iterations = 0;
      b.mismatched_elements = 0;
      b.elapsed_s = 30.01; // planned 30 s, below
      if (std::string(dtype) == "fp64") {
        b.telemetry["during"]["power_w"]["median"] = 540.0;
        if (b.index == sick.fp64_corrupt_gpu) {
          b.bad_iterations = 1;
          b.first_bad_iteration = 811;
          b.mismatched_elements = 2;
        }
      }
    }
    records.push_back(record_of(
        "gemm.burn",
        {{"dtype", dtype}, {"m", 8192}, {"layout", "nt"}, {"duration_s", 30.0}, {"gpu", -1}},
        gemm::burn_outcome(burns, 2.0 * 8192 * 8192 * 8192)));
  }
  return records;
}

// Each GPU's figures in the burn-in's phases, healthy but for `sick`.
struct GpuFigures {
  std::vector<gemm::BurnGpuResult> gemm;
  std::vector<memory::HbmBurnGpuResult> hbm;
  std::vector<memory::HbmPatternGpuResult> pattern;
  json h2d = json::array(), d2h = json::array();
};

// One GPU's part of a copy every GPU made to or from the host at `gbytes_per_s`, on a Gen5 x16
// link (57.61 GB/s expected).
json host_copy(int g, double gbytes_per_s, int gpus, const Sick &sick) {
  return {{"gpu", g},
          {"uuid", uuid(g)},
          {"pci", pci(g)},
          {"bandwidth_gbytes_per_s", gbytes_per_s},
          {"expected_gbytes_per_s", 57.614},
          {"efficiency", gbytes_per_s / 57.614},
          {"pcie_link_downtrained", false},
          {"telemetry", telemetry(0.0, g == sick.copy_xid_gpu, false, links_of(gpus))}};
}

GpuFigures gpu_figures(int gpus, const Sick &sick) {
  GpuFigures out;
  for (int g = 0; g < gpus; ++g) {
    const double slow = g == sick.slow_gpu ? 0.85 : 1.0;
    const double spread = 1.0 + 0.004 * ((g * 3) % 5 - 2); // healthy parts differ by ~1%
    gemm::BurnGpuResult b;
    b.index = g;
    b.name = "NVIDIA H200";
    b.uuid = uuid(g);
    b.pci = pci(g);
    b.iterations = 9000;
    b.elapsed_s = 180.02; // the loop ends past its plan (180 s, below)
    b.reference_checked = 4096;
    const bool lone = g == sick.lone_gpu;
    // sustained at the power cap: the healthy H200 of results/reference/h200-burnin-2026-11-27
    b.tflops = 717.0 * spread * slow * (lone ? sick.gemm_factor : 1.0);
    b.tflops_min = b.tflops * 0.97;
    b.telemetry =
        telemetry(g == sick.hot_gpu ? 0.3 : 0.0, g == sick.xid_gpu, g == sick.cotenant_gpu,
                  gpus == 1 ? -1 : (g == sick.nvlink_gpu ? 12 : 0));
    if (g == sick.corrupt_gpu) {
      b.bad_iterations = 3;
      b.first_bad_iteration = 4711;
      b.mismatched_elements = 17;
    }
    out.gemm.push_back(b);
    memory::HbmBurnGpuResult h;
    h.gpu = g;
    h.name = "NVIDIA H200";
    h.uuid = uuid(g);
    h.pci = pci(g);
    h.bandwidth_gbytes_per_s = 4273.9 * spread * slow * (lone ? sick.hbm_factor : 1.0); // same run
    h.calls = 40000;
    h.elapsed_s = 90.01; // planned 90 s, below
    h.elements = 1 << 27;
    h.telemetry = telemetry(0.0, false, false, links_of(gpus));
    out.hbm.push_back(h);
    out.pattern.push_back(pattern_tested(g, gpus, sick));
    // 55.47 GB/s of the 57.61 a Gen5 x16 link is expected to carry (the same run)
    const double copy = 55.47 * spread * (sick.copies_half_slow && g >= 4 ? 0.75 : 1.0);
    out.h2d.push_back(host_copy(g, copy * (lone ? sick.h2d_factor : 1.0), gpus, sick));
    out.d2h.push_back(host_copy(g, copy * (lone ? sick.d2h_factor : 1.0), gpus, sick));
  }
  return out;
}

// A healthy node's inventory (synthetic_fleet.h), its GPUs H200s; one GPU alone has no NVLink.
json h200_inventory(int gpus) {
  json inventory = fleet_inventory(1, gpus, {});
  for (auto &gpu : inventory["nvml"]["gpus"]) {
    gpu["name"] = "NVIDIA H200";
    gpu["uuid"] = uuid(gpu["index"].get<int>());
    if (gpus == 1)
      gpu["nvlink"] = nullptr;
  }
  return inventory;
}

// A healthy node's peer copies, its GPUs' telemetry with NVLink counters; one GPU alone has no
// peer, and the point is waived.
Outcome peer_copies(int gpus) {
  if (gpus < 2)
    return Outcome::waived(*memory::peer_copy_waiver({0}, {}));
  auto run = peer_copy_pairs("NVIDIA H200", gpus);
  for (auto &g : run.gpus)
    g.telemetry = telemetry(0.0, false, false, 0);
  return memory::peer_copy_outcome(run);
}

// One process drives every GPU (the burn-in without a launcher): its telemetry per GPU.
Record all_reduce_record(int gpus, const Sick &sick) {
  std::vector<json> windows;
  std::vector<std::string> uuids;
  for (int g = 0; g < gpus; ++g) {
    windows.push_back(telemetry(0.0, g == sick.nccl_xid_gpu, false, links_of(gpus)));
    uuids.push_back(uuid(g));
  }
  Outcome o;
  o.metrics = {{"busbw_gbytes_per_s", gpus == 8 ? 478.0 : 0.0},
               {"verified", true},
               {"telemetry", gpus_telemetry(std::move(windows), uuids)}};
  return record_of(
      "collectives.nccl_all_reduce",
      {{"size_bytes", std::int64_t{16} << 30}, {"world_size", gpus}, {"dtype", "float32"}}, o);
}

} // namespace

// A whole run by its run.json: every planned point has its record (the per-GPU parts that
// check reads beside them are not the run's records, and must not count as more).
void count_points(analysis::LoadedRun &run) {
  run.manifest["points_planned"] = run.records.size();
  run.manifest["counts"] = json::object();
  for (const auto &r : run.records)
    run.manifest["counts"][std::string(to_string(r.status))] =
        run.manifest["counts"].value(std::string(to_string(r.status)), 0) + 1;
}

memory::PeerCopyRun peer_copy_pairs(const std::string &name, int gpus, int slow_gpu,
                                    double slow_factor) {
  memory::PeerCopyRun run;
  for (int g = 0; g < gpus; ++g)
    run.gpus.push_back({g, name, uuid(g), pci(g), 14.0, nullptr, std::nullopt});
  for (int s = 0; s < gpus; ++s)
    for (int d = 0; d < gpus; ++d)
      if (s != d) {
        memory::PeerCopyPair p;
        p.src = s;
        p.dst = d;
        p.peer_access = true;
        // healthy pairs differ by ~0.2% (an H800's write CE pairs: 175.99-176.20 GB/s)
        p.bandwidth_gbytes_per_s =
            376.0 * (1.0 + 0.001 * ((s * 3 + d) % 5 - 2)) * (s == slow_gpu ? slow_factor : 1.0);
        p.bandwidth_min_gbytes_per_s = 0.995 * p.bandwidth_gbytes_per_s;
        p.copies = 8;
        p.words = (std::uint64_t{256} << 20) / 8;
        run.pairs.push_back(p);
      }
  return run;
}

std::string uuid(int gpu) { return "GPU-0000000" + std::to_string(gpu); }

analysis::RunSet burnin_node(int gpus, const Sick &sick) {
  const GpuFigures figures = gpu_figures(gpus, sick);
  analysis::LoadedRun run;
  run.dir = "burnin-run";
  run.manifest = {{"host", kBurninHost},
                  {"run", "burnin-run"},
                  {"status", "complete"},
                  {"inventory", h200_inventory(gpus)}};
  run.records.push_back(record_of(
      "gemm.burn",
      {{"dtype", "bf16"}, {"m", 8192}, {"layout", "nt"}, {"duration_s", 180.0}, {"gpu", -1}},
      gemm::burn_outcome(figures.gemm, 2.0 * 8192 * 8192 * 8192)));
  for (auto &r : dtype_burns(figures.gemm, sick))
    run.records.push_back(std::move(r));
  run.records.push_back(record_of("memory.burn",
                                  {{"size_bytes", 1 << 30}, {"duration_s", 90.0}, {"gpu", -1}},
                                  memory::hbm_burn_outcome(figures.hbm)));
  run.records.push_back(record_of("memory.pattern",
                                  {{"rounds", 4}, {"gpu", -1}, {"inject_faults", 0}},
                                  memory::hbm_pattern_outcome(figures.pattern)));
  for (const char *key : {"offload.all_gpus_h2d", "offload.all_gpus_d2h"}) {
    Outcome o;
    o.metrics = {{"per_gpu", std::string(key).ends_with("h2d") ? figures.h2d : figures.d2h},
                 {"bandwidth_gbytes_per_s", 53.0 * gpus},
                 {"verified", true}};
    run.records.push_back(record_of(key, {{"size_bytes", 1 << 30}}, o));
  }
  run.records.push_back(record_of("memory.peer_copy",
                                  {{"size_bytes", std::int64_t{256} << 20}, {"repetitions", 8}},
                                  peer_copies(gpus)));
  run.records.push_back(all_reduce_record(gpus, sick));
  count_points(run);
  analysis::RunSet set;
  set.runs.push_back(std::move(run));
  return set;
}

} // namespace railgauge::check::testing
