// The TCP store on loopback: ranks as threads of this process, and raw sockets that send what a
// railgauge client never would (another version, a wrong token, garbage, oversized lengths).
#include <atomic>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>

#include <gtest/gtest.h>

#include "harness/store/store_wire.h"
#include "harness/store/tcp_store.h"
#include "tests/harness/store/store_test_token.h"

namespace railgauge {
namespace {

using namespace std::chrono_literals;
namespace wire = store_wire;

TcpStoreClientOptions quick_client() { return {2000ms, 2000ms, 2000ms}; }

// A raw connection to the server: sends bytes, reads what comes back until the server closes.
class RawPeer {
public:
  explicit RawPeer(const TcpEndpoint &server)
      : fd_(connect_until(server, SteadyClock::now() + 2s)) {}
  void send(std::string_view bytes) {
    std::string error;
    ASSERT_TRUE(send_all(fd_.get(), bytes, SteadyClock::now() + 2s, error)) << error;
  }
  // Everything the server sends before it closes the connection (or `limit` passes).
  std::string read_until_closed(std::chrono::milliseconds limit = 5000ms) {
    std::string got, error;
    const auto deadline = SteadyClock::now() + limit;
    while (true) {
      const long n = receive_some(fd_.get(), got, 4096, deadline, error);
      if (n == 0) {
        closed_ = true;
        return got;
      }
      if (n < 0)
        return got;
    }
  }
  bool closed() const { return closed_; }
  void hello(const std::string &token = kToken) {
    send(wire::encode_hello({wire::kVersion, 9, token}));
    std::string got, error;
    while (wire::parse_hello_reply(got).state == wire::Parse::incomplete)
      ASSERT_GT(receive_some(fd_.get(), got, 4096, SteadyClock::now() + 2s, error), 0) << error;
    ASSERT_TRUE(wire::parse_hello_reply(got).message.accepted);
  }

private:
  UniqueFd fd_;
  bool closed_ = false;
};

std::string refusal_text(const std::string &bytes) {
  const auto p = wire::parse_hello_reply(bytes);
  EXPECT_EQ(p.state, wire::Parse::complete);
  EXPECT_FALSE(p.message.accepted);
  return p.message.text;
}

std::string error_text(const std::string &bytes) {
  const auto p = wire::parse_reply(bytes);
  EXPECT_EQ(p.state, wire::Parse::complete) << p.error;
  EXPECT_EQ(p.message.status, wire::ReplyStatus::error);
  return p.message.text;
}

// The server still answers a well-behaved client.
void expect_server_works(TcpStoreServer &server) {
  TcpStoreClient client(server.endpoint(), kToken, 5, quick_client());
  client.set("still", "here");
  EXPECT_EQ(server.get("still", 1000ms), "here");
}

TEST(TcpStore, SetGetWaitBarrierAndAllGatherAcrossThreadRanks) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  EXPECT_NE(server.endpoint().port, 0);
  constexpr int kWorld = 5;
  std::vector<std::vector<std::string>> gathered(kWorld);
  std::vector<std::string> errors(kWorld);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      try {
        std::unique_ptr<TcpStoreClient> client;
        Store *store = &server;
        if (r > 0) {
          client = std::make_unique<TcpStoreClient>(server.endpoint(), kToken, r, quick_client());
          store = client.get();
        }
        store_barrier(*store, "start", r, kWorld, 5000ms);
        gathered[r] =
            store_all_gather(*store, "who", r, kWorld, "rank" + std::to_string(r), 5000ms);
        store_barrier(*store, "end", r, kWorld, 5000ms);
      } catch (const std::exception &e) {
        errors[r] = e.what();
      }
    });
  for (auto &t : ranks)
    t.join();
  for (int r = 0; r < kWorld; ++r) {
    EXPECT_EQ(errors[r], "") << "rank " << r;
    EXPECT_EQ(gathered[r], (std::vector<std::string>{"rank0", "rank1", "rank2", "rank3", "rank4"}));
  }
}

TEST(TcpStore, GetWaitsForALaterSetAndCarriesBinaryAndLargeValues) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  TcpStoreClient reader(server.endpoint(), kToken, 1, quick_client());
  TcpStoreClient writer(server.endpoint(), kToken, 2, quick_client());
  const std::string big(3 << 20, '\xab');
  std::thread t([&] {
    std::this_thread::sleep_for(50ms);
    writer.set("qp/1", std::string("\0\1\2", 3));
    writer.set("big", big);
  });
  EXPECT_EQ(reader.get("qp/1", 5000ms), std::string("\0\1\2", 3));
  EXPECT_EQ(reader.get("big", 5000ms), big);
  t.join();
}

// The server sends a value from its table without copying it: a value replaced while replies
// carrying the old one are still going out must reach each reader whole, old or new.
TEST(TcpStore, AValueReplacedWhileItIsBeingSentReachesEachReaderWhole) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  const std::string a(2 << 20, 'a'), b(1 << 20, 'b');
  server.set("v", a);
  std::vector<std::string> got(6);
  std::vector<std::thread> readers;
  for (int r = 0; r < 6; ++r)
    readers.emplace_back([&, r] {
      TcpStoreClient reader(server.endpoint(), kToken, r + 1, quick_client());
      got[r] = reader.get("v", 5000ms);
    });
  server.set("v", b);
  for (auto &t : readers)
    t.join();
  for (const auto &g : got)
    EXPECT_TRUE(g == a || g == b) << g.size() << " bytes, starting " << g.substr(0, 8);
  EXPECT_EQ(server.get("v", 0ms), b);
}

TEST(TcpStore, AWaitThatTimesOutNamesTheMissingKeysAndTheRanks) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  TcpStoreClient client(server.endpoint(), kToken, 1, quick_client());
  client.set("a", "1");
  try {
    client.wait({"a", "b", "c"}, 50ms);
    FAIL() << "wait returned without b and c";
  } catch (const StoreTimeout &e) {
    EXPECT_EQ(e.missing_keys(), (std::vector<std::string>{"b", "c"}));
  }
  try {
    store_barrier(client, "p", 1, 4, 50ms);
    FAIL() << "a barrier of 4 passed with one rank";
  } catch (const StoreTimeout &e) {
    EXPECT_NE(std::string(e.what()).find("ranks 0, 2, 3 of 4 did not arrive"), std::string::npos)
        << e.what();
  }
}

TEST(TcpStore, AWrongTokenIsRefusedWithAMessageAndTheServerGoesOn) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  try {
    TcpStoreClient client(server.endpoint(), "another-run", 3, quick_client());
    FAIL() << "a client with the wrong token was let in";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("refused rank 3: refused: wrong run token"),
              std::string::npos)
        << e.what();
  }
  ASSERT_EQ(server.refusals().total(), 1u);
  EXPECT_NE(server.refusals().recent()[0].text().find("(rank 3): wrong run token"),
            std::string::npos);
  expect_server_works(server);
}

TEST(TcpStore, AnotherProtocolVersionIsRefusedByNumber) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  RawPeer peer(server.endpoint());
  peer.send(wire::encode_hello({7, 0, kToken}));
  const auto text = refusal_text(peer.read_until_closed());
  EXPECT_NE(text.find("protocol version 7, this store speaks version 2"), std::string::npos)
      << text;
  EXPECT_TRUE(peer.closed());
  expect_server_works(server);
}

TEST(TcpStore, ABadMagicIsRefusedAndClosed) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  RawPeer peer(server.endpoint());
  peer.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto text = refusal_text(peer.read_until_closed());
  EXPECT_NE(text.find("not a railgauge client (first bytes 'GET / HT')"), std::string::npos)
      << text;
  EXPECT_TRUE(peer.closed());
  expect_server_works(server);
}

TEST(TcpStore, AnOversizedLengthDropsThatConnectionOnly) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  TcpStoreClient bystander(server.endpoint(), kToken, 1, quick_client());
  RawPeer peer(server.endpoint());
  peer.hello();
  peer.send(std::string("\xff\xff\xff\x7f", 4)); // a 2 GiB frame: refused from its header
  const auto text = error_text(peer.read_until_closed());
  EXPECT_NE(text.find("frame length 2147483647 outside"), std::string::npos) << text;
  EXPECT_TRUE(peer.closed());
  // An oversized key inside a frame of legal size.
  RawPeer second(server.endpoint());
  second.hello();
  std::string body = "\x01";
  body += std::string("\x00\x00\x01\x00", 4) + std::string(65536, 'k'); // key of 64 KiB
  body += std::string(4, '\0');
  const std::uint32_t n = static_cast<std::uint32_t>(body.size());
  second.send(std::string{static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                          static_cast<char>((n >> 16) & 0xff), static_cast<char>(n >> 24)} +
              body);
  EXPECT_NE(error_text(second.read_until_closed()).find("key length 65536 outside 1..4096"),
            std::string::npos);
  bystander.set("k", "v");
  EXPECT_EQ(bystander.get("k", 1000ms), "v");
  EXPECT_GE(server.refusals().total(), 2u);
}

TEST(TcpStore, GarbageAfterTheHelloDropsThatConnectionOnly) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  RawPeer peer(server.endpoint());
  peer.hello();
  peer.send(std::string("\x05\x00\x00\x00\x42garbage-and-more", 21)); // type 0x42
  EXPECT_NE(error_text(peer.read_until_closed()).find("unknown request type 66"),
            std::string::npos);
  EXPECT_TRUE(peer.closed());
  expect_server_works(server);
}

TEST(TcpStore, AConnectionThatNeverSaysHelloIsClosed) {
  TcpStoreServerOptions options;
  options.hello_timeout = 200ms;
  TcpStoreServer server({"127.0.0.1", 0}, kToken, options);
  RawPeer peer(server.endpoint());
  peer.send("RGS"); // part of a hello, then nothing
  const auto text = refusal_text(peer.read_until_closed());
  EXPECT_NE(text.find("no hello within 200 ms"), std::string::npos) << text;
  EXPECT_TRUE(peer.closed());
}

TEST(TcpStore, AnIdleClientIsDisconnectedAndReconnectsWhenItNeedsTheStore) {
  TcpStoreServerOptions options;
  options.idle_timeout = 200ms;
  TcpStoreServer server({"127.0.0.1", 0}, kToken, options);
  RawPeer idle(server.endpoint());
  idle.hello();
  EXPECT_EQ(idle.read_until_closed(), "");
  EXPECT_TRUE(idle.closed());

  TcpStoreClient client(server.endpoint(), kToken, 1, quick_client());
  client.set("before", "1");
  std::this_thread::sleep_for(1000ms); // the server closes the connection meanwhile
  EXPECT_EQ(server.connection_count(), 0u);
  EXPECT_EQ(client.get("before", 1000ms), "1");
}

TEST(TcpStore, ConnectingToNothingTimesOut) {
  // A port that is bound but not listening: every attempt is refused, and no other test can
  // take the port meanwhile.
  UniqueFd reserved(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(reserved.get(), reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
  const std::uint16_t port = bound_port(reserved.get());
  const auto start = SteadyClock::now();
  try {
    TcpStoreClient client({"127.0.0.1", port}, kToken, 1, {300ms, 300ms, 300ms});
    FAIL() << "connected to nothing";
  } catch (const BackendError &e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect to 127.0.0.1:" + std::to_string(port)),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(SteadyClock::now() - start, 5s);
}

TEST(TcpStore, TheServerListensOnlyOnTheAddressItIsGiven) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  // 127.0.0.2 is this machine too, but not the address the server was given.
  EXPECT_THROW(
      TcpStoreClient({"127.0.0.2", server.endpoint().port}, kToken, 1, {300ms, 300ms, 300ms}),
      BackendError);
  expect_server_works(server);
}

TEST(TcpStore, ConnectionsAboveTheLimitAreClosed) {
  TcpStoreServerOptions options;
  options.max_connections = 1;
  TcpStoreServer server({"127.0.0.1", 0}, kToken, options);
  TcpStoreClient first(server.endpoint(), kToken, 1, quick_client());
  EXPECT_ANY_THROW(TcpStoreClient(server.endpoint(), kToken, 2, {300ms, 300ms, 300ms}));
  EXPECT_NE(server.refusals().recent().back().why.find("more than 1 connections"),
            std::string::npos);
}

// Rank 0 gone for good (no reconnect within the timeout) is a lost peer: the runner stops the run
// there, rather than failing each later point on the same missing store.
TEST(TcpStore, AClientWhoseServerIsGoneSaysSo) {
  auto server = std::make_unique<TcpStoreServer>(TcpEndpoint{"127.0.0.1", 0}, kToken,
                                                 TcpStoreServerOptions{.shutdown_grace = 0ms});
  TcpStoreClient client(server->endpoint(), kToken, 1, {300ms, 300ms, 300ms});
  client.set("x", "1");
  server.reset();
  try {
    client.get("x", 100ms);
    FAIL() << "a store without a server answered";
  } catch (const PeerLost &e) {
    EXPECT_NE(std::string(e.what()).find("did rank 0 exit?"), std::string::npos) << e.what();
  }
  // Said again at once: the reconnect timeout is not waited out at every later request.
  const auto again = SteadyClock::now();
  EXPECT_THROW(client.set("y", "1"), PeerLost);
  EXPECT_LT(SteadyClock::now() - again, 100ms);
}

TEST(TcpStore, AClientThatVanishesMidWaitLeavesTheServerServing) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  {
    RawPeer peer(server.endpoint());
    peer.hello();
    wire::Request wait;
    wait.type = wire::RequestType::wait;
    wait.keys = {"never"};
    wait.timeout_ms = 60'000;
    peer.send(wire::encode_request(wait));
  } // closed with its wait pending
  expect_server_works(server);
}

// A rank killed mid-run (the OOM killer, kill -9) closes its connection: every wait that needs
// it fails at once naming it, on rank 0 and on the other clients, where each once waited out its
// whole timeout at every remaining point. A look (no time) answers as before, a key that is
// there is still there, and a rank that connects again is no longer lost.
TEST(TcpStore, ARankWhoseConnectionClosesIsLostAndEveryWaitFailsAtOnce) {
  TcpStoreServerOptions options;
  options.world_size = 3;
  TcpStoreServer server({"127.0.0.1", 0}, kToken, options);
  TcpStoreClient survivor(server.endpoint(), kToken, 2, quick_client());
  auto victim = std::make_unique<TcpStoreClient>(server.endpoint(), kToken, 1, quick_client());
  victim->set("said", "1");
  const auto start = SteadyClock::now();
  std::string survivor_error;
  std::thread waiting([&] {
    try {
      store_barrier(survivor, "step", 2, 3, 30'000ms);
    } catch (const PeerLost &e) {
      survivor_error = e.what();
    }
  });
  std::this_thread::sleep_for(100ms);
  victim.reset(); // its socket closes, as the kernel closes a killed process's
  try {
    server.wait({"barrier/step/0", "barrier/step/1"}, 30'000ms);
    FAIL() << "rank 0 waited for a rank that is gone";
  } catch (const PeerLost &e) {
    EXPECT_NE(std::string(e.what()).find("store: rank 1 is lost: its connection to the store"),
              std::string::npos)
        << e.what();
  }
  waiting.join();
  EXPECT_LT(SteadyClock::now() - start, 5s);
  EXPECT_NE(survivor_error.find("barrier 'step': store: rank 1 is lost"), std::string::npos)
      << survivor_error;
  EXPECT_THROW(survivor.wait({"never"}, 0ms), StoreTimeout);
  EXPECT_EQ(survivor.get("said", 30'000ms), "1");

  TcpStoreClient back(server.endpoint(), kToken, 1, quick_client());
  back.set("back", "1");
  EXPECT_THROW(survivor.wait({"never"}, 50ms), StoreTimeout);
}

// Rank 0 may end (its barrier failed at once on a lost rank) before a slow rank has connected:
// the store stays up for it within the grace, so that it too learns which rank is lost rather
// than "connection refused".
TEST(TcpStore, TheServerWaitsForARankNotYetConnectedBeforeItStops) {
  TcpStoreServerOptions options;
  options.world_size = 3;
  options.shutdown_grace = 10'000ms;
  auto server = std::make_unique<TcpStoreServer>(TcpEndpoint{"127.0.0.1", 0}, kToken, options);
  const TcpEndpoint endpoint = server->endpoint();
  std::make_unique<TcpStoreClient>(endpoint, kToken, 1, quick_client()).reset(); // rank 1 dies
  EXPECT_THROW(store_barrier(*server, "before", 0, 3, 30'000ms), PeerLost);
  const auto stop_start = SteadyClock::now();
  std::thread stopping([&] { server.reset(); });
  std::this_thread::sleep_for(300ms); // rank 2 starts late
  std::string late_error;
  try {
    TcpStoreClient late(endpoint, kToken, 2, quick_client());
    store_barrier(late, "before", 2, 3, 30'000ms);
  } catch (const BackendError &e) {
    late_error = e.what();
  }
  stopping.join();
  EXPECT_NE(late_error.find("barrier 'before': store: rank 1 is lost"), std::string::npos)
      << late_error;
  EXPECT_LT(SteadyClock::now() - stop_start, 5s); // it stopped once rank 2 hung up
}

// A rank that never comes costs rank 0 the grace, not more.
TEST(TcpStore, TheServerWaitsNoLongerThanItsGraceForARankThatNeverConnects) {
  TcpStoreServerOptions options;
  options.world_size = 3;
  options.shutdown_grace = 300ms;
  const auto start = SteadyClock::now();
  {
    TcpStoreServer server({"127.0.0.1", 0}, kToken, options);
    TcpStoreClient one(server.endpoint(), kToken, 1, quick_client());
  }
  const auto took = SteadyClock::now() - start;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 3s);
}

} // namespace
} // namespace railgauge
