#pragma once
// The measured points a calibration fits, read out of records. Only `ok` records are used;
// every record of a family that cannot be used says why in `skipped` (never silently dropped).
//
// Which records feed what (docs/calibrate.md):
//   gemm.*          GemmSample      flops_per_call, bytes_per_call, time_s.median, params.dtype
//   memory.hbm_*    MemorySample    tier "hbm"; bytes the op touches = bytes_per_call /
//   memory.host_*                   tier "host"  passes_per_call, time likewise per pass
//   offload.*       OffloadSample   direction from the key (h2d, d2h, bidir, ...)
//   collectives.*   CollectiveSample op, ranks, size_bytes (nccl-tests' size), tier; one per
//                                    point (run, key, params), not one per rank
//   rdma.*          P2pSample       *_lat: latency.p50_s per message; *_bw: time per message
//   any record with metrics.gemm_slowdown  OverlapSample (processor usage under overlap)
#include <map>
#include <string>
#include <vector>

#include "analysis/calibrate/core_share.h"
#include "analysis/run_set.h"

namespace railgauge::calibrate {

struct GemmSample {
  std::string dtype; // railgauge's name: fp32, bf16, ...
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  double flops = 0, time_s = 0;
  // The bytes Calculon's memory term counts for this op; bytes_per_call is the record's own sum
  // over the GEMMs of the call. They differ for a BMM's dgrad (gemm_count 2): Calculon counts
  // its backward as 2F FLOPs but the forward's B bytes, the record 2B (samples.cpp).
  double bytes = 0, bytes_per_call = 0;
  double peak_tflops = 0; // from the record; 0 = not known
  std::string op, model, layer, pass;
  int tp = 0;    // 0 = not a TP-sweep point
  int count = 1; // GEMMs one call runs (params.gemm_count): 2 for a BMM's dgrad, else 1
  std::string key;
  CoreShare cores; // the CPU backend's ranks and threads on the run's host
  // In lockstep: this rank's own median call; 0 = not given. Where the ranks had cores of their
  // own, time_s is this one and lockstep_time_s the median call that waited for the slowest
  // rank; where they shared cores, time_s is the lockstep call (samples.cpp).
  double own_time_s = 0;
  double lockstep_time_s = 0; // 0 = time_s is the lockstep call, or there was no lockstep
};

struct MemorySample {
  std::string tier; // "hbm" or "host"
  std::string kind; // read, write, copy, triad, memcpy_d2d
  double bytes = 0, time_s = 0;
  int threads = 0; // params.threads_used (host), 0 = not given
  std::string key;
  double working_set_bytes = 0, cache_bytes = 0; // every array, the cache in front; 0 unknown
};

struct OffloadSample {
  std::string direction; // the key's name: h2d, d2h, bidir, zero_copy_read, ...
  std::string host_memory, placement;
  double bytes = 0, time_s = 0;
  std::string key;
};

// Network tiers, in Calculon's networks[] order.
inline constexpr const char *kScaleUp = "scale_up";   // the NVLink domain (one node)
inline constexpr const char *kScaleOut = "scale_out"; // the RDMA fabric between nodes

struct CollectiveSample {
  std::string tier, op;  // op: all_reduce, all_gather, reduce_scatter, p2p, alltoall, ...
  std::string tier_from; // how the tier was decided
  int ranks = 0;
  int hosts = 0; // hosts the group's ranks ran on (0: unknown)
  // What else changes a collective's α and β: the library (nccl over GPU memory, mpi over host
  // memory), the group's axis (world, or tp/dp of a split run) and the element type.
  std::string backend, group_type = "world", dtype;
  double size_bytes = 0, time_s = 0;
  std::string key;
  std::string run; // the run it was measured in
};

struct P2pSample {
  std::string verb;    // write, read, send
  std::string measure; // "latency" (one message, ping-pong) or "bandwidth" (streamed)
  double bytes = 0, time_s = 0;
  std::string key;
};

struct OverlapSample {
  std::string family; // "offload" or "collectives"
  std::string tier;   // collectives only
  double gemm_slowdown = 0;
  std::string key;
};

struct Samples {
  std::vector<GemmSample> gemm;
  std::vector<MemorySample> memory;
  std::vector<OffloadSample> offload;
  std::vector<CollectiveSample> collectives;
  std::vector<P2pSample> p2p;
  std::vector<OverlapSample> overlap;
  std::map<std::string, int> used_by_key;    // ok records turned into samples
  std::map<std::string, int> ignored_status; // "waived" etc.: records that are not ok
  // ok collective records of a point that another rank of the same run already gave: every rank
  // writes the point with the same time, and one sample stands for it.
  std::map<std::string, int> duplicates_by_key;
  std::vector<std::string> skipped;          // "<run>: <key> <params>: why"
  std::map<std::string, int> skipped_by_why; // the same, counted per reason
};

// The canonical collective name in a record: params kind/collective/op, else the key.
// "sendrecv", "send_recv" and "p2p" become "p2p"; nullopt when none is found.
std::optional<std::string> collective_op(const Record &r);

Samples extract_samples(const analysis::RunSet &runs);

} // namespace railgauge::calibrate
