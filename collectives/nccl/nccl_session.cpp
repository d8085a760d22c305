#include "collectives/nccl/nccl_session.h"

#include <cstring>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/watchdog_grace.h"
#include "harness/cuda/check.h"
#include "harness/cuda/resources.h"

namespace railgauge::collectives {
namespace {
using Clock = std::chrono::steady_clock;
}

void check_nccl(ncclResult_t rc, const char *call) {
  if (rc != ncclSuccess)
    throw BackendError(
        fmt::format("{} failed: {} ({})", call, ncclGetErrorString(rc), static_cast<int>(rc)));
}

ncclDataType_t nccl_type(DType t) {
  switch (t) {
  case DType::f32:
    return ncclFloat32;
  case DType::f64:
    return ncclFloat64;
  case DType::i32:
    return ncclInt32;
  case DType::bf16:
    return ncclBfloat16;
  case DType::f16:
    return ncclFloat16;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(RedOp op) {
  switch (op) {
  case RedOp::sum:
    return ncclSum;
  case RedOp::prod:
    return ncclProd;
  case RedOp::max:
    return ncclMax;
  case RedOp::min:
    return ncclMin;
  }
  return ncclSum;
}

std::string nccl_version_string() {
  int v = 0;
  check_nccl(ncclGetVersion(&v), "ncclGetVersion");
  // Since 2.9: major * 10000 + minor * 100 + patch.
  return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
}

void NcclSession::make_streams() {
  for (int d : devices_) {
    gpu::DeviceGuard guard(d);
    cudaStream_t s = nullptr;
    RAILGAUGE_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    streams_.push_back(s);
  }
}

NcclSession::NcclSession(const std::vector<int> &devices) : devices_(devices) {
  nranks_ = static_cast<int>(devices.size());
  comms_.resize(devices.size());
  check_nccl(ncclCommInitAll(comms_.data(), nranks_, devices.data()), "ncclCommInitAll");
  make_streams();
}

NcclSession::NcclSession(Store &store, const std::string &name, int rank, int world, int device,
                         std::chrono::milliseconds timeout)
    : devices_{device}, nranks_(world), first_rank_(rank), store_(&store), name_(name),
      process_rank_(rank), world_(world) {
  ncclUniqueId id;
  const std::string key = "nccl/" + name + "/unique_id";
  if (rank == 0) {
    check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    store.set(key, std::string(reinterpret_cast<const char *>(&id), sizeof id));
  } else {
    const auto bytes = store.get(key, timeout);
    if (bytes.size() != sizeof id)
      throw BackendError("NCCL unique id from the store has the wrong size");
    std::memcpy(&id, bytes.data(), sizeof id);
  }
  gpu::DeviceGuard guard(device);
  comms_.resize(1);
  check_nccl(ncclCommInitRank(&comms_[0], world, id, rank), "ncclCommInitRank");
  make_streams();
}

NcclSession::~NcclSession() {
  for (std::size_t i = 0; i < comms_.size(); ++i) {
    if (!comms_[i])
      continue;
    if (broken_)
      ncclCommAbort(comms_[i]);
    else
      ncclCommDestroy(comms_[i]);
  }
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    gpu::DeviceGuard guard(devices_[i]);
    RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaStreamDestroy(streams_[i]));
  }
}

void NcclSession::wait(const std::string &what, double timeout_s) {
  if (broken_)
    throw BackendError("NCCL communicator aborted after a watchdog expiry: " + *broken_);
  ++waits_;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  for (;;) {
    bool all_done = true;
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      const cudaError_t q = cudaStreamQuery(streams_[i]);
      if (q == cudaErrorNotReady) {
        all_done = false;
      } else if (q != cudaSuccess) {
        RAILGAUGE_CUDA_CALL(q);
      }
      ncclResult_t async = ncclSuccess;
      check_nccl(ncclCommGetAsyncError(comms_[i], &async), "ncclCommGetAsyncError");
      if (async != ncclSuccess && async != ncclInProgress)
        check_nccl(async, "NCCL (asynchronous error)");
    }
    if (all_done)
      return;
    if (Clock::now() > deadline)
      fire(what, timeout_s);
    std::this_thread::yield();
  }
}

void NcclSession::fire(const std::string &what, double timeout_s) {
  std::string who = "single process: no other rank to ask";
  std::vector<int> missing;
  if (store_) {
    // Census through the store: every rank whose watchdog fires checks in; those that do not
    // within the grace period are named.
    const std::string prefix = fmt::format("census/{}/{}/", name_, waits_);
    store_->set(prefix + std::to_string(process_rank_), "");
    std::vector<std::string> keys;
    for (int r = 0; r < world_; ++r)
      keys.push_back(prefix + std::to_string(r));
    try {
      store_->wait(keys, grace_period(timeout_s));
      who = "every rank answered the census";
    } catch (const StoreTimeout &e) {
      missing = ranks_missing(e.missing_keys(), prefix);
      who = fmt::format("rank{} {} of {} did not answer", missing.size() == 1 ? "" : "s",
                        fmt::join(missing, ", "), world_);
    } catch (const std::exception &e) {
      who = fmt::format("census failed: {}", e.what());
    }
  }
  const auto msg = fmt::format("watchdog: {} not complete within {} s on rank {}; {}; "
                               "communicator aborted (ncclCommAbort)",
                               what, timeout_s, process_rank_, who);
  broken_ = msg;
  for (auto &c : comms_)
    ncclCommAbort(c);
  comms_.assign(comms_.size(), nullptr);
  std::cerr << "railgauge: " << msg << '\n';
  throw BackendError(msg);
}

} // namespace railgauge::collectives
