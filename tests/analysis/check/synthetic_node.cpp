#include "synthetic_node.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "cli/make_registry.h"
#include "collectives/collective_point.h"
#include "gemm/cuda/cublaslt.h"
#include "harness/lockstep.h"
#include "harness/measure.h"
#include "harness/record_io.h"
#include "harness/runner.h"
#include "harness/suite.h"
#include "harness/topology.h"
#include "harness/waiver.h"
#include "railgauge/config.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/offload_record.h"
#include "records/rdma_point_fields.h"
#include "records/rdma_record.h"
#include "synthetic_fleet.h"

namespace railgauge::check::testing {
namespace {

using json = nlohmann::json;

constexpr int kGpus = 8; // the fixture node: 8 H100 SXM, 8 NICs (tests/fixtures/topology)

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// A measurement of `median_s` per call with a 0.5% spread, as the measurement core reports it.
Measurement measured(double median_s) {
  Measurement m;
  for (double f : {0.995, 0.998, 1.0, 1.0, 1.002, 1.005})
    m.samples_s.push_back(median_s * f);
  m.time_s = summarize(m.samples_s);
  m.timer = "synthetic";
  m.sampler = "synthetic";
  m.stop_reason = "noise";
  return m;
}

// Copy bandwidth that rises to its plateau by 64 MiB, as small copies are latency-bound.
double ramp(std::int64_t size_bytes) {
  return std::min(1.0, 0.3 + static_cast<double>(size_bytes) / (64.0 * 1024 * 1024));
}

// Healthy H100 SXM figures. GEMM: 700 dense BF16 TFLOPS of the 989 peak (cuBLASLt on large
// shapes, docs/gemm.md), FP32 51 of 67 (DCGM's floor is 29.25). HBM: 3000 of 3350 GB/s
// (BabelStream-class copy). Host copies: nvbandwidth on 8xH100 gives 55.2-55.4 GB/s H2D
// (acceptance.md, table d); pageable and far-NUMA copies are lower. NCCL busbw at 16 GiB on one
// healthy 8xH100 node (xxrjun cnode3-007, tests/fixtures/verdicts/real).
double gemm_tflops(const Point &p) {
  const std::string dtype = p.has("dtype") ? p.text("dtype") : "bf16";
  if (dtype == "fp32")
    return 51.0;
  if (dtype == "tf32")
    return 380.0;
  if (dtype == "fp8_e4m3")
    return 1300.0;
  return 700.0;
}

double host_copy_gbytes_per_s(const Point &p) {
  double bw = 55.3;
  if (p.has("host_memory") && p.text("host_memory") == "pageable")
    bw = 20.0;
  if (p.has("placement") && p.text("placement") == "far")
    bw *= 0.8;
  return bw;
}

double nccl_busbw_gbytes_per_s(collectives::Kind kind) {
  switch (kind) {
  case collectives::Kind::all_reduce:
    return 481.6;
  case collectives::Kind::alltoall:
    return 347.8;
  case collectives::Kind::sendrecv:
    return 367.2;
  default: // all_gather 361.5, reduce_scatter 363.4; broadcast and reduce alike
    return 362.0;
  }
}

// "collectives.nccl_textbook_all_reduce", "collectives.nccl_all_reduce_with_gemm" -> all_reduce
collectives::Kind kind_of(std::string_view key, const Point &p) {
  std::string name(key.substr(key.find('_') + 1));
  for (std::string_view cut : {"textbook_", "_with_gemm"})
    if (auto at = name.find(cut); at != std::string::npos)
      name.erase(at, cut.size());
  if (p.has("kind"))
    name = p.text("kind");
  return collectives::parse_kind(name).value_or(collectives::Kind::all_reduce);
}

class SyntheticBenchmark final : public Benchmark {
public:
  SyntheticBenchmark(Benchmark &real, int node, const NodeFaults &faults)
      : real_(real), node_(node), faults_(faults) {}
  std::string_view key() const override { return real_.key(); }
  std::string_view description() const override { return real_.description(); }
  std::vector<Axis> axes() const override { return real_.axes(); }

  // The node's 8 GPUs where the benchmark sweeps every visible GPU (on this machine it sees none).
  std::vector<AxisValue> defaults_here(const Axis &axis, const RunContext &ctx) const override {
    auto values = real_.defaults_here(axis, ctx);
    if (axis.name == "gpu" && values == std::vector<AxisValue>{std::int64_t{0}}) {
      values.clear();
      for (int g = 0; g < kGpus; ++g)
        values.emplace_back(std::int64_t{g});
    }
    return values;
  }

  // What the real benchmark says, but for the hardware this machine lacks: a point waived by
  // construction stays waived, one that needs a GPU or a NIC is "measured" below.
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override {
    auto why = real_.supported(ctx, point);
    if (why && is_not_applicable(*why))
      return why;
    return std::nullopt;
  }

  Outcome run(RunContext &, const Point &p) override {
    const std::string key(real_.key());
    const int gpu =
        p.has("gpu") ? static_cast<int>(std::max<std::int64_t>(0, p.integer("gpu"))) : 0;
    const auto size = p.has("size_bytes") ? p.integer("size_bytes") : std::int64_t{1} << 20;
    Outcome out;
    out.device = {{"gpu", fmt::format("GPU-fixture-{:02d}-{}", node_, gpu)},
                  {"pci", gpu_bus_id(gpu)},
                  {"numa", gpu / 4}};
    namespace g = gemm::record;
    if (starts_with(key, g::kCublasLt) || key == g::kBurn) {
      const double slow = gpu == faults_.slow_gemm_gpu ? 0.92 : 1.0;
      const double tflops = gemm_tflops(p) * slow;
      out.metrics = measured(1e-3).to_json();
      // The shape the benchmark plans (n = k = m for the square sweep, the TP layer's GEMMs)
      // goes into params as the real run puts it there.
      if (const auto *lt = dynamic_cast<const gemm::CublasLtBenchmark *>(&real_)) {
        const auto plan = lt->plan(p);
        for (const auto &[name, value] : plan.derived.items())
          out.derived_params[name] = value;
        out.metrics[g::kFlopsPerCall] = plan.flops();
      }
      if (key == g::kBurn) { // every GPU at once: the slowest, median and fastest
        out.metrics[g::kTflopsMin] = tflops;
        out.metrics[g::kTflopsMedian] = tflops;
        out.metrics[g::kTflopsMax] = tflops;
      } else {
        out.metrics[g::kTflops] = tflops;
        out.metrics[g::kEfficiency] = tflops / 989.0;
      }
      out.conclude_data_check({});
    } else if (starts_with(key, "memory.hbm")) {
      out.metrics =
          measured(static_cast<double>(size) / (3000e9 * ramp(size))).bandwidth_metrics(size);
      out.conclude_data_check({});
    } else if (starts_with(key, "offload.")) {
      double bw = host_copy_gbytes_per_s(p) * ramp(size);
      const bool gen4 = gpu == faults_.downtrained_gpu;
      if (gen4)
        bw *= 0.5; // Gen4 x16 carries half of Gen5 x16
      if (faults_.h2d_half_slow && gpu >= 4)
        bw *= 0.8;
      out.metrics = measured(static_cast<double>(size) / (bw * 1e9)).bandwidth_metrics(size);
      out.metrics[offload::record::kPcieLinkDowntrained] = gen4;
      out.conclude_data_check({});
    } else if (starts_with(key, "rdma.")) {
      put_rdma(key, p, size, out);
    } else if (starts_with(key, "collectives.nccl")) {
      put_nccl(key, p, size, out);
    } else {
      // Host points (CPU BLAS, host memory, TCP): judged by the record status only.
      out.device = {{"numa", 0}};
      out.metrics = measured(1e-3).to_json();
      out.conclude_data_check({});
    }
    return out;
  }

private:
  // A NIC point: ib_write_lat and ib_write_bw figures on NDR, with the node's NIC faults.
  void put_rdma(const std::string &key, const Point &p, std::int64_t size, Outcome &out) const {
    out.device = {{"nic", "mlx5_0"}, {"port", 1}, {"numa", 0}};
    namespace r = rdma::record;
    json deltas = {{"counters",
                    {{"link_downed", faults_.nic_link_downed ? 2 : 0},
                     {"symbol_error", faults_.bad_cable ? 1200 : 0}}},
                   {"hw_counters", json::object()}};
    if (key.ends_with("_lat")) {
      r::LatencyFields l;
      l.n = 1000;
      l.p50_s = 2.0e-6; // ib_write_lat on NDR: about 2 us at 2 bytes (Imbue's p99 bound 4.2 us)
      l.min_s = 1.9e-6;
      l.p90_s = 2.1e-6;
      l.p99_s = 2.4e-6;
      l.p99_9_s = 3.0e-6;
      l.max_s = faults_.latency_tail ? 200 * *l.p50_s : 6.0e-6;
      l.mean_s = 2.02e-6;
      l.stdev_s = 0.1e-6;
      l.write(out.metrics, r::kLatency);
    } else {
      // 392 of 400 Gb/s at 8 MiB (Azure NHC's floor is 380), lower below 64 KiB
      // A marginal cable retrains or retransmits: the 205.8 Gb/s of 400 that the real
      // moc_bm_h100_roce_cx7_ib_write_bw_gpumem_2qp_gpu0-gpu0_client.log shows is 0.53.
      const double cable = faults_.bad_cable ? 0.55 : 1.0;
      const double gbits =
          cable * 392.0 * std::min(1.0, 0.05 + static_cast<double>(size) / 65536.0);
      out.metrics = measured(static_cast<double>(size) * 8 / (gbits * 1e9)).to_json();
      out.metrics[r::kBandwidthGbitsPerS] = gbits;
      if (p.has(r::kDirection) && p.text(r::kDirection) == "bidir")
        out.metrics[r::kBidirectionalGbitsPerS] = 1.96 * gbits;
    }
    out.metrics[r::kPortCounterDeltas] = deltas;
  }

  // An NCCL point: one healthy node's busbw, halved past 1 GiB where all_reduce falls.
  void put_nccl(const std::string &key, const Point &p, std::int64_t size, Outcome &out) const {
    const auto kind = kind_of(key, p);
    double busbw = nccl_busbw_gbytes_per_s(kind) * std::min(1.0, 0.9 + size / (4.0 * (1 << 30)));
    if (faults_.allreduce_falls && kind == collectives::Kind::all_reduce &&
        size > (std::int64_t{1} << 30))
      busbw *= 0.5;
    // The time that gives this busbw, through the family's own bandwidth arithmetic.
    LockstepResult r;
    r.ranks = kGpus;
    r.timer = "synthetic";
    const auto with_time = [&](double t) {
      r.time_s = measured(t).time_s;
      r.own_time_s = r.time_s;
      return collectives::collective_metrics(r, kind, static_cast<std::uint64_t>(size), kGpus);
    };
    const double guess_s = static_cast<double>(size) / (busbw * 1e9);
    const double got = with_time(guess_s)[collectives::record::kBusbwGbytesPerS].get<double>();
    out.metrics = with_time(guess_s * got / busbw);
    out.device = {{"gpus", kGpus}};
    collectives::add_group_params(out.derived_params, {"nccl", kGpus, "world", 0, kGpus, 1});
    out.conclude_data_check({});
  }

  Benchmark &real_;
  int node_;
  const NodeFaults &faults_;
};

class NoPrinter final : public RecordPrinter {
public:
  void on_record(const Record &) override {}
};

} // namespace

std::string write_synthetic_node(const std::string &suite_file, const std::string &out_dir,
                                 int node, const NodeFaults &faults, Fabric fabric) {
  namespace fs = std::filesystem;
  const std::string host = host_name(node);
  const Topology topology = Topology::load_xml(std::string(RAILGAUGE_SOURCE_DIR) +
                                               "/tests/fixtures/topology/h100_8gpu_8nic.hwloc.xml");
  GBenchSampler sampler;
  RunContext ctx(topology, sampler, host, 0);

  const Registry real = make_registry();
  Registry synthetic;
  for (Benchmark *b : real.all())
    synthetic.add(std::make_unique<SyntheticBenchmark>(*b, node, faults));
  const Suite suite = load_suite_file(suite_file);
  const RunPlan plan = make_plan(synthetic, suite.entries, {}, std::nullopt, ctx);

  const fs::path dir = fs::path(out_dir) / host;
  fs::create_directories(dir);
  const RunIdentity id{"synthetic-" + host, host, 0, dir.string()};
  json inventory = fleet_inventory(node, kGpus, {});
  if (fabric == Fabric::roce)
    for (auto &device : inventory["verbs"]["devices"])
      for (auto &port : device["ports"])
        port["link_layer"] = "Ethernet";
  std::ofstream(dir / "run.json") << json{{"schema", "railgauge.run/1"},
                                          {"run", id.run_id},
                                          {"host", host},
                                          {"rank", 0},
                                          {"status", "complete"},
                                          {"suite", suite.name},
                                          {"inventory", inventory}}
                                         .dump(2);
  RecordFile records((dir / "records.jsonl").string());
  NoPrinter printer;
  execute_plan(plan, ctx, id, {records, printer});
  return dir.string();
}

} // namespace railgauge::check::testing
