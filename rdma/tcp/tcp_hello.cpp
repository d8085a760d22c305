#include "rdma/tcp/tcp_hello.h"

#include <algorithm>
#include <chrono>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/error.h"
#include "harness/store/store_wire.h"

namespace railgauge::rdma {
namespace {

namespace wire = store_wire;
using Clock = std::chrono::steady_clock;

Clock::time_point after_s(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double seconds_until(Clock::time_point deadline) {
  return std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count());
}

// Reads one message until `parse` says it is whole or malformed: at most `max_bytes`, so a peer
// can neither make the reader allocate more nor wait past `deadline`. Reading what has arrived
// never takes bytes of a later message: neither side sends more before the answer to its hello.
// Returns the parse, or an error text in `why`.
template <class Parser>
auto read_message(const Socket &s, Parser parse, std::size_t max_bytes, Clock::time_point deadline,
                  std::string &why) {
  std::string bytes;
  while (true) {
    auto parsed = parse(bytes);
    if (parsed.state != wire::Parse::incomplete) {
      if (parsed.state == wire::Parse::malformed)
        why = parsed.error;
      return parsed;
    }
    if (bytes.size() >= max_bytes) {
      why = fmt::format("more than {} bytes without a whole hello", max_bytes);
      return parsed;
    }
    char chunk[512];
    const std::size_t n = recv_some(s, chunk, std::min(sizeof chunk, max_bytes - bytes.size()),
                                    seconds_until(deadline));
    if (n == 0) {
      why = bytes.empty() ? "closed before its hello" : "closed in the middle of its hello";
      return parsed;
    }
    bytes.append(chunk, n);
  }
}

// Why a connection's hello is refused, or "" when it is accepted.
std::string check_hello(const Socket &conn, const std::string &token, Clock::time_point deadline) {
  std::string why;
  const auto hello = read_message(conn, wire::parse_hello,
                                  wire::kHelloFixedBytes + wire::kMaxTokenBytes, deadline, why);
  if (!why.empty())
    return why;
  if (hello.message.version != kTcpBaselineVersion)
    return fmt::format("protocol version {}, this server speaks {}: run the same railgauge build "
                       "on both sides",
                       hello.message.version, kTcpBaselineVersion);
  if (!wire::same_token(hello.message.token, token))
    return fmt::format("wrong pair token from a client saying it is rank {}", hello.message.rank);
  return "";
}

} // namespace

std::string new_pair_token() {
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 4; ++i)
    token += fmt::format("{:08x}", rd());
  return token;
}

void send_tcp_hello(const Socket &s, const std::string &token, int rank, double timeout_s,
                    std::uint16_t version) {
  const auto deadline = after_s(timeout_s);
  const std::string hello = wire::encode_hello({version, rank, token});
  send_all(s, hello.data(), hello.size(), timeout_s);
  std::string why;
  const auto reply = read_message(s, wire::parse_hello_reply,
                                  wire::kHelloReplyFixedBytes + wire::kMaxTextBytes, deadline, why);
  if (!why.empty())
    throw BackendError("TCP baseline server: no valid answer to the hello: " + why);
  if (!reply.message.accepted)
    throw BackendError("TCP baseline server refused this connection: " + reply.message.text);
}

Socket accept_tcp_client(const Socket &listener, const std::string &token, double timeout_s,
                         const std::atomic<bool> &abort, std::vector<std::string> &refused) {
  const auto deadline = after_s(timeout_s);
  while (true) {
    const double left_s = seconds_until(deadline);
    Socket conn;
    try {
      conn = accept_one(listener, left_s);
    } catch (const BackendError &e) {
      if (refused.empty())
        throw;
      throw BackendError(
          fmt::format("{}; refused before that: {}", e.what(), fmt::join(refused, "; ")));
    }
    const auto hello_deadline = std::min(deadline, after_s(kTcpHelloTimeoutS));
    std::string why;
    try {
      why = check_hello(conn, token, hello_deadline);
    } catch (const BackendError &e) { // a silent or broken connection
      why = fmt::format("no whole hello within {} s ({})", kTcpHelloTimeoutS, e.what());
    }
    try {
      const std::string reply = wire::encode_hello_reply({why.empty(), why});
      send_all(conn, reply.data(), reply.size(), std::min(left_s, kTcpHelloTimeoutS));
    } catch (const BackendError &e) {
      if (why.empty())
        why = fmt::format("gone before the answer to its hello: {}", e.what());
    }
    if (why.empty())
      return conn;
    refused.push_back(why);
    if (abort)
      throw BackendError("TCP baseline server stopped while waiting for its client");
  }
}

} // namespace railgauge::rdma
