#pragma once
// What a benchmark's run() and supported() may use: the machine's topology, the measurement
// core, the measurement settings of the suite entry being run, and who this process is. Passed
// in, never global (nvbandwidth's global deviceCount and Output* are the thing to avoid).
#include <string>

#include "harness/measure.h"
#include "harness/store/store.h"
#include "harness/topology.h"

namespace railgauge {

class RunContext {
public:
  RunContext(const Topology &topology, Sampler &sampler, std::string host, int rank)
      : topology_(topology), sampler_(sampler), host_(std::move(host)), rank_(rank) {}

  const Topology &topology() const { return topology_; }
  const std::string &host() const { return host_; }
  int rank() const { return rank_; }
  // How many ranks the launcher (srun, mpirun) started; 1 for a single process.
  int world_size() const { return world_size_; }
  // The store every rank of this run shares, or nullptr when the run has a single rank and
  // nothing set one. Multi-rank benchmarks waive when it is missing.
  Store *store() const { return store_; }
  // How long a multi-rank benchmark waits for another rank (its store keys, its socket, its
  // completions) before it reports that rank as dead or hung: the run's --store-timeout.
  Milliseconds peer_timeout() const { return peer_timeout_; }
  double peer_timeout_s() const { return static_cast<double>(peer_timeout_.count()) / 1e3; }
  void set_world(int world_size, Store *store, Milliseconds peer_timeout = Milliseconds(300'000)) {
    world_size_ = world_size;
    store_ = store;
    peer_timeout_ = peer_timeout;
  }

  // The suite entry's (or command line's) settings for the point being run.
  const MeasureSpec &measure_spec() const { return spec_; }
  void set_measure_spec(const MeasureSpec &spec) { spec_ = spec; }
  // Verify data after each point (on unless the user turned it off for speed).
  bool verify() const { return verify_; }
  void set_verify(bool verify) { verify_ = verify; }

  // `settle`: a GPU point's probe (harness/inventory/gpu_settle.h), so that sampling starts
  // once the GPU's clocks and power have settled.
  Measurement measure(Timer &timer, const Operation &op, SettleProbe *settle = nullptr) const {
    return railgauge::measure(spec_, sampler_, timer, op, settle);
  }

private:
  const Topology &topology_;
  Sampler &sampler_;
  std::string host_;
  int rank_ = 0;
  int world_size_ = 1;
  Store *store_ = nullptr;
  Milliseconds peer_timeout_{300'000};
  MeasureSpec spec_;
  bool verify_ = true;
};

} // namespace railgauge
