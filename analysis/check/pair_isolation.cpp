#include "analysis/check/pair_isolation.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "records/pair_matrix_fields.h"
#include "records/rdma_record.h"

namespace railgauge::check {

namespace {

namespace rec = rdma::record;

constexpr const char *kWhat = "isolation named";
constexpr const char *kInDoubt =
    "in doubt, as the matrix says: more than half its pairs are bad, so its best pair may be the "
    "outlier (its fleet finding)";

// The parts of a matrix, by endpoint index: a NIC's where the endpoint names its device, else
// its node's; nullopt where the endpoint names no host (an edited record).
class EndpointParts {
public:
  explicit EndpointParts(const rec::PairMatrixFields &m) {
    for (const auto &e : m.endpoints) {
      const auto place = rec::place_of(e);
      std::optional<PartKey> part;
      if (place.host)
        part = place.device && !place.device->empty()
                   ? PartKey{*place.host, PartKind::nic, *place.device}
                   : PartKey{*place.host, PartKind::node, ""};
      parts_.emplace_back(e.endpoint, part);
    }
  }
  std::optional<PartKey> part(rec::MatrixEndpointIndex endpoint) const {
    for (const auto &[index, part] : parts_)
      if (index == endpoint)
        return part;
    return std::nullopt;
  }
  std::vector<PartKey> all() const {
    std::vector<PartKey> out;
    for (const auto &[index, part] : parts_)
      if (part && std::find(out.begin(), out.end(), *part) == out.end())
        out.push_back(*part);
    return out;
  }

private:
  std::vector<std::pair<rec::MatrixEndpointIndex, std::optional<PartKey>>> parts_;
};

Finding base_finding(const Record &r, const std::string &run_dir, const rec::MatrixFindingFields &x,
                     Level level, bool missing) {
  Finding f;
  f.rule_id = kPairIsolationRule;
  f.category = x.kind == "path" || x.kind == "fleet" ? "fabric" : "nic";
  f.level = level;
  f.missing = missing;
  f.what = kWhat;
  f.value = x.kind;
  f.bound = "nothing";
  f.detail = x.text;
  f.key = r.key;
  f.params = r.params;
  f.run = run_dir;
  return f;
}

// The parts a finding names: each endpoint's (a node's own for a `node` finding), every endpoint's
// for the fleet finding, which names none. An endpoint of no known host is said in the detail.
std::vector<PartKey> parts_named(const rec::MatrixFindingFields &x, const EndpointParts &parts,
                                 std::string &unplaced) {
  if (x.kind == "fleet")
    return parts.all();
  std::vector<PartKey> out;
  for (const auto e : x.endpoints) {
    auto part = parts.part(e);
    if (!part) {
      unplaced += fmt::format("{}endpoint {}", unplaced.empty() ? "" : ", ", e);
      continue;
    }
    if (x.kind == "node")
      part = PartKey{part->host, PartKind::node, ""};
    if (std::find(out.begin(), out.end(), *part) == out.end())
      out.push_back(*part);
  }
  return out;
}

} // namespace

bool is_pair_matrix(const std::string &key) {
  return key == rec::kPairMatrix || key == rec::kTcpPairMatrix;
}

std::optional<PairIsolation> pair_isolation(const Record &r, const std::string &run_dir) {
  if (!is_pair_matrix(r.key) || r.status != Status::ok)
    return std::nullopt;
  const auto m = rec::PairMatrixFields::read(r.metrics);
  if (!m)
    return std::nullopt;
  const EndpointParts parts(*m);
  PairIsolation out;
  out.judged = parts.all();
  const bool in_doubt = std::any_of(m->findings.begin(), m->findings.end(),
                                    [](const auto &x) { return x.kind == "fleet"; });
  for (const auto &x : m->findings) {
    const bool named = x.kind == "nic" || x.kind == "node";
    const bool missing = x.kind == "inconclusive" || x.kind == "fleet";
    // An unknown kind (a newer writer's) is not a pass either: warned, as a path is.
    const Level level = named && !in_doubt ? Level::fail : Level::warn;
    std::string unplaced;
    const auto named_parts = parts_named(x, parts, unplaced);
    auto f = base_finding(r, run_dir, x, level, missing);
    if (named && in_doubt)
      f.detail += fmt::format(" ({})", kInDoubt);
    if (x.kind == "path")
      f.detail += " (the cable or switch hop between the two: no fault of either node)";
    for (const auto &part : named_parts)
      out.findings.emplace_back(part, f);
    if (!unplaced.empty() || named_parts.empty()) {
      // The record holder's node stands for what the finding names: never a silent pass.
      auto held = f;
      held.level = Level::warn;
      held.missing = true;
      held.detail += fmt::format(" (the matrix names no host for {}: it is judged on the node "
                                 "that holds the record)",
                                 unplaced.empty() ? "its parts" : unplaced);
      out.findings.emplace_back(PartKey{r.host, PartKind::node, ""}, std::move(held));
    }
  }
  return out;
}

} // namespace railgauge::check
