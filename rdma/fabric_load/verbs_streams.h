#pragma once
// What the verbs sides of the fabric-load rounds share (verbs_flows.cpp, verbs_probe_side.cpp):
// the WRITE streamer that counts completions per QP, the endpoints' configuration, the exchange
// of their addresses through the Store, and the addressing and entropy a record reports.
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"
#include "harness/store/store.h"
#include "rdma/fabric_load/fabric_load_spec.h"
#include "rdma/fabric_load/flow_rounds.h"
#include "rdma/verbs/endpoint.h"
#include "rdma/verbs/verbs_error.h"

namespace railgauge::rdma {

// What a rank stores under its endpoint's key in place of the address when it failed.
inline constexpr std::string_view kFailedInfo = "error: ";

// WRITE from slot q to the peer's slot q on every QP, round-robin, each send queue kept full. One
// WR in `moderation` is signaled and retires the ones before it on its QP, so completions count
// per QP.
class FlowStreamer {
  using Clock = std::chrono::steady_clock;
  static constexpr int kPollBatch = 64;

public:
  FlowStreamer(Endpoint &ep, std::size_t bytes, int moderation, double progress_timeout_s)
      : ep_(ep), bytes_(bytes), moderation_(moderation), timeout_s_(progress_timeout_s),
        posted_(static_cast<std::size_t>(ep.config().qps), 0),
        retired_(static_cast<std::size_t>(ep.config().qps), 0),
        unsignaled_(static_cast<std::size_t>(ep.config().qps), 0) {}

  // Completes at least `messages` more.
  void run(std::uint64_t messages) {
    const std::uint64_t target = completed_ + messages;
    const auto began = Clock::now();
    std::uint64_t polls = 0;
    while (completed_ < target) {
      fill();
      reap();
      if (++polls % (1u << 16) == 0 &&
          std::chrono::duration<double>(Clock::now() - began).count() > timeout_s_)
        throw BackendError(fmt::format("no progress: {} of {} messages completed in {} s",
                                       messages - (target - completed_), messages, timeout_s_));
    }
  }
  // Signals each QP's tail and waits for every posted message.
  void drain() {
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(timeout_s_));
    for (int q = 0; q < qps(); ++q) {
      const auto qi = static_cast<std::size_t>(q);
      if (unsignaled_[qi] == 0)
        continue;
      while (posted_[qi] - retired_[qi] >= depth())
        wait_step(deadline);
      post(q, true);
    }
    for (int q = 0; q < qps(); ++q)
      while (retired_[static_cast<std::size_t>(q)] < posted_[static_cast<std::size_t>(q)])
        wait_step(deadline);
  }
  std::uint64_t completed() const { return completed_; }
  const std::vector<std::uint64_t> &completed_per_qp() const { return retired_; }

private:
  int qps() const { return ep_.config().qps; }
  std::uint64_t depth() const { return static_cast<std::uint64_t>(ep_.config().send_depth); }
  void wait_step(Clock::time_point deadline) {
    reap();
    if (Clock::now() > deadline)
      throw BackendError(fmt::format("WRITEs still outstanding after {} s", timeout_s_));
  }
  void fill() {
    for (int q = 0; q < qps(); ++q) {
      const auto qi = static_cast<std::size_t>(q);
      while (posted_[qi] - retired_[qi] < depth())
        post(q, false);
    }
  }
  void post(int q, bool force_signal) {
    const auto qi = static_cast<std::size_t>(q);
    ibv_sge sge{ep_.slot_addr(q), static_cast<std::uint32_t>(bytes_), ep_.lkey()};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.wr.rdma.remote_addr = ep_.remote_slot_addr(q);
    wr.wr.rdma.rkey = ep_.remote().rkey;
    if (++unsignaled_[qi] == moderation_ || force_signal) {
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.wr_id =
          (static_cast<std::uint64_t>(q) << 32) | static_cast<std::uint64_t>(unsignaled_[qi]);
      unsignaled_[qi] = 0;
    }
    ibv_send_wr *bad = nullptr;
    RAILGAUGE_VERBS_CALL(ibv_post_send(ep_.qp(q), &wr, &bad));
    ++posted_[qi];
  }
  void reap() {
    ibv_wc wcs[kPollBatch];
    const int got = ep_.poll_send(wcs, kPollBatch);
    for (int i = 0; i < got; ++i) {
      const auto qi = static_cast<std::size_t>(wcs[i].wr_id >> 32);
      const std::uint64_t n = wcs[i].wr_id & 0xffffffffu;
      retired_[qi] += n;
      completed_ += n;
    }
  }

  Endpoint &ep_;
  std::size_t bytes_;
  int moderation_;
  double timeout_s_;
  std::vector<std::uint64_t> posted_, retired_;
  std::vector<int> unsignaled_;
  std::uint64_t completed_ = 0;
};

// One signaled WRITE in 16 for messages under 64 KiB (the completion would cost more than the
// message), every one above.
int moderation_for(std::size_t bytes, int depth);

std::vector<std::uint32_t> flow_labels(const FabricLoadSpec &s, int sender, int first_qp, int qps);

EndpointConfig stream_config(const FabricLoadSpec &s, const std::string &device, int qps,
                             std::vector<std::uint32_t> labels);

EndpointInfo peer_info(Store &store, const std::string &key, Milliseconds timeout, int peer);

std::string info_key(const std::string &prefix, int from, int to);

// The RoCEv2 flow label and UDP source port of each QP of `ep`: the label set, or the one the
// kernel derives from the two QPNs when none is; the port by the kernel's formula (the NIC does
// not report it through verbs).
nlohmann::json entropy_of(const Endpoint &ep);

nlohmann::json addressing_of(const Endpoint &ep);

FlowFigures flow_over(const FlowStreamer &st, const std::vector<std::uint64_t> &before,
                      std::size_t bytes);

} // namespace railgauge::rdma
