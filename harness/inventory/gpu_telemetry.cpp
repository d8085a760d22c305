#include "harness/inventory/gpu_telemetry.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>

#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_processes.h"
#include "harness/inventory/kernel_xids.h"
#include "harness/inventory/nvml_query.h"
#include "harness/inventory/pcie_aer.h"
#include "harness/inventory/telemetry_fields.h"
#include "harness/metric_names.h"

namespace railgauge {
namespace {

nlohmann::json field(const nlohmann::json &gpu, const char *object, const char *name) {
  const auto it = gpu.find(object);
  if (it == gpu.end() || !it->is_object())
    return nullptr;
  return it->value(name, nlohmann::json(nullptr));
}

// A count the health delta compares: a number, or a flag as 0/1; null when NVML had none.
nlohmann::json count_of(const nlohmann::json &gpu, const char *object, const char *inner,
                        const char *name) {
  const auto it = gpu.find(object);
  if (it == gpu.end() || !it->is_object())
    return nullptr;
  const nlohmann::json *at = &*it;
  if (inner) {
    const auto in = at->find(inner);
    if (in == at->end() || !in->is_object())
      return nullptr;
    at = &*in;
  }
  const auto v = at->value(name, nlohmann::json(nullptr));
  if (v.is_boolean())
    return v.get<bool>() ? 1 : 0;
  return v.is_number() ? v : nlohmann::json(nullptr);
}

// The counters whose growth during a point fails the GPU (the burn-in profiles' load-* rules).
constexpr const char *kHealthCounters[] = {
    "ecc_uncorrected_volatile",  "ecc_corrected_volatile", "remapped_rows_uncorrectable",
    "remapped_rows_correctable", "remapped_rows_pending",  "remapped_rows_failure"};

// This GPU's Xid events in the kernel log now (the newest 16), and the log's last sequence
// number, so that the snapshot after a point can tell which are new.
nlohmann::json kernel_log_of(const std::string &pci) {
  const KernelXids log = read_kernel_xids();
  if (!log.available)
    return {{telemetry::kAvailable, false}, {telemetry::kReason, log.reason}};
  nlohmann::json xids = nlohmann::json::array();
  for (const auto &x : log.xids)
    if (xid_names_gpu(x.pci, pci))
      xids.push_back(
          {{telemetry::kSeq, x.seq}, {telemetry::kXid, x.xid}, {telemetry::kText, x.text}});
  if (xids.size() > 16)
    xids.erase(xids.begin(), xids.end() - 16);
  return {
      {telemetry::kAvailable, true}, {telemetry::kLastSeq, log.last_seq}, {telemetry::kXids, xids}};
}

// after - before of two readings of a counter; null unless both are numbers.
nlohmann::json grown(const nlohmann::json &before, const nlohmann::json &after) {
  return before.is_number() && after.is_number()
             ? nlohmann::json(after.get<double>() - before.get<double>())
             : nlohmann::json(nullptr);
}

// A total of one AER file in a snapshot's pcie_aer, or null.
nlohmann::json aer_total(const nlohmann::json &snapshot, const char *kind, const char *total) {
  const auto aer = snapshot.value("pcie_aer", nlohmann::json::object());
  if (!aer.is_object() || !aer.value("available", false) || !aer.contains(kind) ||
      !aer[kind].is_object())
    return nullptr;
  const auto v = aer[kind].value(total, nlohmann::json(nullptr));
  return v.is_number() ? v : nlohmann::json(nullptr);
}

// One link's count of one NVLink counter in a snapshot's nvlink_errors_per_link, or null.
nlohmann::json link_count(const nlohmann::json &per_link, const char *name, std::size_t link) {
  const auto it = per_link.find(name);
  if (it == per_link.end() || !it->is_array() || link >= it->size())
    return nullptr;
  return (*it)[link];
}

// Each NVLink's growth between the snapshots: [{"link", "crc_flit", "crc_data", "replay",
// "recovery"}] for the links that counted up ([] where none did), so that a verdict names the
// link, not only the GPU; null where neither end read a link's counters (a driver without them).
nlohmann::json nvlink_link_delta(const nlohmann::json &before, const nlohmann::json &after) {
  const auto b = before.value("nvlink_errors_per_link", nlohmann::json(nullptr));
  const auto a = after.value("nvlink_errors_per_link", nlohmann::json(nullptr));
  if (!b.is_object() || !a.is_object())
    return nullptr;
  constexpr const char *kCounters[] = {"crc_flit", "crc_data", "replay", "recovery"};
  std::size_t links = 0;
  for (const char *name : kCounters)
    if (a.contains(name) && a[name].is_array())
      links = std::max(links, a[name].size());
  nlohmann::json grew = nlohmann::json::array();
  bool read = false;
  for (std::size_t link = 0; link < links; ++link) {
    nlohmann::json entry = {{telemetry::kLink, link}};
    bool counted = false;
    for (const char *name : kCounters) {
      entry[name] = grown(link_count(b, name, link), link_count(a, name, link));
      read = read || entry[name].is_number();
      counted = counted || (entry[name].is_number() && entry[name].get<double>() > 0);
    }
    if (counted)
      grew.push_back(std::move(entry));
  }
  return read ? grew : nlohmann::json(nullptr);
}

// The links' errors between the snapshots: NVML's PCIe replay counter, AER's correctable total,
// its non-fatal and fatal totals together (an uncorrectable error under load), and the NVLink
// error counters together; null where either end could not tell.
void pcie_error_delta(const nlohmann::json &before, const nlohmann::json &after,
                      nlohmann::json &d) {
  d["pcie_replays"] = grown(before.value("pcie_replay_count", nlohmann::json(nullptr)),
                            after.value("pcie_replay_count", nlohmann::json(nullptr)));
  d["pcie_aer_correctable"] = grown(aer_total(before, "correctable", "TOTAL_ERR_COR"),
                                    aer_total(after, "correctable", "TOTAL_ERR_COR"));
  const auto nonfatal = grown(aer_total(before, "nonfatal", "TOTAL_ERR_NONFATAL"),
                              aer_total(after, "nonfatal", "TOTAL_ERR_NONFATAL"));
  const auto fatal = grown(aer_total(before, "fatal", "TOTAL_ERR_FATAL"),
                           aer_total(after, "fatal", "TOTAL_ERR_FATAL"));
  d["pcie_aer_uncorrectable"] = nonfatal.is_number() && fatal.is_number()
                                    ? nlohmann::json(nonfatal.get<double>() + fatal.get<double>())
                                    : nlohmann::json(nullptr);
  // NVLink: every error counter together (CRC, replay, recovery); null without NVLink.
  const auto links_before = before.value("nvlink_errors", nlohmann::json(nullptr));
  const auto links_after = after.value("nvlink_errors", nlohmann::json(nullptr));
  d["nvlink_errors"] = nullptr;
  if (links_before.is_object() && links_after.is_object()) {
    double total = 0;
    bool read = false;
    for (const char *name : {"crc_flit", "crc_data", "replay", "recovery"}) {
      const auto g = grown(links_before.value(name, nlohmann::json(nullptr)),
                           links_after.value(name, nlohmann::json(nullptr)));
      if (g.is_number()) {
        total += g.get<double>();
        read = true;
      }
    }
    if (read)
      d["nvlink_errors"] = total;
  }
  d["nvlink_errors_per_link"] = nvlink_link_delta(before, after);
}

// after - before of each health counter, and the Xid events logged in between (null where
// either end could not tell).
nlohmann::json health_delta(const nlohmann::json &before, const nlohmann::json &after) {
  nlohmann::json d = nlohmann::json::object();
  for (const char *name : kHealthCounters) {
    d[name] = grown(before.value(name, nlohmann::json(nullptr)),
                    after.value(name, nlohmann::json(nullptr)));
  }
  pcie_error_delta(before, after, d);
  const auto log_before = before.value("kernel_log", nlohmann::json::object());
  const auto log_after = after.value("kernel_log", nlohmann::json::object());
  d["xid_events"] = nullptr;
  if (log_before.value("available", false) && log_after.value("available", false)) {
    const auto since = log_before.value("last_seq", std::uint64_t{0});
    nlohmann::json xids = nlohmann::json::array();
    for (const auto &x : log_after.value("xids", nlohmann::json::array()))
      if (x.value("seq", std::uint64_t{0}) > since)
        xids.push_back(x);
    d["xid_events"] = xids.size();
    d["xids"] = xids;
  } else {
    d["xid_note"] = log_after.value(
        "reason", log_before.value("reason", std::string("no kernel log snapshot")));
  }
  return d;
}

} // namespace

nlohmann::json gpu_telemetry_from_nvml(const nlohmann::json &nvml, std::string_view uuid) {
  if (!nvml.value("available", false))
    return {{telemetry::kAvailable, false},
            {telemetry::kReason, nvml.value("reason", std::string("NVML unavailable"))}};
  for (const auto &gpu : nvml.value("gpus", nlohmann::json::array())) {
    if (gpu.value("uuid", nlohmann::json(nullptr)) != uuid)
      continue;
    nlohmann::json t = {
        {telemetry::kSmClockMhz, field(gpu, "sm_clock_mhz", "current")},
        {telemetry::kSmClockMaxMhz, field(gpu, "sm_clock_mhz", "max")},
        {telemetry::kMemClockMhz, field(gpu, "mem_clock_mhz", "current")},
        {telemetry::kPowerW, gpu.value("power_usage_w", nlohmann::json(nullptr))},
        {telemetry::kPowerLimitW, gpu.value("power_limit_w", nlohmann::json(nullptr))},
        {telemetry::kTemperatureC, gpu.value("temperature_c", nlohmann::json(nullptr))}};
    const auto reasons = gpu.value("clocks_event_reasons", nlohmann::json(nullptr));
    t["clocks_event_reasons"] = reasons;
    bool throttled = false;
    if (reasons.is_array())
      for (const auto &r : reasons)
        throttled = throttled || (r.is_string() && is_throttle_reason(r.get<std::string>()));
    t["throttled"] = throttled;
    t["pci_bus_id"] = gpu.value("pci_bus_id", nlohmann::json(nullptr));
    t["ecc_uncorrected_volatile"] = count_of(gpu, "ecc", "volatile", "uncorrected");
    t["ecc_corrected_volatile"] = count_of(gpu, "ecc", "volatile", "corrected");
    for (const char *name : {"uncorrectable", "correctable", "pending", "failure"})
      t[std::string("remapped_rows_") + name] = count_of(gpu, "remapped_rows", nullptr, name);
    t["compute_processes"] = gpu.value("compute_processes", nlohmann::json(nullptr));
    t["pcie_replay_count"] = count_of(gpu, "pcie", nullptr, "replay_count");
    t["nvlink_errors"] = nullptr; // a GPU without NVLink has none to count
    t["nvlink_errors_per_link"] = nullptr;
    if (const auto nvlink = gpu.value("nvlink", nlohmann::json(nullptr)); nvlink.is_object()) {
      t["nvlink_errors"] = nvlink.value("errors", nlohmann::json(nullptr));
      t["nvlink_errors_per_link"] = nvlink.value("errors_per_link", nlohmann::json(nullptr));
    }
    return t;
  }
  return {{telemetry::kAvailable, false},
          {telemetry::kReason, fmt::format("NVML lists no GPU with uuid {}", uuid)}};
}

nlohmann::json sample_gpu_telemetry(std::string_view uuid) {
  try {
    nlohmann::json t = gpu_telemetry_from_nvml(query_nvml("libnvidia-ml.so.1"), uuid);
    if (t.contains("pci_bus_id") && t["pci_bus_id"].is_string()) {
      t["kernel_log"] = kernel_log_of(t["pci_bus_id"].get<std::string>());
      t["pcie_aer"] = read_pcie_aer("/sys", t["pci_bus_id"].get<std::string>());
    }
    return t;
  } catch (const std::exception &e) {
    return {{telemetry::kAvailable, false}, {telemetry::kReason, e.what()}};
  }
}

nlohmann::json telemetry_pair(nlohmann::json before, nlohmann::json during, nlohmann::json after) {
  // A snapshot that is not an object (never taken) throttled nothing and has no counters.
  for (nlohmann::json *j : {&before, &during, &after})
    if (!j->is_object())
      *j = nlohmann::json::object();
  // Throttled while the point ran: over a window of seconds (a burn phase) its samples say so.
  // The snapshots are instants outside it, and the one before still shows the phase before (the
  // HBM burn's read 691 W and sw_power_cap, the GEMM burn's tail, on the H200 at 02a54aa). A
  // point of milliseconds has too few samples to tell alone: any of the three says so.
  const bool sampled =
      during.value("available", false) && during.value("duration_s", 0.0) >= 2 * kSeriesWindow_s;
  const bool throttled = sampled ? during.value("throttled", false)
                                 : before.value("throttled", false) ||
                                       during.value("throttled", false) ||
                                       after.value("throttled", false);
  nlohmann::json delta = health_delta(before, after);
  nlohmann::json foreign = foreign_processes(before, after, static_cast<unsigned>(getpid()));
  return {{telemetry::kBefore, std::move(before)},
          {telemetry::kDuring, std::move(during)},
          {telemetry::kAfter, std::move(after)},
          {telemetry::kThrottled, throttled},
          {telemetry::kHealthDelta, std::move(delta)},
          {telemetry::kForeignProcesses, std::move(foreign)}};
}

GpuTelemetryWindow::GpuTelemetryWindow(std::string uuid)
    : uuid_(std::move(uuid)), before_(sample_gpu_telemetry(uuid_)),
      monitor_(std::make_unique<GpuMonitor>(uuid_)) {}

GpuTelemetryWindow::~GpuTelemetryWindow() = default;

nlohmann::json GpuTelemetryWindow::finish(double from_s) {
  if (result_.is_null())
    result_ = telemetry_pair(before_, monitor_->stop(from_s), sample_gpu_telemetry(uuid_));
  return result_;
}

GpuTelemetryWindows::GpuTelemetryWindows(const std::vector<std::string> &uuids) : uuids_(uuids) {
  for (const auto &uuid : uuids)
    windows_.push_back(std::make_unique<GpuTelemetryWindow>(uuid));
}

nlohmann::json gpus_telemetry(std::vector<nlohmann::json> windows,
                              const std::vector<std::string> &uuids) {
  if (windows.size() == 1)
    return std::move(windows.front());
  nlohmann::json per_gpu = nlohmann::json::array();
  bool throttled = false;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    nlohmann::json t = std::move(windows[i]);
    throttled = throttled || (t.is_object() && t.value("throttled", false));
    t["uuid"] = i < uuids.size() ? nlohmann::json(uuids[i]) : nlohmann::json(nullptr);
    per_gpu.push_back(std::move(t));
  }
  return {{metric::kPerGpu, std::move(per_gpu)}, {telemetry::kThrottled, throttled}};
}

nlohmann::json GpuTelemetryWindows::finish() {
  std::vector<nlohmann::json> windows;
  for (auto &w : windows_)
    windows.push_back(w->finish());
  return gpus_telemetry(std::move(windows), uuids_);
}

} // namespace railgauge
