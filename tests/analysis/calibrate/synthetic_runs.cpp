#include "tests/analysis/calibrate/synthetic_runs.h"

#include <random>
#include <stdexcept>

#include <fmt/format.h>

namespace railgauge::calibrate::synthetic {

double mem_eff(double bytes) { return bytes >= 100e6 ? 0.95 : bytes >= 1e6 ? 0.8 : 0.3; }
double gemm_eff(double flops) { return flops >= 10e9 ? 0.85 : 0.4; }

Record rec(const std::string &key, nlohmann::json params, nlohmann::json metrics,
           const std::string &host) {
  Record r;
  r.run = "synthetic";
  r.host = host;
  r.key = key;
  r.params = std::move(params);
  r.metrics = std::move(metrics);
  return r;
}

nlohmann::json time_json(double t) { return {{"median", t}, {"n", 10}}; }

Record rank_rec(const std::string &key, const std::string &run, int rank, const std::string &host,
                nlohmann::json params, nlohmann::json metrics) {
  Record r = rec(key, std::move(params), std::move(metrics), host);
  r.run = run;
  r.rank = rank;
  return r;
}

nlohmann::json collective_params(double size_bytes, int world_size, const std::string &groups,
                                 const std::string &group_type, int group_index, int group_size) {
  return {{"size_bytes", size_bytes},
          {"dtype", "bf16"},
          {"op", "sum"},
          {"backend", "nccl"},
          {"world_size", world_size},
          {"groups", groups},
          {"group_type", group_type},
          {"group_index", group_index},
          {"group_size", group_size}};
}

RunSet make_runs(const Synthetic &s) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> err(0.0, s.noise);
  const auto noisy = [&](double t) { return t * (1 + err(rng)); };
  LoadedRun run;
  run.dir = "synthetic";
  if (s.memory)
    for (double b = 4096; b <= 4e9; b *= 2)
      for (const char *kind : {"copy", "triad"})
        run.records.push_back(rec(
            std::string("memory.hbm_") + kind, {{"size_bytes", b / 2}},
            {{"bytes_per_call", b}, {"time_s", time_json(noisy(b / (kMemPeak * mem_eff(b))))}}));
  if (s.gemm)
    for (std::int64_t m = 16; m <= 16384; m *= 2)
      for (std::int64_t n : {1536, 4608, 12288}) {
        const std::int64_t k = 12288;
        const double flops = 2.0 * m * n * k;
        const double bytes = 2.0 * (m * k + k * n + m * n);
        // What a GPU measures: compute and memory one after the other (Calculon no_overlap).
        const double t =
            flops / (kPeakTflops * 1e12 * gemm_eff(flops)) + bytes / (kMemPeak * mem_eff(bytes));
        run.records.push_back(rec("gemm.cublaslt",
                                  {{"dtype", "bf16"},
                                   {"m", m},
                                   {"n", n},
                                   {"k", k},
                                   {"batch", 1},
                                   {"op", "qkv.fwd"},
                                   {"model", "gpt3-175b"},
                                   {"tp", 8}},
                                  {{"flops_per_call", flops},
                                   {"bytes_per_call", bytes},
                                   {"peak_tflops", kPeakTflops},
                                   {"time_s", time_json(noisy(t))}}));
      }
  if (s.collectives) {
    // As real records are: every rank writes each point with the same time (the max over
    // ranks), world_size and group_size, no node count. The NVLink domain: a run of 8 ranks on
    // one host; the fabric: a run of 2 ranks on 2 hosts, one GPU per node, so that its bus
    // bandwidth is the fabric's (more GPUs per node: tier_decomposition_test.cpp).
    struct Tier {
      const char *run;
      int ranks;
      int hosts;
      double alpha, busbw;
    };
    for (const Tier tier : {Tier{"up", 8, 1, 12e-6, 360e9}, Tier{"out", 2, 2, 30e-6, 45e9}})
      for (const char *op : {"all_reduce", "all_gather", "reduce_scatter", "sendrecv"})
        for (double size = 1024; size <= 1 << 30; size *= 4) {
          const std::string name = op == std::string("sendrecv") ? "p2p" : op;
          const double t = noisy(tier.alpha + size * bus_factor(name, tier.ranks) / tier.busbw);
          for (int rank = 0; rank < tier.ranks; ++rank)
            run.records.push_back(
                rank_rec(std::string("collectives.nccl_") + op, tier.run, rank,
                         fmt::format("node{}", rank * tier.hosts / tier.ranks),
                         collective_params(size, tier.ranks, "world", "world", 0, tier.ranks),
                         {{"time_s", time_json(t)}}));
        }
    run.records.push_back(rank_rec("collectives.nccl_all_reduce_with_gemm", "up", 0, "node0",
                                   collective_params(1 << 20, 8, "world", "world", 0, 8),
                                   {{"gemm_slowdown", 1.25}}));
    Record waived = rec("collectives.nccl_all_reduce", {{"size_bytes", 8}, {"ranks", 8}}, {});
    waived.status = Status::waived;
    run.records.push_back(waived);
    run.records.push_back(rec("collectives.mpi_all_reduce",
                              {{"size_bytes", 1024}, {"ranks", 4}, {"algorithm", "ring"}},
                              {{"time_s", time_json(1e-5)}}));
  }
  if (s.offload)
    for (double b = 4096; b <= 1 << 30; b *= 4)
      for (const char *dir : {"h2d", "d2h"})
        run.records.push_back(
            rec(std::string("offload.") + dir,
                {{"size_bytes", b}, {"host_memory", "pinned"}, {"placement", "near"}},
                {{"bytes_per_call", b}, {"time_s", time_json(noisy(5e-6 + b / 50e9))}}));
  if (s.rdma)
    for (double b = 2; b <= 1 << 20; b *= 4)
      run.records.push_back(rec("rdma.write_lat", {{"size_bytes", b}},
                                {{"latency", {{"p50_s", noisy(2e-6 + b / 45e9)}}}}));
  RunSet set;
  set.runs.push_back(run);
  return set;
}

const NetworkTier &tier(const Calibration &c, const char *name) {
  for (const auto &n : c.networks)
    if (n.name == name)
      return n;
  throw std::logic_error("no tier");
}

RunSet ranks_of_one_run(int ranks, const std::vector<double> &sizes) {
  RunSet set;
  for (int rank = ranks - 1; rank >= 0; --rank) { // rank 0's directory not first
    LoadedRun run;
    run.dir = fmt::format("runs/r1/rank{}", rank);
    for (double size : sizes) {
      Record r = rec("collectives.mpi_all_reduce",
                     {{"size_bytes", size},
                      {"dtype", "f32"},
                      {"backend", "mpi"},
                      {"world_size", ranks},
                      {"groups", "world"},
                      {"group_type", "world"},
                      {"group_index", 0},
                      {"group_size", ranks}},
                     {{"time_s", time_json(1e-5 + size / 10e9 + rank * 1e-9)}});
      r.run = "r1";
      r.rank = rank;
      run.records.push_back(r);
    }
    set.runs.push_back(run);
  }
  return set;
}

RunSet tp_dp_run(const std::vector<double> &sizes) {
  LoadedRun run;
  run.dir = "runs/r1";
  for (double size : sizes)
    for (int rank = 0; rank < 4; ++rank) {
      const std::string host = rank < 2 ? "a" : "b";
      const auto add = [&](const char *type, int index, double t) {
        run.records.push_back(rank_rec("collectives.mpi_all_reduce", "r1", rank, host,
                                       collective_params(size, 4, "tp=2+dp=rest", type, index, 2),
                                       {{"time_s", time_json(t)}}));
      };
      add("tp", rank / 2, 5e-6 + size / 100e9); // all_reduce on 2 ranks: bus factor 1
      add("dp", rank % 2, 20e-6 + size / 10e9);
      add("concurrent", rank / 2, 25e-6 + size / 8e9);
    }
  RunSet set;
  set.runs.push_back(run);
  return set;
}

} // namespace railgauge::calibrate::synthetic
