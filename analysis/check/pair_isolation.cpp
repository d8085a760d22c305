#include "analysis/check/pair_isolation.h"

#include <algorithm>
#include <map>
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
      parts_.emplace(e.endpoint, part);
    }
  }
  std::optional<PartKey> part(rec::MatrixEndpointIndex endpoint) const {
    const auto it = parts_.find(endpoint);
    return it == parts_.end() ? std::nullopt : it->second;
  }
  std::vector<PartKey> all() const {
    std::vector<PartKey> out;
    for (const auto &[index, part] : parts_)
      if (part && std::find(out.begin(), out.end(), *part) == out.end())
        out.push_back(*part);
    return out;
  }

private:
  // By index: a lookup per finding and endpoint, thousands of each in a fabric's matrix.
  std::map<rec::MatrixEndpointIndex, std::optional<PartKey>> parts_;
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

// The parts a finding names: each endpoint's (and its node's for a `node` finding), every
// endpoint's for the fleet finding, which names none. An endpoint of no known host is said in the
// detail.
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
    // A node's finding is on the node and on each of its NICs the matrix named (all of them).
    for (const auto &on : {*part, PartKey{part->host, PartKind::node, ""}})
      if ((on == *part || x.kind == "node") && std::find(out.begin(), out.end(), on) == out.end())
        out.push_back(on);
  }
  return out;
}

// The endpoints of a matrix's pairs: measured, or failed to run (a bad pair carrying its error).
std::set<rec::MatrixEndpointIndex> paired(const rec::PairMatrixFields &m) {
  std::set<rec::MatrixEndpointIndex> out;
  for (const auto &p : m.pairs) {
    out.insert(p.endpoints.first);
    out.insert(p.endpoints.second);
  }
  return out;
}

// `f` on `part`, filed in its host's own run; on the holder's node, at warn, where that run is
// not among the runs judged.
void file_finding(PairIsolation &out, const Record &r, const PartKey &part, Finding f,
                  const std::map<std::string, std::string> &run_dirs) {
  if (const auto dir = run_dirs.find(part.host); dir != run_dirs.end()) {
    f.run = dir->second;
    out.findings.emplace_back(part, std::move(f));
    return;
  }
  f.level = std::min(f.level, Level::warn);
  f.missing = true;
  f.detail += fmt::format(" (of {}{}, whose own run of this matrix is not among the runs judged: "
                          "said on the node that holds the record)",
                          part.host, part.id.empty() ? "" : "/" + part.id);
  out.findings.emplace_back(PartKey{r.host, PartKind::node, ""}, std::move(f));
}

void add_tallies(PairIsolation &out, const rec::PairMatrixFields &m, const EndpointParts &parts,
                 const Record &r, const std::string &run_dir,
                 const std::map<std::string, std::string> &run_dirs) {
  const auto measured = paired(m);
  std::set<PartKey> found, tallied;
  std::set<std::string> nodes_found;
  for (const auto &[part, f] : out.findings) {
    found.insert(part);
    if (part.kind == PartKind::node)
      nodes_found.insert(part.host);
  }
  for (const auto &e : m.endpoints) {
    const auto part = parts.part(e.endpoint);
    if (!part || !run_dirs.contains(part->host) || !tallied.insert(*part).second)
      continue;
    if (!measured.contains(e.endpoint)) {
      Finding f = base_finding(r, run_dir, {"unmeasured", {}, {}, ""}, Level::warn, true);
      f.detail = "the matrix measured no pair of it (no partner on its rail, or left out of the "
                 "coverage rounds): not a pass";
      f.run = run_dirs.at(part->host);
      out.findings.emplace_back(*part, std::move(f));
      out.tallies.emplace_back(*part, false);
      continue;
    }
    out.tallies.emplace_back(*part, !found.contains(*part) && !nodes_found.contains(part->host));
  }
}

} // namespace

bool is_pair_matrix(const std::string &key) {
  return key == rec::kPairMatrix || key == rec::kTcpPairMatrix;
}

std::optional<PairIsolation> pair_isolation(const Record &r, const std::string &run_dir,
                                            const std::map<std::string, std::string> &run_dirs) {
  if (!is_pair_matrix(r.key) || r.status != Status::ok)
    return std::nullopt;
  const auto m = rec::PairMatrixFields::read(r.metrics);
  if (!m)
    return std::nullopt;
  const EndpointParts parts(*m);
  PairIsolation out;
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
      file_finding(out, r, part, f, run_dirs);
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
  add_tallies(out, *m, parts, r, run_dir, run_dirs);
  return out;
}

} // namespace railgauge::check
