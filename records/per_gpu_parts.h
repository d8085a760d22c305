#pragma once
// A point that ran on every local GPU at once (gemm.burn, memory.burn,
// offload.all_gpus_h2d/d2h: a burn-in phase) is one record that holds one object per GPU, in
// metrics.per_gpu (gemm.burn: metrics.gpus), each naming its GPU ("gpu": the CUDA index,
// "uuid", "pci"). To judge each GPU as a part of its own, beside its siblings in the same window
// and against its SKU's floor, analysis reads each object as a record of its own:
//
//   key, run, host, rank, time: the point's
//   params: the point's, with gpu = the GPU's index and part = "gpu" (what rules select)
//   device: {"gpu": uuid, "pci": bus id}
//   metrics: the GPU's object
//   status: failed where the object's verdict is "failed", error where "error", else the point's
//           status when it is ok or waived (a GPU that held wrong data fails by itself)
//
// The point's own record stays as it is (its aggregate figures: slowest_vs_median).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/record.h"
#include "records/gpu_part.h"

namespace railgauge::records {

// The param that marks a record made from one GPU's object, and its value.
inline constexpr const char *kPartParam = "part";
inline constexpr const char *kPerGpuPart = "gpu";

// One record per GPU object of `r`; empty for a record that holds none.
std::vector<Record> per_gpu_parts(const Record &r);

// True for a record per_gpu_parts() made (never one a run wrote): what counts a run's records
// against its run.json leaves it out.
bool is_per_gpu_part(const Record &r);

// The GpuPart of a record per_gpu_parts() made (its metrics are the GPU's object), window
// included; an empty one for any other record.
GpuPart gpu_part(const Record &part);

// The first count of wrong data above 0 in a record's metrics or in one GPU's object of them
// ("wrong_words = 3"), or nullopt: what a data check found, whatever the verdict beside it says.
std::optional<std::string> wrong_data_count(const nlohmann::json &object);
// Whether metrics written as JSON text may hold such a count (one of their names as a key): a
// reader that parses only the metrics that may fail their data check must parse these.
bool may_count_wrong_data(std::string_view metrics_json);

} // namespace railgauge::records
