// The verbs side of the fabric-load incast rounds (flow_rounds.h): a sender's endpoint and the
// receiver's one per sender, RC WRITE streams whose every QP counts its own completions (the
// per-QP spread of rdma.qp_scaling; verbs_streams.h). The probe's side is verbs_probe_side.cpp.
#include <infiniband/verbs.h>

#include <atomic>
#include <chrono>
#include <optional>

#include <fmt/format.h>

#include "harness/device_fields.h"
#include "harness/error.h"
#include "rdma/fabric_load/fabric_figures.h"
#include "rdma/fabric_load/fabric_load_spec.h"
#include "rdma/fabric_load/verbs_streams.h"
#include "rdma/per_call_timer.h"
#include "rdma/stopping_rule.h"
#include "rdma/verbs/endpoint.h"
#include "rdma/verbs/traffic.h"
#include "rdma/verbs/verbs_error.h"
#include "records/rdma_point_fields.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

class VerbsIncastSide final : public IncastSide {
public:
  VerbsIncastSide(const RunContext &ctx, const FabricLoadSpec &spec)
      : ctx_(ctx), s_(spec), device_(device_for_rank(spec.devices, ctx.rank())) {}

  void connect(Store &store, const std::string &prefix, int receiver,
               const std::vector<int> &senders) override {
    const int me = ctx_.rank();
    receiver_ = me == receiver;
    const std::vector<int> peers = receiver_ ? senders : std::vector<int>{receiver};
    try {
      for (int peer : peers) {
        const int sender = receiver_ ? peer : me;
        eps_.emplace_back(stream_config(s_, device_, s_.qps, flow_labels(s_, sender, 0, s_.qps)),
                          ctx_.topology().get());
        store.set(info_key(prefix, me, peer), eps_.back().local_info().serialize());
      }
    } catch (const std::exception &e) {
      for (int peer : peers)
        store.set(info_key(prefix, me, peer), std::string(kFailedInfo) + e.what());
      throw;
    }
    for (std::size_t i = 0; i < peers.size(); ++i)
      eps_[i].connect(
          peer_info(store, info_key(prefix, peers[i], me), ctx_.peer_timeout(), peers[i]));
    if (!receiver_) {
      std::vector<std::uint8_t> pattern(s_.size_bytes);
      fill_pattern(pattern.data(), pattern.size(), s_.size_bytes);
      for (int q = 0; q < s_.qps; ++q)
        eps_[0].write_slot(q, pattern.data(), pattern.size());
    }
  }

  PortCounters read_counters() override {
    return read_port_counters(s_.sysfs_root, eps_.at(0).device_name(), s_.port);
  }

  FlowFigures measure(RunContext &ctx) override {
    FlowStreamer &st = streamer();
    const std::uint64_t unit =
        static_cast<std::uint64_t>(s_.qps) * static_cast<std::uint64_t>(moderation());
    st.run(unit); // the queues are full before the first timed call
    // About 8 MiB per timed call, whole rounds of every QP's moderation.
    const std::uint64_t wanted =
        std::max<std::uint64_t>(1, (std::uint64_t{8} << 20) / s_.size_bytes);
    const std::uint64_t per_call = (wanted + unit - 1) / unit * unit;
    const std::vector<std::uint64_t> before = st.completed_per_qp();
    std::uint64_t target = st.completed();
    HostTimer timer;
    const Measurement m = ctx.measure(timer, [&] {
      target += per_call;
      if (st.completed() < target)
        st.run(target - st.completed());
    });
    FlowFigures f = flow_over(st, before, s_.size_bytes);
    const std::uint64_t bytes_per_call = per_call * s_.size_bytes;
    record::BandwidthFields figures =
        record::BandwidthFields::of(bytes_per_call, per_call, m.time_s);
    // A flow's records have never stated a message rate (its QPs' spread is what they add), and
    // a new field would change them.
    figures.message_rate_per_s.reset();
    f.gbits_per_s = figures.gbits_per_s.value();
    f.measurement = m.to_json();
    figures.write(f.measurement);
    return f;
  }

  void stream_until(const std::function<bool()> &stop) override {
    FlowStreamer &st = streamer();
    const std::uint64_t chunk = std::max<std::uint64_t>(
        static_cast<std::uint64_t>(s_.qps) * static_cast<std::uint64_t>(moderation()),
        (std::uint64_t{4} << 20) / s_.size_bytes);
    while (!stop())
      st.run(chunk);
    st.drain();
  }

  DataCheck check_received() override {
    DataCheck checked;
    std::vector<std::uint8_t> received(s_.size_bytes);
    for (std::size_t i = 0; i < eps_.size(); ++i)
      for (int q = 0; q < s_.qps; ++q) {
        eps_[i].read_slot(q, received.data(), received.size());
        checked.check(received.data(), received.size(), s_.size_bytes,
                      fmt::format("receiver buffer of flow {} QP {}", i, q), nullptr);
      }
    return checked;
  }

  nlohmann::json device() const override {
    return {{device::kNic, eps_.empty() ? device_ : eps_[0].device_name()},
            {device::kPort, s_.port}};
  }
  nlohmann::json derived_params() const override {
    if (eps_.empty())
      return nlohmann::json::object();
    return addressing_of(eps_[0]);
  }
  nlohmann::json flow_entropy() const override {
    return receiver_ || eps_.empty() ? nlohmann::json() : entropy_of(eps_[0]);
  }
  double line_rate_gbits_per_s() const override {
    return eps_.empty()
               ? 0
               : read_port_rate_gbits(s_.sysfs_root, eps_[0].device_name(), s_.port).value_or(0);
  }

private:
  int moderation() const { return moderation_for(s_.size_bytes, s_.tx_depth); }
  FlowStreamer &streamer() {
    if (!streamer_)
      streamer_.emplace(eps_.at(0), s_.size_bytes, moderation(), ctx_.peer_timeout_s());
    return *streamer_;
  }
  const RunContext &ctx_;
  FabricLoadSpec s_;
  std::string device_;
  bool receiver_ = false;
  std::vector<Endpoint> eps_;
  std::optional<FlowStreamer> streamer_;
};

} // namespace

std::unique_ptr<IncastSide> make_verbs_incast_side(const RunContext &ctx,
                                                   const FabricLoadSpec &spec) {
  return std::make_unique<VerbsIncastSide>(ctx, spec);
}

} // namespace railgauge::rdma
