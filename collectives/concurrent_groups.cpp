#include "collectives/concurrent_groups.h"

#include "collectives/collective_point.h"
#include "collectives/with_gemm.h"
#include "records/collective_point_fields.h"
#include "records/collective_record.h"

namespace railgauge::collectives {

nlohmann::json by_group_type_metrics(LockstepGroup &world, const std::vector<GroupTypeTimes> &types,
                                     Kind kind, std::uint64_t size_bytes, int iterations,
                                     int own_rank) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto &t : types) {
    const LockstepResult r = summarize_gathered(world.all_gather(t.mine), iterations, {}, own_rank);
    const auto all =
        record::CollectiveFields::of(kind, size_bytes, t.group_size, r.time_s, r.back_to_back_s);
    record::CollectiveFields figures; // a group type's: its bandwidth at the median call
    figures.algbw_gbytes_per_s = all.algbw_gbytes_per_s;
    figures.busbw_gbytes_per_s = all.busbw_gbytes_per_s;
    nlohmann::json of_type = {{record::kGroupSize, t.group_size},
                              {record::kTimeS, to_json(r.time_s)},
                              {record::kSlowestRank, r.slowest_rank}};
    figures.write(of_type);
    out[t.type] = of_type;
  }
  return out;
}

} // namespace railgauge::collectives
