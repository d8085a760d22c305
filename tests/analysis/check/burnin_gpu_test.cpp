// The GPU burn-in judged per GPU: synthetic H200 nodes whose records come from the burn-in's own
// writers (gemm::burn_outcome, memory::hbm_burn_outcome, the GPU monitor's summary), with made-up
// figures typical of a healthy H200 (from the committed reference runs; never a measurement),
// judged by the shipped h200-sxm profiles through evaluate(), which reads each GPU of a
// point that ran on every GPU at once as a part of its own. A GPU that a co-tenant slows, one
// that throttles for heat, and one that corrupts data are each named; a healthy node passes.
#include <set>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "analysis/check/auto_profile.h"
#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "gemm/cuda/burn.h"
#include "harness/error.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_telemetry.h"
#include "memory/cuda/hbm_burn.h"
#include "memory/cuda/hbm_pattern.h"
#include "railgauge/config.h"
#include "records/per_gpu_parts.h"
#include "synthetic_fleet.h"
#include "tests/support/outcome_record.h"
#include "tests/support/shipped_data.h"

namespace railgauge::check {
namespace {

using nlohmann::json;

constexpr const char *kHost = "h200node";

struct Sick {
  int slow_gpu = -1; // a co-tenant holds some of this GPU's SMs: GEMM and HBM 15% slower
  // One figure of one GPU this much below healthy (1.0: healthy), the rest of the GPU healthy.
  int lone_gpu = -1;
  double gemm_factor = 1.0, hbm_factor = 1.0, h2d_factor = 1.0;
  int hot_gpu = -1;      // this GPU spent 30% of the window under HW thermal slowdown
  int corrupt_gpu = -1;  // this GPU's GEMM results differed from the first (SDC)
  int xid_gpu = -1;      // the kernel logged an Xid 48 (double-bit ECC) for this GPU mid-burn
  int copy_xid_gpu = -1; // ... for this GPU while every GPU copied to and from the host
  int nccl_xid_gpu = -1; // ... for this GPU during the all_reduce
  int cotenant_gpu = -1; // another process held a context on this GPU during the GEMM burn
  bool copies_half_slow = false; // GPUs 4-7 copy to the host 25% slower (one PCIe switch)
  int pattern_error_gpu = -1;    // the HBM pattern test found one wrong word on this GPU
  int pattern_short_gpu = -1;    // ... covered only 85% of this GPU's free memory
  int fp64_corrupt_gpu = -1;     // this GPU's FP64 GEMM results differed from the first
};

std::string uuid(int gpu) { return "GPU-0000000" + std::to_string(gpu); }
std::string pci(int gpu) { return testing::gpu_bus_id(gpu); }

// A GPU monitor's summary of 60 s under load at 20 Hz: power-capped (sw_power_cap) half the
// time at ~1,700 MHz, as the committed H200 GEMM records show; `hw_thermal` adds HW thermal
// slowdown to that share of the samples.
// A snapshot before or after a phase: NVML's counters and the kernel log's Xids for the GPU.
json snapshot(std::uint64_t last_seq, json xids, bool cotenant = false) {
  // NVML lists this process on every GPU it burns, and a co-tenant beside it where there is one.
  json processes = json::array({{{"pid", static_cast<unsigned>(getpid())},
                                 {"name", "railgauge"},
                                 {"used_memory_bytes", 4u << 30}}});
  if (cotenant)
    processes.push_back(
        {{"pid", 31337u}, {"name", "cotenant_spin"}, {"used_memory_bytes", 1u << 30}});
  return {{"compute_processes", processes},
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

json telemetry(double hw_thermal_share, bool xid = false, bool cotenant = false) {
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
    samples.push_back(s);
  }
  GpuCounters start, end;
  start.power_limit_w = 700;
  start.energy_mj = 0;
  end.energy_mj = 40'620'000; // 677 W over 60 s
  const json xids =
      xid ? json::array({{{"seq", 900}, {"xid", 48}, {"text", "Xid 48"}}}) : json::array();
  return telemetry_pair(snapshot(100, json::array(), cotenant),
                        summarize_gpu_samples(samples, 60, start, end),
                        snapshot(1000, xids, cotenant));
}

Record record_of(const std::string &key, json params, const Outcome &o) {
  return railgauge::testing::outcome_record("burnin-run", kHost, key, std::move(params), o,
                                            "2026-11-26T12:00:00.000Z");
}

// One H200's HBM pattern test: 98% of its free memory written and checked, 4 rounds.
memory::HbmPatternGpuResult pattern_tested(int g, const Sick &sick) {
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
  p.telemetry = telemetry(0.0);
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

// The FP64 and TF32 burns after the bf16 one (`gemm_gpus`), 30 s each: figures made up (no
// healthy run holds them yet), and the FP64 burn below its power limit, which no rule asks it to
// reach.
std::vector<Record> dtype_burns(const std::vector<gemm::BurnGpuResult> &gemm_gpus,
                                const Sick &sick) {
  std::vector<Record> records;
  for (const auto &[dtype, tflops] : {std::pair{"fp64", 60.0}, std::pair{"tf32", 380.0}}) {
    std::vector<gemm::BurnGpuResult> burns = gemm_gpus;
    for (auto &b : burns) {
      b.tflops = tflops;
      b.tflops_min = 0.97 * tflops;
      b.bad_iterations = 0;
      b.mismatched_elements = 0;
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

// The phases of results/suites/burnin-gpu.yaml on `gpus` H200s.
analysis::RunSet burnin_node(int gpus, const Sick &sick = {}) {
  std::vector<gemm::BurnGpuResult> gemm_gpus;
  std::vector<memory::HbmBurnGpuResult> hbm_gpus;
  std::vector<memory::HbmPatternGpuResult> pattern_gpus;
  json h2d = json::array();
  for (int g = 0; g < gpus; ++g) {
    const double slow = g == sick.slow_gpu ? 0.85 : 1.0;
    const double spread = 1.0 + 0.004 * ((g * 3) % 5 - 2); // healthy parts differ by ~1%
    gemm::BurnGpuResult b;
    b.index = g;
    b.name = "NVIDIA H200";
    b.uuid = uuid(g);
    b.pci = pci(g);
    b.iterations = 9000;
    b.reference_checked = 4096;
    const bool lone = g == sick.lone_gpu;
    // sustained at the power cap: the healthy H200 of results/reference/h200-burnin-2026-11-27
    b.tflops = 717.0 * spread * slow * (lone ? sick.gemm_factor : 1.0);
    b.tflops_min = b.tflops * 0.97;
    b.telemetry =
        telemetry(g == sick.hot_gpu ? 0.3 : 0.0, g == sick.xid_gpu, g == sick.cotenant_gpu);
    if (g == sick.corrupt_gpu) {
      b.bad_iterations = 3;
      b.first_bad_iteration = 4711;
      b.mismatched_elements = 17;
    }
    gemm_gpus.push_back(b);
    memory::HbmBurnGpuResult h;
    h.gpu = g;
    h.name = "NVIDIA H200";
    h.uuid = uuid(g);
    h.pci = pci(g);
    h.bandwidth_gbytes_per_s = 4273.9 * spread * slow * (lone ? sick.hbm_factor : 1.0); // same run
    h.calls = 40000;
    h.elements = 1 << 27;
    h.telemetry = telemetry(0.0);
    hbm_gpus.push_back(h);
    pattern_gpus.push_back(pattern_tested(g, sick));
    // 55.47 GB/s of the 57.61 a Gen5 x16 link is expected to carry (the same run)
    const double copy = 55.47 * spread * (sick.copies_half_slow && g >= 4 ? 0.75 : 1.0) *
                        (lone ? sick.h2d_factor : 1.0);
    h2d.push_back({{"gpu", g},
                   {"uuid", uuid(g)},
                   {"pci", pci(g)},
                   {"bandwidth_gbytes_per_s", copy},
                   {"expected_gbytes_per_s", 57.614},
                   {"efficiency", copy / 57.614},
                   {"pcie_link_downtrained", false},
                   {"telemetry", telemetry(0.0, g == sick.copy_xid_gpu)}});
  }
  analysis::LoadedRun run;
  run.dir = "burnin-run";
  // A healthy node's inventory (synthetic_fleet.h), its GPUs H200s; one GPU alone has no NVLink.
  json inventory = testing::fleet_inventory(1, gpus, {});
  for (auto &gpu : inventory["nvml"]["gpus"]) {
    gpu["name"] = "NVIDIA H200";
    gpu["uuid"] = uuid(gpu["index"].get<int>());
    if (gpus == 1)
      gpu["nvlink"] = nullptr;
  }
  run.manifest = {
      {"host", kHost}, {"run", "burnin-run"}, {"status", "complete"}, {"inventory", inventory}};
  run.records.push_back(record_of(
      "gemm.burn",
      {{"dtype", "bf16"}, {"m", 8192}, {"layout", "nt"}, {"duration_s", 180.0}, {"gpu", -1}},
      gemm::burn_outcome(gemm_gpus, 2.0 * 8192 * 8192 * 8192)));
  for (auto &r : dtype_burns(gemm_gpus, sick))
    run.records.push_back(std::move(r));
  run.records.push_back(record_of("memory.burn",
                                  {{"size_bytes", 1 << 30}, {"duration_s", 90.0}, {"gpu", -1}},
                                  memory::hbm_burn_outcome(hbm_gpus)));
  run.records.push_back(record_of("memory.pattern",
                                  {{"rounds", 4}, {"gpu", -1}, {"inject_faults", 0}},
                                  memory::hbm_pattern_outcome(pattern_gpus)));
  for (const char *key : {"offload.all_gpus_h2d", "offload.all_gpus_d2h"}) {
    Outcome o;
    o.metrics = {{"per_gpu", h2d}, {"bandwidth_gbytes_per_s", 53.0 * gpus}, {"verified", true}};
    run.records.push_back(record_of(key, {{"size_bytes", 1 << 30}}, o));
  }
  {
    // One process drives every GPU (the burn-in without a launcher): its telemetry per GPU.
    std::vector<json> windows;
    std::vector<std::string> uuids;
    for (int g = 0; g < gpus; ++g) {
      windows.push_back(telemetry(0.0, g == sick.nccl_xid_gpu));
      uuids.push_back(uuid(g));
    }
    Outcome o;
    o.metrics = {{"busbw_gbytes_per_s", gpus == 8 ? 478.0 : 0.0},
                 {"verified", true},
                 {"telemetry", gpus_telemetry(std::move(windows), uuids)}};
    run.records.push_back(record_of(
        "collectives.nccl_all_reduce",
        {{"size_bytes", std::int64_t{16} << 30}, {"world_size", gpus}, {"dtype", "float32"}}, o));
  }
  // A whole run by its run.json: every planned point has its record (the per-GPU parts that
  // check reads beside them are not the run's records, and must not count as more).
  run.manifest["points_planned"] = run.records.size();
  run.manifest["counts"] = json::object();
  for (const auto &r : run.records)
    run.manifest["counts"][std::string(to_string(r.status))] =
        run.manifest["counts"].value(std::string(to_string(r.status)), 0) + 1;
  analysis::RunSet set;
  set.runs.push_back(std::move(run));
  return set;
}

CheckResult judge(const analysis::RunSet &runs, const std::string &profile) {
  return evaluate(
      load_rules_file(railgauge::testing::shipped_data_file("rules/" + profile + ".yaml")), runs);
}

// part label -> rules violated at warn or fail
std::map<std::string, std::set<std::string>> violations(const CheckResult &r) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (!f.missing && !f.not_covered && !f.not_applicable && f.level >= Level::warn)
        out[p.label].insert(f.rule_id);
  return out;
}

TEST(BurninGpu, EachGpuOfAnAllGpuPointIsAPartOfItsOwn) {
  const auto runs = burnin_node(8);
  const auto parts = records::per_gpu_parts(runs.runs[0].records[0]);
  ASSERT_EQ(parts.size(), 8u);
  EXPECT_EQ(parts[3].params.at("gpu"), 3);
  EXPECT_EQ(parts[3].params.at("part"), "gpu");
  EXPECT_EQ(parts[3].device.at("gpu"), uuid(3));
  EXPECT_EQ(parts[3].device.at("pci"), pci(3));
  EXPECT_GT(parts[3].metrics.at("tflops").get<double>(), 600);
  EXPECT_TRUE(records::per_gpu_parts(runs.runs[0].records.back()).empty()); // all_reduce
}

TEST(BurninGpu, HealthyEightGpuNodePassesItsSkuProfile) {
  const auto r = judge(burnin_node(8), "h200-sxm");
  EXPECT_EQ(exit_status(r.verdict), 0) << render_table(r);
  // The per-GPU rules judged all eight GPUs.
  for (const std::string rule :
       {"burn-gemm-floor", "burn-gemm-vs-siblings", "burn-hbm-floor", "burn-hbm-vs-siblings",
        "burn-hbm-pattern-coverage", "load-hw-thermal-slowdown", "load-sm-clock",
        "burn-h2d-vs-siblings"}) {
    int checked = 0;
    for (const auto &p : r.parts)
      if (auto it = p.rules.find(rule); it != p.rules.end())
        checked += it->second.checked;
    EXPECT_GE(checked, 8) << rule;
  }
}

TEST(BurninGpu, AGpuSharedWithACoTenantIsNamedAgainstItsSiblings) {
  const auto r = judge(burnin_node(8, {.slow_gpu = 5}), "h200-sxm");
  EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
  const auto v = violations(r);
  ASSERT_EQ(v.size(), 1u) << render_table(r);
  EXPECT_EQ(v.begin()->first.rfind("gpu5", 0), 0u) << v.begin()->first;
  EXPECT_TRUE(v.begin()->second.contains("burn-gemm-vs-siblings"));
  EXPECT_TRUE(v.begin()->second.contains("burn-hbm-vs-siblings"));
  const std::string table = render_table(r);
  EXPECT_NE(table.find("metrics.tflops"), std::string::npos) << table;
}

TEST(BurninGpu, HeatAndCorruptionUnderLoadFailTheirGpu) {
  const auto r = judge(burnin_node(8, {.hot_gpu = 2, .corrupt_gpu = 6}), "h200-sxm");
  EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
  const auto v = violations(r);
  bool hot = false, corrupt = false;
  for (const auto &[part, rules] : v) {
    hot = hot || (part.rfind("gpu2", 0) == 0 && rules.contains("load-hw-thermal-slowdown"));
    corrupt = corrupt || (part.rfind("gpu6", 0) == 0 && rules.contains("record-status"));
  }
  EXPECT_TRUE(hot) << render_table(r);
  EXPECT_TRUE(corrupt) << render_table(r);
}

TEST(BurninGpu, HalfTheGpusCopyingSlowlyAreEachNamed) {
  const auto r = judge(burnin_node(8, {.copies_half_slow = true}), "h200-sxm");
  // 25% below healthy: under their links' floor (fail) and their siblings' (warn)
  EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
  std::set<std::string> named;
  for (const auto &[part, rules] : violations(r))
    if (rules.contains("burn-h2d-vs-siblings") && rules.contains("burn-d2h-vs-siblings") &&
        rules.contains("burn-h2d-floor") && rules.contains("burn-d2h-floor"))
      named.insert(part.substr(0, 4));
  EXPECT_EQ(named, (std::set<std::string>{"gpu4", "gpu5", "gpu6", "gpu7"})) << render_table(r);
}

// The node fails, and the one GPU named is `gpu` by exactly `rule`.
void expect_only_gpu_fails(const CheckResult &r, const std::string &gpu, const std::string &rule) {
  EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
  const auto v = violations(r);
  ASSERT_EQ(v.size(), 1u) << render_table(r);
  EXPECT_EQ(v.begin()->first.rfind(gpu, 0), 0u) << v.begin()->first;
  EXPECT_EQ(v.begin()->second, std::set<std::string>{rule}) << render_table(r);
}

TEST(BurninGpu, AnXidLoggedDuringThePhaseFailsItsGpu) {
  expect_only_gpu_fails(judge(burnin_node(8, {.xid_gpu = 4}), "h200-sxm"), "gpu4", "load-xid");
}

// A co-tenant's share of the SMs makes a healthy GPU read slow: the verdict names the GPU by the
// process beside it, not only by its figures.
TEST(BurninGpu, AnotherProcessOnAGpuFailsItAndIsNamed) {
  expect_only_gpu_fails(judge(burnin_node(8, {.cotenant_gpu = 3}), "h200-sxm"), "gpu3",
                        "load-foreign-process");
  // The record names it: pid, name and the GPU memory it held.
  const auto parts = records::per_gpu_parts(burnin_node(8, {.cotenant_gpu = 3}).runs[0].records[0]);
  const auto &foreign = parts[3].metrics.at("telemetry").at("foreign_processes");
  EXPECT_EQ(foreign.at("count"), 1);
  EXPECT_EQ(foreign.at("processes").at(0).at("name"), "cotenant_spin");
  EXPECT_EQ(foreign.at("processes").at(0).at("pid"), 31337);
}

// Every phase is judged for the GPU's health, not only the GEMM and HBM burns.
TEST(BurninGpu, AnXidWhileCopyingOrInTheAllReduceFails) {
  expect_only_gpu_fails(judge(burnin_node(8, {.copy_xid_gpu = 2}), "h200-sxm"), "gpu2", "load-xid");
  for (const int gpus : {8, 1}) {
    const auto r = judge(burnin_node(gpus, {.nccl_xid_gpu = gpus - 1}),
                         gpus == 8 ? "h200-sxm" : "h200-sxm-1gpu");
    EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
    bool named = false;
    for (const auto &[part, rules] : violations(r))
      named = named || rules.contains("load-xid-nccl");
    EXPECT_TRUE(named) << render_table(r);
    // The finding says which GPU of the process logged it.
    if (gpus == 8) {
      EXPECT_NE(render_table(r).find("per_gpu.7.health_delta.xid_events"), std::string::npos)
          << render_table(r);
    }
  }
}

// DCGM's memtest: one wrong word fails the GPU that held it, and a test that could not reach 90%
// of a GPU's free memory fails it too (the rest went untested); the siblings pass.
TEST(BurninGpu, AnHbmPatternErrorOrAShortPatternTestFailsItsGpu) {
  for (const auto &[gpus, profile] : {std::pair{8, "h200-sxm"}, std::pair{1, "h200-sxm-1gpu"}}) {
    const int g = gpus - 1;
    const auto r = judge(burnin_node(gpus, {.pattern_error_gpu = g}), profile);
    EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
    // The GPU's part fails by its own verdict, naming where; so does the point, which is the
    // node's where it ran on several GPUs and the GPU's where on one.
    const auto v = violations(r);
    const std::string gpu = "gpu" + std::to_string(g);
    EXPECT_EQ(v.size(), gpus == 8 ? 2u : 1u) << render_table(r);
    bool named = false;
    for (const auto &[part, rules] : v) {
      EXPECT_TRUE(part == kHost || part.rfind(gpu, 0) == 0) << part;
      EXPECT_EQ(rules, std::set<std::string>{"record-status"}) << render_table(r);
      named = named || part.rfind(gpu, 0) == 0;
    }
    EXPECT_TRUE(named) << render_table(r);
    // The whole finding, as --wide prints it: the default table cuts lines at 120 columns.
    EXPECT_NE(
        render_table(r, true).find("1 of 18252500000 words wrong, the first at 0x00007f4a00001040"),
        std::string::npos)
        << render_table(r);
    expect_only_gpu_fails(judge(burnin_node(gpus, {.pattern_short_gpu = g}), profile),
                          "gpu" + std::to_string(g), "burn-hbm-pattern-coverage");
  }
}

// The FP64 and TF32 burns are judged by their data check and the GPU's health, and against their
// siblings in the same dtype: never by the bf16 burn's floor or power target.
TEST(BurninGpu, AnFp64BurnIsJudgedByItsDataCheckNotTheBf16Floors) {
  const auto healthy = judge(burnin_node(8), "h200-sxm");
  EXPECT_EQ(exit_status(healthy.verdict), 0) << render_table(healthy);
  for (const std::string rule : {"burn-power-target", "burn-gemm-floor", "load-sm-clock",
                                 "burn-gemm-vs-siblings", "load-xid"}) {
    int checked = 0;
    for (const auto &p : healthy.parts)
      if (auto it = p.rules.find(rule); it != p.rules.end())
        checked += it->second.checked;
    // the bf16 burn's 8 GPUs, or every GEMM burn's 24 (load-xid: also HBM, patterns, copies)
    const int want = rule == "burn-gemm-vs-siblings" ? 24 : rule == "load-xid" ? 56 : 8;
    EXPECT_EQ(checked, want) << rule;
  }
  const auto r = judge(burnin_node(8, {.fp64_corrupt_gpu = 2}), "h200-sxm");
  EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
  bool named = false;
  for (const auto &[part, rules] : violations(r))
    named = named || (part.rfind("gpu2", 0) == 0 && rules.contains("record-status"));
  EXPECT_TRUE(named) << render_table(r);
  EXPECT_NE(render_table(r, true).find("dtype=fp64"), std::string::npos) << render_table(r, true);
}

TEST(BurninGpu, OneGpuMachinePassesItsProfileAndSaysItHasNoSiblings) {
  const auto runs = burnin_node(1);
  const auto picked = auto_profile(runs);
  EXPECT_EQ(picked.name, "h200-sxm-1gpu");
  const auto r = judge(runs, picked.name);
  EXPECT_EQ(exit_status(r.verdict), 0) << render_table(r);
  // The within-node rules have nothing to compare: said (info), never a pass or a fail.
  bool said = false;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      said = said || (f.rule_id == "burn-gemm-vs-siblings" && f.level == Level::info);
  EXPECT_TRUE(said) << render_table(r);
  // The same figures 15% low on the one GPU fail its floor: a lone GPU is still judged.
  Sick slow;
  slow.slow_gpu = 0;
  const auto slow_r = judge(burnin_node(1, slow), picked.name);
  EXPECT_EQ(violations(slow_r).size(), 1u) << render_table(slow_r);
}

// A rack team's sign-off: one GPU 10% below the healthy figure on GEMM, on HBM or on its host
// copies fails by the SKU's floor alone, where it has no sibling to be compared with.
TEST(BurninGpu, ALoneGpuTenPercentSlowFailsItsFloor) {
  struct Case {
    Sick sick;
    const char *rule;
  };
  const Case cases[] = {{{.lone_gpu = 0, .gemm_factor = 0.9}, "burn-gemm-floor"},
                        {{.lone_gpu = 0, .hbm_factor = 0.9}, "burn-hbm-floor"},
                        {{.lone_gpu = 0, .h2d_factor = 0.9}, "burn-h2d-floor"}};
  for (const auto &c : cases) {
    const auto r = judge(burnin_node(1, c.sick), "h200-sxm-1gpu");
    EXPECT_EQ(exit_status(r.verdict), 2) << c.rule << '\n' << render_table(r);
    const auto v = violations(r);
    ASSERT_EQ(v.size(), 1u) << render_table(r);
    EXPECT_TRUE(v.begin()->second.contains(c.rule)) << c.rule << '\n' << render_table(r);
  }
  // 5% low on each (ml-engineering's healthy spread in a node) still passes.
  const auto r = judge(
      burnin_node(1, {.lone_gpu = 0, .gemm_factor = 0.95, .hbm_factor = 0.95, .h2d_factor = 0.95}),
      "h200-sxm-1gpu");
  EXPECT_EQ(exit_status(r.verdict), 0) << render_table(r);
}

TEST(BurninGpu, AutoProfileNamesTheSkuOrSaysWhyNot) {
  EXPECT_EQ(profile_for_gpu("NVIDIA H100 80GB HBM3", 8), "h100-sxm");
  EXPECT_EQ(profile_for_gpu("NVIDIA H200", 8), "h200-sxm");
  EXPECT_EQ(profile_for_gpu("NVIDIA H200", 1), "h200-sxm-1gpu");
  EXPECT_EQ(profile_for_gpu("NVIDIA H100 PCIe", 8), "");
  EXPECT_EQ(profile_for_gpu("NVIDIA H100 NVL", 2), "");
  EXPECT_EQ(profile_for_gpu("NVIDIA H200 NVL", 8), "");
  EXPECT_EQ(profile_for_gpu("NVIDIA A100-SXM4-80GB", 8), "");
  analysis::RunSet none;
  none.runs.emplace_back();
  EXPECT_THROW(auto_profile(none), InputError);
}

// A burn-in on a node whose driver is gone: no GPU to name a SKU by, and never an input error.
TEST(BurninGpu, ABurninThatFoundNoGpuIsJudgedAndFails) {
  analysis::RunSet runs;
  analysis::LoadedRun run;
  run.dir = "burnin-run";
  run.manifest = {{"host", kHost},
                  {"run", "burnin-run"},
                  {"status", "refused"},
                  {"refused", "rank 0 (h200node): gpus: expected 1, found 0 (no NVIDIA driver "
                              "is loaded) (--expect)"},
                  {"suite", {{"name", "burnin-gpu"}, {"burnin_plan", {{"gpus", 1}}}}},
                  {"inventory", {{"nvml", {{"available", false}}}, {"summary", {{"gpus", 0}}}}}};
  runs.runs.push_back(run);
  const auto picked = auto_profile(runs);
  EXPECT_EQ(picked.name, kGpuNodeProfile);
  const auto r = judge(runs, picked.name);
  EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
  EXPECT_EQ(r.drain(), std::vector<std::string>{kHost});
  // Without the inventory's count (NVML unreadable) it fails the same.
  runs.runs[0].manifest["inventory"] = json::object();
  EXPECT_EQ(exit_status(judge(runs, picked.name).verdict), 2);
  // --expect gpus=8 on a plain run: the same.
  runs.runs[0].manifest.erase("suite");
  runs.runs[0].manifest["expect"] = {{"expected", {{"gpus", 8}}}};
  EXPECT_EQ(auto_profile(runs).name, kGpuNodeProfile);
}

} // namespace
} // namespace railgauge::check
