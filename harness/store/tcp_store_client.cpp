#include "harness/store/tcp_store.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/store/store_wire.h"

namespace railgauge {
namespace wire = store_wire;

namespace {

constexpr std::size_t kReceiveChunkBytes = 64 * 1024;

std::uint32_t wire_timeout_ms(Milliseconds timeout) {
  return static_cast<std::uint32_t>(
      std::clamp<long long>(timeout.count(), 0, std::numeric_limits<std::uint32_t>::max()));
}

// One reply frame: its header first, then a buffer sized once from it for the rest. A gathered
// value of a megabyte, fetched by thousands of ranks, then costs no regrowing and no zeroing.
class ReplyBuffer {
public:
  std::string_view bytes() const { return {data_.get(), filled_}; }
  // Where the next bytes go and how many the frame still wants (its header, then the rest).
  std::pair<char *, std::size_t> room() {
    const std::size_t frame = wire::frame_bytes(bytes());
    const std::size_t want = frame > filled_ ? frame - filled_
                             : filled_ < wire::kFrameHeaderBytes
                                 ? wire::kFrameHeaderBytes - filled_
                                 : kReceiveChunkBytes; // not reached: the parser said malformed
    if (filled_ + want > capacity_) {
      auto bigger = std::make_unique_for_overwrite<char[]>(filled_ + want);
      std::copy_n(data_.get(), filled_, bigger.get());
      data_ = std::move(bigger);
      capacity_ = filled_ + want;
    }
    return {data_.get() + filled_, want};
  }
  void received(std::size_t n) { filled_ += n; }

private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0, filled_ = 0;
};

} // namespace

TcpStoreClient::TcpStoreClient(TcpEndpoint server, std::string token, int rank,
                               TcpStoreClientOptions options)
    : server_(std::move(server)), token_(std::move(token)), rank_(rank), options_(options) {
  if (token_.size() > wire::kMaxTokenBytes)
    throw InputError(fmt::format("the run token has {} bytes, more than the {} allowed",
                                 token_.size(), wire::kMaxTokenBytes),
                     "RAILGAUGE_RUN_TOKEN", "use a shorter token");
  fd_ = open_connection(SteadyClock::now() + options_.connect_timeout);
}

// Connects and exchanges hellos; a refusal is the user's to fix (token, build), anything else
// is the network's. A server busy with a flood of connections may close this one before its
// hello is read (it drops the oldest silent ones): that is tried again until `deadline`.
UniqueFd TcpStoreClient::open_connection(SteadyClock::time_point deadline) {
  auto pause = std::chrono::milliseconds(20);
  while (true) {
    UniqueFd fd = try_hello(deadline);
    if (fd)
      return fd;
    if (SteadyClock::now() + pause >= deadline)
      throw BackendError(
          fmt::format("store: no hello reply from {}: connection closed", server_.to_string()));
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
}

UniqueFd TcpStoreClient::try_hello(SteadyClock::time_point deadline) {
  UniqueFd fd = connect_until(server_, deadline);
  std::string error;
  const auto hello = wire::encode_hello({wire::kVersion, rank_, token_});
  // The hello exchange gets its own short bound: a server that accepts but never answers is not
  // a railgauge store.
  const auto hello_deadline =
      std::max(deadline, SteadyClock::now() + std::chrono::milliseconds(options_.reply_grace));
  if (!send_all(fd.get(), hello, hello_deadline, error))
    throw BackendError(fmt::format("store: sending hello to {}: {}", server_.to_string(), error));
  std::string buffer;
  while (true) {
    const auto parsed = wire::parse_hello_reply(buffer);
    if (parsed.state == wire::Parse::malformed)
      throw BackendError(fmt::format("store: {} answered with something else than a railgauge "
                                     "store hello: {}",
                                     server_.to_string(), parsed.error));
    if (parsed.state == wire::Parse::complete) {
      if (!parsed.message.accepted)
        throw InputError(fmt::format("the store at {} refused rank {}: {}", server_.to_string(),
                                     rank_, parsed.message.text),
                         "--store",
                         "start every rank with the same railgauge build and the same "
                         "RAILGAUGE_RUN_TOKEN, and point --store at this run's rank 0");
      buffer.erase(0, parsed.consumed_bytes);
      return fd;
    }
    const long n = receive_some(fd.get(), buffer, kReceiveChunkBytes, hello_deadline, error);
    if (n == 0 || (n < 0 && error != "timed out"))
      return {}; // closed or reset before a whole reply
    if (n < 0)
      throw BackendError(
          fmt::format("store: no hello reply from {}: {}", server_.to_string(), error));
  }
}

std::optional<std::string> TcpStoreClient::server_lost() {
  std::lock_guard lock(mutex_);
  if (server_gone_.empty())
    return std::nullopt;
  return server_gone_;
}

// Sends one request and reads its reply. A connection lost on the way (the server closed an
// idle connection, a network blip) is reopened once and the request sent again: set, wait and
// get may all be repeated without harm.
std::string TcpStoreClient::request(const std::string &frame, Milliseconds reply_timeout,
                                    const std::vector<std::string> &keys) {
  std::lock_guard lock(mutex_);
  if (!server_gone_.empty())
    throw PeerLost(server_gone_);
  std::string last_error;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!fd_ || attempt > 0) {
      try {
        fd_ = open_connection(SteadyClock::now() + options_.reconnect_timeout);
      } catch (const BackendError &e) {
        // Not back within the reconnect timeout: rank 0 is gone, and with it every key a later
        // point would wait for. A lost peer, so that the run stops here.
        server_gone_ = fmt::format(
            "store: lost the connection to {} (served by rank 0; did rank 0 exit?): {}; "
            "reconnecting: {}",
            server_.to_string(), last_error, e.what());
        throw PeerLost(server_gone_);
      }
    }
    const auto deadline = SteadyClock::now() + reply_timeout + options_.reply_grace;
    std::string error;
    if (!send_all(fd_.get(), frame, deadline, error)) {
      last_error = error;
      fd_.reset();
      continue;
    }
    ReplyBuffer buffer;
    while (true) {
      auto parsed = wire::parse_reply(buffer.bytes());
      if (parsed.state == wire::Parse::malformed) {
        fd_.reset();
        throw BackendError(
            fmt::format("store: malformed reply from {}: {}", server_.to_string(), parsed.error));
      }
      if (parsed.state == wire::Parse::complete) {
        auto &reply = parsed.message;
        if (reply.status == wire::ReplyStatus::ok)
          return std::move(reply.value);
        // A rank this wait needs is gone: every rank learns it at once, and the run stops.
        if (reply.status == wire::ReplyStatus::peer_lost)
          throw PeerLost("store: " + reply.text);
        if (reply.status == wire::ReplyStatus::error) {
          fd_.reset();
          throw BackendError(
              fmt::format("store: {} answered: {}", server_.to_string(), reply.text));
        }
        // Only keys asked for can be missing: a server cannot make this rank name others.
        std::vector<std::string> missing;
        for (const auto &k : reply.missing)
          if (std::find(keys.begin(), keys.end(), k) != keys.end())
            missing.push_back(k);
        throw StoreTimeout(fmt::format("store: keys {} did not appear within {} ms", missing,
                                       reply_timeout.count()),
                           missing);
      }
      const auto [at, want] = buffer.room();
      const long n = receive_into(fd_.get(), at, want, deadline, error);
      if (n > 0) {
        buffer.received(static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && error == "timed out") {
        fd_.reset();
        throw BackendError(fmt::format("store: {} did not answer within {} ms", server_.to_string(),
                                       (reply_timeout + options_.reply_grace).count()));
      }
      last_error = n == 0 ? "connection closed" : error;
      fd_.reset();
      break;
    }
  }
  throw BackendError(fmt::format("store: lost the connection to {} (served by rank 0; did rank 0 "
                                 "exit?): {}",
                                 server_.to_string(), last_error));
}

void TcpStoreClient::set(const std::string &key, const std::string &value) {
  if (key.empty() || key.size() > wire::kMaxKeyBytes || value.size() > wire::kMaxValueBytes)
    throw BackendError(fmt::format("store: key of {} bytes or value of {} bytes outside the "
                                   "limits (key 1..{}, value 0..{})",
                                   key.size(), value.size(), wire::kMaxKeyBytes,
                                   wire::kMaxValueBytes));
  wire::Request req;
  req.type = wire::RequestType::set;
  req.key = key;
  req.value = value;
  request(wire::encode_request(req), options_.reconnect_timeout, {});
}

void TcpStoreClient::wait(const std::vector<std::string> &keys, Milliseconds timeout) {
  if (keys.empty())
    return;
  if (keys.size() > wire::kMaxKeysPerWait)
    throw BackendError(fmt::format("store: a wait for {} keys, more than the {} allowed",
                                   keys.size(), wire::kMaxKeysPerWait));
  wire::Request req;
  req.type = wire::RequestType::wait;
  req.keys = keys;
  req.timeout_ms = wire_timeout_ms(timeout);
  request(wire::encode_request(req), timeout, keys);
}

std::string TcpStoreClient::get(const std::string &key, Milliseconds timeout) {
  wire::Request req;
  req.type = wire::RequestType::get;
  req.key = key;
  req.timeout_ms = wire_timeout_ms(timeout);
  return request(wire::encode_request(req), timeout, {key});
}

} // namespace railgauge
