#include <fmt/format.h>

#include "rdma/tcp/tcp_benchmarks.h"
#include "rdma/tcp/tcp_point.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {

void add_tcp_axes(std::vector<Axis> &axes) {
  axes.push_back({record::kMode,
                  AxisType::text,
                  "loopback: both ends in this process; ranks: rank 0 against rank 1",
                  {std::string("loopback")},
                  {"loopback", "ranks"}});
  axes.push_back({record::kBindAddress,
                  AxisType::text,
                  "The only address (or interface name) the sockets bind to",
                  {std::string("127.0.0.1")},
                  {}});
}

namespace {

// How the two ends wait for each message or acknowledgement (rdma/tcp/tcp_socket.h).
void add_wait_axis(std::vector<Axis> &axes) {
  axes.push_back({record::kWait,
                  AxisType::text,
                  "spin: each end spins on its socket until it can send or receive, as verbs "
                  "tests poll their completion queue; sleep: each end sleeps in poll(2) until the "
                  "kernel wakes it (adds the scheduler's wakeup)",
                  {std::string(record::kWaitSpin)},
                  {record::kWaitSpin, record::kWaitSleep}});
}

// The TCP baselines, one class told apart by whether it measures latency:
// - tcp_lat, ping-pong: the same pattern as rdma.write_lat over sockets (TCP_NODELAY), one-way
//   latency = round trip / 2;
// - tcp_bw, streaming: about 1 MiB of messages per measured call, one send per message, a
//   1-byte acknowledgement per call (uni) or both directions at once (bidir, the sum reported).
// In both, by default the two ends spin on their sockets as the verbs tests spin on their
// completion queues (wait=spin), or sleep until the kernel wakes them (wait=sleep).
class TcpBenchmark final : public KeyedBenchmark {
public:
  explicit TcpBenchmark(bool latency)
      : KeyedBenchmark(latency ? record::kTcpLat : record::kTcpBw,
                       latency ? "TCP ping-pong latency baseline (round trip / 2): "
                                 "min/p50/p90/p99/p99.9/max, stdev; data checked"
                               : "TCP streaming bandwidth baseline: Gb/s, GB/s, message rate; "
                                 "uni- or bidirectional; data checked"),
        latency_(latency) {}
  std::vector<Axis> axes() const override {
    std::vector<AxisValue> sizes = {std::int64_t{2}, std::int64_t{128}, std::int64_t{8192},
                                    std::int64_t{65536}};
    if (!latency_) {
      sizes.push_back(std::int64_t{1048576});
      sizes.push_back(std::int64_t{8388608});
    }
    std::vector<Axis> axes = {
        {record::kSizeBytes, AxisType::bytes, "Message size (at most 64 MiB)", sizes, {}}};
    if (!latency_)
      axes.push_back({record::kDirection,
                      AxisType::text,
                      "uni or bidir (both at once, sum reported)",
                      {std::string("uni")},
                      {"uni", "bidir"}});
    add_wait_axis(axes);
    add_tcp_axes(axes);
    return axes;
  }
  std::optional<std::string> supported(const RunContext &ctx, const Point &p) const override {
    return tcp_waive_reason(ctx, spec(p));
  }
  Outcome run(RunContext &ctx, const Point &p) override {
    TcpPointSpec s = spec(p);
    s.point_id = fmt::format("{}/{}", key(), points_run_++);
    return run_tcp_point(ctx, s);
  }

private:
  TcpPointSpec spec(const Point &p) const {
    TcpPointSpec s;
    s.pattern = latency_                                ? Pattern::latency
                : p.text(record::kDirection) == "bidir" ? Pattern::bandwidth_bidirectional
                                                        : Pattern::bandwidth;
    s.size_bytes = static_cast<std::size_t>(p.integer(record::kSizeBytes));
    s.mode = p.text(record::kMode);
    s.bind_address = p.text(record::kBindAddress);
    if (p.text(record::kWait) == record::kWaitSpin)
      s.wait = SocketWait::spin;
    return s;
  }
  bool latency_;
  int points_run_ = 0;
};

} // namespace

std::unique_ptr<Benchmark> make_tcp_lat() { return std::make_unique<TcpBenchmark>(true); }
std::unique_ptr<Benchmark> make_tcp_bw() { return std::make_unique<TcpBenchmark>(false); }

} // namespace railgauge::rdma
