#include "analysis/calibrate/samples.h"

#include <set>

#include <fmt/format.h>

#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_point.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/rdma_record.h"

namespace railgauge::calibrate {
namespace {

using record_fields::median_time_s;
using record_fields::number;
using record_fields::text;

std::string describe(const Record &r) {
  return fmt::format("{}: {} {}", r.run, r.key, r.params.dump());
}

// The first of `names` in params, as a positive integer.
std::optional<int> first_int(const nlohmann::json &params,
                             std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (auto v = number(params, n); v && *v >= 1)
      return static_cast<int>(*v);
  return std::nullopt;
}

// The ranks a collective ran on: its group's size first. A record of `groups=tp=2+dp=rest` on 4
// ranks carries world_size 4 and group_size 2, and the bus factor and tier are the group's.
std::optional<int> group_ranks(const nlohmann::json &params) {
  return first_int(params, {collectives::record::kGroupSize, "ranks", "nranks",
                            collectives::record::kWorldSize});
}

// The group one rank's record ran in: run, key, the split and which group of it. Records without
// group params (imports, older runs) fall into one group per (run, key).
std::string group_of(const Record &r) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", r.run, r.key,
                     text(r.params, collectives::record::kGroups).value_or(""),
                     text(r.params, collectives::record::kGroupType).value_or(""),
                     number(r.params, collectives::record::kGroupIndex).value_or(0));
}

// Where the tier is not in the record, it comes from how the ranks were laid out: a group on
// more than one node crosses the scale-out fabric, a group inside one node stays in its NVLink
// domain. The first rule that applies decides, and is recorded (tier_from). `hosts_in_group`:
// the hosts of the records of this rank's group (with `groups=tp=2+dp=rest`, a tp group can sit
// in one node while the dp groups of the same run cross nodes).
std::pair<std::string, std::string> decide_tier(const Record &r, std::size_t hosts_in_group) {
  for (const char *name : {"tier", "network_tier", "net"}) {
    if (auto t = text(r.params, name)) {
      if (*t == "scale_up" || *t == "nvlink" || *t == "intra_node" || *t == "0")
        return {kScaleUp, fmt::format("params.{}", name)};
      if (*t == "scale_out" || *t == "inter_node" || *t == "rdma" || *t == "1")
        return {kScaleOut, fmt::format("params.{}", name)};
    }
  }
  if (auto nodes =
          first_int(r.params, {collectives::record::kGroupHosts, "nodes", "node_count", "hosts"}))
    return {*nodes > 1 ? kScaleOut : kScaleUp, "params.group_hosts or nodes"};
  const auto ranks = group_ranks(r.params);
  if (auto per_node = first_int(r.params, {"ranks_per_node", "local_size", "gpus_per_node"});
      per_node && ranks)
    return {*ranks > *per_node ? kScaleOut : kScaleUp, "params.ranks_per_node"};
  return {hosts_in_group > 1 ? kScaleOut : kScaleUp, "hosts in the group"};
}

constexpr std::pair<const char *, const char *> kCollectiveNames[] = {
    // Longest first: "reduce_scatter" and "all_reduce" contain "reduce".
    {"reduce_scatter", "reduce_scatter"},
    {"all_reduce", "all_reduce"},
    {"allreduce", "all_reduce"},
    {"all_gather", "all_gather"},
    {"allgather", "all_gather"},
    {"reducescatter", "reduce_scatter"},
    {"alltoall", "alltoall"},
    {"all_to_all", "alltoall"},
    {"sendrecv", "p2p"},
    {"send_recv", "p2p"},
    {"p2p", "p2p"},
    {"broadcast", "broadcast"},
    {"reduce", "reduce"},
};

std::optional<std::string> canonical_collective(const std::string &name) {
  for (const auto &[pattern, canonical] : kCollectiveNames)
    if (name.find(pattern) != std::string::npos)
      return std::string(canonical);
  return std::nullopt;
}

// ---------------------------------------------------------------- one extractor per family
// Each reads a record through its family's contract: the sample, or nullopt with `why`.

// A point measured beside a GEMM (offload.with_gemm, collectives.*_with_gemm): the GEMM's slowdown.
std::optional<OverlapSample> overlap_sample(const Record &r, std::size_t hosts_in_group) {
  OverlapSample o;
  std::optional<double> slowdown;
  if (const auto off = offload::record::offload_point_view(r)) {
    o.family = offload::record::kFamily;
    slowdown = off->gemm_slowdown;
  } else if (const auto c = collectives::record::collective_point_view(r)) {
    o.family = collectives::record::kFamily;
    slowdown = c->gemm_slowdown;
  }
  if (!slowdown || !(*slowdown > 0))
    return std::nullopt;
  if (o.family == collectives::record::kFamily)
    o.tier = decide_tier(r, hosts_in_group).first;
  o.gemm_slowdown = *slowdown;
  o.key = r.key;
  return o;
}

// Bytes of one element of a GEMM operand, by railgauge's dtype name; 0 when not known.
double gemm_element_bytes(const std::string &dtype) {
  if (dtype == "fp8_e4m3" || dtype == "fp8_e5m2")
    return 1;
  if (dtype == "bf16" || dtype == "fp16")
    return 2;
  if (dtype == "fp32" || dtype == "tf32")
    return 4;
  return dtype == "fp64" ? 8 : 0;
}

// A burn-in's GEMM (gemm.burn): one shape run back to back on every GPU for its duration, at
// the clocks and power a training step holds. Its median GPU's rate is a point of the dtype's
// table at that shape; the records carry no peak, so the peak comes from the GPU's spec.
std::optional<GemmSample> burn_gemm_sample(const Record &r, std::string &why) {
  namespace g = gemm::record;
  const auto m = number(r.params, g::kM), n = number(r.params, g::kN), k = number(r.params, g::kK);
  const auto flops = number(r.metrics, g::kFlopsPerCall);
  const auto tflops = number(r.metrics, g::kTflopsMedian);
  GemmSample s;
  s.dtype = text(r.params, g::kDtype).value_or("");
  const double element = gemm_element_bytes(s.dtype);
  if (!m || !n || !k || !flops || !tflops || !(*tflops > 0) || !(*flops > 0) || element == 0) {
    why = "gemm.burn without m, n, k, flops_per_call, tflops_median or a known dtype";
    return std::nullopt;
  }
  s.m = static_cast<std::int64_t>(*m);
  s.n = static_cast<std::int64_t>(*n);
  s.k = static_cast<std::int64_t>(*k);
  s.flops = *flops;
  s.time_s = *flops / (*tflops * 1e12);
  s.bytes = s.bytes_per_call = element * (*m * *k + *k * *n + *m * *n);
  s.op = "burn";
  s.key = r.key;
  return s;
}

std::optional<GemmSample> gemm_sample(const Record &r, int host_cores, std::string &why) {
  if (r.key == gemm::record::kBurn)
    return burn_gemm_sample(r, why);
  const auto v = gemm::record::gemm_call_view(r);
  if (!v || !v->flops_per_call || !v->bytes_per_call || !v->time_s || v->dtype.empty() ||
      !(*v->time_s > 0) || !(*v->flops_per_call > 0)) {
    why = "no flops_per_call, bytes_per_call, time_s.median or dtype";
    return std::nullopt;
  }
  GemmSample s;
  s.dtype = v->dtype;
  s.m = v->m;
  s.n = v->n;
  s.k = v->k;
  s.batch = v->batch;
  s.flops = *v->flops_per_call;
  s.time_s = *v->time_s;
  s.peak_tflops = v->peak_tflops;
  s.op = v->op;
  s.model = v->model;
  s.layer = v->layer;
  s.pass = v->pass;
  s.tp = static_cast<int>(v->tp);
  s.count = v->gemm_count;
  // A BMM's dgrad record runs its two GEMMs (dQ and dK, or dP and dV) in one call: FLOPs and
  // bytes of both. Each touches as many bytes as the forward BMM (the same three matrices,
  // transposed), and Calculon's BatchMatMul counts the backward as agrad_flops = 2F but
  // agrad_mem_accessed = the forward's B (activation_space + activation_grads,
  // calculon/llm/layers.py). Its memory term is Calculon's: B, not the record's 2B.
  s.bytes_per_call = *v->bytes_per_call;
  s.bytes = *v->bytes_per_call / s.count;
  s.key = r.key;
  s.cores = {v->ranks_per_host, v->blas_threads, host_cores};
  s.own_time_s = v->own_time_s.value_or(0);
  // Ranks with cores of their own: each rank's own call is what a GPU (or core) of a TP step
  // computes, as Calculon counts it. The lockstep call waits for the slower rank per call, which
  // a block does only at its collectives (where the wait is measured), and a host that slows one
  // core for seconds at a time makes that maximum an upper bound: 1.09-1.15 x the own time on
  // the 2-core VM (docs/calibrate.md). Where ranks take turns on a core, time_s stays the
  // lockstep call and block_prediction scales it by the turns.
  if (s.own_time_s > 0 && !s.cores.shared()) {
    s.lockstep_time_s = s.time_s;
    s.time_s = s.own_time_s;
  }
  return s;
}

// A burn-in's HBM copy (memory.burn): its median GPU's rate over one array size, counted as
// the copy kernel's bytes (read and written, as the HBM copy records count them).
std::optional<MemorySample> burn_memory_sample(const Record &r, std::string &why) {
  const auto size = number(r.params, memory::record::kSizeBytes);
  const auto across =
      records::AcrossGpuFigures::read(r.metrics, memory::record::kBurnBandwidthAcrossGpus);
  const auto gbytes_per_s = across ? std::optional(across->median) : std::nullopt;
  if (!size || !gbytes_per_s || !(*size > 0) || !(*gbytes_per_s > 0) ||
      text(r.params, memory::record::kKernel).value_or("") != "copy") {
    why = fmt::format("memory.burn without a copy kernel's {} and {}", memory::record::kSizeBytes,
                      memory::record::kBurnBandwidthMedianGbytesPerS);
    return std::nullopt;
  }
  MemorySample s;
  s.tier = "hbm";
  s.kind = "copy";
  s.bytes = 2 * *size;
  s.time_s = s.bytes / (*gbytes_per_s * 1e9);
  s.key = r.key;
  s.working_set_bytes = 2 * *size;
  return s;
}

std::optional<MemorySample> memory_sample(const Record &r, std::string &why) {
  if (r.key == memory::record::kHbmBurn)
    return burn_memory_sample(r, why);
  const auto v = memory::record::MemoryPoint::read(r);
  if (!v) {
    why = "a memory key that is neither memory.hbm_* nor memory.host_*";
    return std::nullopt;
  }
  if (!v->bytes_per_call || !v->time_s || !(*v->time_s > 0) || !(*v->bytes_per_call > 0)) {
    why = "no bytes_per_call or time_s.median";
    return std::nullopt;
  }
  MemorySample s;
  s.tier = v->tier;
  s.kind = v->kind;
  s.bytes = *v->bytes_per_call / v->passes();
  s.time_s = *v->time_s / v->passes();
  s.threads = static_cast<int>(v->threads_used.value_or(0));
  s.key = r.key;
  s.working_set_bytes = static_cast<double>(v->total_bytes.value_or(0));
  s.cache_bytes = static_cast<double>(v->l2_bytes.value_or(0));
  return s;
}

std::optional<OffloadSample> offload_sample(const Record &r, std::string &why) {
  const auto v = offload::record::offload_point_view(r);
  if (!v || !v->bytes_per_call || !v->time_s || !(*v->time_s > 0) || !(*v->bytes_per_call > 0)) {
    why = "no bytes_per_call or time_s.median";
    return std::nullopt;
  }
  OffloadSample s;
  s.direction = v->path;
  s.host_memory = v->host_memory;
  s.placement = v->placement;
  s.bytes = *v->bytes_per_call;
  s.time_s = *v->time_s;
  s.key = r.key;
  return s;
}

std::optional<CollectiveSample> collective_sample(const Record &r, std::size_t hosts_in_group,
                                                  std::string &why) {
  namespace c = collectives::record;
  const auto &p = r.params;
  const auto v = c::collective_point_view(r);
  if (!v) {
    why = "not a collectives record";
    return std::nullopt;
  }
  // Library collectives only: the textbook algorithms over point-to-point are measured against
  // the library, not what a training job runs.
  if (v->textbook()) {
    why = "a textbook algorithm over point-to-point, not the library's collective";
    return std::nullopt;
  }
  if (v->group_type == "concurrent") {
    why = "group_type concurrent: every axis's groups at once contend for the links, and the "
          "record holds the time only; not an α/β point";
    return std::nullopt;
  }
  const auto op = collective_op(r);
  const auto size = v->size_bytes;
  const auto ranks = group_ranks(p);
  const auto call_s = v->time_s;
  if (!op || !size || !ranks || !call_s || !(*call_s > 0) || !(*size > 0)) {
    why = "no collective name, size_bytes, ranks or time_s.median";
    return std::nullopt;
  }
  if (*ranks < 2) {
    why = "a group of one rank: nothing crosses a link (NCCL copies locally), so it measures no "
          "network tier";
    return std::nullopt;
  }
  CollectiveSample s;
  std::tie(s.tier, s.tier_from) = decide_tier(r, hosts_in_group);
  s.hosts = std::max(static_cast<int>(hosts_in_group),
                     first_int(p, {c::kGroupHosts, "nodes"}).value_or(0));
  s.op = *op;
  s.backend = !v->backend.empty() ? v->backend
              : v->source == c::kSourceNcclTests || r.key.find("nccl") != std::string::npos ? "nccl"
              : r.key.find("mpi") != std::string::npos                                      ? "mpi"
                                                                                            : "";
  if (!v->group_type.empty())
    s.group_type = v->group_type;
  s.dtype = v->dtype;
  s.ranks = *ranks;
  s.size_bytes = *size;
  s.time_s = *call_s;
  s.key = r.key;
  s.run = r.run;
  return s;
}

std::optional<P2pSample> p2p_sample(const Record &r, std::string &why) {
  const auto v = rdma::record::pair_point_view(r);
  P2pSample s;
  if (v && v->latency && v->size_bytes && v->latency_s && v->latency_s->p50_s.value_or(0) > 0) {
    s.measure = "latency";
    s.bytes = *v->size_bytes;
    s.time_s = *v->latency_s->p50_s;
  } else if (v && !v->latency && v->size_bytes && v->time_s.value_or(0) > 0) {
    s.measure = "bandwidth";
    s.bytes = *v->size_bytes;
    s.time_s = *v->time_s / v->messages_per_call;
  } else {
    why = "an rdma key that is neither *_lat with latency.p50_s nor *_bw with time_s";
    return std::nullopt;
  }
  s.verb = v->verb;
  s.key = r.key;
  return s;
}

} // namespace

std::optional<std::string> collective_op(const Record &r) {
  for (const char *name : {"kind", "collective", "op"})
    if (auto t = text(r.params, name))
      if (auto c = canonical_collective(*t))
        return c;
  return canonical_collective(record_fields::name_in_family(r.key));
}

Samples extract_samples(const analysis::RunSet &runs) {
  Samples out;
  // Every record in load order (RunSet::records() lives in railgauge_analysis, which links
  // this library, not the other way round).
  std::vector<const Record *> all;
  std::map<std::string, int> host_cores; // by run id, from its manifest
  for (const auto &run : runs.runs)
    for (const auto &r : run.records) {
      all.push_back(&r);
      host_cores.emplace(r.run, manifest_host_cores(run.manifest));
    }
  // Hosts per group among ok records: a group whose ranks' records come from several hosts
  // spanned nodes.
  std::map<std::string, std::set<std::string>> hosts;
  for (const Record *r : all)
    if (r->status == Status::ok)
      hosts[group_of(*r)].insert(r->host);

  // A collective point (run, key, params) -> (its sample in out.collectives, the rank it is from).
  std::map<std::string, std::pair<std::size_t, int>> first_of_point;

  for (const Record *rp : all) {
    const Record &r = *rp;
    const std::string family = r.key.substr(0, r.key.find('.'));
    const bool known_family =
        family == gemm::record::kFamily || family == memory::record::kFamily ||
        family == offload::record::kFamily || family == collectives::record::kFamily ||
        family == rdma::record::kFamily;
    if (!known_family)
      continue;
    if (r.status != Status::ok) {
      ++out.ignored_status[std::string(to_string(r.status))];
      continue;
    }
    const std::size_t hosts_in_group = hosts[group_of(r)].size();
    if (auto o = overlap_sample(r, hosts_in_group)) {
      out.overlap.push_back(*o);
      ++out.used_by_key[r.key];
      continue; // the concurrent point's own time is not a clean bandwidth sample
    }
    std::string why;
    bool used = false;
    if (family == gemm::record::kFamily) {
      if (auto g = gemm_sample(r, host_cores[r.run], why))
        out.gemm.push_back(*g), used = true;
    } else if (family == memory::record::kFamily) {
      if (auto m = memory_sample(r, why))
        out.memory.push_back(*m), used = true;
    } else if (family == offload::record::kFamily) {
      if (auto o = offload_sample(r, why))
        out.offload.push_back(*o), used = true;
    } else if (family == rdma::record::kFamily) {
      if (auto p = p2p_sample(r, why))
        out.p2p.push_back(*p), used = true;
    } else if (auto c = collective_sample(r, hosts_in_group, why)) {
      // Every rank of a run writes the point, each with the same time (the max over ranks): one
      // sample per point, else a held-out point's twin stays in the training folds. The groups
      // of one group_type run at once and share that time: one sample per tier they sit in.
      nlohmann::json point_params = r.params;
      point_params.erase(collectives::record::kGroupIndex);
      // groups of one type may sit on different host counts
      point_params.erase(collectives::record::kGroupHosts);
      const std::string point =
          fmt::format("{}\x1f{}\x1f{}\x1f{}", r.run, r.key, point_params.dump(), c->tier);
      if (const auto seen = first_of_point.find(point); seen != first_of_point.end()) {
        ++out.duplicates_by_key[r.key];
        if (r.rank < seen->second.second) { // rank 0's record stands for the point
          out.collectives[seen->second.first] = *c;
          seen->second.second = r.rank;
        }
        continue;
      }
      first_of_point[point] = {out.collectives.size(), r.rank};
      out.collectives.push_back(*c);
      used = true;
    }
    if (used) {
      ++out.used_by_key[r.key];
    } else {
      out.skipped.push_back(fmt::format("{}: {}", describe(r), why));
      ++out.skipped_by_why[why];
    }
  }
  return out;
}

} // namespace railgauge::calibrate
