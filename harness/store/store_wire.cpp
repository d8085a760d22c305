#include "harness/store/store_wire.h"

#include <fmt/format.h>

namespace railgauge::store_wire {
namespace {

void put_u8(std::string &out, std::uint8_t v) { out.push_back(static_cast<char>(v)); }
void put_u16(std::string &out, std::uint16_t v) {
  for (int i = 0; i < 2; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u32(std::string &out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_bytes32(std::string &out, std::string_view bytes) {
  put_u32(out, static_cast<std::uint32_t>(bytes.size()));
  out.append(bytes);
}

// Reads little-endian fields from a byte range whose end is known; every read checks that the
// bytes are there, every length is checked against its limit before it is used.
class Reader {
public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  std::size_t left() const { return bytes_.size() - pos_; }
  bool u8(std::uint8_t &v) {
    if (left() < 1)
      return false;
    v = static_cast<std::uint8_t>(bytes_[pos_++]);
    return true;
  }
  bool u16(std::uint16_t &v) {
    if (left() < 2)
      return false;
    v = 0;
    for (int i = 0; i < 2; ++i)
      v |= static_cast<std::uint16_t>(static_cast<std::uint8_t>(bytes_[pos_++]) << (8 * i));
    return true;
  }
  bool u32(std::uint32_t &v) {
    if (left() < 4)
      return false;
    v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes_[pos_++])) << (8 * i);
    return true;
  }
  bool bytes(std::size_t n, std::string &out) {
    if (left() < n)
      return false;
    out.assign(bytes_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  // A u32 length (at most `limit`, at least `min`) then that many bytes; `error` says why not.
  bool sized(std::string &out, std::size_t min, std::size_t limit, const char *what,
             std::string &error) {
    std::uint32_t n = 0;
    if (!u32(n)) {
      error = fmt::format("{} length cut short", what);
      return false;
    }
    if (n < min || n > limit) {
      error = fmt::format("{} length {} outside {}..{}", what, n, min, limit);
      return false;
    }
    if (!bytes(n, out)) {
      error = fmt::format("{} of {} bytes runs past the end of its frame", what, n);
      return false;
    }
    return true;
  }

private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

template <class M> Parsed<M> malformed(std::string error) {
  Parsed<M> p;
  p.state = Parse::malformed;
  p.error = std::move(error);
  return p;
}

bool magic_ok(std::string_view bytes) {
  const std::size_t n = std::min(bytes.size(), kMagic.size());
  return bytes.substr(0, n) == std::string_view(kMagic.data(), n);
}

std::string printable_prefix(std::string_view bytes) {
  std::string out;
  for (char c : bytes.substr(0, 8))
    out += (c >= 0x20 && c < 0x7f) ? std::string(1, c)
                                   : fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  return out;
}

// Splits off one frame: its body, when the whole frame is there.
struct Frame {
  Parse state = Parse::incomplete;
  std::string_view body;
  std::size_t consumed_bytes = 0;
  std::string error;
};

Frame split_frame(std::string_view bytes) {
  Frame f;
  Reader r(bytes);
  std::uint32_t length = 0;
  if (!r.u32(length))
    return f;
  if (length == 0 || length > kMaxFrameBodyBytes) {
    f.state = Parse::malformed;
    f.error = fmt::format("frame length {} outside 1..{}", length, kMaxFrameBodyBytes);
    return f;
  }
  if (bytes.size() - kFrameHeaderBytes < length)
    return f;
  f.state = Parse::complete;
  f.body = bytes.substr(kFrameHeaderBytes, length);
  f.consumed_bytes = kFrameHeaderBytes + length;
  return f;
}

} // namespace

std::size_t frame_bytes(std::string_view bytes) {
  Reader r(bytes);
  std::uint32_t length = 0;
  if (!r.u32(length) || length == 0 || length > kMaxFrameBodyBytes)
    return 0;
  return kFrameHeaderBytes + length;
}

namespace {

bool read_keys(Reader &r, std::vector<std::string> &keys, std::size_t min_count,
               std::string &error) {
  std::uint32_t count = 0;
  if (!r.u32(count)) {
    error = "key count cut short";
    return false;
  }
  if (count < min_count || count > kMaxKeysPerWait) {
    error = fmt::format("key count {} outside {}..{}", count, min_count, kMaxKeysPerWait);
    return false;
  }
  // Each key takes at least 5 bytes: a count the frame cannot hold is refused before reserving.
  if (count > r.left() / 5) {
    error = fmt::format("key count {} does not fit in its frame", count);
    return false;
  }
  keys.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    std::string key;
    if (!r.sized(key, 1, kMaxKeyBytes, "key", error))
      return false;
    keys.push_back(std::move(key));
  }
  return true;
}

template <class M> Parsed<M> finish(Reader &r, M message, std::size_t consumed) {
  if (r.left() != 0)
    return malformed<M>(fmt::format("{} unexpected bytes after the message", r.left()));
  Parsed<M> p;
  p.state = Parse::complete;
  p.message = std::move(message);
  p.consumed_bytes = consumed;
  return p;
}

} // namespace

std::string encode_hello(const Hello &hello) {
  std::string out(kMagic.data(), kMagic.size());
  put_u16(out, hello.version);
  put_u16(out, static_cast<std::uint16_t>(hello.token.size()));
  put_u32(out, static_cast<std::uint32_t>(hello.rank));
  out.append(hello.token);
  return out;
}

std::string encode_hello_reply(const HelloReply &reply) {
  std::string out(kMagic.data(), kMagic.size());
  put_u8(out, reply.accepted ? 1 : 0);
  const std::string_view text = std::string_view(reply.text).substr(0, kMaxTextBytes);
  put_u16(out, static_cast<std::uint16_t>(text.size()));
  out.append(text);
  return out;
}

std::string encode_request(const Request &request) {
  std::string body;
  put_u8(body, static_cast<std::uint8_t>(request.type));
  switch (request.type) {
  case RequestType::set:
    put_bytes32(body, request.key);
    put_bytes32(body, request.value);
    break;
  case RequestType::wait:
    put_u32(body, request.timeout_ms);
    put_u32(body, static_cast<std::uint32_t>(request.keys.size()));
    for (const auto &k : request.keys)
      put_bytes32(body, k);
    break;
  case RequestType::get:
    put_u32(body, request.timeout_ms);
    put_bytes32(body, request.key);
    break;
  }
  std::string out;
  put_u32(out, static_cast<std::uint32_t>(body.size()));
  return out + body;
}

std::string encode_reply(const Reply &reply) {
  std::string body;
  put_u8(body, static_cast<std::uint8_t>(reply.status));
  switch (reply.status) {
  case ReplyStatus::ok:
    put_bytes32(body, reply.value);
    break;
  case ReplyStatus::timeout:
    put_u32(body, static_cast<std::uint32_t>(reply.missing.size()));
    for (const auto &k : reply.missing)
      put_bytes32(body, k);
    break;
  case ReplyStatus::error:
  case ReplyStatus::peer_lost:
    put_bytes32(body, std::string_view(reply.text).substr(0, kMaxTextBytes));
    break;
  }
  std::string out;
  put_u32(out, static_cast<std::uint32_t>(body.size()));
  return out + body;
}

std::string encode_ok_reply_head(std::size_t value_bytes) {
  std::string out;
  put_u32(out, static_cast<std::uint32_t>(1 + 4 + value_bytes));
  put_u8(out, static_cast<std::uint8_t>(ReplyStatus::ok));
  put_u32(out, static_cast<std::uint32_t>(value_bytes));
  return out;
}

bool same_token(std::string_view presented, std::string_view expected) {
  unsigned char diff = presented.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < presented.size(); ++i)
    diff |= static_cast<unsigned char>(presented[i] ^ (i < expected.size() ? expected[i] : 0));
  return diff == 0;
}

Parsed<Hello> parse_hello(std::string_view bytes) {
  if (!magic_ok(bytes))
    return malformed<Hello>(
        fmt::format("not a railgauge client (first bytes '{}')", printable_prefix(bytes)));
  if (bytes.size() < kMagic.size())
    return {};
  Reader r(bytes.substr(kMagic.size()));
  Hello h;
  std::uint16_t token_bytes = 0;
  std::uint32_t rank = 0;
  if (!r.u16(h.version) || !r.u16(token_bytes) || !r.u32(rank))
    return {};
  // The version is checked by the caller (it refuses with a message naming both versions); a
  // token too long is malformed in any version.
  if (token_bytes > kMaxTokenBytes)
    return malformed<Hello>(
        fmt::format("run token length {} above the limit {}", token_bytes, kMaxTokenBytes));
  h.rank = static_cast<std::int32_t>(rank);
  if (!r.bytes(token_bytes, h.token))
    return {};
  Parsed<Hello> p;
  p.state = Parse::complete;
  p.message = std::move(h);
  p.consumed_bytes = kHelloFixedBytes + token_bytes;
  return p;
}

Parsed<HelloReply> parse_hello_reply(std::string_view bytes) {
  if (!magic_ok(bytes))
    return malformed<HelloReply>(
        fmt::format("not a railgauge server (first bytes '{}')", printable_prefix(bytes)));
  if (bytes.size() < kMagic.size())
    return {};
  Reader r(bytes.substr(kMagic.size()));
  std::uint8_t accepted = 0;
  std::uint16_t text_bytes = 0;
  if (!r.u8(accepted) || !r.u16(text_bytes))
    return {};
  if (accepted > 1)
    return malformed<HelloReply>(fmt::format("hello reply flag {} is neither 0 nor 1", accepted));
  if (text_bytes > kMaxTextBytes)
    return malformed<HelloReply>(
        fmt::format("hello reply text length {} above the limit {}", text_bytes, kMaxTextBytes));
  HelloReply reply;
  reply.accepted = accepted == 1;
  if (!r.bytes(text_bytes, reply.text))
    return {};
  Parsed<HelloReply> p;
  p.state = Parse::complete;
  p.message = std::move(reply);
  p.consumed_bytes = kMagic.size() + 3 + text_bytes;
  return p;
}

Parsed<Request> parse_request(std::string_view bytes) {
  const Frame frame = split_frame(bytes);
  if (frame.state != Parse::complete)
    return frame.state == Parse::malformed ? malformed<Request>(frame.error) : Parsed<Request>{};
  Reader r(frame.body);
  Request req;
  std::uint8_t type = 0;
  std::string error;
  r.u8(type); // a frame body is never empty
  switch (type) {
  case static_cast<std::uint8_t>(RequestType::set):
    req.type = RequestType::set;
    if (!r.sized(req.key, 1, kMaxKeyBytes, "key", error) ||
        !r.sized(req.value, 0, kMaxValueBytes, "value", error))
      return malformed<Request>("set: " + error);
    break;
  case static_cast<std::uint8_t>(RequestType::wait):
    req.type = RequestType::wait;
    if (!r.u32(req.timeout_ms))
      return malformed<Request>("wait: timeout cut short");
    if (!read_keys(r, req.keys, 1, error))
      return malformed<Request>("wait: " + error);
    break;
  case static_cast<std::uint8_t>(RequestType::get):
    req.type = RequestType::get;
    if (!r.u32(req.timeout_ms))
      return malformed<Request>("get: timeout cut short");
    if (!r.sized(req.key, 1, kMaxKeyBytes, "key", error))
      return malformed<Request>("get: " + error);
    break;
  default:
    return malformed<Request>(fmt::format("unknown request type {}", type));
  }
  return finish(r, std::move(req), frame.consumed_bytes);
}

Parsed<Reply> parse_reply(std::string_view bytes) {
  const Frame frame = split_frame(bytes);
  if (frame.state != Parse::complete)
    return frame.state == Parse::malformed ? malformed<Reply>(frame.error) : Parsed<Reply>{};
  Reader r(frame.body);
  Reply reply;
  std::uint8_t status = 0;
  std::string error;
  r.u8(status);
  switch (status) {
  case static_cast<std::uint8_t>(ReplyStatus::ok):
    reply.status = ReplyStatus::ok;
    if (!r.sized(reply.value, 0, kMaxValueBytes, "value", error))
      return malformed<Reply>("reply: " + error);
    break;
  case static_cast<std::uint8_t>(ReplyStatus::timeout):
    reply.status = ReplyStatus::timeout;
    if (!read_keys(r, reply.missing, 1, error))
      return malformed<Reply>("reply: " + error);
    break;
  case static_cast<std::uint8_t>(ReplyStatus::error):
  case static_cast<std::uint8_t>(ReplyStatus::peer_lost):
    reply.status = static_cast<ReplyStatus>(status);
    if (!r.sized(reply.text, 0, kMaxTextBytes, "error text", error))
      return malformed<Reply>("reply: " + error);
    break;
  default:
    return malformed<Reply>(fmt::format("unknown reply status {}", status));
  }
  return finish(r, std::move(reply), frame.consumed_bytes);
}

} // namespace railgauge::store_wire
