#pragma once
// The TCP store's wire format: every byte a peer may send is parsed here, by pure functions
// (bytes in, message or error out) that the store's server and client and a libFuzzer target
// share. Nothing a peer sends is trusted: every length is checked against the named limits below
// and against the bytes actually present before anything is allocated.
//
// A connection opens with a hello (client -> server):
//   "RGST" u16 version, u16 token length, i32 rank, token bytes
// The first six bytes (magic and version) keep this layout in every protocol version, so that a
// server can refuse a client of another version with a message it understands. The server
// answers with a hello reply, also version-independent:
//   "RGST" u8 accepted (1) or refused (0), u16 text length, text
// and closes the connection after a refusal. (The TCP baseline of the rdma family opens its
// connections with the same hello and reply, with a version and token of its own:
// rdma/tcp/tcp_hello.h.) Then each request and each reply is a frame:
//   u32 body length, body
// Request bodies: u8 type, then
//   set:  u32 key length, key, u32 value length, value
//   wait: u32 timeout in ms, u32 key count, that many (u32 length, key)
//   get:  u32 timeout in ms, u32 key length, key
// Reply bodies: u8 status, then
//   ok:      u32 value length, value (empty for set and wait)
//   timeout: u32 key count, that many (u32 length, key): the keys still missing
//   error:   u32 text length, text (the server then closes the connection)
//   peer lost: u32 text length, text (a wait that needs a rank whose connection is gone; the
//            connection stays open). New in version 2.
// Integers are little-endian.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railgauge::store_wire {

inline constexpr std::array<char, 4> kMagic = {'R', 'G', 'S', 'T'};
inline constexpr std::uint16_t kVersion = 2;

// Limits on what a peer may send; anything larger drops the connection.
inline constexpr std::size_t kMaxTokenBytes = 256;
inline constexpr std::size_t kMaxKeyBytes = 4096;
inline constexpr std::size_t kMaxValueBytes = std::size_t{16} << 20; // 16 MiB
inline constexpr std::size_t kMaxKeysPerWait = 65536;
inline constexpr std::size_t kMaxTextBytes = 4096;
// The largest frame body: a set of the largest key and value, or a wait for many keys.
inline constexpr std::size_t kMaxFrameBodyBytes = kMaxValueBytes + kMaxKeyBytes + 64;
inline constexpr std::size_t kFrameHeaderBytes = 4;
inline constexpr std::size_t kHelloFixedBytes = 12; // magic 4, version 2, token length 2, rank 4
inline constexpr std::size_t kHelloReplyFixedBytes = 7; // magic 4, accepted 1, text length 2

struct Hello {
  std::uint16_t version = kVersion;
  std::int32_t rank = -1; // who the client says it is, for messages; -1 when unknown
  std::string token;
};

struct HelloReply {
  bool accepted = false;
  std::string text; // why a connection was refused
};

enum class RequestType : std::uint8_t { set = 1, wait = 2, get = 3 };

struct Request {
  RequestType type = RequestType::set;
  std::string key;               // set, get
  std::string value;             // set
  std::vector<std::string> keys; // wait
  std::uint32_t timeout_ms = 0;  // wait, get
};

enum class ReplyStatus : std::uint8_t { ok = 0, timeout = 1, error = 2, peer_lost = 3 };

struct Reply {
  ReplyStatus status = ReplyStatus::ok;
  std::string value;                // ok (get)
  std::vector<std::string> missing; // timeout
  std::string text;                 // error, peer_lost
};

// What parsing the front of a byte buffer gave: a whole message (and how many bytes it took),
// a need for more bytes, or a malformed message (with why) after which the connection is dropped.
enum class Parse { complete, incomplete, malformed };

template <class Message> struct Parsed {
  Parse state = Parse::incomplete;
  Message message{};
  std::size_t consumed_bytes = 0;
  std::string error; // when malformed
};

// Whether a hello's token is the expected one, in time that does not depend on where they
// differ, so that the time a refusal takes says nothing about the token.
bool same_token(std::string_view presented, std::string_view expected);

std::string encode_hello(const Hello &hello);
std::string encode_hello_reply(const HelloReply &reply);
std::string encode_request(const Request &request);
std::string encode_reply(const Reply &reply);
// The bytes of an ok reply before its value of `value_bytes`: followed by the value, they are
// encode_reply of that reply. The server sends a large value from its table this way, uncopied.
std::string encode_ok_reply_head(std::size_t value_bytes);

// Each parses the message at the front of `bytes`. A wrong magic, a length above its limit or a
// length larger than the frame that holds it is malformed as soon as the bytes that show it are
// there, so a peer cannot make the reader wait for (or allocate) more than a limit allows.
Parsed<Hello> parse_hello(std::string_view bytes);
Parsed<HelloReply> parse_hello_reply(std::string_view bytes);
Parsed<Request> parse_request(std::string_view bytes);
Parsed<Reply> parse_reply(std::string_view bytes);
// The size of the frame at the front of `bytes`, header included, once its header is there and
// its length within the limit; 0 otherwise. A reader sizes its buffer once from it.
std::size_t frame_bytes(std::string_view bytes);

} // namespace railgauge::store_wire
