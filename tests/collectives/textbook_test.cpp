#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "collectives/collective_point.h"
#include "collectives/textbook.h"
#include "collectives/thread_transport.h"
#include "harness/error.h"

namespace railgauge::collectives {
namespace {

struct Case {
  Kind kind;
  Algorithm algorithm;
};

// Runs one algorithm with `ranks` threads on `count` elements per block and returns the number
// of wrong elements summed over ranks (every rank's whole output is checked).
std::uint64_t run_and_check(Case c, int ranks, std::size_t count, DType type, RedOp op,
                            Delivery delivery = Delivery::buffered) {
  ThreadMailboxes boxes(ranks, std::chrono::seconds(10), delivery);
  const std::uint64_t seed = 7;
  const std::size_t n = static_cast<std::size_t>(ranks);
  CollectivePoint p;
  p.kind = c.kind;
  p.dtype = type;
  p.op = op;
  std::vector<std::vector<std::byte>> bufs(
      n, std::vector<std::byte>(textbook_elements(c.kind, count, ranks) * element_bytes(type)));
  for (int r = 0; r < ranks; ++r)
    fill_textbook_input(p, seed, r, ranks, count, bufs[static_cast<std::size_t>(r)].data());
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        ThreadTransport t(boxes, r);
        run_textbook(c.algorithm, c.kind, t, bufs[static_cast<std::size_t>(r)].data(), count, type,
                     op);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  for (auto &t : threads)
    t.join();
  for (auto &e : errors)
    if (e)
      std::rethrow_exception(e);
  std::uint64_t wrong = 0;
  for (int r = 0; r < ranks; ++r) {
    const auto *buf = bufs[static_cast<std::size_t>(r)].data();
    switch (c.kind) {
    case Kind::all_reduce:
      wrong += check_elements(type, buf, count, 0, [&](std::uint64_t i) {
                 return reduced_value(type, op, seed, ranks, i);
               }).wrong;
      break;
    case Kind::all_gather: // block b comes from rank b
      for (int b = 0; b < ranks; ++b)
        wrong += check_elements(
                     type, buf + static_cast<std::size_t>(b) * count * element_bytes(type), count,
                     static_cast<std::uint64_t>(b) * count,
                     [&](std::uint64_t i) { return input_value(type, op, seed, b, ranks, i); })
                     .wrong;
      break;
    case Kind::reduce_scatter:
      wrong +=
          check_elements(type, buf + static_cast<std::size_t>(r) * count * element_bytes(type),
                         count, static_cast<std::uint64_t>(r) * count,
                         [&](std::uint64_t i) { return reduced_value(type, op, seed, ranks, i); })
              .wrong;
      break;
    default:
      break;
    }
  }
  return wrong;
}

std::vector<Case> every_case() {
  std::vector<Case> cases;
  for (auto k : {Kind::all_reduce, Kind::all_gather, Kind::reduce_scatter})
    for (auto a : algorithms_for(k))
      cases.push_back({k, a});
  return cases;
}

// Every algorithm of every kind, 1 to 16 ranks (powers of two and not), counts that divide
// evenly and counts that leave blocks uneven or empty; with rendezvous delivery, so that an
// algorithm that would deadlock under synchronous sends (NCCL, MPI_Ssend) fails here.
TEST(Textbook, EveryAlgorithmCorrectFor1To16Ranks) {
  for (const auto c : every_case())
    for (int ranks = 1; ranks <= 16; ++ranks)
      for (std::size_t count : {1, 5, 64}) {
        SCOPED_TRACE(testing::Message() << to_string(c.kind) << " " << to_string(c.algorithm)
                                        << " ranks " << ranks << " count " << count);
        EXPECT_EQ(run_and_check(c, ranks, count, DType::f32, RedOp::sum, Delivery::rendezvous), 0u);
      }
}

TEST(Textbook, EveryDtypeAndOp) {
  for (const auto c : every_case())
    for (auto type : {DType::f64, DType::i32, DType::bf16, DType::f16})
      for (auto op : {RedOp::sum, RedOp::prod, RedOp::max, RedOp::min}) {
        SCOPED_TRACE(testing::Message() << to_string(c.kind) << " " << to_string(c.algorithm) << " "
                                        << to_string(type) << " " << to_string(op));
        EXPECT_EQ(run_and_check(c, 6, 33, type, op), 0u);
      }
}

// The check can fail: a transport that corrupts one byte of every 1000th message is caught.
class CorruptingTransport final : public Transport {
public:
  CorruptingTransport(ThreadMailboxes &boxes, int rank) : inner_(boxes, rank) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void send(int peer, const std::byte *data, std::size_t bytes) override {
    std::vector<std::byte> copy(data, data + bytes);
    if (bytes && rank() == 1)
      copy[0] ^= std::byte{0x40};
    inner_.send(peer, copy.data(), bytes);
  }
  void recv(int peer, std::byte *data, std::size_t bytes) override {
    inner_.recv(peer, data, bytes);
  }
  void sendrecv(int to, const std::byte *s, std::size_t sb, int from, std::byte *r,
                std::size_t rb) override {
    send(to, s, sb);
    recv(from, r, rb);
  }

private:
  ThreadTransport inner_;
};

TEST(Textbook, ACorruptedMessageIsCounted) {
  const int ranks = 4;
  const std::size_t count = 16;
  ThreadMailboxes boxes(ranks, std::chrono::seconds(10));
  std::vector<std::vector<float>> bufs(ranks, std::vector<float>(count));
  for (int r = 0; r < ranks; ++r)
    fill_input(DType::f32, RedOp::sum, 1, r, ranks, 0, bufs[r].data(), count);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      CorruptingTransport t(boxes, r);
      run_textbook(Algorithm::ring, Kind::all_reduce, t,
                   reinterpret_cast<std::byte *>(bufs[r].data()), count, DType::f32, RedOp::sum);
    });
  for (auto &t : threads)
    t.join();
  std::uint64_t wrong = 0;
  for (int r = 0; r < ranks; ++r)
    wrong += check_elements(DType::f32, bufs[r].data(), count, 0, [&](std::uint64_t i) {
               return reduced_value(DType::f32, RedOp::sum, 1, ranks, i);
             }).wrong;
  EXPECT_GT(wrong, 0u);
}

// The benchmarks' own check (check_textbook_output) passes what the algorithms produce, and
// fails an element flipped in this rank's part and an all_gather block never written.
TEST(TextbookBuffers, TheBenchmarksCheckCatchesAWrongOrUnwrittenElement) {
  const int ranks = 3;
  const std::size_t count = 8;
  for (auto kind : {Kind::all_reduce, Kind::all_gather, Kind::reduce_scatter}) {
    SCOPED_TRACE(to_string(kind));
    CollectivePoint p;
    p.kind = kind;
    ThreadMailboxes boxes(ranks, std::chrono::seconds(10));
    std::vector<std::vector<std::byte>> bufs(
        ranks, std::vector<std::byte>(textbook_elements(kind, count, ranks) * sizeof(float)));
    for (int r = 0; r < ranks; ++r)
      fill_textbook_input(p, 3, r, ranks, count, bufs[r].data());
    if (kind == Kind::all_gather) { // before the algorithm: the other ranks' blocks are unwritten
      EXPECT_EQ(check_textbook_output(p, 3, 0, ranks, count, bufs[0].data()).wrong,
                (ranks - 1) * count);
    }
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        ThreadTransport t(boxes, r);
        run_textbook(Algorithm::ring, kind, t, bufs[r].data(), count, p.dtype, p.op);
      });
    for (auto &t : threads)
      t.join();
    for (int r = 0; r < ranks; ++r)
      EXPECT_EQ(check_textbook_output(p, 3, r, ranks, count, bufs[r].data()).wrong, 0u);
    // Rank 2's first element of its own part (reduce_scatter: its block).
    const std::size_t at = kind == Kind::reduce_scatter ? 2 * count : 0;
    reinterpret_cast<float *>(bufs[2].data())[at] += 1;
    EXPECT_EQ(check_textbook_output(p, 3, 2, ranks, count, bufs[2].data()).wrong, 1u);
  }
}

TEST(Textbook, NamesAndSupportTable) {
  EXPECT_EQ(parse_algorithm("halving_doubling"), Algorithm::halving_doubling);
  EXPECT_FALSE(parse_algorithm("butterfly"));
  EXPECT_EQ(algorithms_for(Kind::all_reduce).size(), 4u);
  EXPECT_TRUE(algorithms_for(Kind::broadcast).empty());
  ThreadMailboxes boxes(2);
  ThreadTransport t(boxes, 0);
  float x = 0;
  EXPECT_THROW(run_textbook(Algorithm::recursive_halving, Kind::all_reduce, t,
                            reinterpret_cast<std::byte *>(&x), 1, DType::f32, RedOp::sum),
               std::invalid_argument);
}

TEST(ThreadTransport, ARecvWithNoSenderTimesOutNamingThePeer) {
  ThreadMailboxes boxes(2, std::chrono::milliseconds(50));
  ThreadTransport t(boxes, 0);
  std::byte b{};
  try {
    t.recv(1, &b, 1);
    FAIL() << "no timeout";
  } catch (const BackendError &e) {
    EXPECT_NE(std::string(e.what()).find("no message from rank 1"), std::string::npos);
  }
}

// Two ranks that each send before receiving: fine with buffered delivery, a named deadlock with
// rendezvous delivery (what the algorithms are tested against above).
TEST(ThreadTransport, RendezvousDeliveryTurnsSendBeforeRecvIntoANamedDeadlock) {
  for (const auto delivery : {Delivery::buffered, Delivery::rendezvous}) {
    ThreadMailboxes boxes(2, std::chrono::milliseconds(200), delivery);
    std::vector<std::string> errors(2);
    std::vector<std::thread> threads;
    for (int r = 0; r < 2; ++r)
      threads.emplace_back([&, r] {
        ThreadTransport t(boxes, r);
        std::byte out{static_cast<unsigned char>(r)}, in{};
        try {
          t.send(1 - r, &out, 1);
          t.recv(1 - r, &in, 1);
        } catch (const BackendError &e) {
          errors[r] = e.what();
        }
      });
    for (auto &t : threads)
      t.join();
    if (delivery == Delivery::buffered) {
      EXPECT_EQ(errors, (std::vector<std::string>{"", ""}));
    } else {
      for (const auto &e : errors)
        EXPECT_NE(e.find("was not received within 200 ms"), std::string::npos) << e;
    }
  }
}

} // namespace
} // namespace railgauge::collectives
