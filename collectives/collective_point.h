#pragma once
// The axes every collectives benchmark shares, whatever its backend (MPI on host memory, NCCL
// on device memory), read back into one struct, and the metrics one lockstep point becomes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/dtype.h"
#include "collectives/groups.h"
#include "collectives/textbook.h"
#include "harness/axis.h"
#include "harness/lockstep.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {

// What a single-process run says for every multi-rank point: not applicable to that run (it
// starts with harness/waiver.h's kNotApplicable; a test holds them together).
inline constexpr const char *kNeedsRanks = "not applicable: needs >= 2 ranks: launch with mpirun "
                                           "-np N or srun (one rank per GPU or per node)";

struct CollectivePoint {
  Kind kind = Kind::all_reduce;
  std::uint64_t size_bytes = 0;
  DType dtype = DType::f32;
  RedOp op = RedOp::sum;
  bool in_place = false;
  int root = 0;
  int iterations = 20;
  int warmup = 5;
  double timeout_s = 30;
  std::string groups = "world";       // a group spec (groups.h) or "world"
  std::string group_type = "world";   // an axis of `groups`, "world" or "concurrent"
  std::optional<Algorithm> algorithm; // textbook benchmarks only
};

// The axes of a `kind` benchmark; `textbook` adds the algorithm axis (and drops the kinds'
// root and in-place choices that the textbook algorithms do not have).
std::vector<Axis> collective_axes(Kind kind, bool textbook);
// The description of a `kind` textbook benchmark over `library`'s send/recv (MPI, NCCL) on
// `memory` (host, GPU), each beside the library's own collective.
std::string textbook_description(Kind kind, std::string_view library, std::string_view memory);
CollectivePoint read_point(Kind kind, const Point &point);

// The size of the groups a point's collective runs in on `world` ranks: the world, the
// group_type's axis of `groups`, or for "concurrent" the smallest axis.
int group_size_for(const CollectivePoint &p, int world);
// The axes a point runs: its group_type, or every axis for "concurrent". Throws InputError when
// group_type is not an axis of `layout`.
std::vector<std::string> group_types_of(const CollectivePoint &p, const GroupLayout &layout);

// The waive reason of a point on `group_ranks` ranks (its group size), or nullopt. Fewer than
// `min_ranks` is one: NCCL passes 1, since a single-rank communicator is what nccl-tests
// measures on one GPU.
std::optional<std::string> point_problem(const CollectivePoint &p, int group_ranks,
                                         int min_ranks = 2);

// Why a backend cannot give the point's in_place choice a defined result, or nullopt. Both
// backends run sendrecv as a ring shift of point-to-point messages: in place, one buffer would be
// sent from while the left neighbour's block lands in it. NCCL's alltoall is grouped
// ncclSend/ncclRecv with every peer, so in place it overwrites blocks not yet sent (nccl-tests
// turns its data check off for exactly these two); MPI_Alltoall has MPI_IN_PLACE. MPI_Bcast
// has one buffer, so MPI's broadcast is in place only.
enum class Backend { mpi, nccl };
std::optional<std::string> placement_problem(const CollectivePoint &p, Backend backend);

// The textbook algorithms' in-place buffer (textbook.h) on one rank of a `ranks`-rank group,
// `count` elements per block: all_reduce holds one block, all_gather and reduce_scatter `ranks`.
std::size_t textbook_elements(Kind kind, std::size_t count, int ranks);
// Seeded inputs where the algorithm reads them and 0xff bytes elsewhere, so that an output the
// algorithm never writes is caught by the check.
void fill_textbook_input(const CollectivePoint &p, std::uint64_t seed, int rank, int ranks,
                         std::size_t count, std::byte *buf);
// This rank's part of the result against the expected values.
CheckResult check_textbook_output(const CollectivePoint &p, std::uint64_t seed, int rank, int ranks,
                                  std::size_t count, const std::byte *buf);

// Lockstep metrics plus size_bytes, algbw and busbw from the per-iteration max over ranks
// (median: busbw_gbytes_per_s; fastest iteration: busbw_max_gbytes_per_s).
nlohmann::json collective_metrics(const LockstepResult &r, Kind kind, std::uint64_t size_bytes,
                                  int group_ranks);
// A textbook point's metrics: the algorithm's (collective_metrics), the library's collective
// beside it under `library`, and time_ratio_to_library (> 1: the algorithm is slower).
nlohmann::json textbook_metrics(const LockstepResult &mine, const LockstepResult &library,
                                Kind kind, std::uint64_t size_bytes, int group_ranks);

// The derived parameters saying where a point ran: backend, world size and the group.
struct GroupPlacement {
  std::string backend; // "mpi", "nccl"
  int world_size = 1;
  std::string type = "world";
  int index = 0, size = 1;
  int hosts = 0; // hosts the group's ranks run on (0: not known); params.group_hosts
};
void add_group_params(nlohmann::json &derived_params, const GroupPlacement &where);

} // namespace railgauge::collectives
