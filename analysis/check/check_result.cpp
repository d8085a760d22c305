#include "analysis/check/check_result.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "analysis/check/noise_text.h"
#include "harness/exit_status.h"
#include "harness/host_group.h"

namespace railgauge::check {

bool natural_less(const std::string &a, const std::string &b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
        ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
        ++je;
      // Compare without leading zeros by length, then digits; ties by raw length ("01" > "1").
      auto ta = a.substr(i, ie - i), tb = b.substr(j, je - j);
      const auto strip = [](std::string s) {
        const auto nz = s.find_first_not_of('0');
        return nz == std::string::npos ? std::string("0") : s.substr(nz);
      };
      const auto sa = strip(ta), sb = strip(tb);
      if (sa.size() != sb.size())
        return sa.size() < sb.size();
      if (sa != sb)
        return sa < sb;
      if (ta.size() != tb.size())
        return ta.size() < tb.size();
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j])
        return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

namespace {

// A PCI address as normalize_bus_id writes it, "0000:2a:00.0": fixed-width hex.
bool is_pci_address(const std::string &id) {
  if (id.size() != 12 || id[4] != ':' || id[7] != ':' || id[10] != '.')
    return false;
  for (const std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11})
    if (!std::isxdigit(static_cast<unsigned char>(id[i])))
      return false;
  return true;
}

} // namespace

bool PartKey::operator<(const PartKey &o) const {
  if (host != o.host)
    return natural_less(host, o.host);
  if (kind != o.kind)
    return kind < o.kind;
  // Bus ids in bus order (NVML's index order): read naturally, "2a" was the number 2, and an
  // HGX node's gpu0 at 0000:18:00.0 came after gpu4 at 0000:2a:00.0.
  if (is_pci_address(id) && is_pci_address(o.id))
    return id < o.id;
  return natural_less(id, o.id);
}

namespace {
auto tie_of(const Finding &f) {
  return std::tie(f.rule_id, f.missing, f.not_covered, f.not_applicable, f.what, f.key, f.run,
                  f.detail, f.bound);
}
} // namespace

bool Finding::operator<(const Finding &o) const {
  // Worst first, then by rule and what was judged; params and values as their JSON text.
  if (level != o.level)
    return level > o.level;
  if (tie_of(*this) != tie_of(o))
    return tie_of(*this) < tie_of(o);
  const auto pa = params.dump(), pb = o.params.dump();
  if (pa != pb)
    return natural_less(pa, pb);
  return value.dump() < o.value.dump();
}

bool Finding::operator==(const Finding &o) const {
  return level == o.level && tie_of(*this) == tie_of(o) && params == o.params && value == o.value;
}

namespace {
std::string number_text(const nlohmann::json &v) {
  if (v.is_number_float())
    return fmt::format("{:.4g}", v.get<double>());
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string params_text(const nlohmann::json &params) {
  std::string s;
  if (!params.is_object())
    return s;
  for (const auto &[k, v] : params.items())
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, number_text(v));
  return s;
}

// The judged value rounded to its noise, and never so far that it reads past its bound.
std::string value_text(const Finding &f) {
  if (!f.value.is_number_float())
    return number_text(f.value);
  return noise_text(f.value.get<double>(), f.noise_rel, f.threshold);
}
} // namespace

std::string describe(const Finding &f) {
  std::string where;
  if (!f.key.empty())
    where = fmt::format(" [{}{}{}]", f.key, f.params.empty() ? "" : " ", params_text(f.params));
  if (f.missing)
    return fmt::format("{}: missing, {}{}", f.what, f.detail, where);
  std::string text = fmt::format("{} = {}, needs {}", f.what, value_text(f), f.bound);
  if (!f.detail.empty())
    text += "; " + f.detail;
  return text + where;
}

int RuleTally::unlisted() const {
  int n = 0;
  for (const int k : unlisted_missing)
    n += k;
  return n;
}

namespace {

void add_into(RuleTally &into, const RuleTally &t) {
  into.checked += t.checked;
  into.passed += t.passed;
  for (std::size_t level = 0; level < t.unlisted_missing.size(); ++level)
    into.unlisted_missing[level] += t.unlisted_missing[level];
}

} // namespace

void RuleTallies::add(const std::string &id, const RuleTally &t) {
  if (!tallies_.empty() && tallies_.back().first == id) {
    add_into(tallies_.back().second, t);
    return;
  }
  if (!tallies_.empty() && tallies_.back().first > id)
    sorted_ = false;
  tallies_.emplace_back(id, t);
}

void RuleTallies::sort() {
  if (sorted_)
    return;
  std::stable_sort(tallies_.begin(), tallies_.end(),
                   [](const value_type &a, const value_type &b) { return a.first < b.first; });
  std::vector<value_type> merged;
  merged.reserve(tallies_.size());
  for (auto &entry : tallies_)
    if (!merged.empty() && merged.back().first == entry.first)
      add_into(merged.back().second, entry.second);
    else
      merged.push_back(std::move(entry));
  tallies_ = std::move(merged);
  sorted_ = true;
}

RuleTallies::const_iterator RuleTallies::find(const std::string &id) const {
  if (!sorted_)
    return std::find_if(tallies_.begin(), tallies_.end(),
                        [&](const value_type &e) { return e.first == id; });
  const auto it =
      std::lower_bound(tallies_.begin(), tallies_.end(), id,
                       [](const value_type &e, const std::string &key) { return e.first < key; });
  return it != tallies_.end() && it->first == id ? it : tallies_.end();
}

const RuleTally &RuleTallies::at(const std::string &id) const {
  const auto it = find(id);
  if (it == end())
    throw std::out_of_range("no tally of rule '" + id + "' on this part");
  return it->second;
}

long long CheckResult::unlisted_missing_count() const {
  long long n = 0;
  for (const auto &m : unlisted_missing)
    n += m.count;
  return n;
}

Level CheckResult::node_verdict(const std::string &host) const {
  // Parts are sorted by host first: a node's parts are one range (a scan of every part per node
  // was quadratic in a fleet of 1,500 nodes).
  const auto [first, last] =
      std::equal_range(parts.begin(), parts.end(), host, [](const auto &a, const auto &b) {
        if constexpr (std::is_same_v<std::decay_t<decltype(a)>, std::string>)
          return natural_less(a, b.key.host);
        else
          return natural_less(a.key.host, b);
      });
  Level worst = Level::pass;
  for (auto p = first; p != last; ++p)
    worst = std::max(worst, p->verdict);
  return worst;
}

std::vector<std::string> CheckResult::hosts() const {
  std::vector<std::string> out;
  for (const auto &p : parts)
    if (out.empty() || out.back() != p.key.host)
      out.push_back(p.key.host);
  return out;
}

std::vector<MachineVerdict> CheckResult::machines() const {
  std::map<std::string, MachineVerdict, decltype(&natural_less)> by_host(&natural_less);
  for (const auto &h : hosts()) {
    const auto nodes = hosts_of_group(h);
    const Level v = node_verdict(h);
    for (const auto &node : nodes) {
      auto &m = by_host.try_emplace(node, MachineVerdict{node, v, {}}).first->second;
      m.verdict = std::max(m.verdict, v);
      if (nodes.size() > 1)
        m.groups.push_back(h);
    }
  }
  std::vector<MachineVerdict> out;
  for (auto &[host, m] : by_host)
    out.push_back(std::move(m));
  return out;
}

std::vector<std::string> CheckResult::drain() const {
  // A node group ("a+b": an imported multi-node run whose rows belong to all its hosts) drains
  // each of its hosts: which of them is at fault takes a retest in other pairs.
  std::vector<std::string> out;
  for (const auto &m : machines())
    if (m.verdict == Level::fail)
      out.push_back(m.host);
  return out;
}

int exit_status(Level verdict) {
  switch (verdict) {
  case Level::pass:
  case Level::info:
    return code(ExitStatus::ok);
  case Level::warn:
    return code(ExitStatus::problems);
  case Level::fail:
    return code(ExitStatus::fail);
  }
  return code(ExitStatus::fail);
}

PartResult &part_entry(CheckResult &result, const PartKey &key) {
  auto it = std::lower_bound(result.parts.begin(), result.parts.end(), key,
                             [](const PartResult &p, const PartKey &k) { return p.key < k; });
  if (it != result.parts.end() && it->key == key)
    return *it;
  PartResult p;
  p.key = key;
  p.label = key.kind == PartKind::node  ? key.host
            : key.kind == PartKind::gpu ? "gpu " + key.id
                                        : key.id;
  return *result.parts.insert(it, std::move(p));
}

} // namespace railgauge::check
