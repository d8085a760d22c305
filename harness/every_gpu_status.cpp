#include "harness/every_gpu_status.h"

#include <fmt/format.h>

namespace railgauge {
namespace {

std::string joined(const std::vector<std::string> &parts) {
  std::string all;
  for (const auto &p : parts)
    all += (all.empty() ? "" : "; ") + p;
  return all;
}

} // namespace

std::string every_gpu_label(int gpu, std::string_view name, std::string_view uuid,
                            std::string_view pci) {
  return fmt::format("GPU {} ({}, {}, {})", gpu, name, uuid, pci);
}

void set_every_gpu_status(Outcome &out, std::size_t gpus, const std::vector<std::string> &wrong,
                          const std::vector<std::string> &broke, std::string_view wrong_head,
                          std::string_view during) {
  if (!wrong.empty()) {
    out.status = Status::failed;
    out.reason =
        fmt::format("{} {} of {} GPU(s): {}", wrong_head, wrong.size(), gpus, joined(wrong));
    if (!broke.empty())
      *out.reason += fmt::format("; and {} GPU(s) broke: {}", broke.size(), joined(broke));
  } else if (!broke.empty()) {
    out.status = Status::error;
    out.reason = fmt::format("{} of {} GPU(s) broke during {}: {}", broke.size(), gpus, during,
                             joined(broke));
  } else if (gpus == 0) {
    out.status = Status::error;
    out.reason = fmt::format("no GPU took part in {}", during);
  }
}

} // namespace railgauge
