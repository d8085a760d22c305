#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

#include "harness/store/outbox.h"
#include "harness/store/store_wire.h"

namespace railgauge {
namespace {

// Drains the read end until `expected` bytes have arrived, sending from `box` meanwhile.
std::string pump(Outbox &box, int write_fd, int read_fd, std::size_t expected) {
  std::string got;
  char chunk[4096];
  while (got.size() < expected) {
    if (!box.empty()) {
      const ssize_t n = box.send_some(write_fd);
      EXPECT_TRUE(n >= 0 || errno == EAGAIN) << std::strerror(errno);
    }
    const ssize_t r = ::recv(read_fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (r > 0)
      got.append(chunk, static_cast<std::size_t>(r));
  }
  return got;
}

TEST(Outbox, SharedAndOwnBytesGoOutInOrderThroughASmallSocketBuffer) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const int small = 4096;
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  auto big = std::make_shared<const std::string>(std::string(300'000, 'v') + "end");
  Outbox box;
  box.append("head1");
  box.append_shared(big);
  box.append("tail");
  box.append("+more"); // joins "tail": small replies behind one another
  box.append_shared(std::make_shared<const std::string>()); // nothing to send
  box.append_shared(big);
  const std::string expected = "head1" + *big + "tail+more" + *big;
  EXPECT_EQ(pump(box, fds[0], fds[1], expected.size()), expected);
  EXPECT_TRUE(box.empty());
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(Outbox, AnOkReplyHeadAndItsValueAreTheEncodedReply) {
  const std::string value(70'000, '\x5a');
  store_wire::Reply reply;
  reply.value = value;
  EXPECT_EQ(store_wire::encode_ok_reply_head(value.size()) + value,
            store_wire::encode_reply(reply));
  const auto encoded = store_wire::encode_reply(reply);
  EXPECT_EQ(store_wire::frame_bytes(encoded), encoded.size());
  EXPECT_EQ(store_wire::frame_bytes(encoded.substr(0, 3)), 0u);   // header not there yet
  EXPECT_EQ(store_wire::frame_bytes(std::string(4, '\xff')), 0u); // above the limit
}

} // namespace
} // namespace railgauge
