#pragma once
// Which machine wrote each run, where several report one host name: VMs of one image all named
// "vm", or a node rebuilt under another's name. A run's machine is its inventory's machine_id
// (/etc/machine-id) and its GPUs' UUIDs. Two runs of a host are of one machine when their
// machine ids agree, or when they share a GPU (a node reinstalled keeps its GPUs and gets a new
// machine id; an RMA changes a GPU and keeps the id); a run without a machine id (an import, a
// bare records.jsonl, a run.json written before inventories carried it) is of no machine, and
// never tells machines apart. Header only: check's built-in one-machine-per-host reads it, and
// so does analysis/run_set.cpp below check, which must not link check's library for it.
#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/run_set.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/run_fields.h"

namespace railgauge::analysis {

// A host name that runs of more than one machine report, with each machine's id and first run.
struct SharedHostName {
  std::string host;
  std::vector<std::pair<std::string, std::string>> machines; // (machine id, a run directory)
};

// A run's machine id and its GPUs' UUIDs, as its own run.json's inventory says.
struct RunMachine {
  std::string dir, host, id;
  std::set<std::string> gpus;
  // What machine_of_runs names the run by: its directory, or, in the fleet history, where two
  // machines' runs were stored from one path (`db ingest .` in each), the run's row.
  std::string key;
};

// The machine an inventory (run.json's `inventory`, or the fleet history's stored copy) names.
inline RunMachine machine_of_inventory(std::string dir, std::string host,
                                       const nlohmann::json &inventory) {
  namespace inv = inventory_field;
  RunMachine m{dir, std::move(host), "", {}, dir};
  if (!inventory.is_object())
    return m;
  if (const auto id = inventory.find(inv::kMachineId); id != inventory.end() && id->is_string())
    m.id = id->get<std::string>();
  const auto nvml = inventory.find(inv::kNvml);
  if (nvml != inventory.end() && nvml->is_object() && nvml->contains(inv::kGpus) &&
      (*nvml)[inv::kGpus].is_array())
    for (const auto &gpu : (*nvml)[inv::kGpus])
      if (gpu.is_object() && gpu.value(inv::kUuid, nlohmann::json()).is_string())
        m.gpus.insert(gpu[inv::kUuid].get<std::string>());
  return m;
}

// A loaded run's machine: an import's inventory describes the machine that imported it (none).
inline RunMachine machine_of(const LoadedRun &run) {
  const auto &manifest = run.manifest;
  if (!manifest.is_object() || manifest.contains(run_field::kImported) ||
      !manifest.contains(inventory_field::kInventory))
    return {run.dir, host_of(run), "", {}, run.dir};
  return machine_of_inventory(run.dir, host_of(run), manifest[inventory_field::kInventory]);
}

inline std::vector<RunMachine> machines_of(const RunSet &set) {
  std::vector<RunMachine> out;
  for (const auto &run : set.runs)
    out.push_back(machine_of(run));
  return out;
}

namespace machines_detail {

inline bool share_a_gpu(const std::set<std::string> &a, const std::set<std::string> &b) {
  return std::any_of(a.begin(), a.end(), [&](const auto &uuid) { return b.contains(uuid); });
}

// The runs with a machine id, each host's in groups of one machine (union of "same id or a GPU
// in common"), each group as the indices of its runs.
inline std::vector<std::vector<std::size_t>> machine_groups(const std::vector<RunMachine> &runs) {
  std::vector<std::size_t> parent(runs.size());
  std::iota(parent.begin(), parent.end(), 0);
  const auto root = [&](std::size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  std::map<std::string, std::vector<std::size_t>> by_host; // pairs within a host only
  for (std::size_t i = 0; i < runs.size(); ++i)
    by_host[runs[i].host].push_back(i);
  for (const auto &[host, of_host] : by_host)
    for (std::size_t a = 0; a < of_host.size(); ++a)
      for (std::size_t b = a + 1; b < of_host.size(); ++b) {
        const auto i = of_host[a], j = of_host[b];
        if (runs[i].id == runs[j].id || share_a_gpu(runs[i].gpus, runs[j].gpus))
          parent[root(j)] = root(i);
      }
  std::map<std::size_t, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < runs.size(); ++i)
    groups[root(i)].push_back(i);
  std::vector<std::vector<std::size_t>> out;
  for (auto &[r, members] : groups)
    out.push_back(std::move(members));
  return out;
}

inline std::vector<RunMachine> runs_with_an_id(const std::vector<RunMachine> &all) {
  std::vector<RunMachine> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [](const RunMachine &m) { return !m.id.empty(); });
  return out;
}

inline std::string least_id(const std::vector<RunMachine> &runs,
                            const std::vector<std::size_t> &group) {
  std::string id = runs[group.front()].id;
  for (const auto i : group)
    id = std::min(id, runs[i].id);
  return id;
}

} // namespace machines_detail

// Each run's machine, by its key (the run directory, or the history's row): the least machine id of
// the runs of its host that are of one machine with it. A run without a machine id takes the
// machine it shares a GPU with, else its host's one machine; "" where its host has none, or two and
// it shares no GPU with either.
inline std::map<std::string, std::string> machine_of_runs(const std::vector<RunMachine> &all) {
  const auto runs = machines_detail::runs_with_an_id(all);
  std::map<std::string, std::string> out;
  // Each host's machines: (id, GPUs of its runs).
  std::map<std::string, std::vector<std::pair<std::string, std::set<std::string>>>> machines;
  for (const auto &group : machines_detail::machine_groups(runs)) {
    const auto id = machines_detail::least_id(runs, group);
    auto &[_, gpus] = machines[runs[group.front()].host].emplace_back(id, std::set<std::string>{});
    for (const auto i : group) {
      out[runs[i].key] = id;
      gpus.insert(runs[i].gpus.begin(), runs[i].gpus.end());
    }
  }
  // A run without an id (written before inventories carried it, or /etc/machine-id unreadable)
  // is of the machine it shares a GPU with, else of its host's one machine: a retest with an id
  // supersedes an older run without one. Beside two machines and no GPU in common, it is of
  // none, and never superseded.
  for (const auto &m : all) {
    if (out.contains(m.key))
      continue;
    const auto of_host = machines.find(m.host);
    std::string id;
    if (of_host != machines.end()) {
      for (const auto &[machine, gpus] : of_host->second)
        if (machines_detail::share_a_gpu(m.gpus, gpus))
          id = machine;
      if (id.empty() && of_host->second.size() == 1)
        id = of_host->second.front().first;
    }
    out[m.key] = id;
  }
  return out;
}

inline std::map<std::string, std::string> machine_of_runs(const RunSet &set) {
  return machine_of_runs(machines_of(set));
}

inline std::vector<SharedHostName> shared_host_names(const std::vector<RunMachine> &all) {
  const auto runs = machines_detail::runs_with_an_id(all);
  std::map<std::string, SharedHostName> by_host;
  for (const auto &group : machines_detail::machine_groups(runs)) {
    auto &shared = by_host[runs[group.front()].host];
    shared.host = runs[group.front()].host;
    std::string first = runs[group.front()].dir;
    for (const auto i : group)
      first = std::min(first, runs[i].dir);
    shared.machines.emplace_back(machines_detail::least_id(runs, group), first);
  }
  std::vector<SharedHostName> out;
  for (auto &[host, shared] : by_host)
    if (shared.machines.size() > 1) {
      std::sort(shared.machines.begin(), shared.machines.end(),
                [](const auto &a, const auto &b) { return a.second < b.second; });
      out.push_back(std::move(shared));
    }
  return out;
}

inline std::vector<SharedHostName> shared_host_names(const RunSet &set) {
  return shared_host_names(machines_of(set));
}

} // namespace railgauge::analysis
