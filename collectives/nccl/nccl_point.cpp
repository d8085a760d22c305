#include "collectives/nccl/nccl_point.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/gpu_placement.h"
#include "collectives/groups.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/run_context.h"
#include "records/collective_record.h"

namespace railgauge::collectives {

namespace {
// This rank's GPU: by its local rank among the ranks on its host (gpu_placement.h), then every
// rank's host and PCI bus id compared, so two ranks on one GPU fail the point naming both
// instead of NCCL failing later with 'Duplicate GPU detected' or running shared.
int select_device(const RunContext &ctx, const std::string &name, std::chrono::milliseconds timeout,
                  std::vector<std::string> &hosts) {
  Store &store = *ctx.store();
  const int rank = ctx.rank(), world = ctx.world_size();
  hosts = store_all_gather(store, "nccl/" + name + "/hosts", rank, world, ctx.host(), timeout);
  const int device =
      device_for_local_rank(local_rank_of(hosts, rank), std::max(1, gpu::cuda_device_count()));
  char bus_id[32] = {};
  RAILGAUGE_CUDA_CALL(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  const auto bus_ids =
      store_all_gather(store, "nccl/" + name + "/pci_bus_ids", rank, world, bus_id, timeout);
  if (auto why = shared_gpu_problem(hosts, bus_ids))
    throw BackendError(*why);
  return device;
}
} // namespace

NcclSession &open_nccl_session(NcclSessionSlot &slot, const RunContext &ctx,
                               const std::string &name, double timeout_s) {
  if (slot.session)
    return *slot.session;
  if (slot.open_failed)
    throw BackendError("the NCCL session of this benchmark could not be opened at an earlier "
                       "point: " +
                       *slot.open_failed);
  try {
    if (ctx.world_size() > 1) {
      const auto timeout = std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
      const int device = select_device(ctx, name, timeout, slot.rank_hosts);
      slot.session = std::make_unique<NcclSession>(*ctx.store(), name, ctx.rank(), ctx.world_size(),
                                                   device, timeout);
    } else {
      std::vector<int> devices;
      for (int d = 0; d < gpu::cuda_device_count(); ++d)
        devices.push_back(d);
      slot.rank_hosts.assign(devices.size(), ctx.host());
      slot.session = std::make_unique<NcclSession>(devices);
    }
  } catch (const std::exception &e) {
    slot.open_failed = e.what();
    throw;
  }
  return *slot.session;
}

std::optional<std::string> nccl_point_problem(const RunContext &ctx, const CollectivePoint &p,
                                              bool runs_concurrent) {
  // First: the result would be undefined on any machine, GPU or not.
  if (auto why = placement_problem(p, Backend::nccl))
    return why;
  if (auto why = gpu::cuda_unavailable_reason())
    return "no usable CUDA device: " + *why;
  if (p.group_type == "concurrent" && !runs_concurrent)
    return "this benchmark runs one group type at a time (give group_type one axis of "
           "`groups`); collectives.nccl_<kind> runs group_type=concurrent";
  if (p.groups == "world" && p.group_type != "world")
    return "group_type needs a `groups` split (e.g. -a groups=tp=2+dp=rest)";
  const int world = ctx.world_size() > 1 ? ctx.world_size() : gpu::cuda_device_count();
  if (ctx.world_size() > 1 && !ctx.store())
    return "a multi-rank NCCL run needs the run's store (launch under srun or mpirun)";
  const int ranks = group_size_for(p, world);
  // A single-rank communicator is allowed: it is what nccl-tests measures on one GPU. The rest
  // of the point (iterations, root, sizes) is checked as on any group.
  if (auto why = point_problem(p, ranks, 1))
    return why;
  return std::nullopt;
}

std::vector<std::vector<LocalGroup>>
local_groups_by_type(NcclSession &s, const CollectivePoint &p,
                     const std::vector<std::string> &rank_hosts) {
  const auto hosts_of = [&](const std::vector<int> &ranks) {
    std::set<std::string> distinct;
    for (int r : ranks)
      if (static_cast<std::size_t>(r) < rank_hosts.size())
        distinct.insert(rank_hosts[static_cast<std::size_t>(r)]);
    return static_cast<int>(distinct.size());
  };
  if (p.groups == "world" || p.group_type == "world") {
    std::vector<LocalGroup> out(s.local_count());
    std::vector<int> world(static_cast<std::size_t>(s.nranks()));
    std::iota(world.begin(), world.end(), 0);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = {s.comm(i), s.rank(i), s.nranks(), 0, "world", hosts_of(world)};
    return {out};
  }
  const auto layout = parse_group_layout(p.groups, s.nranks(), "axis groups");
  std::vector<std::vector<LocalGroup>> by_type;
  for (const std::string &type : group_types_of(p, layout)) {
    std::vector<LocalGroup> out(s.local_count());
    std::vector<Group> groups;
    std::vector<int> colours, keys;
    for (std::size_t i = 0; i < out.size(); ++i) {
      groups.push_back(group_of(layout, type, s.rank(i)));
      colours.push_back(groups.back().index);
      keys.push_back(groups.back().rank_in_group);
    }
    const auto &comms = s.split(p.groups + "/" + type, colours, keys, p.timeout_s);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = {comms[i],
                groups[i].rank_in_group,
                static_cast<int>(groups[i].members.size()),
                groups[i].index,
                type,
                hosts_of(groups[i].members)};
    by_type.push_back(std::move(out));
  }
  return by_type;
}

std::vector<LocalGroup> local_groups(NcclSession &s, const CollectivePoint &p,
                                     const std::vector<std::string> &rank_hosts) {
  if (p.group_type == "concurrent")
    throw std::logic_error("local_groups: a concurrent point has several group types "
                           "(local_groups_by_type)");
  return local_groups_by_type(s, p, rank_hosts).front();
}

namespace {
std::vector<int> devices_of(const NcclSession &s) {
  std::vector<int> out;
  for (std::size_t i = 0; i < s.local_count(); ++i)
    out.push_back(s.device(i));
  return out;
}
} // namespace

SessionGates::SessionGates(NcclSession &s) : gates_(devices_of(s)) {
  for (std::size_t i = 0; i < s.local_count(); ++i)
    streams_.push_back(s.stream(i));
}

void add_gate_timeouts(nlohmann::json &metrics, int timed_out) {
  metrics[record::kGateTimeouts] = timed_out;
  if (timed_out == 0)
    return;
  auto note = fmt::format(
      "a gate gave up waiting for the host {} times: those iterations timed the launches too",
      timed_out);
  if (metrics.contains(record::kNote))
    note = metrics[record::kNote].get<std::string>() + "; " + note;
  metrics[record::kNote] = note;
}

NcclIterationTimer::NcclIterationTimer(NcclSession &s, std::string what, double timeout_s)
    : s_(s), what_(std::move(what)), timeout_s_(timeout_s), gates_(s), per_gpu_(s.local_count()) {
  for (std::size_t i = 0; i < s.local_count(); ++i) {
    gpu::DeviceGuard guard(s.device(i));
    start_.emplace_back();
    stop_.emplace_back();
  }
}

double NcclIterationTimer::time_one_s(const Operation &op) {
  {
    const auto held = gates_.hold();
    for (std::size_t i = 0; i < s_.local_count(); ++i)
      RAILGAUGE_CUDA_CALL(cudaEventRecord(start_[i].get(), s_.stream(i)));
    op();
    for (std::size_t i = 0; i < s_.local_count(); ++i)
      RAILGAUGE_CUDA_CALL(cudaEventRecord(stop_[i].get(), s_.stream(i)));
  }
  s_.wait(what_, timeout_s_);
  double worst = 0;
  for (std::size_t i = 0; i < s_.local_count(); ++i) {
    float ms = 0;
    RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&ms, start_[i].get(), stop_[i].get()));
    per_gpu_[i].push_back(ms * 1e-3);
    worst = std::max(worst, ms * 1e-3);
  }
  return worst;
}

double NcclIterationTimer::time_back_to_back_s(const Operation &op, int n) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i)
    op();
  s_.wait(what_, timeout_s_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

NcclLockstepGroup::NcclLockstepGroup(const RunContext &ctx, NcclIterationTimer &timer,
                                     const std::string &name, double timeout_s)
    : timer_(timer) {
  if (ctx.world_size() > 1)
    across_ = std::make_unique<StoreLockstepGroup>(
        *ctx.store(), name, ctx.rank(), ctx.world_size(),
        std::chrono::milliseconds(static_cast<long>(timeout_s * 1000)));
}

void NcclLockstepGroup::barrier() {
  timer_.drain();
  if (across_)
    across_->barrier();
}

std::vector<double> NcclLockstepGroup::all_gather(const std::vector<double> &mine) {
  return across_ ? across_->all_gather(mine) : mine;
}

void NcclLockstepGroup::name_slowest_gpu(LockstepResult &result, int iterations) const {
  const auto &per_gpu = timer_.per_gpu();
  if (across_ || per_gpu.size() < 2)
    return;
  std::vector<std::vector<double>> timed;
  for (const auto &row : per_gpu)
    timed.emplace_back(row.end() - iterations, row.end());
  const auto slowest = summarize_lockstep(timed, {}, 0);
  result.slowest_rank = slowest.slowest_rank;
  result.slowest_share = slowest.slowest_share;
  result.last_arrival_rank = slowest.last_arrival_rank;
  result.last_arrival_share = slowest.last_arrival_share;
  result.ranks = static_cast<int>(per_gpu.size());
}

DrainOnFailure::~DrainOnFailure() {
  if (std::uncaught_exceptions() <= exceptions_ || s_.broken())
    return;
  try {
    s_.wait("the failed point's queued NCCL work", timeout_s_);
  } catch (const std::exception &) {
    // The watchdog has reported and aborted; the point's own error is what the caller sees.
  }
}

void upload(NcclSession &s, std::size_t i, void *dst, const void *src, std::size_t bytes) {
  gpu::DeviceGuard guard(s.device(i));
  RAILGAUGE_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s.stream(i)));
}

void add_nccl_identity(nlohmann::json &metrics) {
  metrics[record::kNcclVersion] = nccl_version_string();
  for (const char *var : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE", "NCCL_COLLNET_ENABLE"})
    if (const char *value = std::getenv(var))
      metrics[std::string("env_") + var] = std::string(value);
}

} // namespace railgauge::collectives
