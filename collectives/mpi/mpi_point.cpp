#include "collectives/mpi/mpi_point.h"

#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "collectives/data_regions.h"
#include "collectives/groups.h"

namespace railgauge::collectives {
namespace {

int to_int(std::uint64_t count) {
  if (count > static_cast<std::uint64_t>(INT_MAX))
    throw BackendError(fmt::format("count {} exceeds MPI's int count", count));
  return static_cast<int>(count);
}

} // namespace

std::vector<MpiGroup> mpi_groups(MpiSession &s, const CollectivePoint &p) {
  if (p.groups == "world" || p.group_type == "world") {
    MpiGroup g;
    g.hosts = s.host_count({}, p.timeout_s);
    g.comm = s.world();
    g.rank = s.rank();
    g.size = s.size();
    return {g};
  }
  const auto layout = parse_group_layout(p.groups, s.size(), "axis groups");
  std::vector<MpiGroup> groups;
  for (const auto &type : group_types_of(p, layout)) {
    const auto g = group_of(layout, type, s.rank());
    MpiGroup m;
    m.type = type;
    m.index = g.index;
    m.rank = g.rank_in_group;
    m.size = static_cast<int>(g.members.size());
    m.hosts = s.host_count(g.members, p.timeout_s);
    m.comm = s.split(p.groups + "/" + type, g.index, g.rank_in_group, p.timeout_s);
    groups.push_back(m);
  }
  return groups;
}

MpiBuffers::MpiBuffers(const CollectivePoint &p, const MpiGroup &g)
    : p_(p), g_(g), elt_(element_bytes(p.dtype)) {
  const auto c = counts_for(p.kind, p.size_bytes, elt_, g.size);
  if (!c)
    throw BackendError("size does not split into whole elements per rank");
  c_ = *c;
  // In place, one buffer holds both: the larger of the two.
  const std::size_t recv_elems =
      p.in_place ? std::max(c_.send_elems, c_.recv_elems) : c_.recv_elems;
  recv_.resize(recv_elems * elt_);
  if (!p.in_place)
    send_.resize(c_.send_elems * elt_);
}

std::byte *MpiBuffers::output() { return recv_.data(); }
std::size_t MpiBuffers::output_bytes() const { return recv_.size(); }

void MpiBuffers::fill(std::uint64_t seed) {
  std::memset(recv_.data(), 0xff, recv_.size()); // NaN / -1: an unwritten output is wrong
  std::byte *in = p_.in_place ? recv_.data() : send_.data();
  if (const auto region = input_region(p_, g_.rank, c_))
    fill_region(p_.dtype, p_.op, seed, g_.rank, g_.size, *region, in);
}

void MpiBuffers::start(MpiSession &s, std::vector<MPI_Request> &requests) {
  const MPI_Datatype type = s.datatype(p_.dtype);
  const int count = to_int(c_.count);
  const void *send = p_.in_place ? MPI_IN_PLACE : send_.data();
  void *recv = recv_.data();
  MPI_Request req = MPI_REQUEST_NULL;
  switch (p_.kind) {
  case Kind::all_reduce:
    check_mpi(MPI_Iallreduce(send, recv, count, type, s.op(p_.dtype, p_.op), g_.comm, &req),
              "MPI_Iallreduce");
    break;
  case Kind::all_gather:
    check_mpi(MPI_Iallgather(send, count, type, recv, count, type, g_.comm, &req),
              "MPI_Iallgather");
    break;
  case Kind::reduce_scatter:
    check_mpi(
        MPI_Ireduce_scatter_block(send, recv, count, type, s.op(p_.dtype, p_.op), g_.comm, &req),
        "MPI_Ireduce_scatter_block");
    break;
  case Kind::alltoall:
    check_mpi(MPI_Ialltoall(send, count, type, recv, count, type, g_.comm, &req), "MPI_Ialltoall");
    break;
  case Kind::broadcast:
    check_mpi(MPI_Ibcast(recv, count, type, p_.root, g_.comm, &req), "MPI_Ibcast");
    break;
  case Kind::reduce: {
    // In place, only the root passes MPI_IN_PLACE; the others send from the same buffer.
    const void *rsend = p_.in_place ? (g_.rank == p_.root ? MPI_IN_PLACE : recv) : send;
    check_mpi(MPI_Ireduce(rsend, recv, count, type, s.op(p_.dtype, p_.op), p_.root, g_.comm, &req),
              "MPI_Ireduce");
    break;
  }
  case Kind::sendrecv: {
    // Ring shift: receive from the left neighbour, send to the right one.
    const int n = g_.size, left = (g_.rank - 1 + n) % n, right = (g_.rank + 1) % n;
    MPI_Request recv_req;
    check_mpi(MPI_Irecv(recv, count, type, left, 0, g_.comm, &recv_req), "MPI_Irecv");
    requests.push_back(recv_req);
    check_mpi(MPI_Isend(send_.data(), count, type, right, 0, g_.comm, &req), "MPI_Isend");
    break;
  }
  }
  requests.push_back(req);
}

CheckResult MpiBuffers::check(std::uint64_t seed) const {
  const auto region = output_region(p_, seed, g_.rank, g_.size, c_, Backend::mpi);
  return region ? check_on_host(recv_.data(), *region) : CheckResult{};
}

MpiLockstepGroup::MpiLockstepGroup(MpiSession &s, MPI_Comm comm, double timeout_s)
    : s_(s), comm_(comm), timeout_s_(timeout_s) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

LockstepResult run_world_lockstep(MpiLockstepGroup &world, const CollectivePoint &p,
                                  const Operation &op) {
  HostIterationTimer timer;
  LockstepSpec spec;
  spec.warmup = p.warmup;
  spec.iterations = p.iterations;
  std::vector<int> names;
  for (int r = 0; r < world.size(); ++r)
    names.push_back(r);
  return run_lockstep(world, timer, spec, op, names);
}

std::optional<std::string> mpi_split_problem(const CollectivePoint &p, int world) {
  if (p.groups == "world" && p.group_type != "world")
    return "group_type needs a `groups` split (e.g. --groups tp=2,dp=rest, or -a "
           "groups=tp=2+dp=rest)";
  return point_problem(p, group_size_for(p, world));
}

std::vector<std::string> mpi_wrong_problems(long long wrong_all, const CheckResult &mine,
                                            std::string_view what) {
  if (wrong_all <= 0)
    return {};
  return {fmt::format("{}{}{} elements wrong over all ranks; this rank: {}", what,
                      what.empty() ? "" : ": ", wrong_all, mine.describe("its output"))};
}

} // namespace railgauge::collectives
