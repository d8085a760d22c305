#include <gtest/gtest.h>

#include "harness/store/store_wire.h"

namespace railgauge::store_wire {
namespace {

std::string u32(std::uint32_t v) {
  std::string s;
  for (int i = 0; i < 4; ++i)
    s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

TEST(StoreWire, EveryMessageRoundTrips) {
  const auto hello = parse_hello(encode_hello({kVersion, 7, "secret"}));
  ASSERT_EQ(hello.state, Parse::complete);
  EXPECT_EQ(hello.message.rank, 7);
  EXPECT_EQ(hello.message.token, "secret");

  Request set;
  set.key = "nccl/id";
  set.value = std::string("\0\xff\1", 3);
  const auto s = parse_request(encode_request(set));
  ASSERT_EQ(s.state, Parse::complete) << s.error;
  EXPECT_EQ(s.message.value, set.value);

  Request wait;
  wait.type = RequestType::wait;
  wait.keys = {"a", "b"};
  wait.timeout_ms = 1234;
  const auto w = parse_request(encode_request(wait));
  ASSERT_EQ(w.state, Parse::complete) << w.error;
  EXPECT_EQ(w.message.keys, wait.keys);
  EXPECT_EQ(w.message.timeout_ms, 1234u);

  Reply timeout;
  timeout.status = ReplyStatus::timeout;
  timeout.missing = {"barrier/x/3"};
  const auto t = parse_reply(encode_reply(timeout));
  ASSERT_EQ(t.state, Parse::complete) << t.error;
  EXPECT_EQ(t.message.missing, timeout.missing);

  const auto refused = parse_hello_reply(encode_hello_reply({false, "wrong run token"}));
  ASSERT_EQ(refused.state, Parse::complete);
  EXPECT_FALSE(refused.message.accepted);
  EXPECT_EQ(refused.message.text, "wrong run token");
}

TEST(StoreWire, EveryPrefixOfAMessageIsIncomplete) {
  Request wait;
  wait.type = RequestType::wait;
  wait.keys = {"barrier/start/0", "barrier/start/1"};
  const std::string bytes = encode_request(wait);
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_EQ(parse_request(bytes.substr(0, n)).state, Parse::incomplete) << n;
  const std::string hello = encode_hello({kVersion, 0, "token"});
  for (std::size_t n = 4; n < hello.size(); ++n)
    EXPECT_EQ(parse_hello(hello.substr(0, n)).state, Parse::incomplete) << n;
}

TEST(StoreWire, AnOversizedFrameIsMalformedFromItsHeaderAlone) {
  const auto p = parse_request(u32(0xffffffff));
  EXPECT_EQ(p.state, Parse::malformed);
  EXPECT_NE(p.error.find("frame length 4294967295"), std::string::npos) << p.error;
  EXPECT_EQ(parse_request(u32(0)).state, Parse::malformed);
}

TEST(StoreWire, LengthsInsideAFrameAreBoundedAndChecked) {
  // A key longer than the limit.
  std::string body = "\x01" + u32(kMaxKeyBytes + 1) + std::string(kMaxKeyBytes + 1, 'k') + u32(0);
  auto p = parse_request(u32(static_cast<std::uint32_t>(body.size())) + body);
  EXPECT_EQ(p.state, Parse::malformed);
  EXPECT_NE(p.error.find("key length 4097 outside 1..4096"), std::string::npos) << p.error;
  // A value that claims more bytes than its frame holds.
  body = "\x01" + u32(1) + "k" + u32(1000) + "abc";
  p = parse_request(u32(static_cast<std::uint32_t>(body.size())) + body);
  EXPECT_EQ(p.state, Parse::malformed);
  EXPECT_NE(p.error.find("runs past the end of its frame"), std::string::npos) << p.error;
  // A key count that cannot fit: refused before anything is reserved for it.
  body = "\x02" + u32(100) + u32(60000) + u32(1) + "k";
  p = parse_request(u32(static_cast<std::uint32_t>(body.size())) + body);
  EXPECT_EQ(p.state, Parse::malformed);
  EXPECT_NE(p.error.find("does not fit"), std::string::npos) << p.error;
  // Bytes after the message, an unknown type.
  body = "\x03" + u32(100) + u32(1) + "kXYZ";
  EXPECT_EQ(parse_request(u32(static_cast<std::uint32_t>(body.size())) + body).state,
            Parse::malformed);
  body = "\x09";
  EXPECT_EQ(parse_request(u32(1) + body).state, Parse::malformed);
}

TEST(StoreWire, AWrongMagicOrAnOversizedTokenIsMalformedAtOnce) {
  EXPECT_EQ(parse_hello("GET / HTTP/1.1\r\n").state, Parse::malformed);
  EXPECT_EQ(parse_hello("G").state, Parse::malformed);
  std::string hello = encode_hello({kVersion, 0, ""});
  hello[6] = '\xff'; // token length 0xff01 > 256
  hello[7] = '\xff';
  EXPECT_EQ(parse_hello(hello.substr(0, kHelloFixedBytes)).state, Parse::malformed);
}

TEST(StoreWire, AnotherVersionStillParsesSoThatItCanBeRefusedByName) {
  const auto p = parse_hello(encode_hello({99, 0, "t"}));
  ASSERT_EQ(p.state, Parse::complete);
  EXPECT_EQ(p.message.version, 99);
}

} // namespace
} // namespace railgauge::store_wire
