#pragma once
// Whether a host name can be written where check writes host names: the drain list (one name a
// line, fed to `scontrol update nodename=... state=drain`), one Prometheus file a host, and the
// fleet history's hosts table. The directories and the history refuse the same names.
#include <optional>
#include <string>

namespace railgauge::check {

// The longest host name written: a DNS name is at most 253 characters (RFC 1035 2.3.4; a
// Slurm node name is shorter), and a longer one would not fit a file name (255 bytes) as
// `<host>.prom`, nor the history's unique index on PostgreSQL (at most 2,704 bytes a row).
inline constexpr std::size_t kMaxHostNameBytes = 253;

// Why `host` cannot be written safely (a control character, a NUL among them: a newline would
// make two lines of the drain list, two hosts; empty; over kMaxHostNameBytes), escaped as JSON;
// nothing when it can.
std::optional<std::string> host_name_problem(const std::string &host);

} // namespace railgauge::check
