#include "collectives/concurrent_groups.h"

#include "collectives/collective_point.h"
#include "collectives/with_gemm.h"
#include "records/collective_record.h"

namespace railgauge::collectives {

nlohmann::json by_group_type_metrics(LockstepGroup &world, const std::vector<GroupTypeTimes> &types,
                                     Kind kind, std::uint64_t size_bytes, int iterations,
                                     int own_rank) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto &t : types) {
    const LockstepResult r = summarize_gathered(world.all_gather(t.mine), iterations, {}, own_rank);
    const nlohmann::json m = collective_metrics(r, kind, size_bytes, t.group_size);
    out[t.type] = {{record::kGroupSize, t.group_size},
                   {record::kTimeS, m.at(record::kTimeS)},
                   {record::kAlgbwGbytesPerS, m.at(record::kAlgbwGbytesPerS)},
                   {record::kBusbwGbytesPerS, m.at(record::kBusbwGbytesPerS)},
                   {record::kSlowestRank, r.slowest_rank}};
  }
  return out;
}

} // namespace railgauge::collectives
