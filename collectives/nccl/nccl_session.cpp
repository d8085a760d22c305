#include "collectives/nccl/nccl_session.h"

#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/nccl/nccl_group.h"
#include "collectives/watchdog_grace.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
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
  // ncclCommInitRank blocks on the host until every rank has called it, out of the watchdog's
  // reach: every rank checks in first, so a rank that never arrives is named instead.
  try {
    store_barrier(store, "nccl/" + name + "/init", rank, world, timeout);
  } catch (const StoreTimeout &e) {
    throw StoreTimeout(fmt::format("before ncclCommInitRank: {}", e.what()), e.missing_keys());
  }
  // The rank's GPU becomes this thread's device for good, not for a scope: restoring the
  // default device 0 afterwards would create a context on GPU 0 (resources.h, DeviceGuard).
  RAILGAUGE_CUDA_CALL(cudaSetDevice(device));
  comms_.resize(1);
  check_nccl(ncclCommInitRank(&comms_[0], world, id, rank), "ncclCommInitRank");
  make_streams();
}

namespace {
void release(std::vector<ncclComm_t> &comms, bool broken) {
  for (auto &c : comms) {
    if (!c)
      continue;
    if (broken)
      ncclCommAbort(c);
    else
      ncclCommDestroy(c);
    c = nullptr;
  }
}
} // namespace

NcclSession::~NcclSession() {
  destroy_graphs(); // before the communicators: their destruction waits for the graphs
  // Splits first: they were made from the world's communicators.
  for (auto &[name, comms] : splits_)
    release(comms, broken_.has_value());
  release(comms_, broken_.has_value());
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    gpu::DeviceGuard guard(devices_[i]);
    RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaStreamDestroy(streams_[i]));
  }
}

const std::vector<ncclComm_t> &NcclSession::split(const std::string &name,
                                                  const std::vector<int> &colours,
                                                  const std::vector<int> &keys, double timeout_s) {
  for (const auto &[n, comms] : splits_)
    if (n == name)
      return comms;
  if (broken_)
    throw BackendError("NCCL communicator aborted earlier: " + *broken_);
  if (colours.size() != comms_.size() || keys.size() != comms_.size())
    throw std::invalid_argument("NcclSession::split: one colour and key per local device");
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 18, 0)
  throw BackendError(fmt::format(
      "group splits need ncclCommSplit (NCCL 2.18); this build's nccl.h is {}", NCCL_VERSION_CODE));
#else
  if (store_)
    store_barrier(*store_, fmt::format("nccl/{}/split/{}", name_, name), process_rank_, world_,
                  std::chrono::milliseconds(static_cast<long>(timeout_s * 1000)));
  std::vector<ncclComm_t> out(comms_.size(), nullptr);
  NcclGroup group;
  for (std::size_t i = 0; i < comms_.size(); ++i) {
    gpu::DeviceGuard guard(devices_[i]);
    check_nccl(ncclCommSplit(comms_[i], colours[i], keys[i], &out[i], nullptr), "ncclCommSplit");
  }
  group.end();
  splits_.emplace_back(name, std::move(out));
  return splits_.back().second;
#endif
}

void NcclSession::wait(const std::string &what, double timeout_s) {
  if (broken_)
    throw BackendError("NCCL communicator aborted earlier: " + *broken_);
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
      check_async_error(comms_[i], what);
      for (const auto &[name, comms] : splits_)
        check_async_error(comms[i], what);
    }
    if (all_done)
      return;
    if (Clock::now() > deadline)
      fire(what, timeout_s);
    std::this_thread::yield();
  }
}

namespace {
// Ends whatever capture is still open on `stream` and discards its graph: after a failure
// inside a capture, or for streams whose capture was not reached by the normal end.
void discard_capture(cudaStream_t stream) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess ||
      status == cudaStreamCaptureStatusNone)
    return;
  cudaGraph_t g = nullptr;
  // An invalidated capture ends with an error and may still hand back a graph to free.
  (void)cudaStreamEndCapture(stream, &g);
  if (g)
    RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaGraphDestroy(g));
  (void)cudaGetLastError(); // the capture's error is the failure already being reported
}
} // namespace

void NcclSession::capture_graphs(const std::function<void()> &enqueue) {
  if (broken_)
    throw BackendError("NCCL communicator aborted earlier: " + *broken_);
  destroy_graphs();
  try {
    for (std::size_t i = 0; i < streams_.size(); ++i)
      RAILGAUGE_CUDA_CALL(cudaStreamBeginCapture(streams_[i], cudaStreamCaptureModeRelaxed));
    enqueue();
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      cudaGraph_t g = nullptr;
      RAILGAUGE_CUDA_CALL(cudaStreamEndCapture(streams_[i], &g));
      // The graph is only needed to instantiate; the exec keeps what it captured.
      const std::unique_ptr<CUgraph_st, decltype(&cudaGraphDestroy)> graph(g, cudaGraphDestroy);
      cudaGraphExec_t e = nullptr;
      RAILGAUGE_CUDA_CALL(cudaGraphInstantiate(&e, graph.get(), 0));
      graphs_.push_back(e);
    }
  } catch (...) {
    for (cudaStream_t st : streams_)
      discard_capture(st);
    destroy_graphs();
    throw;
  }
}

void NcclSession::launch_graphs() {
  if (graphs_.size() != streams_.size())
    throw std::logic_error("NcclSession::launch_graphs: no captured graphs");
  for (std::size_t i = 0; i < graphs_.size(); ++i)
    RAILGAUGE_CUDA_CALL(cudaGraphLaunch(graphs_[i], streams_[i]));
}

void NcclSession::destroy_graphs() noexcept {
  for (cudaGraphExec_t e : graphs_)
    RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaGraphExecDestroy(e));
  graphs_.clear();
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
  abort_all(fmt::format("watchdog: {} not complete within {} s on rank {}; {}; "
                        "communicator aborted (ncclCommAbort)",
                        what, timeout_s, process_rank_, who));
}

void NcclSession::check_async_error(ncclComm_t comm, const std::string &what) {
  ncclResult_t async = ncclSuccess;
  const ncclResult_t rc = ncclCommGetAsyncError(comm, &async);
  if (rc != ncclSuccess)
    async = rc;
  if (async == ncclSuccess || async == ncclInProgress)
    return;
  abort_all(fmt::format("{}: NCCL reported an asynchronous error on rank {}: {} ({}); "
                        "communicator aborted (ncclCommAbort)",
                        what, process_rank_, ncclGetErrorString(async), ncclGetLastError(comm)));
}

void NcclSession::abort_all(const std::string &msg) {
  broken_ = msg;
  // ncclCommAbort would wait for graphs that captured NCCL work to be destroyed; a graph still
  // in flight is freed when its launch ends, which the abort brings about.
  destroy_graphs();
  for (auto &[name, comms] : splits_)
    release(comms, true);
  release(comms_, true);
  std::cerr << "railgauge: " << msg << '\n';
  throw BackendError(msg);
}

std::vector<std::string> NcclSession::uuids() const {
  std::vector<std::string> out;
  for (int d : devices_)
    out.push_back(gpu::cuda_device_info(d).uuid);
  return out;
}

} // namespace railgauge::collectives
