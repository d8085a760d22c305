#include "analysis/check/auto_profile.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/data_paths.h"
#include "harness/error.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/record_fields.h"
#include "harness/run_fields.h"

namespace railgauge::check {
namespace {

bool has(const std::string &text, const char *part) { return text.find(part) != std::string::npos; }

// A field of an object, or null where the object or the field is missing or not an object.
const nlohmann::json &object_at(const nlohmann::json &obj, const char *name) {
  static const nlohmann::json none;
  const auto *f = record_fields::field(obj, name);
  return f && f->is_object() ? *f : none;
}

// NVML's GPU names of one run's inventory, one per GPU.
std::vector<std::string> gpu_names(const nlohmann::json &manifest) {
  std::vector<std::string> names;
  const auto &nvml =
      object_at(object_at(manifest, inventory_field::kInventory), inventory_field::kNvml);
  const auto *gpus = record_fields::field(nvml, inventory_field::kGpus);
  if (gpus && gpus->is_array())
    for (const auto &gpu : *gpus)
      if (const auto name = record_fields::text(gpu, inventory_field::kName))
        names.push_back(*name);
  return names;
}

// What one run's inventory says of NVIDIA hardware where NVML names no GPU: whether anything of
// NVIDIA's is on the PCI bus (a GPU, vendor 0x10de class 0x03xx, or an NVSwitch, which exists
// only on a GPU baseboard) or the driver loaded; none where the inventory read no PCI tree,
// which cannot show that a node has no GPU.
std::optional<bool> nvidia_signs(const nlohmann::json &manifest) {
  namespace f = inventory_field;
  const auto &inventory = object_at(manifest, f::kInventory);
  const auto *devices = record_fields::field(object_at(inventory, f::kPci), f::kDevices);
  if (!devices || !devices->is_array() || devices->empty())
    return std::nullopt;
  for (const auto &d : *devices)
    if (record_fields::text(d, f::kVendor) == "0x10de")
      return true;
  const auto *available = record_fields::field(object_at(inventory, f::kNvml), f::kAvailable);
  if (available && available->is_boolean() && available->get<bool>())
    return true; // a driver that answers and shows no GPU
  const auto switches = record_fields::integer(object_at(inventory, f::kSummary), f::kNvswitches);
  return switches && *switches > 0;
}

// A run that had to have GPUs: a GPU burn-in's (its plan in run.json), or one whose --expect
// named GPUs. Such a run on a node that shows none is judged, not refused as input.
bool must_have_gpus(const nlohmann::json &manifest) {
  if (!manifest.is_object())
    return false;
  const auto suite = manifest.value(run_field::kSuite, nlohmann::json::object());
  if (suite.is_object() && suite.contains("burnin_plan"))
    return true;
  const auto expect = manifest.value(run_field::kExpect, nlohmann::json::object());
  const auto expected = expect.is_object()
                            ? expect.value(run_field::kExpectExpected, nlohmann::json::object())
                            : nlohmann::json::object();
  const auto gpus = expected.is_object() ? expected.value("gpus", nlohmann::json(nullptr))
                                         : nlohmann::json(nullptr);
  return gpus.is_number_integer() && gpus.get<long long>() > 0;
}

// The one GPU name of `names` (not empty); an input error when there are several kinds.
std::string the_one_gpu(const std::set<std::string> &names, const char *who, const char *what) {
  if (names.size() > 1)
    throw InputError(fmt::format("{} GPUs of {} kinds ({}): one profile cannot judge them all", who,
                                 names.size(), fmt::join(names, ", ")),
                     "--rules auto",
                     fmt::format("check each kind's {} apart, each with its profile", what));
  return *names.begin();
}

// An imported log has no inventory: its records name the GPU (params.gpu_name, from nccl-tests'
// rank lines or perftest's CUDA preamble) and its group (group_size ranks on group_hosts hosts);
// the network is what the log said (nccl-tests' NET/ line, perftest's link layer).
struct ImportedLog {
  std::set<std::string> gpu_names;
  int gpus_per_host = 0;
  bool multi_host = false, nic_test = false;
  std::string network; // roce, ib, socket, libfabric, or "" when the log does not say
  std::string host;
};

std::optional<ImportedLog> imported_log(const analysis::LoadedRun &run) {
  if (!run.manifest.is_object() || !run.manifest.contains(run_field::kImported))
    return std::nullopt;
  ImportedLog log;
  log.host = run.manifest.value(run_field::kHost, run.dir);
  const auto &imported = run.manifest[run_field::kImported];
  if (imported.is_object() && imported.contains("network") && imported["network"].is_object())
    log.network = imported["network"].value("transport", "");
  for (const auto &r : run.records) {
    const auto &p = r.params;
    if (p.contains("gpu_name") && p["gpu_name"].is_string())
      log.gpu_names.insert(p["gpu_name"].get<std::string>());
    const auto size = p.value("group_size", 0), hosts = p.value("group_hosts", 0);
    if (size > 0 && hosts > 0)
      log.gpus_per_host = std::max(log.gpus_per_host, size / hosts);
    log.multi_host = log.multi_host || hosts > 1;
    if (r.key.starts_with("rdma.")) {
      log.nic_test = true;
      const std::string layer = p.value("link_layer", "");
      log.network = layer == "Ethernet" ? "roce" : layer == "InfiniBand" ? "ib" : log.network;
    }
  }
  if (log.gpu_names.empty())
    return std::nullopt;
  return log;
}

// The profile of an imported log of one GPU kind: the node profile of its SKU, with the fabric's
// floors when the log crossed nodes or tested a NIC.
AutoProfile imported_profile(const std::vector<ImportedLog> &logs) {
  std::set<std::string> names, networks;
  bool fabric = false;
  int most = 0;
  for (const auto &log : logs) {
    names.insert(log.gpu_names.begin(), log.gpu_names.end());
    fabric = fabric || log.multi_host || log.nic_test;
    if (log.multi_host || log.nic_test)
      networks.insert(log.network);
    most = std::max(most, log.gpus_per_host);
  }
  const std::string name = the_one_gpu(names, "the imported logs name", "logs");
  // A NIC test or a multi-node log is a node of the SKU's 8-GPU profile; a one-node log has the
  // GPUs its ranks name.
  const std::string sku = profile_for_gpu(name, fabric ? 8 : std::max(most, 1));
  if (sku.empty())
    throw InputError(fmt::format("no shipped profile describes the GPU '{}' the imported logs "
                                 "name",
                                 name),
                     "--rules auto",
                     "give --rules any-fabric (checks that need no expected figure), or a rules "
                     "file of your own with its floors");
  const std::string what = fmt::format("imported log{} of '{}'", logs.size() == 1 ? "" : "s", name);
  if (!fabric)
    return {sku, fmt::format("{}, {} GPU{} per node", what, most, most == 1 ? "" : "s")};
  if (networks.size() > 1)
    throw InputError("the imported logs crossed nodes over different networks (" +
                         fmt::format("{}", fmt::join(networks, ", ")) + ")",
                     "--rules auto", "check each network's logs apart, each with its profile");
  const std::string net = *networks.begin();
  if (net == "roce" || net == "ib")
    return {sku + "-" + net, fmt::format("{}, network {} as the log says", what,
                                         net == "ib" ? "InfiniBand" : "RoCE")};
  if (net.empty())
    return {sku + "-roce",
            fmt::format("{}; the log does not name its network (no NCCL_DEBUG=INFO 'NET/' "
                        "line), so the lower fabric floors judge it, RoCE's: give --rules {}-ib "
                        "for InfiniBand's",
                        what, sku)};
  // NCCL fell back to TCP sockets: the RDMA fabric these nodes were built with is not in use (a
  // wrong NCCL_IB_HCA, a NIC its driver did not bring up). Its figures are the fabric's as a
  // training job would see them, judged by the lower floors: never a pass for want of floors.
  if (net == "socket")
    return {sku + "-roce",
            fmt::format("{}, network: TCP sockets (NCCL 'NET/Socket'), not RDMA: judged by the "
                        "lower fabric floors, RoCE's, as a job on this fabric would run",
                        what)};
  return {kAnyFabricProfile,
          fmt::format("{}, network {}: no shipped profile has its floors, so the checks that "
                      "need no expected figure judge it (curve shape, outliers, failed records)",
                      what, net == "libfabric" ? "libfabric (EFA, Slingshot)" : net)};
}

// The profile of imported logs that name no GPU (`unnamed`; `failures`: those holding a failed or
// broken record), or the input error that asks for one.
AutoProfile unnamed_import_profile(const std::set<std::string> &unnamed,
                                   const std::set<std::string> &failures) {
  // An import has no inventory: a log that names no GPU (perftest prints its GPU only with
  // --use_cuda and once connected, nccl-tests in its rank lines) says nothing of the node. A log
  // that shows a failure (a link that never came up, wrong data) needs no floor to FAIL: the
  // checks that need no expected figure judge it, and the link is drained. Otherwise no profile
  // is guessed: a PASS without the node's floors would pass what was not judged.
  if (!failures.empty())
    return {kAnyFabricProfile,
            fmt::format("the imported log{} {} name{} no GPU and show{} a failed or broken "
                        "record, which needs no expected figure to fail; give the node's profile "
                        "by name for its floors",
                        failures.size() == 1 ? "" : "s", fmt::join(failures, ", "),
                        failures.size() == 1 ? "s" : "", failures.size() == 1 ? "s" : "")};
  throw InputError(fmt::format("the imported log{} {} name{} no GPU (perftest prints its GPU "
                               "only with --use_cuda and once connected, nccl-tests in its "
                               "rank lines), and an import carries no inventory to tell the "
                               "node",
                               unnamed.size() == 1 ? "" : "s", fmt::join(unnamed, ", "),
                               unnamed.size() == 1 ? "s" : ""),
                   "--rules auto",
                   fmt::format("give the node's profile by name ({}), or --rules any-fabric for "
                               "the checks that need no expected figure",
                               shipped_names("rules")));
}

} // namespace

std::string profile_for_gpu(const std::string &gpu_name, int gpus_per_node) {
  std::string sku;
  // NVML names the SXM5 H100 "NVIDIA H100 80GB HBM3"; the others say "PCIe" or "NVL".
  if (has(gpu_name, "H100") && (has(gpu_name, "HBM3") || has(gpu_name, "SXM")) &&
      !has(gpu_name, "PCIe") && !has(gpu_name, "NVL"))
    sku = "h100-sxm";
  else if (has(gpu_name, "H200") && !has(gpu_name, "NVL") && !has(gpu_name, "GH200"))
    sku = "h200-sxm"; // GH200 (a Grace Hopper superchip: its own HBM, NVLink-C2C) is not one
  if (sku.empty())
    return sku;
  return gpus_per_node == 1 ? sku + "-1gpu" : sku;
}

namespace {

// What the runs show, run by run: the GPUs each host showed, and the runs that show none or are
// imported logs.
struct Shown {
  std::map<std::string, int> gpus_per_host; // the most any run of the host showed
  std::set<std::string> names;
  std::set<std::string> without_gpus; // hosts of runs that had to have GPUs
  std::set<std::string> unseen_gpus;  // hosts with NVIDIA hardware or a driver, no GPU in NVML
  std::set<std::string> no_gpus;      // hosts with nothing of NVIDIA's on the PCI bus
  int unknown = 0;                    // runs without GPUs whose PCI tree was not read
  int named_most = 0;                 // the most GPUs NVML named on one run's node
  std::vector<ImportedLog> imports;
  std::set<std::string> unnamed_imports;  // imported logs that name no GPU (host memory)
  std::set<std::string> unnamed_failures; // ... of them, those whose records failed or broke

  void add_import(const analysis::LoadedRun &run) {
    if (auto log = imported_log(run)) {
      imports.push_back(std::move(*log));
      return;
    }
    unnamed_imports.insert(run.dir);
    if (std::any_of(run.records.begin(), run.records.end(), [](const Record &r) {
          return r.status == Status::failed || r.status == Status::error;
        }))
      unnamed_failures.insert(run.dir);
  }

  void add(const analysis::LoadedRun &run) {
    if (gpu_names(run.manifest).empty() && run.manifest.is_object() &&
        run.manifest.contains(run_field::kImported)) {
      add_import(run);
      return;
    }
    const auto found = gpu_names(run.manifest);
    const std::string host =
        run.manifest.is_object() ? run.manifest.value(run_field::kHost, run.dir) : run.dir;
    if (found.empty()) {
      const auto nvidia = nvidia_signs(run.manifest);
      if (must_have_gpus(run.manifest))
        without_gpus.insert(host);
      else if (nvidia && *nvidia)
        unseen_gpus.insert(host);
      else if (nvidia)
        no_gpus.insert(host);
      else
        ++unknown;
      return;
    }
    // The PCI bus's count where it is larger: a node of 8 whose driver shows 1 is judged as a
    // node of 8 (its gpus-in-nvml rule fails), never as a healthy machine of 1.
    const auto &summary =
        object_at(object_at(run.manifest, inventory_field::kInventory), inventory_field::kSummary);
    const auto on_bus = record_fields::integer(summary, inventory_field::kGpus);
    // NVSwitches exist only on an 8-GPU HGX baseboard: one GPU beside them is a node of 8 that
    // lost 7, never a one-GPU machine.
    const auto switches = record_fields::integer(summary, inventory_field::kNvswitches);
    const int shown =
        std::max({static_cast<int>(found.size()),
                  on_bus ? static_cast<int>(std::clamp<std::int64_t>(*on_bus, 0, 1 << 20)) : 0,
                  switches && *switches > 0 ? 8 : 0});
    gpus_per_host[host] = std::max(gpus_per_host[host], shown);
    named_most = std::max(named_most, static_cast<int>(found.size()));
    names.insert(found.begin(), found.end());
  }
};

} // namespace

AutoProfile auto_profile(const analysis::RunSet &runs, std::optional<int> expect_gpus) {
  Shown shown_by_runs;
  for (const auto &run : runs.runs)
    shown_by_runs.add(run);
  const auto &gpus_per_host = shown_by_runs.gpus_per_host;
  const auto &names = shown_by_runs.names;
  const auto &without_gpus = shown_by_runs.without_gpus;
  const auto &unseen_gpus = shown_by_runs.unseen_gpus;
  const auto &no_gpus = shown_by_runs.no_gpus;
  const int unknown = shown_by_runs.unknown, named_most = shown_by_runs.named_most;
  const auto &imports = shown_by_runs.imports;
  // The commonest failure of a GPU node: no GPU at all (no driver, fallen off the bus). No SKU
  // can be read, so the profile that says a GPU node must show its GPUs judges it: FAIL.
  if (names.empty() && !without_gpus.empty())
    return {kGpuNodeProfile,
            fmt::format("no GPU in the inventory of {} node{} whose run had to have GPUs",
                        without_gpus.size(), without_gpus.size() == 1 ? "" : "s")};
  // NVIDIA hardware on the bus or a loaded driver, and no GPU NVML can name (no driver, a GPU
  // it cannot open, a baseboard whose GPUs did not enumerate) is the same failure, whatever the
  // run: never a host-only PASS. Hosts without GPUs judged beside such a host fail with it.
  if (names.empty() && !unseen_gpus.empty())
    return {kGpuNodeProfile,
            fmt::format("{} node{} ({}) show{} NVIDIA hardware or its driver and no GPU in NVML",
                        unseen_gpus.size(), unseen_gpus.size() == 1 ? "" : "s",
                        fmt::join(unseen_gpus, ", "), unseen_gpus.size() == 1 ? "s" : "")};
  if (names.empty() && !imports.empty())
    return imported_profile(imports);
  if (names.empty() && !shown_by_runs.unnamed_imports.empty())
    return unnamed_import_profile(shown_by_runs.unnamed_imports, shown_by_runs.unnamed_failures);
  if (names.empty() && !no_gpus.empty() && unknown == 0)
    return {kHostOnlyProfile,
            fmt::format("nothing of NVIDIA's on the PCI bus of {} node{}, and no driver: the "
                        "host's own checks",
                        no_gpus.size(), no_gpus.size() == 1 ? "" : "s")};
  if (names.empty())
    throw InputError("no run's inventory shows a GPU or a PCI tree that says there is none, so no "
                     "profile can be chosen",
                     "--rules auto",
                     fmt::format("give --rules host-only or any-fabric, or a profile by name "
                                 "({})",
                                 shipped_names("rules")));
  const std::string name = the_one_gpu(names, "the runs show", "nodes");
  int most = 0;
  for (const auto &[host, n] : gpus_per_host)
    most = std::max(most, n);
  // Profiles are shipped for nodes of 1 and of 8 GPUs: a healthy node of 4 (an HGX board of 4, a
  // VM given 2 or 4) was judged by the 8-GPU one and failed gpu-count and gpus-in-nvml, even with
  // --expect-gpus 4. No board holds 5 to 7: such a node is one of 8 that lost some (a VM sees no
  // NVSwitch), judged and drained by the 8-GPU profile, as one of more than 8 is.
  constexpr int kLargestSmallBoard = 4;
  const int per_node = expect_gpus ? *expect_gpus : most;
  if (per_node > 1 && per_node <= kLargestSmallBoard && !profile_for_gpu(name, per_node).empty())
    throw InputError(
        fmt::format("no shipped profile describes a node of {} GPUs '{}' ({})", per_node, name,
                    expect_gpus ? "as --expect-gpus says" : "as its inventory shows"),
        "--rules auto",
        fmt::format("give --rules a file of your own for that node (the {} profile's floors per "
                    "GPU hold; its counts and fleet rules are for 8), or --rules any-fabric",
                    profile_for_gpu(name, 8)));
  if (expect_gpus) {
    const std::string profile = profile_for_gpu(name, *expect_gpus);
    if (!profile.empty())
      return {profile, fmt::format("{} GPU{} '{}' per node as --expect-gpus says; NVML lists at "
                                   "most {} on a node",
                                   *expect_gpus, *expect_gpus == 1 ? "" : "s", name, named_most)};
  }
  const std::string profile = profile_for_gpu(name, most);
  if (profile.empty())
    throw InputError(fmt::format("no shipped profile describes the GPU '{}'", name), "--rules auto",
                     "give --rules any-fabric (checks that need no expected figure), or a rules "
                     "file of your own with its floors");
  // A node of 8 that shows 2 in NVML beside its NVSwitches is said as such, not as 8 GPUs.
  const std::string shown =
      named_most < most ? fmt::format("; NVML lists at most {}, the PCI bus or NVSwitches show "
                                      "a node of {}",
                                      named_most, most)
                        : "";
  return {profile,
          fmt::format("{} GPU{} '{}' per node on {} node{}{}", most, most == 1 ? "" : "s", name,
                      gpus_per_host.size(), gpus_per_host.size() == 1 ? "" : "s", shown)};
}

} // namespace railgauge::check
