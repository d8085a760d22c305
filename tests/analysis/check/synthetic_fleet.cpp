#include "synthetic_fleet.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "harness/record_io.h"

namespace railgauge::check::testing {
namespace {

using json = nlohmann::json;

json time_stats(double median_s) {
  return {{"n", 20},
          {"median", median_s},
          {"p10", median_s * 0.99},
          {"p90", median_s * 1.01},
          {"min", median_s * 0.985},
          {"max", median_s * 1.02},
          {"mean", median_s},
          {"stdev", median_s * 0.008},
          {"p99", median_s * 1.02}};
}

Record record(const std::string &host, const std::string &key, json params, json device,
              json metrics) {
  Record r;
  r.run = "fixture-" + host;
  r.host = host;
  r.key = key;
  r.params = std::move(params);
  r.device = std::move(device);
  r.metrics = std::move(metrics);
  r.time_utc = "2026-01-01T00:00:00.000Z";
  return r;
}

} // namespace

json fleet_inventory(int node, int gpus, const FleetFaults &f) {
  json nvml_gpus = json::array(), rail_gpus = json::array(), devices = json::array(),
       ports = json::array();
  for (int g = 0; g < gpus; ++g) {
    const bool gen4 = f.pcie_gen4 && node == 5 && g == 2;
    nvml_gpus.push_back(
        {{"index", g},
         {"errors", json::object()},
         {"name", "NVIDIA H100 80GB HBM3"},
         {"uuid", fmt::format("GPU-fixture-{:02d}-{}", node, g)},
         {"pci_bus_id", fmt::format("00000000:{:02X}:00.0", 0x18 + g * 0x10)},
         {"pcie",
          {{"gen_current", gen4 ? 4 : 5},
           {"gen_max", 5},
           {"width_current", 16},
           {"width_max", 16}}},
         {"ecc",
          {{"enabled_current", true},
           {"enabled_pending", true},
           {"volatile", {{"corrected", 0}, {"uncorrected", 0}}},
           {"aggregate", {{"corrected", 0}, {"uncorrected", 0}}}}},
         {"retired_pages", {{"single_bit", 0}, {"double_bit", 0}, {"pending", false}}},
         {"remapped_rows",
          {{"correctable", 0}, {"uncorrectable", 0}, {"pending", false}, {"failure", false}}},
         {"clocks_event_reasons", json::array({"gpu_idle"})},
         {"power_limit_w", 700.0}, // an SXM GPU at its TDP, as real inventories read
         {"nvlink", {{"links", json::array()}, {"up", 18}, {"down", 0}}}});
    rail_gpus.push_back({{"bus_id", gpu_bus_id(g)},
                         {"name", fmt::format("cuda{}", g)},
                         {"numa_node", g / 4},
                         {"nvml_index", g}});
    devices.push_back({{"name", fmt::format("mlx5_{}", g)},
                       {"node_guid", "0000:0000:0000:0000"},
                       {"ports", json::array({{{"port", 1},
                                               {"state", "PORT_ACTIVE"},
                                               {"physical_state", "link_up"},
                                               {"link_layer", "InfiniBand"},
                                               {"active_speed", "NDR"},
                                               {"active_width_lanes", 4},
                                               {"rate_gbits_per_s", 400},
                                               {"active_mtu_bytes", 4096},
                                               {"max_mtu_bytes", 4096},
                                               {"lid", 1},
                                               {"sm_lid", 1},
                                               {"gids", json::array()}}})}});
    ports.push_back({{"device", fmt::format("mlx5_{}", g)},
                     {"port", 1},
                     {"counters", {{"link_downed", 0}, {"symbol_error", 0}}},
                     {"hw_counters", json::object()},
                     {"unreadable", json::array()}});
  }
  return {{"schema", "railgauge.inventory/1"},
          {"host", host_name(node)},
          {"summary",
           {{"packages", 2},
            {"numa_nodes", 2},
            {"gpus", gpus},
            {"nics", gpus},
            {"nvswitches", gpus == 1 ? 0 : 4}}}, // an HGX baseboard has NVSwitches
          {"rail_map",
           {{"gpus", rail_gpus},
            {"nics", json::array()},
            {"paths", json::array()},
            {"rails", json::array()}}},
          {"nvml", {{"available", true}, {"reason", nullptr}, {"gpus", nvml_gpus}}},
          {"verbs", {{"available", true}, {"reason", nullptr}, {"devices", devices}}},
          {"port_counters", {{"available", true}, {"reason", nullptr}, {"ports", ports}}}};
}

double jitter(int node, int gpu) { return 1.0 + 0.005 * (((node * 7 + gpu * 3) % 5) - 2) / 2.0; }

std::string gpu_bus_id(int gpu) { return fmt::format("0000:{:02x}:00.0", 0x18 + gpu * 0x10); }
std::string host_name(int node) { return fmt::format("node{:02d}", node); }

analysis::RunSet make_fleet(const FleetFaults &f, int nodes, int gpus) {
  analysis::RunSet set;
  for (int n = 1; n <= nodes; ++n) {
    const auto host = host_name(n);
    analysis::LoadedRun run;
    run.dir = "fleet/" + host;
    run.manifest = {{"schema", "railgauge.run/1"},
                    {"host", host},
                    {"rank", 0},
                    {"inventory", fleet_inventory(n, gpus, f)}};
    for (int g = 0; g < gpus; ++g) {
      const json device = {{"gpu", fmt::format("GPU-fixture-{:02d}-{}", n, g)},
                           {"pci", gpu_bus_id(g)},
                           {"numa", g / 4}};
      const double slow = f.slow_gpu && n == 3 && g == 5 ? 0.92 : 1.0;
      const double tflops = 740.0 * jitter(n, g) * slow;
      const double flops = 2.0 * 8192 * 8192 * 8192;
      auto m = time_stats(flops / (tflops * 1e12));
      run.records.push_back(
          record(host, "gemm.cublaslt", {{"m", 8192}, {"n", 8192}, {"k", 8192}, {"dtype", "bf16"}},
                 device, {{"time_s", m}, {"tflops", tflops}, {"efficiency", tflops / 989.0}}));
      const double hbm = 2900.0 * jitter(n, g + 1);
      auto hbm_rec =
          record(host, "memory.hbm_copy", {{"size_bytes", 4294967296LL}, {"gpu", g}}, device,
                 {{"time_s", time_stats(2 * 4294967296.0 / hbm / 1e9)},
                  {"bandwidth_gbytes_per_s", hbm},
                  {"verified", true}});
      if (f.failed_record && n == 2 && g == 0) {
        hbm_rec.status = Status::failed;
        hbm_rec.reason = "3 of 536870912 elements wrong";
        hbm_rec.metrics["verified"] = false;
      }
      run.records.push_back(hbm_rec);
      if (!(f.drop_h2d && n == 8)) {
        const bool gen4 = f.pcie_gen4 && n == 5 && g == 2;
        const auto h2d = [&](const char *memory, const char *placement, double gbytes_per_s) {
          run.records.push_back(
              record(host, "offload.h2d",
                     {{"size_bytes", 536870912}, {"host_memory", memory}, {"placement", placement}},
                     device,
                     {{"time_s", time_stats(536870912.0 / gbytes_per_s / 1e9)},
                      {"bandwidth_gbytes_per_s", gbytes_per_s},
                      {"pcie_gen", gen4 ? 4 : 5},
                      {"pcie_link_downtrained", gen4}}));
        };
        const double scale = gen4 ? 0.47 : jitter(n, g + 2); // Gen4 x16 is half of Gen5 x16
        h2d("pinned", "near", 55.0 * scale);
        if (f.host_memory_variants) {
          h2d("pageable", "near", 20.0 * scale);
          h2d("pinned", "far", 44.0 * scale);
        }
      }
      const bool bad_nic = f.nic_link_downed && n == 7 && g == 4;
      run.records.push_back(record(
          host, "rdma.write_bw", {{"size_bytes", 8388608}},
          {{"nic", fmt::format("mlx5_{}", g)}, {"numa", g / 4}},
          {{"time_s", time_stats(8388608.0 * 8 / 392e9)},
           {"bandwidth_gbits_per_s", 392.0 * jitter(n, g + 3)},
           {"port_counter_deltas",
            {{"counters", {{"link_downed", bad_nic ? 2 : 0}, {"symbol_error", bad_nic ? 117 : 0}}},
             {"hw_counters", json::object()}}}}));
    }
    set.runs.push_back(std::move(run));
  }
  return set;
}

void write_fleet(const analysis::RunSet &fleet, const std::string &dir) {
  namespace fs = std::filesystem;
  for (const auto &run : fleet.runs) {
    const fs::path d = fs::path(dir) / run.manifest["host"].get<std::string>();
    fs::create_directories(d);
    std::ofstream(d / "run.json") << run.manifest.dump(2);
    RecordFile file((d / "records.jsonl").string());
    for (const auto &r : run.records)
      file.append(r);
  }
}

analysis::RunSet scaled(analysis::RunSet set, const std::string &key, const std::string &metric,
                        double factor) {
  for (auto &run : set.runs)
    for (auto &r : run.records)
      if (r.key == key)
        r.metrics[metric] = r.metrics[metric].get<double>() * factor;
  return set;
}

} // namespace railgauge::check::testing
