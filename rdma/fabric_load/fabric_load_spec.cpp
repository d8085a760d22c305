#include "rdma/fabric_load/fabric_load_spec.h"

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/waiver.h"
#include "rdma/verbs_benchmark.h"
#include "rdma/verbs_point.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {

std::string device_for_rank(const std::string &devices, int rank) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= devices.size()) {
    const std::size_t comma = devices.find(',', start);
    const std::string name =
        devices.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!name.empty())
      names.push_back(name);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (names.empty())
    return "";
  return names[static_cast<std::size_t>(rank) % names.size()];
}

std::vector<Axis> fabric_load_axes() {
  std::vector<Axis> axes = {
      {record::kDevice,
       AxisType::text,
       "RDMA device (empty: the first ACTIVE port), or a comma list: rank r uses entry r mod n",
       {std::string("")},
       {}},
      {record::kSizeBytes,
       AxisType::bytes,
       "RDMA WRITE message size of the bulk streams",
       {std::int64_t{1} << 20},
       {}},
      {record::kTxDepth, AxisType::integer, "Send queue depth per QP", {std::int64_t{128}}, {}},
      {record::kFlowLabel,
       AxisType::text,
       "RoCE: per_qp sets a distinct GRH flow label on every QP (the UDP source port ECMP hashes "
       "is derived from it); driver leaves 0 (the driver derives it from the two QPNs)",
       {std::string("per_qp")},
       {"per_qp", "driver"}}};
  for (Axis &a : verbs_addressing_axes())
    axes.push_back(std::move(a));
  return axes;
}

FabricLoadSpec fabric_load_spec_of(const Point &point) {
  FabricLoadSpec s;
  s.devices = point.text(record::kDevice);
  VerbsPointSpec addressing;
  apply_addressing_axes(point, addressing);
  s.port = addressing.port;
  s.gid_index = addressing.gid_index;
  s.traffic_class = addressing.traffic_class;
  s.service_level = addressing.service_level;
  const std::int64_t size = point.integer(record::kSizeBytes);
  if (size < 1 || size > (std::int64_t{1} << 30))
    throw InputError(fmt::format("size_bytes {} is out of range", size), "axis size_bytes",
                     "use 1 B to 1 GiB, e.g. 1048576");
  s.size_bytes = static_cast<std::size_t>(size);
  s.tx_depth = static_cast<int>(point.integer(record::kTxDepth));
  if (s.tx_depth < 1 || s.tx_depth % 16 != 0)
    throw InputError(fmt::format("tx_depth {} is not a positive multiple of 16", s.tx_depth),
                     "axis tx_depth", "use 128 (perftest's default) or another multiple of 16");
  s.set_flow_labels = point.text(record::kFlowLabel) == "per_qp";
  return s;
}

std::optional<std::string> fabric_load_waive_reason(const RunContext &ctx, int min_ranks) {
  std::string why;
  if (verbs_device_names(why).empty())
    return why;
  if (ctx.world_size() < min_ranks || ctx.store() == nullptr)
    return not_applicable(
        fmt::format("needs {} ranks and a store (this run has {} rank{}); launch one rank per "
                    "node (or per NIC) with mpirun/srun",
                    min_ranks, ctx.world_size(), ctx.world_size() == 1 ? "" : "s"));
  return std::nullopt;
}

} // namespace railgauge::rdma
