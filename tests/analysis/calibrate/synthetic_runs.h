#pragma once
// The synthetic runs the calibration tests share: records of every family with known curves
// (memory and GEMM efficiency, network tiers), and runs laid out as several ranks write them.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibration.h"
#include "analysis/run_set.h"
#include "harness/record.h"

namespace railgauge::calibrate::synthetic {

using analysis::LoadedRun;
using analysis::RunSet;

constexpr double kMemPeak = 2000e9; // bytes/s
constexpr double kPeakTflops = 500;

// A memory curve: 30% under 1 MB, 80% under 100 MB, 95% above.
double mem_eff(double bytes);
// A GEMM compute curve: 40% under 10 GFLOP, 85% above.
double gemm_eff(double flops);

Record rec(const std::string &key, nlohmann::json params, nlohmann::json metrics,
           const std::string &host = "node0");
nlohmann::json time_json(double t);
// One rank's record of a run.
Record rank_rec(const std::string &key, const std::string &run, int rank, const std::string &host,
                nlohmann::json params, nlohmann::json metrics);
// The params a collectives record carries (collectives/collective_point.cpp add_group_params).
nlohmann::json collective_params(double size_bytes, int world_size, const std::string &groups,
                                 const std::string &group_type, int group_index, int group_size);

// Which families make_runs writes, and the noise on their times.
struct Synthetic {
  bool gemm = true, memory = true, collectives = true, offload = true, rdma = true;
  double noise = 0.01;
};
RunSet make_runs(const Synthetic &s);

// The calibration's network tier of this name (throws when it has none).
const NetworkTier &tier(const Calibration &c, const char *name);

// What `mpirun -n 4 railgauge collectives` writes: one rank directory per rank, each with every
// point, all with the same time (the max over ranks).
RunSet ranks_of_one_run(int ranks, const std::vector<double> &sizes);

// `mpirun -n 4 ... -a groups=tp=2+dp=rest` over two hosts (ranks 0, 1 on a; 2, 3 on b): each
// tp group stays in its host, each dp group crosses them. Records carry world_size 4 and
// group_size 2; the concurrent point (both axes at once) has only a contended time.
RunSet tp_dp_run(const std::vector<double> &sizes);

} // namespace railgauge::calibrate::synthetic
