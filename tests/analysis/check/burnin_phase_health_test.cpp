// Every phase of the burn-in is judged for the GPU's health under load, the node's all_reduce
// too: synthetic H200 nodes (synthetic_burnin_gpu.h) with one fault written into one GPU's
// telemetry of one phase, judged by the shipped h200-sxm profiles. The all_reduce's slowdowns,
// PCIe and NVLink errors and row remaps once went unread, and a node that logged them passed.
#include <functional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "synthetic_burnin_gpu.h"
#include "synthetic_fleet.h"
#include "tests/support/shipped_data.h"

namespace railgauge::check {
namespace {

using nlohmann::json;

// The rules a part of the node violated at warn or fail, over every part.
std::set<std::string> rules_violated(const CheckResult &r) {
  std::set<std::string> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (!f.missing && !f.not_covered && !f.not_applicable && f.level >= Level::warn)
        out.insert(f.rule_id);
  return out;
}

// GPU `gpu`'s telemetry window in phase `key`: the per-GPU list of a point on every GPU, or the
// all_reduce's telemetry (per GPU when one process drives several).
json &window(json &metrics, const std::string &key, int gpu) {
  if (key == "collectives.nccl_all_reduce") {
    auto &t = metrics["telemetry"];
    return t.contains("per_gpu") ? t["per_gpu"][gpu] : t;
  }
  if (metrics.contains("per_gpu"))
    return metrics["per_gpu"][gpu]["telemetry"];
  return metrics["gpus"][gpu]["telemetry"];
}

// The node of `gpus` H200s with `fault` written into its last GPU's window of phase `key`,
// judged by its profile.
CheckResult judged_with(int gpus, const std::string &key,
                        const std::function<void(json &)> &fault) {
  auto runs = testing::burnin_node(gpus);
  bool found = false;
  for (auto &r : runs.runs[0].records)
    if (r.key == key) {
      fault(window(r.metrics, key, gpus - 1));
      found = true;
    }
  EXPECT_TRUE(found) << key;
  const auto profile = gpus == 8 ? "h200-sxm" : "h200-sxm-1gpu";
  return evaluate(load_rules_file(railgauge::testing::shipped_data_file(std::string("rules/") +
                                                                        profile + ".yaml")),
                  runs);
}

// An Xid logged in a telemetry window, as the sampler writes one: the delta's count and list, and
// the kernel log after it where the snapshots read one (check reads each against the others).
void log_xid(json &t) {
  const json event = {{"seq", 1000}, {"xid", 79}, {"text", "GPU has fallen off the bus"}};
  t["health_delta"]["xid_events"] = 1;
  t["health_delta"]["xids"] = json::array({event});
  if (t["after"].contains("kernel_log") && t["after"]["kernel_log"].is_object()) {
    t["after"]["kernel_log"]["xids"].push_back(event);
    t["after"]["kernel_log"]["last_seq"] = 1000;
  }
}

struct Fault {
  const char *key, *rule;
  Level level;
  std::function<void(json &)> write;
};

TEST(BurninPhaseHealth, EachFaultUnderLoadIsNamedInEveryPhaseThatSawIt) {
  const auto reason = [](const char *name) {
    return [=](json &t) { t["during"]["reason_fraction"][name] = 0.6; };
  };
  const auto grew = [](const char *name) {
    return [=](json &t) {
      t["health_delta"][name] = 2.0;
      // and the readings it is the growth of (NVML's replay counter has a name of its own)
      const std::string reading = std::string(name) == "pcie_replays" ? "pcie_replay_count" : name;
      if (t["before"].contains(reading) && t["before"][reading].is_number())
        t["after"][reading] = t["before"][reading].get<double>() + 2.0;
    };
  };
  const auto after = [](const char *name) { return [=](json &t) { t["after"][name] = 1; }; };
  const char *ar = "collectives.nccl_all_reduce";
  const std::vector<Fault> faults = {
      {ar, "load-hw-slowdown-nccl", Level::fail, reason("hw_slowdown")},
      {ar, "load-hw-thermal-slowdown-nccl", Level::fail, reason("hw_thermal_slowdown")},
      {ar, "load-hw-power-brake-nccl", Level::fail, reason("hw_power_brake_slowdown")},
      {ar, "load-sw-thermal-slowdown-nccl", Level::warn, reason("sw_thermal_slowdown")},
      {ar, "load-pcie-aer-uncorrectable-nccl", Level::fail, grew("pcie_aer_uncorrectable")},
      {ar, "load-pcie-replays-nccl", Level::warn, grew("pcie_replays")},
      {ar, "load-row-remap-pending-nccl", Level::fail, after("remapped_rows_pending")},
      {ar, "load-row-remap-failed-nccl", Level::fail, after("remapped_rows_failure")},
      {"memory.pattern", "load-row-remap-pending", Level::fail, after("remapped_rows_pending")},
      {"memory.burn", "load-row-remap-failed", Level::fail, after("remapped_rows_failure")},
  };
  for (const int gpus : {8, 1})
    for (const auto &f : faults) {
      const auto r = judged_with(gpus, f.key, f.write);
      EXPECT_EQ(exit_status(r.verdict), exit_status(f.level)) << gpus << " GPUs, " << f.rule << "\n"
                                                              << render_table(r);
      EXPECT_TRUE(rules_violated(r).contains(f.rule)) << gpus << " GPUs\n" << render_table(r);
    }
}

// A burn-in without root reads no kernel log: the Xid count is null, with the reason beside it.
// The warning said "value null is not a number" and not why, nor how to read it next time.
TEST(BurninPhaseHealth, AnUnreadKernelLogSaysWhyInItsWarning) {
  const std::string why = "/dev/kmsg: Permission denied (reading it needs root or CAP_SYSLOG "
                          "where kernel.dmesg_restrict is 1)";
  const auto r = judged_with(1, "gemm.burn", [&](json &t) {
    t["health_delta"]["xid_events"] = nullptr;
    t["health_delta"].erase("xids");
    t["health_delta"]["xid_note"] = why;
  });
  bool said = false;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == "load-xid" && f.missing) {
        EXPECT_EQ(f.level, Level::warn);
        EXPECT_NE(f.detail.find("not read (xid_note: " + why + ")"), std::string::npos) << f.detail;
        said = true;
      }
  EXPECT_TRUE(said) << render_table(r);
}

// The NVLink errors of the all_reduce warn on a node with NVLink.
TEST(BurninPhaseHealth, NvlinkErrorsInTheAllReduceWarn) {
  const auto r = judged_with(8, "collectives.nccl_all_reduce",
                             [](json &t) { t["health_delta"]["nvlink_errors"] = 250.0; });
  EXPECT_EQ(exit_status(r.verdict), exit_status(Level::warn)) << render_table(r);
  EXPECT_TRUE(rules_violated(r).contains("load-nvlink-errors-nccl")) << render_table(r);
}

// What a node of 8 GPUs must show is never "cannot apply": GPUs that cannot reach each other
// fail it (the peer-copy point waived: no peer access), and NVLink counters NVML could not read
// warn. One GPU alone has neither, and passes (info).
TEST(BurninPhaseHealth, NoPeerAccessOrUnreadNvlinkCountersOnANodeAreNotPasses) {
  auto runs = testing::burnin_node(8);
  for (auto &r : runs.runs[0].records)
    if (r.key == "memory.peer_copy") {
      r.status = Status::waived;
      r.reason = "no peer access between any two of the 8 GPUs";
      r.metrics = json::object();
    }
  const auto rules = load_rules_file(railgauge::testing::shipped_data_file("rules/h200-sxm.yaml"));
  const auto no_peers = evaluate(rules, runs);
  EXPECT_EQ(exit_status(no_peers.verdict), exit_status(Level::fail)) << render_table(no_peers);
  EXPECT_NE(render_table(no_peers).find("burn-peer-copy-vs-siblings (missing)"), std::string::npos)
      << render_table(no_peers);
  const auto unread = judged_with(8, "memory.burn", [](json &t) {
    t["health_delta"]["nvlink_errors"] = nullptr;
    t["health_delta"]["nvlink_errors_per_link"] = nullptr;
  });
  EXPECT_EQ(exit_status(unread.verdict), exit_status(Level::warn)) << render_table(unread);
  EXPECT_NE(render_table(unread).find("load-nvlink-errors (missing)"), std::string::npos)
      << render_table(unread);
  EXPECT_EQ(exit_status(judged_with(1, "memory.burn", [](json &) {}).verdict), 0);
}

// A dual-socket node copies from both NUMA nodes: the far node's copies cross the socket link at
// their own rate (vpbenchmarking: D2H ~20.5 GB/s, acceptance.md), judged against their siblings,
// not against the near copy's PCIe floor (every healthy dual-socket node once failed on it).
TEST(BurninPhaseHealth, FarNumaCopiesAreNotHeldToTheNearFloor) {
  for (const double far_share : {0.36, 1.0}) {
    auto runs = testing::burnin_node(8);
    auto &records = runs.runs[0].records;
    std::vector<Record> far;
    for (auto &r : records)
      if (r.key.rfind("offload.all_gpus_", 0) == 0) {
        r.params["placement"] = "near";
        auto f = r;
        f.params["placement"] = "far";
        for (auto &gpu : f.metrics["per_gpu"]) {
          gpu["bandwidth_gbytes_per_s"] = gpu["bandwidth_gbytes_per_s"].get<double>() * far_share;
          gpu["efficiency"] = gpu["efficiency"].get<double>() * far_share;
        }
        far.push_back(std::move(f));
      }
    records.insert(records.end(), far.begin(), far.end());
    testing::count_points(runs.runs[0]);
    const auto r = evaluate(
        load_rules_file(railgauge::testing::shipped_data_file("rules/h200-sxm.yaml")), runs);
    EXPECT_EQ(exit_status(r.verdict), 0) << far_share << "\n" << render_table(r);
  }
}

// One GPU's all_reduce telemetry unread among eight (its health and window null): the `**` of
// the -nccl rules once read the seven that held a value and passed the node. The eighth is a
// missing value on each of them; on one GPU it always was.
TEST(BurninPhaseHealth, OneGpusUnreadAllReduceTelemetryAmongEightIsMissing) {
  const auto unread = [](json &t) {
    t["health_delta"] = nullptr;
    t["during"] = json{{"available", false}};
    t["after"] = nullptr;
  };
  for (const int gpus : {8, 1}) {
    const auto r = judged_with(gpus, "collectives.nccl_all_reduce", unread);
    EXPECT_EQ(exit_status(r.verdict), exit_status(Level::fail)) << gpus << render_table(r);
    std::set<std::string> missing;
    for (const auto &p : r.parts)
      for (const auto &f : p.findings)
        if (f.missing && f.level >= Level::warn)
          missing.insert(f.rule_id);
    for (const char *rule : {"load-ecc-uncorrectable-nccl", "load-hw-slowdown-nccl",
                             "load-row-remap-pending-nccl", "load-xid-nccl"})
      EXPECT_TRUE(missing.contains(rule)) << gpus << " " << rule << render_table(r);
  }
}

// A fault in the all_reduce is the GPU's whose telemetry window saw it: the rank's record has no
// device of its own, and an Xid there once failed the node while the GPU's own row read PASS.
TEST(BurninPhaseHealth, AnAllReduceFaultIsTheGpusWhoseWindowSawIt) {
  for (const int gpus : {8, 1}) {
    const std::string bus = testing::gpu_bus_id(gpus - 1);
    const auto r = judged_with(gpus, "collectives.nccl_all_reduce", [&](json &t) {
      log_xid(t);
      if (!t.contains("uuid")) // one GPU's window: its snapshot's bus id, as NVML writes it
        t["after"]["pci_bus_id"] = "00000000" + bus.substr(4);
    });
    EXPECT_EQ(exit_status(r.verdict), exit_status(Level::fail)) << gpus << render_table(r);
    std::set<std::string> failed_gpus;
    for (const auto &p : r.parts)
      for (const auto &f : p.findings)
        if (f.rule_id == "load-xid-nccl" && !f.missing && f.level == Level::fail) {
          EXPECT_EQ(p.key.kind, PartKind::gpu) << gpus << render_table(r);
          failed_gpus.insert(p.key.id);
        }
    EXPECT_EQ(failed_gpus, std::set<std::string>{bus}) << gpus << render_table(r);
  }
  // A rule that names its part keeps it: `part: node` judges the node, wherever the value is.
  auto runs = testing::burnin_node(1);
  for (auto &r : runs.runs[0].records)
    if (r.key == "collectives.nccl_all_reduce") {
      auto &t = window(r.metrics, r.key, 0);
      log_xid(t);
      t["after"]["pci_bus_id"] = testing::gpu_bus_id(0);
    }
  const auto node = evaluate(parse_rules(R"(schema: railgauge.rules/1
name: node-xid
rules:
  - id: xid-node
    description: Xids during the all_reduce, the node's.
    category: health
    severity: fail
    part: node
    select: {key: collectives.nccl_all_reduce}
    metric: metrics.telemetry.**.health_delta.xid_events
    compare: "<="
    value: 0
)",
                                         "node.yaml"),
                             runs);
  int judged = 0;
  for (const auto &p : node.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == "xid-node" && !f.missing && f.level == Level::fail) {
        ++judged;
        EXPECT_EQ(p.key.kind, PartKind::node) << render_table(node);
      }
  EXPECT_EQ(judged, 1) << render_table(node);
}

// One process's all_reduce over 8 GPUs holds 8 readings and 8 limits: each reading is judged
// over its own GPU's limit (relative_to through `**` takes the same per_gpu[] element), and the
// hot one fails its GPU. With one denominator wanted, the 8 limits once made every GPU unread.
TEST(BurninPhaseHealth, EachGpusAllReduceTemperatureIsOverItsOwnLimit) {
  auto runs = testing::burnin_node(8);
  for (auto &r : runs.runs[0].records)
    if (r.key == "collectives.nccl_all_reduce")
      for (int g = 0; g < 8; ++g) {
        auto &during = window(r.metrics, r.key, g)["during"];
        during["temperature_limit_c"] = g == 3 ? 80.0 : 87.0; // GPU 3's limit is its own
        during["temperature_c_max"] = g == 7 ? 92.0 : 84.0;
      }
  const auto r =
      evaluate(load_rules_file(railgauge::testing::shipped_data_file("rules/h200-sxm.yaml")), runs);
  std::set<std::string> hot;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == "load-temperature-nccl" && !f.missing && f.level == Level::fail)
        hot.insert(p.key.id);
  EXPECT_EQ(hot, (std::set<std::string>{testing::gpu_bus_id(3), testing::gpu_bus_id(7)}))
      << render_table(r);
}

// A temperature limit NVML read beside no reading (the sensor returned nothing all phase) is a
// missing value that fails the GPU, not a pass: DCGM takes a blank reading as 0 C. Without the
// limit too (a run older than the fields, NVML that reads no threshold) it stays at info.
TEST(BurninPhaseHealth, ATemperatureLimitReadBesideNoReadingFailsTheGpu) {
  const auto unread = [](const char *reading, const char *limit, bool limit_read) {
    return [=](json &t) {
      t["during"][reading] = nullptr;
      t["during"][limit] = limit_read ? json(95.0) : json(nullptr);
    };
  };
  struct Case {
    const char *key, *rule, *reading, *limit;
  };
  const char *ar = "collectives.nccl_all_reduce";
  for (const auto &c :
       {Case{"memory.burn", "load-temperature", "temperature_c_max", "temperature_limit_c"},
        Case{"gemm.burn", "load-memory-temperature", "memory_temperature_c_max",
             "memory_temperature_limit_c"},
        Case{ar, "load-temperature-nccl", "temperature_c_max", "temperature_limit_c"}})
    for (const bool limit_read : {true, false}) {
      const auto r = judged_with(8, c.key, unread(c.reading, c.limit, limit_read));
      Level level = Level::pass;
      std::string part, detail;
      for (const auto &p : r.parts)
        for (const auto &f : p.findings)
          if (f.rule_id == c.rule && f.missing && f.level > level) {
            level = f.level;
            part = p.key.id;
            detail = f.detail;
          }
      const auto expected = limit_read ? Level::fail : Level::info;
      EXPECT_EQ(level, expected) << c.rule << " limit read " << limit_read << render_table(r);
      EXPECT_EQ(exit_status(r.verdict), exit_status(limit_read ? Level::fail : Level::pass))
          << c.rule << " limit read " << limit_read << render_table(r);
      if (limit_read) {
        EXPECT_EQ(part, testing::gpu_bus_id(7)) << c.rule << render_table(r);
        EXPECT_NE(detail.find("not a number (over 95)"), std::string::npos) << detail;
      }
    }
}

} // namespace
} // namespace railgauge::check
