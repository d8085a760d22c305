#pragma once
// A collective of one rank: it moves nothing over a bus (bus_factor 2(n-1)/n and its kin are 0),
// so its bus bandwidth is 0 at every size and what changes is its algorithm bandwidth; in place it
// moves no data at all (NCCL returns at once: 16 GiB in 1.4 us on one H200). compare and report
// read collectives through these, so that both say the same of them.
#include <string_view>

#include <nlohmann/json.hpp>

namespace railgauge::records {

// Whether a collective's metrics are of one rank: its bus_factor 0, or, in an import that states
// no factor (nccl-tests), a bus bandwidth of 0 beside a larger algorithm bandwidth.
bool one_rank_collective(const nlohmann::json &metrics);

// Whether a collective's point moves no data: one rank (group_size, else world_size, 1) in place.
bool moves_no_data(std::string_view key, const nlohmann::json &params);

} // namespace railgauge::records
