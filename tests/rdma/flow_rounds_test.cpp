// The scheduling of the fabric-load rounds (flow_rounds.h) with ranks as threads over the
// in-memory store and fake sides in place of verbs: every flow is measured while all the others
// stream, the receiver holds the fairness and every end's counters, a wrong byte fails every
// flow, the probe is measured idle and then behind every loader.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "harness/store/memory_store.h"
#include "harness/waiver.h"
#include "rdma/fabric_load/flow_rounds.h"
#include "tests/support/thread_ranks.h"

namespace railgauge::rdma {
namespace {

using Clock = std::chrono::steady_clock;

// What every fake end of one round shares: when each flow measured and stopped streaming.
struct Timeline {
  std::mutex mutex;
  std::map<int, std::pair<Clock::time_point, Clock::time_point>> measured;
  std::map<int, Clock::time_point> stopped_streaming;
  std::atomic<int> streaming{0};
};

PortCounters fake_counters(int rank, std::uint64_t tick) {
  PortCounters c;
  c.device = "fake" + std::to_string(rank);
  c.port = 1;
  c.hw_counters = {{"np_cnp_sent", 10 * tick}, {"rp_cnp_handled", 3 * tick}};
  return c;
}

class FakeIncastSide final : public IncastSide {
public:
  FakeIncastSide(int rank, Timeline &t, double gbits, bool corrupt)
      : rank_(rank), t_(t), gbits_(gbits), corrupt_(corrupt) {}
  void connect(Store &, const std::string &, int, const std::vector<int> &) override {}
  PortCounters read_counters() override { return fake_counters(rank_, reads_++); }
  FlowFigures measure(RunContext &) override {
    const auto began = Clock::now();
    // Senders measure for different times: the quick ones must keep streaming.
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 15 * rank_));
    {
      std::lock_guard lock(t_.mutex);
      t_.measured[rank_] = {began, Clock::now()};
    }
    FlowFigures f;
    f.gbits_per_s = gbits_;
    f.bytes_per_qp = {1e6, 3e6};
    f.measurement = {{"messages_per_call", 8}};
    return f;
  }
  void stream_until(const std::function<bool()> &stop) override {
    while (!stop())
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::lock_guard lock(t_.mutex);
    t_.stopped_streaming[rank_] = Clock::now();
  }
  DataCheck check_received() override {
    DataCheck c;
    if (corrupt_)
      c.problems.push_back("receiver buffer of flow 1 QP 0: 1 of 64 bytes differ");
    c.wrong_bytes = corrupt_ ? 1 : 0;
    return c;
  }
  nlohmann::json device() const override { return {{"nic", "fake" + std::to_string(rank_)}}; }
  nlohmann::json derived_params() const override { return {{"link_layer", "Ethernet"}}; }
  double line_rate_gbits_per_s() const override { return 400; }

private:
  int rank_;
  Timeline &t_;
  double gbits_;
  bool corrupt_;
  std::uint64_t reads_ = 0;
};

std::vector<Outcome> incast(int ranks, int receiver, const std::vector<double> &gbits, Timeline &t,
                            bool corrupt = false) {
  MemoryStore store;
  return testing::run_ranks_as_threads(
      ranks, store, testing::brief_measure_spec(), [&](RunContext &ctx) {
        FakeIncastSide side(ctx.rank(), t, gbits[static_cast<std::size_t>(ctx.rank())], corrupt);
        RoundSpec spec;
        spec.prefix = "t/";
        spec.receiver = receiver;
        for (int r = 0; r < ranks; ++r)
          if (r != receiver)
            spec.senders.push_back(r);
        return run_incast_round(ctx, spec, side);
      });
}

TEST(IncastRound, EveryFlowIsMeasuredWhileEveryOtherStreams) {
  Timeline t;
  const auto outs = incast(5, 2, {100, 100, 0, 100, 100}, t);
  ASSERT_EQ(t.measured.size(), 4u);
  Clock::time_point last_measured_end{};
  for (const auto &[rank, window] : t.measured)
    last_measured_end = std::max(last_measured_end, window.second);
  for (const auto &[rank, stopped] : t.stopped_streaming)
    EXPECT_GE(stopped, last_measured_end) << "rank " << rank << " stopped streaming early";
  for (const auto &[rank, window] : t.measured)
    for (const auto &[other, other_window] : t.measured)
      EXPECT_LT(window.first, t.stopped_streaming.at(other))
          << "rank " << rank << " measured after rank " << other << " left";
  for (const Outcome &o : outs)
    EXPECT_EQ(o.status, Status::ok) << o.reason.value_or("");
}

TEST(IncastRound, TheReceiverHoldsFairnessAggregateAndEveryEnd) {
  Timeline t;
  const auto outs = incast(4, 0, {0, 100, 100, 50}, t);
  const Outcome &r = outs[0];
  ASSERT_EQ(r.status, Status::ok) << r.reason.value_or("");
  EXPECT_EQ(r.derived_params["role"], "receiver");
  EXPECT_DOUBLE_EQ(r.metrics["aggregate_gbits_per_s"].get<double>(), 250);
  EXPECT_NEAR(r.metrics["jain_fairness_index"].get<double>(), 250.0 * 250 / (3 * 22500.0), 1e-12);
  EXPECT_DOUBLE_EQ(r.metrics["aggregate_over_line_rate"].get<double>(), 250 / 400.0);
  EXPECT_DOUBLE_EQ(r.metrics["per_flow_gbits_per_s"]["min_over_fair_share"].get<double>(),
                   50 / (250 / 3.0));
  ASSERT_EQ(r.metrics["ends"].size(), 4u);
  for (const auto &end : r.metrics["ends"]) {
    // Two reads (before, after) of a counter that grows 10 per read: a delta of 10.
    EXPECT_EQ(end["congestion"]["counters"]["cnp_sent"], 10) << end.dump();
    const auto absent = end["congestion"]["absent"];
    EXPECT_NE(std::find(absent.begin(), absent.end(), "pfc_pause_frames_rx"), absent.end());
  }
  EXPECT_EQ(r.metrics["verified"], true);
  for (int s : {1, 2, 3}) {
    const Outcome &o = outs[static_cast<std::size_t>(s)];
    EXPECT_EQ(o.derived_params["role"], "sender");
    EXPECT_EQ(o.metrics["verified"], true);
    // The sender's QPs split its flow by the bytes each completed: 1 : 3.
    EXPECT_DOUBLE_EQ(o.metrics["per_qp_gbits_per_s"]["min"].get<double>(),
                     o.metrics["bandwidth_gbits_per_s"].get<double>() / 4);
  }
}

TEST(IncastRound, AWrongByteAtTheReceiverFailsEveryFlow) {
  Timeline t;
  const auto outs = incast(3, 1, {100, 0, 100}, t, true);
  for (const Outcome &o : outs) {
    EXPECT_EQ(o.status, Status::failed);
    EXPECT_NE(o.reason.value_or("").find("differ"), std::string::npos);
  }
}

TEST(IncastRound, ARankOutsideTheRoundIsNotApplicable) {
  MemoryStore store;
  Timeline t;
  const auto outs =
      testing::run_ranks_as_threads(3, store, testing::brief_measure_spec(), [&](RunContext &ctx) {
        FakeIncastSide side(ctx.rank(), t, 100, false);
        return run_incast_round(ctx, RoundSpec{"q/", 1, {0}}, side);
      });
  EXPECT_EQ(outs[0].status, Status::ok);
  EXPECT_EQ(outs[1].status, Status::ok);
  EXPECT_EQ(outs[2].status, Status::waived);
  EXPECT_TRUE(is_not_applicable(outs[2].reason.value_or("")));
}

class FakeProbeSide final : public ProbeSide {
public:
  FakeProbeSide(int rank, Timeline &t) : rank_(rank), t_(t) {}
  void connect(Store &, const std::string &, const std::vector<int> &) override {}
  PortCounters read_counters() override { return fake_counters(rank_, reads_++); }
  std::vector<double> measure_probe(RunContext &) override {
    // Idle: 2 us; behind load: 2 us more per loader still streaming when the probe ends.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    loaders_seen_.push_back(t_.streaming.load());
    return std::vector<double>(100, 2e-6 * (1 + loaders_seen_.back()));
  }
  void stop_probe() override { stopped_global_->store(true); }
  void serve_probe() override {
    while (!stopped_global_->load())
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  FlowFigures stream_until(const std::function<bool()> &stop) override {
    ++t_.streaming;
    while (!stop())
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    --t_.streaming;
    FlowFigures f;
    f.gbits_per_s = 90;
    f.bytes_per_qp = {1, 1};
    return f;
  }
  DataCheck check_received() override { return {}; }
  nlohmann::json device() const override { return {{"nic", "fake"}}; }
  nlohmann::json derived_params() const override { return nlohmann::json::object(); }
  std::vector<int> loaders_seen_;
  std::atomic<bool> *stopped_global_ = nullptr;

private:
  int rank_;
  Timeline &t_;
  std::uint64_t reads_ = 0;
};

// As a TCP store client is: one request at a time per process, a blocking get holding the
// others until it returns.
class OneRequestAtATime final : public Store {
public:
  explicit OneRequestAtATime(Store &inner) : inner_(inner) {}
  void set(const std::string &key, const std::string &value) override {
    std::lock_guard lock(mutex_);
    inner_.set(key, value);
  }
  void wait(const std::vector<std::string> &keys, Milliseconds timeout) override {
    std::lock_guard lock(mutex_);
    inner_.wait(keys, timeout);
  }
  std::string get(const std::string &key, Milliseconds timeout) override {
    std::lock_guard lock(mutex_);
    return inner_.get(key, timeout);
  }

private:
  Store &inner_;
  std::mutex mutex_;
};

// A probe round of four ranks as threads: the probe (0), its receiver (1) and loaders 2 and 3,
// each rank with its own one-request-at-a-time client of the store when asked. `seen`: the
// loaders the probe saw, idle and loaded.
struct ProbeRoundOfFour {
  std::vector<Outcome> outs;
  std::vector<int> seen;
  bool probe_stopped = false;
};

ProbeRoundOfFour run_probe_round_of_four(bool one_request_at_a_time) {
  MemoryStore store;
  Timeline t;
  std::atomic<bool> probe_stopped{false};
  ProbeRoundOfFour run;
  run.outs =
      testing::run_ranks_as_threads(4, store, testing::brief_measure_spec(), [&](RunContext &ctx) {
        OneRequestAtATime client(store);
        if (one_request_at_a_time)
          ctx.set_world(4, &client);
        FakeProbeSide side(ctx.rank(), t);
        side.stopped_global_ = &probe_stopped;
        Outcome o = run_probe_round(ctx, ProbeRoundSpec{"p/", {0, 2, 3}}, side);
        if (ctx.rank() == 0)
          run.seen = side.loaders_seen_;
        return o;
      });
  run.probe_stopped = probe_stopped.load();
  return run;
}

TEST(ProbeRound, IdleThenBehindEveryLoaderWithTheRatio) {
  const auto [outs, seen, probe_stopped] = run_probe_round_of_four(false);
  // The idle probe saw no loader, the loaded one all three; rank 1 stopped answering only
  // when rank 0 told it (its serve loop ends on that alone).
  EXPECT_EQ(seen, (std::vector<int>{0, 3}));
  EXPECT_TRUE(probe_stopped);
  const Outcome &o = outs[0];
  ASSERT_EQ(o.status, Status::ok) << o.reason.value_or("");
  EXPECT_EQ(o.derived_params["role"], "probe");
  EXPECT_DOUBLE_EQ(o.metrics["loaded_over_idle"]["p99"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(o.metrics["latency_idle"]["p50_s"].get<double>(), 2e-6);
  EXPECT_DOUBLE_EQ(o.metrics["latency"]["p50_s"].get<double>(), 8e-6);
  EXPECT_EQ(o.metrics["ends"].size(), 4u);
  EXPECT_EQ(o.metrics["load_gbits_per_s"]["values"].size(), 3u);
  EXPECT_EQ(outs[1].derived_params["role"], "probe_receiver");
  EXPECT_EQ(outs[2].derived_params["role"], "loader");
  for (const Outcome &r : outs)
    EXPECT_EQ(r.status, Status::ok) << r.reason.value_or("");
}

// Ranks as processes: each its own store client. A loader's load thread must not need the store
// while its main thread waits for the probe to finish, or rank 0 never hears the load started.
TEST(ProbeRound, LoadersWhoseStoreServesOneRequestAtATimeStillLoad) {
  const ProbeRoundOfFour run = run_probe_round_of_four(true);
  for (const Outcome &r : run.outs)
    EXPECT_EQ(r.status, Status::ok) << r.reason.value_or("");
  EXPECT_EQ(run.seen, (std::vector<int>{0, 3}));
}

} // namespace
} // namespace railgauge::rdma
