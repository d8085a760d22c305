#pragma once
// One point of the STREAM-like memory kernels (memory.host_* and memory.hbm_*), written and read
// through one type: the family fills the fields it owns and write()s them into its Outcome by
// the contract's names (records/memory_record.h); analysis read()s the same struct back from the
// record. So a name renamed on one side only does not compile, and one renamed in write() but
// not in read() fails tests/memory/memory_point_test.cpp.
//
// The point's identity (its key and axes) is the runner's, and the call's time, bytes and rates
// are the measurement core's (Measurement::bandwidth_metrics derives GB/s from the bytes a call
// moves, which the family declares): read() fills them, write() leaves them alone, so no rate is
// computed in the family. A field of a record that is absent or of another type reads as absent
// (harness/record_fields.h), so records of older runs and of importers read without a check per
// field.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/record.h"
#include "harness/record_fields.h"
#include "records/memory_record.h"

namespace railgauge::memory::record {

struct MemoryPoint {
  // The point as planned and measured: read() fills these, write() does not write them.
  std::string key;
  std::string tier;                       // "hbm" (memory.hbm_*) or "host" (memory.host_*)
  std::string kind;                       // "copy", "read", "write", "triad", "memcpy_d2d"
  std::optional<std::int64_t> size_bytes; // one array
  std::optional<std::int64_t> gpu;        // HBM
  std::optional<std::int64_t> numa_node;  // host
  std::optional<std::int64_t> threads;    // host: the axis (0 = every physical core)
  std::optional<double> bytes_per_call;   // every pass of one timed call
  std::optional<double> time_s;           // the median call
  std::optional<double> bandwidth_gbytes_per_s;

  // The family's own: write() puts them in the outcome, read() takes them back.
  std::optional<std::int64_t> total_bytes; // every array of the point
  // Host: the team that ran, the sweeps over the arrays per timed call, the kernels' clone
  std::optional<std::int64_t> threads_used;
  std::optional<std::int64_t> passes_per_call;
  std::optional<std::string> vector_isa;
  // HBM: the GPU, its L2 (the cache in front of the memory) and a copy kernel's launch (none
  // for the library's memcpy)
  std::optional<std::string> gpu_name;
  std::optional<std::int64_t> sm_count;
  std::optional<std::int64_t> l2_bytes;
  std::optional<std::int64_t> grid_blocks;
  std::optional<std::int64_t> block_threads;
  bool verified = false;                       // the data check passed (the core sets true)
  std::optional<std::int64_t> wrong_elements;  // what the data check found, when it ran
  nlohmann::json telemetry = nlohmann::json(); // HBM: the GPU's window; null: none

  // Sweeps per timed call, at least 1 whatever a record holds (analysis divides by it).
  double passes() const { return std::max(1.0, static_cast<double>(passes_per_call.value_or(1))); }

  void write(Outcome &outcome) const;
  // The point of a memory record, else nullopt (another family, or a key of neither tier).
  static std::optional<MemoryPoint> read(const Record &r);

  bool operator==(const MemoryPoint &) const = default;
};

namespace detail {

template <typename T>
void put(nlohmann::json &obj, const char *name, const std::optional<T> &value) {
  if (value)
    obj[name] = *value;
}

} // namespace detail

inline void MemoryPoint::write(Outcome &outcome) const {
  nlohmann::json &params = outcome.derived_params;
  detail::put(params, kTotalBytes, total_bytes);
  detail::put(params, kThreadsUsed, threads_used);
  detail::put(params, kPassesPerCall, passes_per_call);
  detail::put(params, kVectorIsa, vector_isa);
  detail::put(params, kGpuName, gpu_name);
  detail::put(params, kSmCount, sm_count);
  detail::put(params, kL2Bytes, l2_bytes);
  detail::put(params, kGridBlocks, grid_blocks);
  detail::put(params, kBlockThreads, block_threads);
  nlohmann::json &metrics = outcome.metrics;
  metrics[kVerified] = verified;
  detail::put(metrics, kWrongElements, wrong_elements);
  if (!telemetry.is_null())
    metrics[kTelemetry] = telemetry;
}

inline std::optional<MemoryPoint> MemoryPoint::read(const Record &r) {
  namespace f = record_fields;
  if (!f::in_family(r, kFamily))
    return std::nullopt;
  const std::string name = f::name_in_family(r.key);
  MemoryPoint p;
  p.tier = name.starts_with("hbm_") ? "hbm" : name.starts_with("host_") ? "host" : "";
  if (p.tier.empty())
    return std::nullopt;
  p.key = r.key;
  p.kind = name.substr(name.find('_') + 1);
  p.size_bytes = f::integer(r.params, kSizeBytes);
  p.gpu = f::integer(r.params, kGpu);
  p.numa_node = f::integer(r.params, kNumaNode);
  p.threads = f::integer(r.params, kThreads);
  p.bytes_per_call = f::number(r.metrics, kBytesPerCall);
  p.time_s = f::median_time_s(r.metrics);
  p.bandwidth_gbytes_per_s = f::number(r.metrics, kBandwidthGbytesPerS);

  p.total_bytes = f::integer(r.params, kTotalBytes);
  p.threads_used = f::integer(r.params, kThreadsUsed);
  p.passes_per_call = f::integer(r.params, kPassesPerCall);
  p.vector_isa = f::text(r.params, kVectorIsa);
  p.gpu_name = f::text(r.params, kGpuName);
  p.sm_count = f::integer(r.params, kSmCount);
  p.l2_bytes = f::integer(r.params, kL2Bytes);
  p.grid_blocks = f::integer(r.params, kGridBlocks);
  p.block_threads = f::integer(r.params, kBlockThreads);
  const auto *verified = f::field(r.metrics, kVerified);
  p.verified = verified && verified->is_boolean() && verified->get<bool>();
  p.wrong_elements = f::integer(r.metrics, kWrongElements);
  if (const auto *telemetry = f::field(r.metrics, kTelemetry))
    p.telemetry = *telemetry;
  return p;
}

} // namespace railgauge::memory::record
