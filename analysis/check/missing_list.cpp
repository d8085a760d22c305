#include "analysis/check/missing_list.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace railgauge::check {

std::string family_of(const Finding &f) {
  return f.key.empty() ? f.category : f.key.substr(0, f.key.find('.'));
}

bool MissingList::Listed::operator<(const Listed &o) const {
  if (part != o.part)
    return part < o.part;
  return finding < o.finding;
}

MissingList::MissingList(std::size_t cap, const std::vector<std::string> &hosts,
                         std::function<void(const PartKey &, const Finding &)> on_unlisted)
    : cap_(cap), hosts_(hosts), last_host_(hosts.size()), on_unlisted_(std::move(on_unlisted)) {}

bool MissingList::counted_only(const PartKey &part) const {
  return listed_.size() >= cap_ && std::prev(listed_.end())->part < part;
}

void MissingList::add(const PartKey &part, Finding f, const nlohmann::json *params) {
  // Full: most values come after the last listed part and are only counted, without their
  // params ever being copied.
  if (counted_only(part)) {
    count(part, f);
    return;
  }
  if (params)
    f.params = *params;
  // An equal finding already listed is the same fact seen twice (two ranks' runs): one finding.
  listed_.insert(Listed{part, std::move(f)});
  if (listed_.size() > cap_) {
    auto last = listed_.extract(std::prev(listed_.end()));
    count(last.value().part, last.value().finding);
  }
}

void MissingList::count(const PartKey &part, const Finding &f) {
  on_unlisted_(part, f);
  const std::string_view family = f.key.empty()
                                      ? std::string_view(f.category)
                                      : std::string_view(f.key).substr(0, f.key.find('.'));
  bool inserted = false;
  if (!last_count_ || last_count_->level != f.level || last_count_->detail != f.detail ||
      last_count_->family != family) {
    auto emplaced =
        counts_.try_emplace({std::string(family), -static_cast<int>(f.level), f.detail});
    inserted = emplaced.second;
    last_count_ = &emplaced.first->second;
  }
  auto &c = *last_count_;
  const auto example_key = [](const PartKey &p, const Finding &e) {
    return std::tie(p, e.key, e.what, e.run);
  };
  if (inserted) {
    c.rule_id = f.rule_id;
    c.category = f.category;
    c.family = std::string(family);
    c.level = f.level;
    c.detail = f.detail;
    c.hosts.assign(hosts_.size(), false);
  }
  if (inserted || example_key(part, f) < example_key(c.example_part, c.example)) {
    c.example_part = part;
    c.example = f;
    c.example.params = nullptr; // the example names its part, key and metric, not the point
  }
  ++c.count;
  if (last_host_ == hosts_.size() || hosts_[last_host_] != part.host) {
    const auto host = std::lower_bound(hosts_.begin(), hosts_.end(), part.host, natural_less);
    last_host_ = host != hosts_.end() && *host == part.host
                     ? static_cast<std::size_t>(host - hosts_.begin())
                     : hosts_.size();
  }
  if (last_host_ < hosts_.size())
    c.hosts[last_host_] = true;
}

std::pair<std::vector<MissingList::Listed>, std::vector<MissingCount>> MissingList::take() {
  std::vector<Listed> listed;
  while (!listed_.empty())
    listed.push_back(std::move(listed_.extract(listed_.begin()).value()));
  std::vector<MissingCount> counts;
  for (auto &[key, c] : counts_)
    counts.push_back(std::move(c));
  counts_.clear();
  last_count_ = nullptr;
  return {std::move(listed), std::move(counts)};
}

} // namespace railgauge::check
