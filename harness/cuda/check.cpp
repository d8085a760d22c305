#include "harness/cuda/check.h"

#include <fmt/format.h>

namespace railgauge::gpu {

std::string failed_call_message(std::string_view call, const char *name, const char *text,
                                std::string_view file, int line) {
  const auto slash = file.rfind('/');
  return fmt::format("{} failed: {} ({}) at {}:{}", call, name, text,
                     slash == std::string_view::npos ? file : file.substr(slash + 1), line);
}

} // namespace railgauge::gpu
