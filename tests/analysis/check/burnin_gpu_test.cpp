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
#include "synthetic_burnin_gpu.h"
#include "synthetic_fleet.h"
#include "tests/support/outcome_record.h"
#include "tests/support/shipped_data.h"

namespace railgauge::check {
namespace {

using nlohmann::json;

using testing::burnin_node;
using testing::Sick;
using testing::uuid;
constexpr const char *kHost = testing::kBurninHost;

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
  EXPECT_EQ(parts[3].device.at("pci"), testing::gpu_bus_id(3));
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
        "burn-h2d-vs-siblings", "load-nvlink-errors"}) {
    int checked = 0;
    for (const auto &p : r.parts)
      if (auto it = p.rules.find(rule); it != p.rules.end())
        checked += it->second.checked;
    EXPECT_GE(checked, 8) << rule;
  }
}

// The burn ran on 7 of the 8 GPUs the inventory lists (one left out of CUDA_VISIBLE_DEVICES, or
// its figures lost): the eighth is judged by nothing, and must not pass for it.
TEST(BurninGpu, AGpuTheInventoryListsAndNoBurnCoveredFailsAsMissing) {
  auto runs = burnin_node(8);
  int dropped = 0;
  for (auto &r : runs.runs[0].records)
    for (const char *list : {"per_gpu", "gpus"})
      if (r.metrics.contains(list) && r.metrics[list].is_array()) {
        auto &gpus = r.metrics[list];
        for (std::size_t i = 0; i < gpus.size(); ++i)
          if (gpus[i].is_object() && gpus[i].value("uuid", "") == uuid(7)) {
            gpus.erase(i);
            ++dropped;
            break;
          }
      }
  ASSERT_GE(dropped, 4);
  const auto r = judge(runs, "h200-sxm");
  EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
  std::set<std::string> missing_rules;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.missing && f.level == Level::fail) {
        EXPECT_EQ(p.label.rfind("gpu7", 0), 0u) << p.label << " " << f.rule_id;
        missing_rules.insert(f.rule_id);
      }
  EXPECT_TRUE(missing_rules.contains("burn-gemm-floor")) << render_table(r);
  EXPECT_TRUE(missing_rules.contains("burn-hbm-floor")) << render_table(r);
  EXPECT_EQ(r.drain(), std::vector<std::string>{kHost});
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

// NVLink errors under load are reported on the GPU that counted them, and the finding names the
// link, with each of its counters' growth: the link to reseat or trace, not only the GPU.
TEST(BurninGpu, NvlinkErrorsDuringAPhaseNameTheGpuAndTheLink) {
  const auto r = judge(burnin_node(8, {.nvlink_gpu = 3}), "h200-sxm");
  EXPECT_EQ(exit_status(r.verdict), 1) << render_table(r); // warn: no source gives a tolerance
  const auto v = violations(r);
  ASSERT_EQ(v.size(), 1u) << render_table(r);
  EXPECT_EQ(v.begin()->first.rfind("gpu3", 0), 0u) << v.begin()->first;
  EXPECT_EQ(v.begin()->second, std::set<std::string>{"load-nvlink-errors"});
  EXPECT_NE(
      render_table(r, true).find("NVLink 7: 12 flit CRC, 0 data CRC, 0 replay, 0 recovery errors"),
      std::string::npos)
      << render_table(r, true);
}

// A link down on one GPU while its siblings' are all up fails that GPU by the inventory's rules.
TEST(BurninGpu, AnNvlinkDownOnOneGpuFailsThatGpu) {
  auto runs = burnin_node(8);
  auto &nvlink = runs.runs[0].manifest["inventory"]["nvml"]["gpus"][5]["nvlink"];
  nvlink["up"] = 17;
  nvlink["down"] = 1;
  const auto r = judge(runs, "h200-sxm");
  EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
  const auto v = violations(r);
  ASSERT_EQ(v.size(), 1u) << render_table(r);
  EXPECT_EQ(v.begin()->first.rfind("gpu5", 0), 0u) << v.begin()->first;
  EXPECT_EQ(v.begin()->second, (std::set<std::string>{"nvlink-down", "nvlink-up"}));
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
    // the bf16 burn's 8 GPUs, or every GEMM burn's 24 (load-xid: also HBM, patterns, both
    // host copies and the peer copies)
    const int want = rule == "burn-gemm-vs-siblings" ? 24 : rule == "load-xid" ? 64 : 8;
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

// Eight GPUs on the PCI bus, and the driver shows fewer (one fallen off, or failed to
// initialise): the node is judged as the node of 8 it is, and its NVML count fails. With one
// shown, it is never taken for a healthy machine of one GPU.
TEST(BurninGpu, GpusOnTheBusThatNvmlDoesNotShowFailTheSkuProfile) {
  for (const int shown : {7, 1}) {
    auto runs = burnin_node(8);
    auto &nvml_gpus = runs.runs[0].manifest["inventory"]["nvml"]["gpus"];
    nvml_gpus.erase(nvml_gpus.begin() + shown, nvml_gpus.end());
    ASSERT_EQ(runs.runs[0].manifest["inventory"]["summary"]["gpus"], 8);
    const auto picked = auto_profile(runs);
    EXPECT_EQ(picked.name, "h200-sxm") << shown << " shown: " << picked.why;
    const auto r = judge(runs, picked.name);
    EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
    EXPECT_TRUE(violations(r)[kHost].contains("gpus-in-nvml")) << render_table(r);
  }
}

// A healthy node of 4 H200s (a board of 4) has no shipped profile: the 8-GPU one failed its
// gpu-count, even with --expect-gpus 4. It is refused, naming the count.
TEST(BurninGpu, ANodeOfFourIsRefusedNotFailedByTheProfileOfEight) {
  auto runs = burnin_node(4);
  runs.runs[0].manifest["inventory"]["summary"]["nvswitches"] = 0; // a board of 4 has none
  for (const std::optional<int> expected : {std::optional<int>(), std::optional<int>(4)}) {
    try {
      auto_profile(runs, expected);
      FAIL() << "a node of 4 judged by a shipped profile";
    } catch (const InputError &e) {
      EXPECT_NE(std::string(e.what()).find("a node of 4 GPUs 'NVIDIA H200'"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(auto_profile(burnin_node(8), 8).name, "h200-sxm");
  // No board holds 7: a VM of 8 that sees 7 (and no NVSwitch) is judged, and drained, as 8.
  auto seven = burnin_node(7);
  seven.runs[0].manifest["inventory"]["summary"]["nvswitches"] = 0;
  EXPECT_EQ(auto_profile(seven).name, "h200-sxm");
}

// A rack team's sign-off: one GPU 10% below the healthy figure on GEMM (bf16, or FP64 and TF32),
// on HBM or on its host copies fails by the SKU's floor alone, where it has no sibling to be
// compared with.
TEST(BurninGpu, ALoneGpuTenPercentSlowFailsItsFloor) {
  struct Case {
    Sick sick;
    const char *rule;
  };
  const Case cases[] = {{{.lone_gpu = 0, .gemm_factor = 0.9}, "burn-gemm-floor"},
                        {{.lone_gpu = 0, .hbm_factor = 0.9}, "burn-hbm-floor"},
                        {{.lone_gpu = 0, .h2d_factor = 0.9}, "burn-h2d-floor"},
                        {{.lone_gpu = 0, .dtype_gemm_factor = 0.9}, "burn-gemm-fp64-floor"},
                        {{.lone_gpu = 0, .dtype_gemm_factor = 0.9}, "burn-gemm-tf32-floor"}};
  for (const auto &c : cases) {
    const auto r = judge(burnin_node(1, c.sick), "h200-sxm-1gpu");
    // The FP64 and TF32 floors warn (one healthy GPU measured them); the others fail.
    const bool warns = std::string(c.rule).find("fp64") != std::string::npos ||
                       std::string(c.rule).find("tf32") != std::string::npos;
    EXPECT_EQ(exit_status(r.verdict), warns ? 1 : 2) << c.rule << '\n' << render_table(r);
    const auto v = violations(r);
    ASSERT_EQ(v.size(), 1u) << render_table(r);
    EXPECT_TRUE(v.begin()->second.contains(c.rule)) << c.rule << '\n' << render_table(r);
  }
  // 5% low on each (ml-engineering's healthy spread in a node) still passes.
  const auto r = judge(burnin_node(1, {.lone_gpu = 0,
                                       .gemm_factor = 0.95,
                                       .hbm_factor = 0.95,
                                       .h2d_factor = 0.95,
                                       .dtype_gemm_factor = 0.95}),
                       "h200-sxm-1gpu");
  EXPECT_EQ(exit_status(r.verdict), 0) << render_table(r);
}

// The same GPU alone in an H100 machine: its FP64 at half the healthy rate, or its device-to-host
// copies 10% slower (0.866 of the link, above Azure NHC's 0.833), passed the H100 profile, which
// had no floor for either and no sibling to compare with. Each is now named (warn). Its HBM copy
// is an H100's (0.71 of the H200's: 3,022.8 against 4,274 GB/s healthy), below the H100's 3,350.
TEST(BurninGpu, ALoneH100AtHalfItsFp64OrTenPercentSlowToTheHostIsNamed) {
  // Half its FP64 rate also fails the lower floor (0.8 of healthy): no healthy spread reaches it.
  struct Case {
    Sick sick;
    const char *rule;
    int exit;
  };
  const Case cases[] = {
      {{.lone_gpu = 0, .hbm_factor = 0.71, .dtype_gemm_factor = 0.5},
       "burn-gemm-fp64-fail-floor",
       2},
      {{.lone_gpu = 0, .hbm_factor = 0.71, .dtype_gemm_factor = 0.9}, "burn-gemm-fp64-floor", 1},
      {{.lone_gpu = 0, .hbm_factor = 0.71, .d2h_factor = 0.9}, "burn-d2h-below-healthy", 1}};
  for (const auto &c : cases) {
    auto runs = burnin_node(1, c.sick);
    for (auto &gpu : runs.runs[0].manifest["inventory"]["nvml"]["gpus"])
      gpu["name"] = "NVIDIA H100 80GB HBM3";
    const auto r = judge(runs, "h100-sxm-1gpu");
    EXPECT_EQ(exit_status(r.verdict), c.exit) << c.rule << '\n' << render_table(r);
    const auto v = violations(r);
    ASSERT_EQ(v.size(), 1u) << render_table(r);
    EXPECT_TRUE(v.begin()->second.contains(c.rule)) << c.rule << '\n' << render_table(r);
  }
}

TEST(BurninGpu, AutoProfileNamesTheSkuOrSaysWhyNot) {
  EXPECT_EQ(profile_for_gpu("NVIDIA H100 80GB HBM3", 8), "h100-sxm");
  EXPECT_EQ(profile_for_gpu("NVIDIA H200", 8), "h200-sxm");
  EXPECT_EQ(profile_for_gpu("NVIDIA H200", 1), "h200-sxm-1gpu");
  EXPECT_EQ(profile_for_gpu("NVIDIA H100 PCIe", 8), "");
  EXPECT_EQ(profile_for_gpu("NVIDIA H100 NVL", 2), "");
  EXPECT_EQ(profile_for_gpu("NVIDIA H200 NVL", 8), "");
  EXPECT_EQ(profile_for_gpu("NVIDIA GH200 120GB", 1), "");
  EXPECT_EQ(profile_for_gpu("NVIDIA GH200 480GB", 4), "");
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
                              "is loaded) (expected hardware)"},
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

// A run of any suite judged by what its inventory shows where NVML names no GPU: anything of
// NVIDIA's on the PCI bus (a GPU, an NVSwitch, which only a GPU baseboard has), a driver that
// answers, or a GPU NVML lists but could not open fails the node; nothing of NVIDIA's and no
// driver is a host the host checks judge.
TEST(BurninGpu, AutoProfileReadsThePciBusWhereNvmlShowsNoGpu) {
  const json nic = {{"bus_id", "0000:00:03.0"}, {"vendor", "0x1af4"}, {"class", "0x0200"}};
  const json h200 = {{"bus_id", "0000:00:06.0"}, {"vendor", "0x10de"}, {"class", "0x0302"}};
  const json nvswitch = {{"bus_id", "0000:05:00.0"}, {"vendor", "0x10de"}, {"class", "0x0680"}};
  const json no_driver = {{"available", false}, {"gpus", json::array()}};
  const auto node = [&](const json &devices, const json &nvml) {
    analysis::RunSet runs;
    analysis::LoadedRun run;
    run.dir = "node-run";
    run.manifest = {{"host", kHost},
                    {"run", "node-run"},
                    {"suite", {{"name", "node"}}},
                    {"inventory", {{"nvml", nvml}, {"pci", {{"devices", devices}}}}}};
    runs.runs.push_back(run);
    return runs;
  };
  const auto host_only = auto_profile(node(json::array({nic}), no_driver));
  EXPECT_EQ(host_only.name, kHostOnlyProfile);
  EXPECT_NE(host_only.why.find("nothing of NVIDIA's on the PCI bus of 1 node"), std::string::npos)
      << host_only.why;

  for (const auto &[devices, nvml] :
       {std::pair{json{nic, h200}, no_driver}, // no driver
        {json{nic, nvswitch}, no_driver},      // a baseboard whose GPUs did not enumerate
        {json::array({nic}),
         json{{"available", true}, {"gpus", json::array()}}}, // a driver, no GPU
        {json{nic, h200},
         json{{"available", true},
              {"gpus", {{{"index", 0}, {"errors", {{"handle", "GPU is lost"}}}}}}}}}) {
    SCOPED_TRACE(devices.dump() + " " + nvml.dump());
    const auto runs = node(devices, nvml);
    const auto lost = auto_profile(runs);
    EXPECT_EQ(lost.name, kGpuNodeProfile);
    EXPECT_NE(lost.why.find("NVIDIA hardware or its driver and no GPU in NVML"), std::string::npos)
        << lost.why;
    const auto r = judge(runs, lost.name);
    EXPECT_EQ(exit_status(r.verdict), 2) << render_table(r);
    EXPECT_EQ(r.drain(), std::vector<std::string>{kHost});
  }

  // A second run whose PCI tree was not read cannot say its node has no GPU: no profile.
  auto two = node(json::array({nic}), no_driver);
  two.runs.push_back(two.runs[0]);
  two.runs[1].dir = "other-run";
  two.runs[1].manifest["host"] = "other";
  two.runs[1].manifest["inventory"].erase("pci");
  EXPECT_THROW(auto_profile(two), InputError);
  // Fields of the wrong type are read as absent, never thrown on.
  auto odd = node(json::array({json{{"vendor", 4318}, {"class", nullptr}}}), no_driver);
  EXPECT_EQ(auto_profile(odd).name, kHostOnlyProfile);
  odd.runs[0].manifest["inventory"] = "not an object";
  EXPECT_THROW(auto_profile(odd), InputError);
}

} // namespace
} // namespace railgauge::check
