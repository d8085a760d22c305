#pragma once
// The one outcome of a measured point (docs/design.md "Records"), like CUTLASS's Disposition.
#include <optional>
#include <string_view>

namespace railgauge {

enum class Status {
  ok,     // ran, data verified where the benchmark can verify it
  waived, // cannot run here (no GPU, no NIC, built without the backend): reason says why
  failed, // ran, result wrong (data check, silent data corruption)
  error,  // ran, broke (a library call failed, an exception)
};

constexpr std::string_view to_string(Status s) {
  switch (s) {
  case Status::ok:
    return "ok";
  case Status::waived:
    return "waived";
  case Status::failed:
    return "failed";
  case Status::error:
    return "error";
  }
  return "error";
}

constexpr std::optional<Status> parse_status(std::string_view text) {
  for (Status s : {Status::ok, Status::waived, Status::failed, Status::error})
    if (to_string(s) == text)
      return s;
  return std::nullopt;
}

} // namespace railgauge
