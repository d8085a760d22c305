#include "harness/store/tcp_store.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <netdb.h>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/record.h"
#include "harness/store/descriptor_limit.h"
#include "harness/store/outbox.h"
#include "harness/store/store_keys.h"
#include "harness/store/store_wire.h"

namespace railgauge {
namespace wire = store_wire;

namespace {

// The longest wait the server holds for a client, whatever the client asks.
constexpr Milliseconds kMaxServerWait{24LL * 3600 * 1000};
// Bytes read from one connection per poll round, so that one fast sender cannot starve others.
constexpr std::size_t kReadChunkBytes = 256 * 1024;

// The connections the server holds at most: below the descriptor limit by the reserve the rest
// of rank 0 needs, so that a flood of connections cannot take its benchmarks' sockets.
std::size_t connection_limit_for(const TcpStoreServerOptions &options) {
  const std::size_t fds = descriptor_limit();
  const std::size_t usable =
      fds > 2 * options.descriptor_reserve ? fds - options.descriptor_reserve : fds / 2;
  return std::max<std::size_t>(1, std::min(options.max_connections, usable));
}

} // namespace

struct TcpStoreServer::Connection {
  UniqueFd fd;
  std::string peer;
  std::string in;
  // A large reply goes out in pieces from an offset, its value shared with the table: thousands
  // of ranks fetching one gathered value made moving the rest forward quadratic, and a copy per
  // connection cost more than the sending.
  Outbox out;
  bool authenticated = false;
  bool closing = false; // close once `out` is sent
  bool dead = false;    // close now
  bool hung_up = false; // closed from the client's side (or broken), not by the server
  std::int32_t rank = -1;
  SteadyClock::time_point last_activity;
  // A wait or get the table cannot answer yet. Keys never disappear, so `cursor` (the first key
  // not yet seen) only moves forward.
  struct Pending {
    wire::RequestType type;
    std::vector<std::string> keys;
    std::size_t cursor = 0;
    SteadyClock::time_point deadline;
    bool may_wait = true; // asked for more than no time: a lost rank fails it
  };
  std::optional<Pending> pending;
};

TcpStoreServer::TcpStoreServer(const TcpEndpoint &listen_at, std::string token,
                               TcpStoreServerOptions options)
    : options_(options), token_(std::move(token)), endpoint_(listen_at),
      listen_fd_(listen_on(listen_at)), connection_limit_(connection_limit_for(options)) {
  if (token_.size() > wire::kMaxTokenBytes)
    throw InputError(fmt::format("the run token has {} bytes, more than the {} allowed",
                                 token_.size(), wire::kMaxTokenBytes),
                     "RAILGAUGE_RUN_TOKEN", "use a shorter token");
  endpoint_.port = bound_port(listen_fd_.get());
  set_nonblocking(listen_fd_.get());
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0)
    throw BackendError(fmt::format("store: pipe2: {}", std::strerror(errno)));
  wake_read_.reset(pipe_fds[0]);
  wake_write_.reset(pipe_fds[1]);
  thread_ = std::thread([this] { serve(); });
}

TcpStoreServer::~TcpStoreServer() {
  // The other ranks may still be reading the answer to their last wait: give them time to hang
  // up before their connections are closed under them. A rank that has not connected yet (a slow
  // start on a busy node) is waited for too: were the store gone, it would learn only "connection
  // refused", not the lost rank or the key it waits for.
  const auto deadline = SteadyClock::now() + options_.shutdown_grace;
  while ((connection_count_ > 0 || !every_rank_seen()) && SteadyClock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stopping_ = true;
  wake();
  changed_.notify_all();
  thread_.join();
}

bool TcpStoreServer::every_rank_seen() const {
  std::lock_guard lock(mutex_);
  return options_.world_size <= 1 ||
         ranks_seen_.size() >= static_cast<std::size_t>(options_.world_size - 1);
}

void TcpStoreServer::wake() {
  const char byte = 1;
  [[maybe_unused]] const auto n = ::write(wake_write_.get(), &byte, 1); // full pipe: awake already
}

void TcpStoreServer::set(const std::string &key, const std::string &value) {
  {
    std::lock_guard lock(mutex_);
    put(key, value);
  }
  changed_.notify_all();
  wake();
}

void TcpStoreServer::wait(const std::vector<std::string> &keys, Milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const auto all_present = [&] { return holds_all(values_, keys); };
  const bool may_wait = timeout.count() > 0;
  if (changed_.wait_for(lock, timeout,
                        [&] { return all_present() || (may_wait && !lost_.empty()); })) {
    if (all_present())
      return;
    throw PeerLost("store: " + lost_text());
  }
  throw keys_timeout(keys_missing_from(values_, keys), timeout);
}

std::string TcpStoreServer::get(const std::string &key, Milliseconds timeout) {
  wait({key}, timeout);
  std::lock_guard lock(mutex_);
  return *values_.at(key);
}

RefusalLog TcpStoreServer::refusals() const {
  std::lock_guard lock(mutex_);
  return refusals_;
}

void TcpStoreServer::note_refusal(const Connection &c, const std::string &why) {
  std::lock_guard lock(mutex_);
  refusals_.add({c.peer, c.rank, why});
}

void TcpStoreServer::note_hang_up(const Connection &c,
                                  const std::vector<std::unique_ptr<Connection>> &conns) {
  if (!c.authenticated || c.rank < 1 || c.rank >= options_.world_size)
    return;
  for (const auto &other : conns)
    if (other.get() != &c && !other->dead && other->authenticated && other->rank == c.rank)
      return;
  {
    std::lock_guard lock(mutex_);
    if (std::any_of(lost_.begin(), lost_.end(), [&](const auto &l) { return l.first == c.rank; }))
      return;
    lost_.emplace_back(c.rank,
                       fmt::format("rank {} is lost: its connection to the store (from {}) closed "
                                   "at {} (its process ended or was killed, or its node went down)",
                                   c.rank, c.peer, utc_timestamp_now()));
    publish_lost();
  }
  changed_.notify_all();
  wake(); // the waits of the other connections are answered in the next round
}

std::string TcpStoreServer::lost_text() const {
  std::string text;
  for (const auto &[rank, why] : lost_)
    text += (text.empty() ? "" : "; then ") + why;
  return text + "; a wait that needs it fails at once";
}

void TcpStoreServer::publish_lost() {
  if (options_.lost_ranks_key.empty())
    return;
  put(options_.lost_ranks_key, format_lost_ranks(lost_));
}

void TcpStoreServer::put(const std::string &key, const std::string &value) {
  auto [it, inserted] = values_.try_emplace(key);
  total_bytes_ =
      total_bytes_ - (inserted ? 0 : key.size() + it->second->size()) + key.size() + value.size();
  it->second = std::make_shared<const std::string>(value);
}

std::string format_lost_ranks(const std::vector<std::pair<int, std::string>> &lost) {
  std::string text;
  for (const auto &[rank, why] : lost)
    text += fmt::format("{} {}\n", rank, why);
  return text;
}

std::vector<std::pair<int, std::string>> parse_lost_ranks(const std::string &text) {
  std::vector<std::pair<int, std::string>> lost;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const auto end = std::min(text.find('\n', begin), text.size());
    const std::string_view line(text.data() + begin, end - begin);
    const auto space = line.find(' ');
    int rank = -1;
    const auto [ptr, ec] =
        std::from_chars(line.data(), line.data() + std::min(space, line.size()), rank);
    if (space != std::string_view::npos && ec == std::errc() && ptr == line.data() + space &&
        rank >= 0)
      lost.emplace_back(rank, std::string(line.substr(space + 1)));
    begin = end + 1;
  }
  return lost;
}

void TcpStoreServer::handle_input(Connection &c) {
  const auto now = SteadyClock::now();
  if (!c.authenticated) {
    auto hello = wire::parse_hello(c.in);
    if (hello.state == wire::Parse::incomplete)
      return;
    std::string why;
    if (hello.state == wire::Parse::malformed)
      why = hello.error;
    else if (hello.message.version != wire::kVersion)
      why = fmt::format("protocol version {}, this store speaks version {}: run the same "
                        "railgauge build on every rank",
                        hello.message.version, wire::kVersion);
    else if (!wire::same_token(hello.message.token, token_))
      why = "wrong run token: every rank of a run needs the same RAILGAUGE_RUN_TOKEN";
    c.rank = hello.message.rank;
    if (!why.empty()) {
      note_refusal(c, why);
      c.out.append(wire::encode_hello_reply({false, "refused: " + why}));
      c.in.clear();
      c.closing = true;
      return;
    }
    c.in.erase(0, hello.consumed_bytes);
    c.out.append(wire::encode_hello_reply({true, ""}));
    c.authenticated = true;
    c.last_activity = now;
    {
      std::lock_guard lock(mutex_);
      if (c.rank >= 1 && c.rank < options_.world_size)
        ranks_seen_.insert(c.rank);
      // Back: it was alive after all (a network fault, not a death).
      if (std::erase_if(lost_, [&](const auto &l) { return l.first == c.rank; }) > 0)
        publish_lost();
    }
  }
  while (!c.pending && !c.closing) {
    auto parsed = wire::parse_request(c.in);
    if (parsed.state == wire::Parse::incomplete)
      return;
    if (parsed.state == wire::Parse::malformed) {
      note_refusal(c, "malformed request: " + parsed.error);
      c.out.append(wire::encode_reply(
          {wire::ReplyStatus::error, "", {}, "malformed request: " + parsed.error}));
      c.in.clear();
      c.closing = true;
      return;
    }
    c.in.erase(0, parsed.consumed_bytes);
    c.last_activity = now;
    auto &req = parsed.message;
    if (req.type == wire::RequestType::set) {
      bool full = false;
      {
        std::lock_guard lock(mutex_);
        const auto it = values_.find(req.key);
        const std::size_t old = it == values_.end() ? 0 : req.key.size() + it->second->size();
        full = total_bytes_ - old + req.key.size() + req.value.size() > options_.max_total_bytes;
        if (!full) {
          total_bytes_ = total_bytes_ - old + req.key.size() + req.value.size();
          values_[req.key] = std::make_shared<const std::string>(std::move(req.value));
        }
      }
      if (full) {
        const auto why =
            fmt::format("the store holds its limit of {} bytes", options_.max_total_bytes);
        note_refusal(c, why);
        c.out.append(wire::encode_reply({wire::ReplyStatus::error, "", {}, why}));
        c.closing = true;
        return;
      }
      changed_.notify_all();
      c.out.append(wire::encode_reply({}));
      continue;
    }
    const Milliseconds asked{req.timeout_ms};
    Connection::Pending p{
        req.type, {}, 0, now + std::min(asked, kMaxServerWait), asked.count() > 0};
    p.keys = req.type == wire::RequestType::get ? std::vector<std::string>{req.key}
                                                : std::move(req.keys);
    c.pending = std::move(p);
    check_pending(c);
  }
}

void TcpStoreServer::check_pending(Connection &c) {
  if (!c.pending)
    return;
  auto &p = *c.pending;
  wire::Reply reply;
  std::shared_ptr<const std::string> value;
  {
    std::lock_guard lock(mutex_);
    while (p.cursor < p.keys.size() && values_.count(p.keys[p.cursor]))
      ++p.cursor;
    if (p.cursor == p.keys.size()) {
      if (p.type == wire::RequestType::get)
        value = values_.at(p.keys.front());
    } else if (p.may_wait && !lost_.empty()) {
      reply.status = wire::ReplyStatus::peer_lost;
      reply.text = lost_text();
    } else if (SteadyClock::now() >= p.deadline || stopping_) {
      reply.status = wire::ReplyStatus::timeout;
      for (std::size_t i = p.cursor; i < p.keys.size(); ++i)
        if (!values_.count(p.keys[i]))
          reply.missing.push_back(p.keys[i]);
    } else {
      return;
    }
  }
  if (value) { // the value itself stays where the table holds it
    c.out.append(wire::encode_ok_reply_head(value->size()));
    c.out.append_shared(std::move(value));
  } else {
    c.out.append(wire::encode_reply(reply));
  }
  c.pending.reset();
  c.last_activity = SteadyClock::now();
  handle_input(c); // requests that arrived behind the wait
}

void TcpStoreServer::serve() {
  std::vector<std::unique_ptr<Connection>> conns;
  std::vector<pollfd> fds;
  // What a connection sent is read here and only the bytes that came are kept: growing its input
  // by a whole chunk zeroed that chunk for every request of every rank (most are tens of bytes).
  const auto scratch = std::make_unique_for_overwrite<char[]>(kReadChunkBytes);
  SteadyClock::time_point accept_paused_until{};
  while (!stopping_) {
    // Sleep until the nearest deadline (a pending wait, an idle or hello timeout, the end of an
    // accept pause), at most 1 s.
    auto now = SteadyClock::now();
    auto next = now + std::chrono::seconds(1);
    // Out of descriptors, the listening socket stays readable: poll() ignores a negative fd.
    const bool accepting = now >= accept_paused_until;
    if (!accepting)
      next = std::min(next, accept_paused_until);
    for (const auto &c : conns) {
      if (c->pending)
        next = std::min(next, c->pending->deadline);
      next = std::min(next, c->last_activity + (c->authenticated ? options_.idle_timeout
                                                                 : options_.hello_timeout));
    }
    fds.assign({{accepting ? listen_fd_.get() : -1, POLLIN, 0}, {wake_read_.get(), POLLIN, 0}});
    for (const auto &c : conns) {
      short events = 0;
      if (!c->closing && c->in.size() < wire::kFrameHeaderBytes + wire::kMaxFrameBodyBytes)
        events |= POLLIN;
      if (!c->out.empty())
        events |= POLLOUT;
      fds.push_back({c->fd.get(), events, 0});
    }
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait_ms, 0, 1000))) <
            0 &&
        errno != EINTR)
      break;
    if (fds[1].revents & POLLIN) {
      char drain[64];
      while (::read(wake_read_.get(), drain, sizeof drain) > 0) {
      }
    }
    now = SteadyClock::now();
    for (std::size_t i = 0; i < conns.size(); ++i) {
      Connection &c = *conns[i];
      const short revents = fds[2 + i].revents;
      if (revents & (POLLIN | POLLHUP | POLLERR)) {
        const std::size_t room =
            wire::kFrameHeaderBytes + wire::kMaxFrameBodyBytes -
            std::min(c.in.size(), wire::kFrameHeaderBytes + wire::kMaxFrameBodyBytes);
        const std::size_t want = std::min(kReadChunkBytes, room);
        if (want > 0) {
          const ssize_t n = ::recv(c.fd.get(), scratch.get(), want, MSG_DONTWAIT);
          if (n > 0)
            c.in.append(scratch.get(), static_cast<std::size_t>(n));
          if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            c.dead = c.hung_up = true;
        }
        if (!c.dead && !c.closing)
          try {
            handle_input(c);
          } catch (const std::exception &e) { // out of memory, say: this connection only
            note_refusal(c, std::string("dropped: ") + e.what());
            c.dead = true;
          }
      }
      if (!c.dead)
        check_pending(c);
      if (!c.out.empty() && !c.dead) {
        const ssize_t n = c.out.send_some(c.fd.get());
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
          c.dead = c.hung_up = true;
      }
      if (c.closing && c.out.empty())
        c.dead = true;
      if (!c.dead && !c.closing && !c.pending) {
        if (!c.authenticated && now - c.last_activity > options_.hello_timeout) {
          const auto why = fmt::format("no hello within {} ms", options_.hello_timeout.count());
          note_refusal(c, why);
          c.out.append(wire::encode_hello_reply({false, "refused: " + why}));
          c.closing = true;
        } else if (c.authenticated && now - c.last_activity > options_.idle_timeout) {
          c.dead = true; // the client reconnects when it next needs the store
        }
      }
    }
    for (const auto &c : conns)
      if (c->hung_up)
        note_hang_up(*c, conns);
    std::erase_if(conns, [](const auto &c) { return c->dead; });
    if (accepting && (fds[0].revents & POLLIN))
      accept_new(conns, accept_paused_until);
    connection_count_ = conns.size();
  }
  connection_count_ = 0;
}

void TcpStoreServer::accept_new(std::vector<std::unique_ptr<Connection>> &conns,
                                SteadyClock::time_point &accept_paused_until) {
  const auto now = SteadyClock::now();
  // At most a pool's worth per round: a connection taken now gets a poll round to say hello
  // before newer ones can push it out of the pool.
  for (std::size_t taken = 0; taken < options_.max_unauthenticated; ++taken) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    UniqueFd fd(::accept4(listen_fd_.get(), reinterpret_cast<sockaddr *>(&addr), &len,
                          SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      const int err = errno;
      if (is_descriptor_exhaustion(err) || err == ENOBUFS || err == ENOMEM) {
        Connection self;
        self.peer = "accept";
        note_refusal(self, fmt::format("{}; not accepting for {} ms",
                                       descriptor_exhaustion_text("accept", err),
                                       options_.accept_backoff.count()));
        accept_paused_until = now + options_.accept_backoff;
      }
      return; // EAGAIN: none left; anything else: the next round tries again
    }
    char host[NI_MAXHOST] = "?", port[NI_MAXSERV] = "?";
    ::getnameinfo(reinterpret_cast<sockaddr *>(&addr), len, host, sizeof host, port, sizeof port,
                  NI_NUMERICHOST | NI_NUMERICSERV);
    auto c = std::make_unique<Connection>();
    c->peer = fmt::format("{}:{}", host, port);
    c->last_activity = now;
    const auto unauthenticated =
        std::count_if(conns.begin(), conns.end(), [](const auto &k) { return !k->authenticated; });
    if (static_cast<std::size_t>(unauthenticated) >= options_.max_unauthenticated) {
      // The oldest silent connection goes: a rank says hello the moment it connects.
      const auto oldest =
          std::find_if(conns.begin(), conns.end(), [](const auto &k) { return !k->authenticated; });
      note_refusal(**oldest, fmt::format("dropped before its hello: {} newer connections "
                                         "waited for one",
                                         options_.max_unauthenticated));
      conns.erase(oldest);
    } else if (conns.size() >= connection_limit_) {
      note_refusal(*c, fmt::format("more than {} connections", connection_limit_));
      continue; // closed by UniqueFd
    }
    c->fd = std::move(fd);
    conns.push_back(std::move(c));
  }
}

} // namespace railgauge
