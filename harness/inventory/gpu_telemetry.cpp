#include "harness/inventory/gpu_telemetry.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>

#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_processes.h"
#include "harness/inventory/inventory_fields.h"
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
    telemetry::kEccUncorrectedVolatile,    telemetry::kEccCorrectedVolatile,
    telemetry::kRemappedRowsUncorrectable, telemetry::kRemappedRowsCorrectable,
    telemetry::kRemappedRowsPending,       telemetry::kRemappedRowsFailure};

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
  const auto aer = snapshot.value(telemetry::kPcieAer, nlohmann::json::object());
  if (!aer.is_object() || !aer.value(inventory_field::kAvailable, false) || !aer.contains(kind) ||
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
// "recovery"}] for the links that counted up or left a counter unread (null), [] where every
// counter was read and none grew, so that a verdict names the link, not only the GPU, and an
// empty list means read and clean (the replay rules pass it); null where neither end read a
// link's counters (a driver without them).
nlohmann::json nvlink_link_delta(const nlohmann::json &before, const nlohmann::json &after) {
  const auto b = before.value(telemetry::kNvlinkErrorsPerLink, nlohmann::json(nullptr));
  const auto a = after.value(telemetry::kNvlinkErrorsPerLink, nlohmann::json(nullptr));
  if (!b.is_object() || !a.is_object())
    return nullptr;
  constexpr const char *kCounters[] = {inventory_field::kCrcFlit, inventory_field::kCrcData,
                                       inventory_field::kReplay, inventory_field::kRecovery};
  std::size_t links = 0;
  for (const char *name : kCounters)
    if (a.contains(name) && a[name].is_array())
      links = std::max(links, a[name].size());
  nlohmann::json grew = nlohmann::json::array();
  bool read = false;
  for (std::size_t link = 0; link < links; ++link) {
    nlohmann::json entry = {{telemetry::kLink, link}};
    bool counted = false, unread = false;
    for (const char *name : kCounters) {
      entry[name] = grown(link_count(b, name, link), link_count(a, name, link));
      read = read || entry[name].is_number();
      unread = unread || !entry[name].is_number();
      counted = counted || (entry[name].is_number() && entry[name].get<double>() > 0);
    }
    if (counted || unread)
      grew.push_back(std::move(entry));
  }
  return read ? grew : nlohmann::json(nullptr);
}

// The links' errors between the snapshots: NVML's PCIe replay counter, AER's correctable total,
// its non-fatal and fatal totals together (an uncorrectable error under load), and the NVLink
// error counters together; null where either end could not tell.
void pcie_error_delta(const nlohmann::json &before, const nlohmann::json &after,
                      nlohmann::json &d) {
  d[telemetry::kPcieReplays] =
      grown(before.value(telemetry::kPcieReplayCount, nlohmann::json(nullptr)),
            after.value(telemetry::kPcieReplayCount, nlohmann::json(nullptr)));
  d[telemetry::kPcieAerCorrectable] =
      grown(aer_total(before, inventory_field::kCorrectable, inventory_field::kTotalErrCor),
            aer_total(after, inventory_field::kCorrectable, inventory_field::kTotalErrCor));
  const auto nonfatal =
      grown(aer_total(before, inventory_field::kNonfatal, inventory_field::kTotalErrNonfatal),
            aer_total(after, inventory_field::kNonfatal, inventory_field::kTotalErrNonfatal));
  const auto fatal =
      grown(aer_total(before, inventory_field::kFatal, inventory_field::kTotalErrFatal),
            aer_total(after, inventory_field::kFatal, inventory_field::kTotalErrFatal));
  d[telemetry::kPcieAerUncorrectable] =
      nonfatal.is_number() && fatal.is_number()
          ? nlohmann::json(nonfatal.get<double>() + fatal.get<double>())
          : nlohmann::json(nullptr);
  // NVLink: every error counter together (CRC, replay, recovery); null without NVLink.
  const auto links_before = before.value(telemetry::kNvlinkErrors, nlohmann::json(nullptr));
  const auto links_after = after.value(telemetry::kNvlinkErrors, nlohmann::json(nullptr));
  d[telemetry::kNvlinkErrors] = nullptr;
  if (links_before.is_object() && links_after.is_object()) {
    double total = 0;
    bool read = false;
    for (const char *name : {inventory_field::kCrcFlit, inventory_field::kCrcData,
                             inventory_field::kReplay, inventory_field::kRecovery}) {
      const auto g = grown(links_before.value(name, nlohmann::json(nullptr)),
                           links_after.value(name, nlohmann::json(nullptr)));
      if (g.is_number()) {
        total += g.get<double>();
        read = true;
      }
    }
    if (read)
      d[telemetry::kNvlinkErrors] = total;
  }
  d[telemetry::kNvlinkErrorsPerLink] = nvlink_link_delta(before, after);
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
  const auto log_before = before.value(telemetry::kKernelLog, nlohmann::json::object());
  const auto log_after = after.value(telemetry::kKernelLog, nlohmann::json::object());
  d[telemetry::kXidEvents] = nullptr;
  if (log_before.value(telemetry::kAvailable, false) &&
      log_after.value(telemetry::kAvailable, false)) {
    const auto since = log_before.value(telemetry::kLastSeq, std::uint64_t{0});
    nlohmann::json xids = nlohmann::json::array();
    for (const auto &x : log_after.value(telemetry::kXids, nlohmann::json::array()))
      if (x.value(telemetry::kSeq, std::uint64_t{0}) > since)
        xids.push_back(x);
    d[telemetry::kXidEvents] = xids.size();
    d[telemetry::kXids] = xids;
  } else {
    d[telemetry::kXidNote] = log_after.value(
        telemetry::kReason,
        log_before.value(telemetry::kReason, std::string("no kernel log snapshot")));
  }
  return d;
}

} // namespace

nlohmann::json gpu_telemetry_from_nvml(const nlohmann::json &nvml, std::string_view uuid) {
  if (!nvml.value(inventory_field::kAvailable, false))
    return {{telemetry::kAvailable, false},
            {telemetry::kReason,
             nvml.value(inventory_field::kReason, std::string("NVML unavailable"))}};
  for (const auto &gpu : nvml.value(inventory_field::kGpus, nlohmann::json::array())) {
    if (gpu.value(inventory_field::kUuid, nlohmann::json(nullptr)) != uuid)
      continue;
    nlohmann::json t = {
        {telemetry::kSmClockMhz,
         field(gpu, inventory_field::kSmClockMhz, inventory_field::kCurrent)},
        {telemetry::kSmClockMaxMhz,
         field(gpu, inventory_field::kSmClockMhz, inventory_field::kMax)},
        {telemetry::kMemClockMhz,
         field(gpu, inventory_field::kMemClockMhz, inventory_field::kCurrent)},
        {telemetry::kPowerW, gpu.value(inventory_field::kPowerUsageW, nlohmann::json(nullptr))},
        {telemetry::kPowerLimitW,
         gpu.value(inventory_field::kPowerLimitW, nlohmann::json(nullptr))},
        {telemetry::kTemperatureC,
         gpu.value(inventory_field::kTemperatureC, nlohmann::json(nullptr))}};
    const auto reasons = gpu.value(inventory_field::kClocksEventReasons, nlohmann::json(nullptr));
    t[telemetry::kClocksEventReasons] = reasons;
    bool throttled = false;
    if (reasons.is_array())
      for (const auto &r : reasons)
        throttled = throttled || (r.is_string() && is_throttle_reason(r.get<std::string>()));
    t[telemetry::kThrottled] = throttled;
    t[telemetry::kPciBusId] = gpu.value(inventory_field::kPciBusId, nlohmann::json(nullptr));
    t[telemetry::kEccUncorrectedVolatile] = count_of(
        gpu, inventory_field::kEcc, inventory_field::kVolatile, inventory_field::kUncorrected);
    t[telemetry::kEccCorrectedVolatile] = count_of(
        gpu, inventory_field::kEcc, inventory_field::kVolatile, inventory_field::kCorrected);
    for (auto [snapshot_name, name] :
         {std::pair{telemetry::kRemappedRowsUncorrectable, inventory_field::kUncorrectable},
          std::pair{telemetry::kRemappedRowsCorrectable, inventory_field::kCorrectable},
          std::pair{telemetry::kRemappedRowsPending, inventory_field::kPending},
          std::pair{telemetry::kRemappedRowsFailure, inventory_field::kFailure}})
      t[snapshot_name] = count_of(gpu, inventory_field::kRemappedRows, nullptr, name);
    t[telemetry::kComputeProcesses] =
        gpu.value(inventory_field::kComputeProcesses, nlohmann::json(nullptr));
    t[telemetry::kPcieReplayCount] =
        count_of(gpu, inventory_field::kPcie, nullptr, inventory_field::kReplayCount);
    t[telemetry::kNvlinkErrors] = nullptr; // a GPU without NVLink has none to count
    t[telemetry::kNvlinkErrorsPerLink] = nullptr;
    if (const auto nvlink = gpu.value(inventory_field::kNvlink, nlohmann::json(nullptr));
        nvlink.is_object()) {
      t[telemetry::kNvlinkErrors] = nvlink.value(inventory_field::kErrors, nlohmann::json(nullptr));
      t[telemetry::kNvlinkErrorsPerLink] =
          nvlink.value(inventory_field::kErrorsPerLink, nlohmann::json(nullptr));
    }
    return t;
  }
  return {{telemetry::kAvailable, false},
          {telemetry::kReason, fmt::format("NVML lists no GPU with uuid {}", uuid)}};
}

nlohmann::json sample_gpu_telemetry(std::string_view uuid) {
  try {
    nlohmann::json t = gpu_telemetry_from_nvml(query_nvml("libnvidia-ml.so.1"), uuid);
    if (t.contains(telemetry::kPciBusId) && t[telemetry::kPciBusId].is_string()) {
      const auto pci = t[telemetry::kPciBusId].get<std::string>();
      t[telemetry::kKernelLog] = kernel_log_of(pci);
      t[telemetry::kPcieAer] = read_pcie_aer("/sys", pci);
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
  const bool sampled = during.value(telemetry::kAvailable, false) &&
                       during.value(telemetry::kDurationS, 0.0) >= 2 * kSeriesWindow_s;
  const bool throttled = sampled ? during.value(telemetry::kThrottled, false)
                                 : before.value(telemetry::kThrottled, false) ||
                                       during.value(telemetry::kThrottled, false) ||
                                       after.value(telemetry::kThrottled, false);
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
    throttled = throttled || (t.is_object() && t.value(telemetry::kThrottled, false));
    t[metric::kPerGpuUuid] = i < uuids.size() ? nlohmann::json(uuids[i]) : nlohmann::json(nullptr);
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
