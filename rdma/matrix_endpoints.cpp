#include "rdma/matrix_endpoints.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"

namespace railgauge::rdma {

std::string encode_rank_nics(const RankNics &nics) {
  nlohmann::json j = {{"host", nics.host}, {"usable", nics.usable}, {"why_none", nics.why_none}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

RankNics decode_rank_nics(const std::string &text, int from_rank) {
  const auto malformed = [&](const std::string &why) {
    return BackendError(fmt::format("rank {} sent malformed NIC information: {}", from_rank, why));
  };
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    throw malformed(fmt::format("not a JSON object: '{}'", text.substr(0, 200)));
  RankNics n;
  for (const char *name : {"host", "why_none"})
    if (!j.contains(name) || !j.at(name).is_string())
      throw malformed(fmt::format("'{}' is missing or not a text", name));
  n.host = j.at("host").get<std::string>();
  n.why_none = j.at("why_none").get<std::string>();
  if (!j.contains("usable") || !j.at("usable").is_array())
    throw malformed("'usable' is missing or not a list");
  for (const auto &d : j.at("usable")) {
    if (!d.is_string() || d.get<std::string>().empty())
      throw malformed(fmt::format("a device is {}, not a name", d.dump()));
    n.usable.push_back(d.get<std::string>());
  }
  return n;
}

namespace {

std::vector<std::string> split_names(const std::string &text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string name;
  while (std::getline(in, name, ','))
    if (!name.empty())
      names.push_back(name);
  if (names.empty())
    throw InputError(fmt::format("nics='{}' names no device", text), "the nics axis",
                     "use nics=all, nics=local_rank or a comma list such as mlx5_0,mlx5_1");
  return names;
}

// Each rank's devices in the matrix, or a problem with that rank.
std::vector<std::string> chosen_devices(const std::vector<RankNics> &ranks, std::size_t r,
                                        const std::string &nics, std::string &problem) {
  const RankNics &me = ranks[r];
  if (me.usable.empty()) {
    problem = me.why_none.empty() ? "no usable RDMA device" : me.why_none;
    return {};
  }
  if (nics == "all")
    return me.usable;
  if (nics == "local_rank") {
    std::size_t local = 0;
    for (std::size_t o = 0; o < r; ++o)
      local += ranks[o].host == me.host ? 1 : 0;
    if (local >= me.usable.size()) {
      problem = fmt::format("local rank {} but only {} usable device(s) ({})", local,
                            me.usable.size(), fmt::join(me.usable, ", "));
      return {};
    }
    return {me.usable[local]};
  }
  std::vector<std::string> chosen;
  for (const std::string &name : split_names(nics)) {
    if (std::find(me.usable.begin(), me.usable.end(), name) == me.usable.end()) {
      problem = fmt::format("{} is not usable here (usable: {})", name, fmt::join(me.usable, ", "));
      return {};
    }
    chosen.push_back(name);
  }
  return chosen;
}

} // namespace

NicMatrixPlan plan_nic_matrix(const std::vector<RankNics> &ranks, const std::string &nics,
                              bool node_per_rank) {
  NicMatrixPlan plan;
  std::map<std::string, int> node_of_host;
  std::map<int, int> rails_of_node;
  std::map<std::pair<std::string, std::string>, std::size_t> claimed; // (host, device) -> rank
  std::size_t ranks_without = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    std::string problem;
    const auto devices = chosen_devices(ranks, r, nics, problem);
    if (!problem.empty()) {
      plan.problems.push_back(fmt::format("rank {} ({}): {}", r, ranks[r].host, problem));
      ++ranks_without;
      continue;
    }
    const int node =
        node_per_rank
            ? static_cast<int>(r)
            : node_of_host.try_emplace(ranks[r].host, static_cast<int>(node_of_host.size()))
                  .first->second;
    for (const std::string &device : devices) {
      const auto [at, fresh] = claimed.try_emplace({ranks[r].host, device}, r);
      if (!fresh && !node_per_rank)
        throw InputError(fmt::format("{} on {} is taken by ranks {} and {}", device, ranks[r].host,
                                     at->second, r),
                         "the nics axis",
                         "with several ranks per host use nics=local_rank (one NIC each) or "
                         "launch one rank per node");
      const std::string label = node_per_rank
                                    ? fmt::format("rank {} ({})/{}", r, ranks[r].host, device)
                                    : fmt::format("{}/{}", ranks[r].host, device);
      plan.eps.endpoints.push_back({node, rails_of_node[node]++, label});
      plan.eps.owner_rank.push_back(static_cast<int>(r));
      plan.eps.host.push_back(ranks[r].host);
      plan.eps.device.push_back(device);
      plan.device.push_back(device);
    }
  }
  if (ranks_without == ranks.size()) {
    plan.waive = fmt::format("no rank has a usable NIC ({})", plan.problems.front());
    plan.problems.clear();
    return plan;
  }
  if (!plan.problems.empty())
    return plan;
  std::set<int> nodes;
  for (const auto &e : plan.eps.endpoints)
    nodes.insert(e.node);
  if (nodes.size() < 2)
    plan.waive = fmt::format("all {} ranks are on one node ({}): the matrix pairs NICs of "
                             "different nodes; launch across nodes (or node_identity=rank when "
                             "each rank stands for a node)",
                             ranks.size(), ranks.front().host);
  return plan;
}

std::vector<std::string> active_devices(const std::string &sysfs_root,
                                        const std::vector<std::string> &devices, unsigned port,
                                        std::string &why_none) {
  std::vector<std::string> active, states;
  for (const std::string &d : devices) {
    const std::string path =
        fmt::format("{}/class/infiniband/{}/ports/{}/state", sysfs_root, d, port);
    std::ifstream in(path);
    std::string state;
    std::getline(in, state);
    if (!in && state.empty())
      state = "no " + path;
    if (state.find("ACTIVE") != std::string::npos)
      active.push_back(d);
    else
      states.push_back(fmt::format("{} port {}: {}", d, port, state));
  }
  std::sort(active.begin(), active.end());
  if (active.empty())
    why_none = devices.empty() ? "no RDMA device"
                               : fmt::format("no ACTIVE port ({})", fmt::join(states, "; "));
  return active;
}

} // namespace railgauge::rdma
