#include "collectives/collective_point.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/data_regions.h"
#include "harness/error.h"
#include "harness/waiver.h"
#include "records/collective_point_fields.h"
#include "records/collective_record.h"

namespace railgauge::collectives {

std::string textbook_description(Kind kind, std::string_view library, std::string_view memory) {
  return fmt::format("Textbook {} algorithms over {} send/recv on {} memory, each beside {}'s own "
                     "{} in the same point (time ratio), data checked",
                     to_string(kind), library, memory, library, to_string(kind));
}

std::vector<Axis> collective_axes(Kind kind, bool textbook) {
  std::vector<Axis> axes;
  axes.push_back(
      {record::kSizeBytes,
       AxisType::bytes,
       "max(send, recv) bytes of one rank, as nccl-tests counts them",
       {std::int64_t{4096}, std::int64_t{65536}, std::int64_t{1} << 20, std::int64_t{16} << 20},
       {}});
  axes.push_back(
      {record::kDtype, AxisType::text, "element type", {std::string("float32")}, dtype_names()});
  if (reduces(kind))
    axes.push_back(
        {record::kOp, AxisType::text, "reduction operation", {std::string("sum")}, redop_names()});
  if (textbook) {
    std::vector<std::string> names;
    std::vector<AxisValue> all;
    for (auto a : algorithms_for(kind)) {
      names.emplace_back(to_string(a));
      all.emplace_back(std::string(to_string(a)));
    }
    axes.push_back({record::kAlgorithm, AxisType::text,
                    "textbook algorithm, measured beside the library's own collective", all,
                    names});
  } else {
    axes.push_back({record::kInPlace,
                    AxisType::text,
                    "out_of_place (separate send and receive buffers) or in_place",
                    {std::string("out_of_place"), std::string("in_place")},
                    {"out_of_place", "in_place"}});
  }
  if (has_root(kind) && !textbook)
    axes.push_back(
        {record::kRoot, AxisType::integer, "root rank (of the group)", {std::int64_t{0}}, {}});
  axes.push_back({record::kIterations,
                  AxisType::integer,
                  "timed iterations, each after a barrier, every rank timing each",
                  {std::int64_t{20}},
                  {}});
  axes.push_back(
      {record::kWarmup, AxisType::integer, "untimed iterations first", {std::int64_t{5}}, {}});
  axes.push_back({record::kTimeoutS,
                  AxisType::real,
                  "watchdog: a collective not complete after this long aborts the communicator "
                  "and names the ranks that did not answer",
                  {30.0},
                  {}});
  axes.push_back({record::kGroups,
                  AxisType::text,
                  "group split, fastest-varying first, e.g. tp=8,pp=4,dp=rest; world = no split",
                  {std::string("world")},
                  {}});
  axes.push_back({record::kGroupType,
                  AxisType::text,
                  "which groups run: world, one axis of `groups` (all its groups at once), or "
                  "concurrent (every axis at once)",
                  {std::string("world")},
                  {}});
  return axes;
}

CollectivePoint read_point(Kind kind, const Point &point) {
  CollectivePoint p;
  p.kind = kind;
  p.size_bytes = static_cast<std::uint64_t>(point.integer(record::kSizeBytes));
  p.dtype = *parse_dtype(point.text(record::kDtype));
  if (point.has(record::kOp))
    p.op = *parse_redop(point.text(record::kOp));
  if (point.has(record::kInPlace))
    p.in_place = point.text(record::kInPlace) == "in_place";
  if (point.has(record::kRoot))
    p.root = static_cast<int>(point.integer(record::kRoot));
  if (point.has(record::kAlgorithm))
    p.algorithm = parse_algorithm(point.text(record::kAlgorithm));
  p.iterations = static_cast<int>(point.integer(record::kIterations));
  p.warmup = static_cast<int>(point.integer(record::kWarmup));
  p.timeout_s = point.real(record::kTimeoutS);
  if (point.has(record::kGroups)) // benchmarks that run on the world only have no such axes
    p.groups = point.text(record::kGroups);
  if (point.has(record::kGroupType))
    p.group_type = point.text(record::kGroupType);
  return p;
}

int group_size_for(const CollectivePoint &p, int world) {
  if (p.groups == "world")
    return world;
  // A split with group_type world would run the world and label it with the split; and a spec
  // that -a's ',' cut in two (groups=tp=2 and groups=dp=rest) would pass as two such points.
  if (p.group_type == "world")
    throw InputError(
        fmt::format("groups={} with group_type=world: the world runs, the split is not used",
                    p.groups),
        "axis group_type",
        "give -a group_type=<one of the split's axes>,... or concurrent, or --groups tp=2,dp=rest "
        "(which runs each axis); in -a groups=..., join the groups with '+' (tp=2+dp=rest), "
        "since ',' separates an axis's values");
  const auto layout = parse_group_layout(p.groups, world, "axis groups");
  if (p.group_type == "concurrent") {
    int smallest = world;
    for (const auto &a : layout.axes)
      smallest = std::min(smallest, a.size);
    return smallest;
  }
  return layout.axis(p.group_type).size;
}

std::vector<std::string> group_types_of(const CollectivePoint &p, const GroupLayout &layout) {
  std::vector<std::string> types;
  for (const auto &a : layout.axes)
    if (p.group_type == "concurrent" || a.name == p.group_type)
      types.push_back(a.name);
  if (types.empty())
    throw InputError(fmt::format("group_type '{}' is not an axis of '{}'", p.group_type, p.groups),
                     "axis group_type", "name one of the axes of `groups`, world or concurrent");
  return types;
}

std::optional<std::string> point_problem(const CollectivePoint &p, int group_ranks, int min_ranks) {
  if (group_ranks < min_ranks)
    return std::string(kNeedsRanks);
  if (p.iterations < 1 || p.warmup < 0 || !(p.timeout_s > 0))
    return std::string("iterations must be >= 1, warmup >= 0 and timeout_s > 0");
  if (p.root < 0 || p.root >= group_ranks)
    return fmt::format("root {} is not a rank of a group of {}", p.root, group_ranks);
  if (!counts_for(p.kind, p.size_bytes, element_bytes(p.dtype), group_ranks))
    return fmt::format("{} bytes of {} do not split into whole elements for each of {} ranks",
                       p.size_bytes, to_string(p.dtype), group_ranks);
  return std::nullopt;
}

std::optional<std::string> placement_problem(const CollectivePoint &p, Backend backend) {
  if (p.in_place && p.kind == Kind::sendrecv)
    return not_applicable("in-place sendrecv would send from and receive into one buffer "
                          "(undefined result; nccl-tests does not check it): out_of_place only");
  if (p.in_place && p.kind == Kind::alltoall && backend == Backend::nccl)
    return not_applicable("in-place alltoall over grouped ncclSend/ncclRecv overwrites blocks "
                          "not yet sent (undefined result; nccl-tests does not check it): "
                          "out_of_place only");
  if (!p.in_place && p.kind == Kind::broadcast && backend == Backend::mpi)
    return not_applicable("MPI_Bcast has a single buffer: in_place only");
  return std::nullopt;
}

nlohmann::json collective_metrics(const LockstepResult &r, Kind kind, std::uint64_t size_bytes,
                                  int group_ranks) {
  auto m = r.to_json();
  m[metric::kBytesPerCall] = size_bytes;
  record::CollectiveFields::of(kind, size_bytes, group_ranks, r.time_s, r.back_to_back_s).write(m);
  return m;
}

nlohmann::json textbook_metrics(const LockstepResult &mine, const LockstepResult &library,
                                Kind kind, std::uint64_t size_bytes, int group_ranks) {
  auto metrics = collective_metrics(mine, kind, size_bytes, group_ranks);
  record::CollectiveFields theirs;
  theirs.busbw_gbytes_per_s =
      bandwidth(kind, size_bytes, group_ranks, library.time_s.median).busbw_gbytes_per_s;
  // -1: the library's back-to-back calls did not run (the field is there for every textbook point)
  theirs.wall_time_s = library.back_to_back_s >= 0 ? library.back_to_back_s : -1.0;
  nlohmann::json of_library = {{record::kTimeS, to_json(library.time_s)},
                               {record::kSlowestRank, library.slowest_rank}};
  theirs.write(of_library);
  metrics[record::kLibrary] = of_library;
  metrics[record::kTimeRatioToLibrary] = mine.time_s.median / library.time_s.median;
  return metrics;
}

void add_group_params(nlohmann::json &derived_params, const GroupPlacement &where) {
  derived_params[record::kBackend] = where.backend;
  derived_params[record::kWorldSize] = where.world_size;
  derived_params[record::kGroupType] = where.type;
  derived_params[record::kGroupIndex] = where.index;
  derived_params[record::kGroupSize] = where.size;
  // Where the group actually ran, not where the split meant it to: a tensor group that straddles
  // nodes (ranks placed round-robin over nodes) shows here.
  if (where.hosts > 0)
    derived_params[record::kGroupHosts] = where.hosts;
}

std::size_t textbook_elements(Kind kind, std::size_t count, int ranks) {
  return kind == Kind::all_reduce ? count : count * static_cast<std::size_t>(ranks);
}

void fill_textbook_input(const CollectivePoint &p, std::uint64_t seed, int rank, int ranks,
                         std::size_t count, std::byte *buf) {
  std::memset(buf, 0xff, textbook_elements(p.kind, count, ranks) * element_bytes(p.dtype));
  fill_region(p.dtype, p.op, seed, rank, ranks, textbook_input_region(p.kind, rank, ranks, count),
              buf);
}

CheckResult check_textbook_output(const CollectivePoint &p, std::uint64_t seed, int rank, int ranks,
                                  std::size_t count, const std::byte *buf) {
  return check_on_host(buf, textbook_output_region(p, seed, rank, ranks, count));
}

} // namespace railgauge::collectives
