#include "harness/inventory/kernel_xids.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace railgauge {
namespace {

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "0000:18:00.0" or "00000000:18:00.0" -> "0000:18:00": the domain's last four digits, bus, device.
std::string bus_device(const std::string &pci) {
  std::string s = lower(pci);
  if (const auto dot = s.rfind('.'); dot != std::string::npos && s.size() - dot <= 2)
    s.resize(dot);
  const auto colon = s.find(':');
  if (colon != std::string::npos && colon > 4)
    s.erase(0, colon - 4);
  return s;
}

} // namespace

std::optional<XidEvent> parse_kmsg_xid(std::string_view record) {
  const auto semicolon = record.find(';');
  if (semicolon == std::string_view::npos)
    return std::nullopt;
  // "prio,seq,time,flags": the sequence number is the second field.
  const auto header = record.substr(0, semicolon);
  const auto first = header.find(',');
  if (first == std::string_view::npos)
    return std::nullopt;
  XidEvent e;
  const auto seq_text = header.substr(first + 1, header.find(',', first + 1) - first - 1);
  if (std::from_chars(seq_text.data(), seq_text.data() + seq_text.size(), e.seq).ec != std::errc())
    return std::nullopt;
  auto message = record.substr(semicolon + 1);
  if (const auto nl = message.find('\n'); nl != std::string_view::npos)
    message = message.substr(0, nl);
  constexpr std::string_view kPrefix = "NVRM: Xid (PCI:";
  const auto at = message.find(kPrefix);
  if (at == std::string_view::npos)
    return std::nullopt;
  const auto rest = message.substr(at + kPrefix.size());
  const auto close = rest.find("):");
  if (close == std::string_view::npos)
    return std::nullopt;
  e.pci = lower(std::string(rest.substr(0, close)));
  auto number = rest.substr(close + 2);
  while (!number.empty() && number.front() == ' ')
    number.remove_prefix(1);
  if (std::from_chars(number.data(), number.data() + number.size(), e.xid).ec != std::errc())
    return std::nullopt;
  e.text = std::string(message.substr(at + 6)); // from "Xid"
  return e;
}

KernelXids read_kernel_xids(const std::string &kmsg_path) {
  KernelXids out;
  const int fd = ::open(kmsg_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    out.reason = kmsg_path + ": " + std::strerror(error);
    // What a user can do about it: the two ways a burn-in meets an unreadable kernel log.
    if (error == EACCES || error == EPERM)
      out.reason += " (reading it needs root or CAP_SYSLOG where kernel.dmesg_restrict is 1)";
    else if (error == ENOENT)
      out.reason += " (none here, as in a container: give it the host's with --device /dev/kmsg)";
    return out;
  }
  out.available = true;
  char buffer[8192];
  // Each read returns one record; EAGAIN is the end of what is logged now. EPIPE: the reader
  // fell behind a wrapping buffer and the next read resumes at the oldest record still there.
  for (int records = 0; records < 1'000'000; ++records) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EPIPE)
      continue;
    if (n <= 0)
      break;
    const std::string_view record(buffer, static_cast<std::size_t>(n));
    const auto comma = record.find(',');
    std::uint64_t seq = 0;
    if (comma != std::string_view::npos) {
      const auto seq_text = record.substr(comma + 1);
      std::from_chars(seq_text.data(), seq_text.data() + seq_text.size(), seq);
      out.last_seq = std::max(out.last_seq, seq);
    }
    if (auto xid = parse_kmsg_xid(record))
      out.xids.push_back(std::move(*xid));
  }
  ::close(fd);
  return out;
}

bool xid_names_gpu(const std::string &xid_pci, const std::string &gpu_pci) {
  return bus_device(xid_pci) == bus_device(gpu_pci);
}

} // namespace railgauge
