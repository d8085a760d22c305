#include <fmt/format.h>

#include "rdma/tcp/tcp_benchmarks.h"
#include "rdma/tcp/tcp_point.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

// TCP streaming: about 1 MiB of messages per measured call, one send per message, a 1-byte
// acknowledgement per call (uni) or both directions at once (bidir, the sum reported).
class TcpBw final : public Benchmark {
public:
  std::string_view key() const override { return record::kTcpBw; }
  std::string_view description() const override {
    return "TCP streaming bandwidth baseline: Gb/s, GB/s, message rate; uni- or bidirectional; "
           "data checked";
  }
  std::vector<Axis> axes() const override {
    std::vector<Axis> axes = {{record::kSizeBytes,
                               AxisType::bytes,
                               "Message size (at most 64 MiB)",
                               {std::int64_t{2}, std::int64_t{128}, std::int64_t{8192},
                                std::int64_t{65536}, std::int64_t{1048576}, std::int64_t{8388608}},
                               {}},
                              {record::kDirection,
                               AxisType::text,
                               "uni or bidir (both at once, sum reported)",
                               {std::string("uni")},
                               {"uni", "bidir"}}};
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
  static TcpPointSpec spec(const Point &p) {
    TcpPointSpec s;
    s.pattern = p.text(record::kDirection) == "bidir" ? Pattern::bandwidth_bidirectional
                                                      : Pattern::bandwidth;
    s.size_bytes = static_cast<std::size_t>(p.integer(record::kSizeBytes));
    s.mode = p.text(record::kMode);
    s.bind_address = p.text(record::kBindAddress);
    return s;
  }
  int points_run_ = 0;
};

} // namespace

std::unique_ptr<Benchmark> make_tcp_bw() { return std::make_unique<TcpBw>(); }

} // namespace railgauge::rdma
