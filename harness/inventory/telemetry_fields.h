#pragma once
// The field names of a GPU point's metrics.telemetry (harness/inventory/gpu_telemetry.h) and of
// the objects inside it: the snapshots before and after, the monitor's summary of the window
// (gpu_monitor.h), the Xid events, the other processes on the GPU, and the settle probe's last
// reading (gpu_settle.h). The rules read them by path (metrics.telemetry.during.power_w.max), so a
// name renamed here must be renamed in results/rules/ and the record schema too (the rules' paths
// are checked against the schema to their leaf: tests/analysis/rule_paths_test.cpp). The min,
// median, max and mean of a figure are the core's summary names (harness/metric_names.h,
// metric::summary).
namespace railgauge::telemetry {

// Whether NVML answered, and why not
inline constexpr const char *kAvailable = "available";
inline constexpr const char *kReason = "reason";

// metrics.telemetry: the snapshots, the window between them, the verdict, the health counters'
// change and the processes that shared the GPU (multi-GPU points: per_gpu, metric::kPerGpu)
inline constexpr const char *kBefore = "before";
inline constexpr const char *kDuring = "during";
inline constexpr const char *kAfter = "after";
inline constexpr const char *kThrottled = "throttled";
inline constexpr const char *kHealthDelta = "health_delta";
inline constexpr const char *kForeignProcesses = "foreign_processes";

// A snapshot's figures, and the window's (each a summary there)
inline constexpr const char *kSmClockMhz = "sm_clock_mhz";
inline constexpr const char *kSmClockMaxMhz = "sm_clock_max_mhz";
inline constexpr const char *kMemClockMhz = "mem_clock_mhz";
inline constexpr const char *kPowerW = "power_w";
inline constexpr const char *kPowerLimitW = "power_limit_w";
inline constexpr const char *kTemperatureC = "temperature_c";
inline constexpr const char *kClocksEventReasons = "clocks_event_reasons";

// The window (during): its samples and seconds, the hottest reading, the PCIe link's lowest and
// highest generation and width, how often each clock-event reason held and how often any
// throttling one did, the energy used and the seconds NVML counted power and thermal capping;
// the power the energy counter gives over the window, or a note why it gives none; a series of
// medians per window (t_s); the seconds of the run the window spans (from, to); how often the
// monitor sampled
inline constexpr const char *kSamples = "samples";
inline constexpr const char *kDurationS = "duration_s";
inline constexpr const char *kTemperatureCMax = "temperature_c_max";
// The GPU's temperature limit at the window's start, as DCGM's diagnostic judges a test's highest
// temperature (NVIDIA/DCGM@72fa3fe nvvs/src/DcgmRecorder.cpp, DetermineMaxTemp): NVML's maximum
// operating temperature, else its slowdown temperature; and which of the two it is.
inline constexpr const char *kTemperatureLimitC = "temperature_limit_c";
inline constexpr const char *kTemperatureLimit = "temperature_limit";
inline constexpr const char *kGpuMaxOperating = "gpu_max_operating";
inline constexpr const char *kSlowdown = "slowdown";
// The HBM's highest temperature in the window, and NVML's maximum memory operating temperature at
// its start (DCGM: VerifyHBMTemperature against DCGM_FI_DEV_MEMORY_MAX_OP_TEMP_CELSIUS).
inline constexpr const char *kMemoryTemperatureCMax = "memory_temperature_c_max";
inline constexpr const char *kMemoryTemperatureLimitC = "memory_temperature_limit_c";
inline constexpr const char *kPcie = "pcie";
inline constexpr const char *kGenMin = "gen_min";
inline constexpr const char *kGenMax = "gen_max";
inline constexpr const char *kWidthMin = "width_min";
inline constexpr const char *kWidthMax = "width_max";
inline constexpr const char *kReasonFraction = "reason_fraction";
inline constexpr const char *kThrottledFraction = "throttled_fraction";
inline constexpr const char *kEnergyJ = "energy_j";
inline constexpr const char *kPowerViolationS = "power_violation_s";
inline constexpr const char *kThermalViolationS = "thermal_violation_s";
inline constexpr const char *kPowerFromEnergyW = "power_from_energy_w";
inline constexpr const char *kPowerFromEnergyNote = "power_from_energy_note";
inline constexpr const char *kSeries = "series";
inline constexpr const char *kTS = "t_s";
inline constexpr const char *kWindowS = "window_s";
inline constexpr const char *kFrom = "from";
inline constexpr const char *kTo = "to";
inline constexpr const char *kPeriodMs = "period_ms";

// The kernel's Xid events for the GPU (kernel_xids.h): the last sequence number read, and each
// event's number, Xid and text; an NVLink error counter's link
inline constexpr const char *kLastSeq = "last_seq";
inline constexpr const char *kXids = "xids";
inline constexpr const char *kSeq = "seq";
inline constexpr const char *kXid = "xid";
inline constexpr const char *kText = "text";
inline constexpr const char *kLink = "link";

// The other processes on the GPU (gpu_processes.h): how many, each one's pid, name and memory,
// and a note when NVML could not list them
inline constexpr const char *kCount = "count";
inline constexpr const char *kProcesses = "processes";
inline constexpr const char *kNote = "note";
inline constexpr const char *kPid = "pid";
inline constexpr const char *kName = "name";
inline constexpr const char *kUsedMemoryBytes = "used_memory_bytes";

// The settle probe's last reading (steady_state.last_reading): how many it took
inline constexpr const char *kReadings = "readings";

// A snapshot's health counters, and what it read them from: the GPU's bus id, NVML's counts
// (the remapped rows' flags as 0/1), its compute processes, its PCIe replays and NVLink error
// counters (inventory_fields.h names their insides), the kernel log's Xids (kernel_log: the
// last sequence number and the xids above) and the link's AER files (pcie_aer)
inline constexpr const char *kPciBusId = "pci_bus_id";
inline constexpr const char *kEccUncorrectedVolatile = "ecc_uncorrected_volatile";
inline constexpr const char *kEccCorrectedVolatile = "ecc_corrected_volatile";
inline constexpr const char *kRemappedRowsUncorrectable = "remapped_rows_uncorrectable";
inline constexpr const char *kRemappedRowsCorrectable = "remapped_rows_correctable";
inline constexpr const char *kRemappedRowsPending = "remapped_rows_pending";
inline constexpr const char *kRemappedRowsFailure = "remapped_rows_failure";
inline constexpr const char *kComputeProcesses = "compute_processes";
inline constexpr const char *kPcieReplayCount = "pcie_replay_count";
inline constexpr const char *kNvlinkErrors = "nvlink_errors";
inline constexpr const char *kNvlinkErrorsPerLink = "nvlink_errors_per_link";
inline constexpr const char *kKernelLog = "kernel_log";
inline constexpr const char *kPcieAer = "pcie_aer";

// health_delta: the growth of the counters above under their own names (ECC, remapped rows,
// nvlink_errors and nvlink_errors_per_link), of the PCIe replays and AER totals, and the Xid
// events logged in between (how many, which, or why the log could not tell)
inline constexpr const char *kPcieReplays = "pcie_replays";
inline constexpr const char *kPcieAerCorrectable = "pcie_aer_correctable";
inline constexpr const char *kPcieAerUncorrectable = "pcie_aer_uncorrectable";
inline constexpr const char *kXidEvents = "xid_events";
inline constexpr const char *kXidNote = "xid_note";

} // namespace railgauge::telemetry
