#include "records/per_gpu_parts.h"

#include <tuple>

#include <fmt/format.h>

#include "harness/device_fields.h"
#include "harness/metric_names.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"

namespace railgauge::records {
namespace {

// The GPU objects of a record: metrics.per_gpu, or gemm.burn's metrics.gpus.
const nlohmann::json *gpu_objects(const Record &r) {
  for (const char *name : {metric::kPerGpu, gemm::record::kGpus}) {
    const auto it = r.metrics.find(name);
    if (it != r.metrics.end() && it->is_array())
      return &*it;
  }
  return nullptr;
}

// The counts of wrong data a record's metrics or a GPU object may hold: the GEMM burn's, the
// HBM copy's and patterns', a peer copy's, the host copies' and a collective's.
constexpr const char *kWrongDataCounts[] = {gemm::record::kBurnBadIterations,
                                            gemm::record::kBurnMismatchedElements,
                                            gemm::record::kBurnNanElements,
                                            gemm::record::kBurnInfElements,
                                            gemm::record::kBurnReferenceWrongElements,
                                            memory::record::kWrongWords,
                                            metric::kWrongElements,
                                            collectives::record::kWrongElementsThisProcess};

} // namespace

bool may_count_wrong_data(std::string_view metrics_json) {
  for (const char *name : kWrongDataCounts)
    if (metrics_json.find(fmt::format("\"{}\":", name)) != std::string_view::npos)
      return true;
  for (const char *name :
       {memory::record::kPerGpuWrongWordsByPattern, memory::record::kPerGpuBadWords,
        gemm::record::kBurnFirstBadIteration, collectives::record::kWrongElementRanks})
    if (metrics_json.find(fmt::format("\"{}\":", name)) != std::string_view::npos)
      return true;
  return false;
}

std::optional<std::string> wrong_data_count(const nlohmann::json &object) {
  if (!object.is_object())
    return std::nullopt;
  for (const char *name : kWrongDataCounts)
    if (const auto it = object.find(name); it != object.end() && !it->is_null()) {
      // A count below 0 or not a number reads as none: wrong_words = -3 once passed.
      if (!it->is_number() || it->get<double>() < 0)
        return fmt::format("{} = {}, not a count", name, it->dump());
      if (it->get<double>() > 0)
        return fmt::format("{} = {}", name, it->dump());
    }
  // What a check found, said elsewhere in the object than its total (a writer that summed
  // wrong): the pattern test's counts per pattern and its failing addresses, the GEMM burn's
  // first bad iteration. Each once passed beside a total of 0.
  if (const auto by = object.find(memory::record::kPerGpuWrongWordsByPattern);
      by != object.end() && by->is_object())
    for (const auto &[pattern, count] : by->items())
      if (!count.is_number() || count.get<double>() != 0)
        return fmt::format("{}.{} = {}", memory::record::kPerGpuWrongWordsByPattern, pattern,
                           count.dump());
  if (const auto bad = object.find(memory::record::kPerGpuBadWords);
      bad != object.end() && bad->is_array() && !bad->empty())
    return fmt::format("{} holds {} address(es)", memory::record::kPerGpuBadWords, bad->size());
  if (const auto first = object.find(gemm::record::kBurnFirstBadIteration);
      first != object.end() && first->is_number() && first->get<double>() >= 0)
    return fmt::format("{} = {}", gemm::record::kBurnFirstBadIteration, first->dump());
  // A collective's ranks whose buffers held wrong elements: one named is wrong data, whatever
  // the total beside it says.
  if (const auto ranks = object.find(collectives::record::kWrongElementRanks);
      ranks != object.end() && ranks->is_array() && !ranks->empty())
    return fmt::format("{} = {}", collectives::record::kWrongElementRanks, ranks->dump());
  return std::nullopt;
}

namespace {

// A GPU object that counts wrong data, or holds an error, beside a verdict of ok (a writer's bug,
// a merged or edited file) is no pass: the counts are what the data check found. Why, or nullopt.
std::optional<std::string> says_wrong_data(const nlohmann::json &gpu) {
  if (const auto count = wrong_data_count(gpu))
    return fmt::format("the GPU's object counts {} beside a verdict of ok", *count);
  const auto error = gpu.find(metric::kPerGpuError);
  if (error != gpu.end() && error->is_string() && !error->get<std::string>().empty())
    return error->get<std::string>();
  return std::nullopt;
}

// The GPU's status and, where it is not a pass, why.
std::pair<Status, std::optional<std::string>>
status_of(const GpuPart &gpu, const nlohmann::json &object, const Record &point) {
  if (gpu.verdict == Status::failed || gpu.verdict == Status::error)
    return {*gpu.verdict, gpu.error ? gpu.error : point.reason};
  if (auto why = says_wrong_data(object))
    return {Status::failed, std::move(why)};
  return {point.status == Status::failed || point.status == Status::error ? Status::ok
                                                                          : point.status,
          std::nullopt};
}

} // namespace

std::vector<Record> per_gpu_parts(const Record &r) {
  std::vector<Record> parts;
  const nlohmann::json *gpus = gpu_objects(r);
  if (!gpus)
    return parts;
  for (const auto &gpu : *gpus) {
    // Only objects that say which GPU they are: an index, and a uuid or a bus id.
    const auto g = GpuPart::identify(gpu);
    if (!g)
      continue;
    Record part;
    part.run = r.run;
    part.host = r.host;
    part.rank = r.rank;
    part.key = r.key;
    part.time_utc = r.time_utc;
    part.params = r.params.is_object() ? r.params : nlohmann::json::object();
    part.params[metric::kGpu] = g->gpu;
    part.params[kPartParam] = kPerGpuPart;
    part.device = nlohmann::json::object();
    if (!g->uuid.empty())
      part.device[device::kGpu] = g->uuid;
    if (!g->pci.empty())
      part.device[device::kPci] = g->pci;
    part.metrics = gpu;
    std::tie(part.status, part.reason) = status_of(*g, gpu, r);
    parts.push_back(std::move(part));
  }
  return parts;
}

GpuPart gpu_part(const Record &part) { return GpuPart::read(part.metrics).value_or(GpuPart{}); }

bool is_per_gpu_part(const Record &r) {
  return r.params.is_object() && r.params.value(kPartParam, std::string()) == kPerGpuPart;
}

} // namespace railgauge::records
