#include "analysis/compare/point_matching.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/check/inventory_probes.h"
#include "analysis/compare/compared_metric.h"
#include "analysis/compare/noise.h"
#include "analysis/run_machines.h"
#include "harness/metric_names.h"
#include "records/one_rank_collective.h"
#include "records/per_gpu_parts.h"

namespace railgauge::compare {
namespace {

using json = nlohmann::json;

// A GPU part's device (records/per_gpu_parts.h): its uuid and its bus id.
constexpr const char *kPartUuid = "gpu";
constexpr const char *kPartPci = "pci";
// The slots whose GPU changed that a comparison names one by one; more are counted.
constexpr std::size_t kMostReplacedNamed = 20;

// Each slot (host and bus id) whose inputs each held one GPU there, not all the same one (an
// RMA): said beside the context, as "uuid at HOST BUS" with each input's uuid.
void replaced_gpus(const std::map<std::string, std::vector<std::set<std::string>>> &uuids,
                   Comparison &c) {
  std::size_t replaced = 0;
  for (const auto &[slot, held] : uuids) {
    std::set<std::string> distinct;
    bool one_each = true;
    for (const auto &u : held) {
      one_each = one_each && u.size() <= 1;
      distinct.insert(u.begin(), u.end());
    }
    if (!one_each || distinct.size() < 2)
      continue;
    if (++replaced > kMostReplacedNamed)
      continue;
    ParamDifference d{"uuid at " + slot, {}};
    for (const auto &u : held)
      d.values.push_back(u.empty() ? "-" : *u.begin());
    c.context.push_back(std::move(d));
  }
  if (replaced > kMostReplacedNamed)
    c.context.push_back({fmt::format("uuid at {} more slots (--format json names none of them)",
                                     replaced - kMostReplacedNamed),
                         std::vector<std::string>(c.labels.size(), "another GPU")});
}

// A param's values per input, each input's joined in natural order ("-": none).
ParamDifference difference_of(const std::string &name,
                              const std::vector<std::set<std::string>> &sets) {
  ParamDifference d{name, {}};
  for (const auto &values : sets) {
    std::vector<std::string> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end(), check::natural_less);
    std::string joined;
    for (const auto &v : sorted)
      joined += (joined.empty() ? "" : ", ") + v;
    d.values.push_back(joined.empty() ? "-" : joined);
  }
  return d;
}

} // namespace

std::string joined_sample(const std::set<std::string> &values) {
  std::vector<std::string> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end(), check::natural_less);
  std::string out;
  int n = 0;
  for (const auto &v : sorted) {
    if (n++ == 3)
      return out + ", ...";
    out += (out.empty() ? "" : ", ") + v;
  }
  return out.empty() ? "-" : out;
}

std::string part_bus_id(const Record &r) {
  if (r.params.value(records::kPartParam, json()) != records::kPerGpuPart || !r.device.is_object())
    return "";
  const json &pci = r.device.value(kPartPci, json());
  return pci.is_string() && !pci.get<std::string>().empty()
             ? check::normalize_bus_id(pci.get<std::string>())
             : "";
}

SlotKeys keys_matched_by_slot(const std::vector<analysis::RunSet> &inputs,
                              const CompareOptions &o) {
  if (std::find(o.ignore_params.begin(), o.ignore_params.end(), kPartPci) != o.ignore_params.end())
    return {};
  std::map<std::string, std::vector<std::set<std::string>>> slots; // key -> per input
  std::set<std::string> without;                                   // keys with a part lacking one
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (const auto &run : inputs[i].runs)
      for (const auto &r : run.records) {
        if (r.params.value(records::kPartParam, json()) != records::kPerGpuPart)
          continue;
        const std::string bus_id = part_bus_id(r);
        if (bus_id.empty())
          without.insert(r.key);
        auto &of_key = slots[r.key];
        of_key.resize(inputs.size());
        of_key[i].insert(bus_id);
      }
  SlotKeys out;
  for (const auto &[key, per_input] : slots) {
    if (without.contains(key))
      continue;
    std::optional<std::set<std::string>> common;
    for (const auto &s : per_input) {
      if (s.empty())
        continue;
      if (!common) {
        common = s;
        continue;
      }
      std::set<std::string> both;
      std::set_intersection(common->begin(), common->end(), s.begin(), s.end(),
                            std::inserter(both, both.end()));
      common = std::move(both);
    }
    if (common && !common->empty())
      out.insert(key);
  }
  return out;
}

json matched_params(const Record &r, const CompareOptions &o, const SlotKeys &slot_keys) {
  json params = r.params;
  // One GPU of a burn phase (records/per_gpu_parts.h) is that GPU's figure: matched to the same
  // GPU of the other runs, never pooled with its siblings. The same GPU is the same slot, its bus
  // id: after a GPU fell off the bus the CUDA indices after it shift down by one, and index 5
  // of the new run is the old 6 (the old 5 was named for the old 6's drop).
  const bool gpu_part = params.value(records::kPartParam, json()) == records::kPerGpuPart;
  const std::string bus_id = slot_keys.contains(r.key) ? part_bus_id(r) : "";
  for (const auto &name : o.ignore_params)
    if (!(gpu_part && name == "gpu" && bus_id.empty()))
      params.erase(name);
  if (!bus_id.empty())
    params[kPartPci] = bus_id;
  for (const char *name : kWindowParams)
    params.erase(name);
  return params;
}

void values_seen(const std::vector<analysis::RunSet> &inputs, const CompareOptions &o,
                 const SlotKeys &slot_keys, ValuesSeen &seen, KeysIn &key_in) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (const auto &run : inputs[i].runs)
      for (const auto &r : run.records) {
        if (r.status != Status::ok)
          continue;
        auto &in = key_in[r.key];
        in.resize(inputs.size());
        in[i] = true;
        const json params = matched_params(r, o, slot_keys); // items() of a temporary dangles
        for (const auto &[name, value] : params.items()) {
          auto &sets = seen[r.key][name];
          sets.resize(inputs.size());
          sets[i].insert(value.is_string() ? value.get<std::string>() : value.dump());
        }
      }
}

ContextOf set_aside_context(Comparison &c, const ValuesSeen &seen, const KeysIn &key_in,
                            std::size_t inputs) {
  ContextOf context_of; // key -> params set aside
  std::map<std::string, std::vector<std::set<std::string>>> context_values;
  for (const auto &[key, params] : seen) {
    const auto &in = key_in.at(key);
    if (std::count(in.begin(), in.end(), true) < 2)
      continue;
    for (auto [name, sets] : params) {
      if (std::find(std::begin(kIdentityParams), std::end(kIdentityParams), name) !=
          std::end(kIdentityParams))
        continue;
      bool one_each = true;
      for (std::size_t i = 0; i < sets.size(); ++i) {
        if (in[i] && sets[i].empty())
          sets[i].insert("-"); // the key's records lack the param: one value, "absent"
        one_each = one_each && (!in[i] || sets[i].size() == 1);
      }
      std::set<std::string> distinct;
      for (std::size_t i = 0; i < sets.size(); ++i)
        if (in[i])
          distinct.insert(*sets[i].begin());
      if (!one_each || distinct.size() < 2)
        continue;
      context_of[key].insert(name);
      auto &values = context_values[name];
      values.resize(inputs);
      for (std::size_t i = 0; i < sets.size(); ++i)
        values[i].insert(sets[i].begin(), sets[i].end());
    }
  }
  for (const auto &[name, sets] : context_values)
    c.context.push_back(difference_of(name, sets));
  return context_of;
}

void window_context(const std::vector<analysis::RunSet> &inputs, const KeysIn &key_in,
                    Comparison &c) {
  for (const char *name : kWindowParams) {
    std::vector<std::set<std::string>> values(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
      for (const auto &run : inputs[i].runs)
        for (const auto &r : run.records) {
          const auto held = key_in.find(r.key);
          if (r.status != Status::ok || !r.params.contains(name) || held == key_in.end() ||
              std::count(held->second.begin(), held->second.end(), true) < 2)
            continue;
          const json &v = r.params[name];
          values[i].insert(v.is_string() ? v.get<std::string>() : v.dump());
        }
    std::set<std::set<std::string>> distinct;
    for (const auto &v : values)
      if (!v.empty())
        distinct.insert(v);
    if (distinct.size() < 2)
      continue;
    c.context.push_back(difference_of(name, values));
  }
}

namespace {

// The default metric of a curve's ok records: algbw on every side where one side is one rank's
// collective (its bus moves nothing) and every record has it, else the first record's default.
std::string point_metric(const std::vector<std::pair<std::size_t, const Record *>> &records) {
  const char *algbw = "metrics.algbw_gbytes_per_s";
  const bool one_rank = std::any_of(records.begin(), records.end(), [](const auto &held) {
    return records::one_rank_collective(held.second->metrics);
  });
  const bool all_algbw = std::all_of(records.begin(), records.end(), [&](const auto &held) {
    return number_at(json{{"metrics", held.second->metrics}}, algbw).has_value();
  });
  if (one_rank && all_algbw)
    return algbw;
  for (const auto &held : records)
    if (auto metric = default_metric(held.second->metrics); !metric.empty())
      return metric;
  return "";
}

} // namespace

void collect_points(const std::vector<analysis::RunSet> &inputs, const CompareOptions &o,
                    const SlotKeys &slot_keys, const ContextOf &context_of, Comparison &c,
                    Points &points, ParamsOf &params_of) {
  std::map<std::string, std::vector<std::set<std::string>>> uuids; // "host bus id" -> per input
  std::map<PointId, std::vector<std::pair<std::size_t, const Record *>>> held; // ok records
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    // A run none of whose lines could be read is no run compared: "b (2 runs)" counted a
    // records.jsonl cut at its first line beside the one run read. Its problem names it.
    std::vector<std::string> dirs;
    for (const auto &run : inputs[i].runs)
      if (!run.records.empty())
        dirs.push_back(run.dir);
    std::sort(dirs.begin(), dirs.end());
    c.inputs.push_back(dirs);
    for (const auto &run : inputs[i].runs) {
      const std::string id = analysis::machine_of(run).id;
      const std::string machine = id.empty() ? "" : host_of(run) + " " + id.substr(0, 8);
      for (const auto &r : run.records) {
        const bool broke = r.status == Status::failed || r.status == Status::error;
        if (r.status != Status::ok && !broke)
          continue;
        json params = matched_params(r, o, slot_keys);
        if (const auto it = context_of.find(r.key); it != context_of.end())
          for (const auto &name : it->second)
            params.erase(name);
        // With --match-device a GPU is its machine and slot (its bus id, a param above): a GPU
        // replaced under RMA has another uuid in the same slot, and is said to be (below). The
        // machine is its host and machine id (VMs of one image are all "vm"); a run without a
        // machine id tells machines apart by its GPUs' uuids alone, as before.
        const std::string bus_id = slot_keys.contains(r.key) ? part_bus_id(r) : "";
        const bool by_slot = !bus_id.empty() && !machine.empty();
        const std::string device = !o.match_device ? ""
                                   : by_slot       ? machine
                                                   : r.host + " " + r.device.dump();
        if (const json uuid = r.device.value(kPartUuid, json()); by_slot && uuid.is_string()) {
          auto &held = uuids[machine + " " + bus_id];
          held.resize(inputs.size());
          held[i].insert(uuid.get<std::string>());
        }
        const PointId id{r.key, params.dump(), device};
        auto &entry = points[id];
        if (entry.second.empty())
          entry.second.resize(inputs.size());
        if (broke) {
          entry.second[i].not_ok = to_string(r.status);
          params_of.emplace(id, params);
          continue;
        }
        params_of[id] = params;
        held[id].emplace_back(i, &r);
      }
    }
  }
  // The metric of a point is chosen from all the records of its curve (its sizes), never the
  // first one's alone: one rank's all_reduce beside sixteen ranks' read busbw (0 on one rank) or
  // algbw by which input came first, and a size only one side measured read the other side's
  // curve in the other metric.
  std::map<std::string, std::vector<std::pair<std::size_t, const Record *>>> by_curve;
  const auto curve_key = [&](const PointId &id) {
    json rest = params_of.at(id);
    rest.erase(metric::kSizeBytes);
    return id.key + "\n" + rest.dump() + "\n" + id.device;
  };
  for (const auto &[id, records] : held) {
    auto &curve = by_curve[curve_key(id)];
    curve.insert(curve.end(), records.begin(), records.end());
  }
  for (const auto &[id, records] : held) {
    auto &entry = points[id];
    entry.first = o.metric ? *o.metric : point_metric(by_curve.at(curve_key(id)));
    // Every rank of a lockstep collective writes the one figure the job measured: counted once
    // per run, or 16 ranks' copies narrowed the median's band 2.5 times against 2 ranks' and a
    // -8 % change inside the noise read "worse".
    std::set<std::tuple<std::size_t, std::string, double>> counted;
    for (const auto &[i, r] : records) {
      const json doc = {{"metrics", r->metrics}, {"params", r->params}};
      const auto v = entry.first.empty() ? std::nullopt : number_at(doc, entry.first);
      if (!v || (!r->run.empty() && !counted.emplace(i, r->run, *v).second))
        continue;
      entry.second[i].values.push_back(*v);
      if (const auto n = metric_noise(r->metrics, entry.first))
        entry.second[i].noises.push_back(*n);
    }
  }
  replaced_gpus(uuids, c);
}

std::string curve_of(const PointId &id, const json &params) {
  if (!params.contains(metric::kSizeBytes) || !params[metric::kSizeBytes].is_number())
    return "";
  json rest = params;
  rest.erase("size_bytes");
  return id.key + "\n" + rest.dump() + "\n" + id.device;
}

void merge_near_sizes(Points &points, ParamsOf &params_of) {
  constexpr double kSameSize = 1e-3;
  std::map<std::string, std::vector<std::pair<double, PointId>>> by_curve; // sorted later
  for (const auto &[id, entry] : points) {
    const json &params = params_of.at(id);
    if (const std::string curve = curve_of(id, params); !curve.empty())
      by_curve[curve].emplace_back(params[metric::kSizeBytes].get<double>(), id);
  }
  // A slot holds its input's figures, or its record that failed: a failure merges with the
  // other input's near size as a figure would, and is carried with it, never dropped.
  const auto holds = [](const std::vector<Slot> &slots, std::size_t i) {
    return i < slots.size() && (!slots[i].values.empty() || !slots[i].not_ok.empty());
  };
  for (auto &[curve, sizes] : by_curve) {
    std::sort(sizes.begin(), sizes.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    for (std::size_t j = 1; j < sizes.size(); ++j) {
      auto into = points.find(sizes[j - 1].second), from = points.find(sizes[j].second);
      if (into == points.end() || from == points.end() ||
          sizes[j].first - sizes[j - 1].first > kSameSize * sizes[j].first)
        continue;
      auto &a = into->second.second, &b = from->second.second;
      bool disjoint = true;
      for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
        disjoint = disjoint && !(holds(a, i) && holds(b, i));
      if (!disjoint)
        continue;
      // Keep the id of the one the first input holds (its size labels the point).
      std::size_t first_a = a.size(), first_b = b.size();
      for (std::size_t i = a.size(); i-- > 0;)
        if (holds(a, i))
          first_a = i;
      for (std::size_t i = b.size(); i-- > 0;)
        if (holds(b, i))
          first_b = i;
      if (first_b < first_a)
        std::swap(into, from);
      auto &keep = into->second.second, &gone = from->second.second;
      keep.resize(std::max(keep.size(), gone.size()));
      for (std::size_t i = 0; i < gone.size(); ++i)
        if (holds(gone, i))
          keep[i] = std::move(gone[i]);
      if (into->second.first.empty())
        into->second.first = from->second.first;
      params_of.erase(from->first);
      points.erase(from);
      sizes[j].second = into->first; // the next size compares with the merged point
    }
  }
}

namespace {

// Whether every input holds a figure (or a record that broke) of each key some input holds.
bool same_keys(const Comparison &c) {
  std::vector<std::set<std::string>> keys(c.labels.size());
  for (const auto &p : c.points)
    for (std::size_t i = 0; i < p.sides.size() && i < keys.size(); ++i)
      if (p.sides[i] || (i < p.not_ok.size() && !p.not_ok[i].empty()))
        keys[i].insert(p.key);
  return std::all_of(keys.begin(), keys.end(), [&](const auto &k) { return k == keys.front(); });
}

// The inputs that hold a point that failed or broke, said first: a run that stopped early
// (nccl-tests aborted by a peer's exit) never measured the points after it, and "other devices
// or other points" blamed the wrong thing.
std::string stopped_inputs(const Comparison &c) {
  std::map<std::size_t, std::size_t> broken; // input -> points not ok
  for (const auto &p : c.points)
    for (std::size_t i = 0; i < p.not_ok.size(); ++i)
      if (!p.not_ok[i].empty())
        ++broken[i];
  std::string out;
  for (const auto &[i, n] : broken)
    out += fmt::format(" {} holds {} point{} that failed or broke (see its 'failed in' or 'error "
                       "in' row{}): a run that stopped there never measured what came after.",
                       c.labels[i], n, n == 1 ? "" : "s", n == 1 ? "" : "s");
  return out;
}

} // namespace

std::string unmatched_hint(const Comparison &c, const ValuesSeen &seen, const KeysIn &key_in) {
  std::map<std::string, std::vector<std::set<std::string>>> differ; // param -> per input values
  for (const auto &[key, params] : seen) {
    const auto &in = key_in.at(key);
    for (const auto &[name, sets] : params) {
      const std::string &param = name; // a lambda may not capture a structured binding (C++17)
      if (std::any_of(c.context.begin(), c.context.end(),
                      [&](const ParamDifference &d) { return d.param == param; }))
        continue; // already set aside
      std::set<std::set<std::string>> distinct;
      for (std::size_t i = 0; i < sets.size(); ++i)
        if (in[i])
          distinct.insert(sets[i]);
      if (distinct.size() < 2)
        continue;
      auto &values = differ[name];
      values.resize(sets.size());
      for (std::size_t i = 0; i < sets.size(); ++i)
        values[i].insert(sets[i].begin(), sets[i].end());
    }
  }
  // A param of what a point is (kIdentityParams) is offered too where one input lacks it
  // altogether and the others hold one value: railgauge's NCCL records say group_type=world, an
  // nccl-tests import says nothing, and railgauge beside nccl-tests matched 0 of 208 points with
  // no flag named to match them.
  std::string ignorable;
  for (const auto &[name, sets] : differ) {
    const bool identity = std::find(std::begin(kIdentityParams), std::end(kIdentityParams), name) !=
                          std::end(kIdentityParams);
    const bool absent_in_one =
        std::any_of(sets.begin(), sets.end(), [](const auto &v) { return v.empty(); }) &&
        std::all_of(sets.begin(), sets.end(), [](const auto &v) { return v.size() <= 1; });
    if (!identity || absent_in_one)
      ignorable += " --ignore-param " + name;
  }
  // Under half matched is said whatever the cause; fewer unmatched only where a param that may
  // be ignored tells why (an HBM sweep's grid_blocks: 11 points only in each input, and
  // --ignore-param was never offered), not where one input swept sizes the other did not.
  if (ignorable.empty() && 2 * c.matched >= static_cast<int>(c.points.size()))
    return "";
  std::string hint =
      fmt::format("only {} of {} points are in every input.", c.matched, c.points.size());
  hint += stopped_inputs(c);
  if (differ.empty())
    return hint + (same_keys(c) ? " The inputs measured the same keys on other devices (with "
                                  "--match-device a device is its machine's slot: a run.json "
                                  "without the machine's id matches no replaced GPU) or at "
                                  "other points; each unmatched point says which input holds it."
                                : " The inputs measured different keys: compare runs of the same "
                                  "benchmarks.");
  hint += " These params differ between the inputs:";
  for (const auto &[name, sets] : differ) {
    hint += " " + name + " (";
    for (std::size_t i = 0; i < sets.size(); ++i)
      hint += fmt::format("{}{}: {}", i ? "; " : "", c.labels[i], joined_sample(sets[i]));
    hint += ")";
  }
  if (!ignorable.empty())
    hint += ". To match without them:" + ignorable;
  return hint + ".";
}

} // namespace railgauge::compare
