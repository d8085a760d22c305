#pragma once
// One GPU's object in a point that ran on every local GPU at once (gemm.burn, memory.burn,
// memory.pattern, memory.peer_copy, offload.all_gpus_*: metrics.per_gpu, gemm.burn's
// metrics.gpus): the fields every such object holds whatever the family, written and read
// through this one type. The family's own figures stay beside them in the same object, named by
// its contract; records/per_gpu_parts.h reads each object as a part of its own.
//
// A field renamed on one side does not compile; tests/harness/cuda/gpu_part_test.cpp and
// tests/gemm/burn_host_test.cpp write each family's object through its real writer and read it
// back through read(), so a name changed in write() but not in read() fails there.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/status.h"

namespace railgauge::records {

struct GpuPart {
  int gpu = -1; // the CUDA index on its host
  std::string uuid, pci;
  std::optional<std::string> name; // the GPU model (offload's objects do not carry it)
  // A burn's judgement of this GPU alone: ok, failed (its data was wrong) or error (it broke);
  // none where the family judges the point only (offload). `error` says what broke.
  std::optional<Status> verdict;
  std::optional<std::string> error;
  // How long the GPU's load ran untimed until its clocks settled, and in all
  std::optional<double> settle_s, elapsed_s;
  nlohmann::json series = nullptr;    // the rate second by second: [{"t_s", <rate>}]
  nlohmann::json telemetry = nullptr; // its window (harness/inventory/gpu_telemetry.h)

  // Puts the fields that are set into `gpu_object`; with a verdict, error is written too (null
  // when nothing broke) so that every judged object says.
  void write(nlohmann::json &gpu_object) const;
  // The part of an object that names its GPU (an integer gpu, and a text uuid or pci: a GPU
  // that fell off the bus may give no UUID, and its bus id still names its slot; uuid then
  // reads ""), else nullopt. A
  // field absent or of another type reads as absent; a verdict text that is no status reads as
  // error (never as the point's ok).
  static std::optional<GpuPart> read(const nlohmann::json &gpu_object);
  // The same without the window (settle and elapsed seconds, series, telemetry): what tells the
  // GPU and its verdict, for a reader of every record (per_gpu_parts) that would otherwise copy
  // each GPU's series and telemetry only to drop them.
  static std::optional<GpuPart> identify(const nlohmann::json &gpu_object);

  bool operator==(const GpuPart &) const = default;
};

// The GpuPart of a family's result for one GPU (memory.burn's, gemm.burn's, ...), each of which
// holds these by the same member names: name, uuid, pci, error, elapsed_s, telemetry, and
// settle_s and series where the family has them. `gpu` is its index (gemm.burn calls it index)
// and `verdict` the family's judgement of it.
template <typename Result> GpuPart gpu_part_of(const Result &r, int gpu, Status verdict) {
  GpuPart p;
  p.gpu = gpu;
  p.uuid = r.uuid;
  p.pci = r.pci;
  p.name = r.name;
  p.verdict = verdict;
  p.error = r.error;
  p.elapsed_s = r.elapsed_s;
  if constexpr (requires { r.settle_s; })
    p.settle_s = r.settle_s;
  if constexpr (requires { r.series; })
    p.series = r.series;
  p.telemetry = r.telemetry;
  return p;
}

} // namespace railgauge::records
