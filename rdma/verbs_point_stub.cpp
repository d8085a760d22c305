// The verbs backend when railgauge was built without libibverbs: every point is waived.
#include "rdma/verbs_point.h"

namespace railgauge::rdma {
namespace {
constexpr const char *kNoVerbs =
    "built without libibverbs (install libibverbs-dev and reconfigure)";
} // namespace

std::optional<std::string> verbs_waive_reason(const RunContext &, const VerbsPointSpec &) {
  return kNoVerbs;
}

Outcome run_verbs_point(RunContext &, const VerbsPointSpec &) { return Outcome::waived(kNoVerbs); }

Outcome run_verbs_side(RunContext &, const VerbsPointSpec &, Store &, const std::string &, bool) {
  return Outcome::waived(kNoVerbs);
}

std::vector<std::string> verbs_device_names(std::string &why_none) {
  why_none = kNoVerbs;
  return {};
}

} // namespace railgauge::rdma
