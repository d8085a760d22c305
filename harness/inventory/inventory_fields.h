#pragma once
// The field names of the inventory in run.json (harness/inventory/inventory.h, collect_inventory)
// and of the objects inside it: the hwloc machine, the PCI tree, the OS devices, the rail map,
// NVML's GPUs, the verbs devices and the port counters; and of the counter objects the same
// sysfs readers give a record (a PCIe link's AER totals, a port's or a TCP point's counter
// deltas). analysis/ reads them by name (check's inventory probes, calibrate's GPU spec and
// memory capacity, the history's parts), and results/schema/inventory.schema.json states the
// inventory's (the record schema the counters'), so a name renamed here must be renamed there.
// A name two objects share is declared once, in the first group that uses it; later groups say
// which they use.
namespace railgauge::inventory_field {

// run.json: the manifest's key that holds the inventory
inline constexpr const char *kInventory = "inventory";

// inventory: the schema, the host and where the topology came from (source: kind, file), the
// counts (summary), what could not be trusted (warnings), and one object per source
inline constexpr const char *kSchema = "schema";
inline constexpr const char *kHost = "host";
// /etc/machine-id: which machine wrote the run, where two report one host name
inline constexpr const char *kMachineId = "machine_id";
inline constexpr const char *kSource = "source";
inline constexpr const char *kKind = "kind";
inline constexpr const char *kFile = "file";
inline constexpr const char *kSummary = "summary";
inline constexpr const char *kWarnings = "warnings";
inline constexpr const char *kMachine = "machine";
inline constexpr const char *kPci = "pci";
inline constexpr const char *kOsDevices = "os_devices";
inline constexpr const char *kRailMap = "rail_map";
inline constexpr const char *kNvml = "nvml";
inline constexpr const char *kVerbs = "verbs";
inline constexpr const char *kPortCounters = "port_counters";

// Whether a source answered (nvml, verbs, port_counters, a link's pcie_aer), and why not
inline constexpr const char *kAvailable = "available";
inline constexpr const char *kReason = "reason";

// inventory.summary: how many of each (also packages and numa_nodes)
inline constexpr const char *kGpus = "gpus";
inline constexpr const char *kNics = "nics";
inline constexpr const char *kNvswitches = "nvswitches";

// inventory.machine: the packages, NUMA nodes, cores, PUs and caches; a package's or a NUMA
// node's index, CPUs, model and memory; from an NCCL topology file a node's CPU too (arch,
// vendor, family); a cache's level, type, size and count
inline constexpr const char *kPackages = "packages";
inline constexpr const char *kNumaNodes = "numa_nodes";
inline constexpr const char *kCores = "cores";
inline constexpr const char *kPus = "pus";
inline constexpr const char *kCaches = "caches";
inline constexpr const char *kOsIndex = "os_index";
inline constexpr const char *kCpus = "cpus";
inline constexpr const char *kCpuModel = "cpu_model";
inline constexpr const char *kMemoryBytes = "memory_bytes";
inline constexpr const char *kArch = "arch";
inline constexpr const char *kCpuVendor = "cpu_vendor";
inline constexpr const char *kCpuFamily = "cpu_family";
inline constexpr const char *kLevel = "level";
inline constexpr const char *kType = "type";
inline constexpr const char *kSizeBytes = "size_bytes";
inline constexpr const char *kCount = "count";

// inventory.os_devices[]: each OS device's name, type, PCI bus id and NUMA node
inline constexpr const char *kName = "name";
inline constexpr const char *kPciBusId = "pci_bus_id";
inline constexpr const char *kNumaNode = "numa_node";

// inventory.pci: the tree's source, the switches it folded away and its devices (also kind); a
// device's bus id, class, vendor and device ids, the bridges above it, its link, its OS names
// and what the topology file said of it (attributes)
inline constexpr const char *kSwitchesCollapsed = "switches_collapsed";
inline constexpr const char *kDevices = "devices";
inline constexpr const char *kBusId = "bus_id";
inline constexpr const char *kClass = "class";
inline constexpr const char *kVendor = "vendor";
inline constexpr const char *kDevice = "device";
inline constexpr const char *kUpstream = "upstream";
inline constexpr const char *kLinkGbytesPerS = "link_gbytes_per_s";
inline constexpr const char *kLinkGtransfersPerS = "link_gtransfers_per_s";
inline constexpr const char *kLinkWidth = "link_width";
inline constexpr const char *kOsNames = "os_names";
inline constexpr const char *kAttributes = "attributes";

// A PCI device's attributes from an NCCL topology file: a GPU's (dev, sm, rank, gdr and its
// NVLinks' target, count and tclass), a NIC's nets (name, dev, speed, port, guid, gdr), and
// what an NVSwitch known only as an NVLink's target came from
inline constexpr const char *kGpu = "gpu";
inline constexpr const char *kDev = "dev";
inline constexpr const char *kSm = "sm";
inline constexpr const char *kRank = "rank";
inline constexpr const char *kGdr = "gdr";
inline constexpr const char *kNvlinks = "nvlinks";
inline constexpr const char *kTarget = "target";
inline constexpr const char *kTclass = "tclass";
inline constexpr const char *kNets = "nets";
inline constexpr const char *kSpeedMbitsPerS = "speed_mbits_per_s";
inline constexpr const char *kPort = "port";
inline constexpr const char *kGuid = "guid";
inline constexpr const char *kFrom = "from";

// inventory.rail_map: its GPUs and NICs (bus_id, name, numa_node, link_gbytes_per_s; a GPU also
// its NVML index, UUID and model once joined with NVML), the path between each pair, and each
// GPU's rail to its nearest NIC
inline constexpr const char *kNvmlIndex = "nvml_index";
inline constexpr const char *kUuid = "uuid";
inline constexpr const char *kModel = "model";
inline constexpr const char *kPaths = "paths";
inline constexpr const char *kRails = "rails";
inline constexpr const char *kGpuIndex = "gpu_index";
inline constexpr const char *kGpuBusId = "gpu_bus_id";
inline constexpr const char *kGpuNumaNode = "gpu_numa_node";
inline constexpr const char *kNicBusId = "nic_bus_id";
inline constexpr const char *kNicName = "nic_name";
inline constexpr const char *kNicNumaNode = "nic_numa_node";
inline constexpr const char *kPath = "path";

// inventory.nvml: the library, the driver's and NVML's versions, and the GPUs
inline constexpr const char *kLibrary = "library";
inline constexpr const char *kDriverVersion = "driver_version";
inline constexpr const char *kNvmlVersion = "nvml_version";

// inventory.nvml.gpus[]: a GPU's index, name, UUID, serial, bus id, link, clocks, memory, power,
// temperature, health counters, clock-event reasons, NVLinks, compute processes, and NVML's
// message for each query that failed (errors, keyed by the field's path: pcie.gen_current; a
// GPU NVML could not open has its handle's)
inline constexpr const char *kIndex = "index";
inline constexpr const char *kSerial = "serial";
inline constexpr const char *kPcie = "pcie";
inline constexpr const char *kSmClockMhz = "sm_clock_mhz";
inline constexpr const char *kMemClockMhz = "mem_clock_mhz";
inline constexpr const char *kMemoryTotalBytes = "memory_total_bytes";
inline constexpr const char *kPowerLimitW = "power_limit_w";
inline constexpr const char *kPowerUsageW = "power_usage_w";
inline constexpr const char *kTemperatureC = "temperature_c";
inline constexpr const char *kEcc = "ecc";
inline constexpr const char *kRetiredPages = "retired_pages";
inline constexpr const char *kRemappedRows = "remapped_rows";
inline constexpr const char *kClocksEventReasons = "clocks_event_reasons";
inline constexpr const char *kNvlink = "nvlink";
inline constexpr const char *kComputeProcesses = "compute_processes";
inline constexpr const char *kErrors = "errors";
inline constexpr const char *kHandle = "handle";

// A GPU's pcie: the link's generation and width now and at most, and its replays
inline constexpr const char *kGenCurrent = "gen_current";
inline constexpr const char *kGenMax = "gen_max";
inline constexpr const char *kWidthCurrent = "width_current";
inline constexpr const char *kWidthMax = "width_max";
inline constexpr const char *kReplayCount = "replay_count";

// A GPU's sm_clock_mhz and mem_clock_mhz: the clock now and at most
inline constexpr const char *kCurrent = "current";
inline constexpr const char *kMax = "max";

// A GPU's ecc: the mode now and after a reset, and the volatile and aggregate counts of each
// kind; its retired_pages (pre-Ampere) by cause and whether one is pending; its remapped_rows
// (Ampere on) by kind, and whether one is pending or failed
inline constexpr const char *kEnabledCurrent = "enabled_current";
inline constexpr const char *kEnabledPending = "enabled_pending";
inline constexpr const char *kVolatile = "volatile";
inline constexpr const char *kAggregate = "aggregate";
inline constexpr const char *kCorrected = "corrected";
inline constexpr const char *kUncorrected = "uncorrected";
inline constexpr const char *kSingleBit = "single_bit";
inline constexpr const char *kDoubleBit = "double_bit";
inline constexpr const char *kPending = "pending";
inline constexpr const char *kCorrectable = "correctable";
inline constexpr const char *kUncorrectable = "uncorrectable";
inline constexpr const char *kFailure = "failure";

// A GPU's nvlink: each link up or down, how many of each, and the error counters summed over
// the links (errors) and per link (errors_per_link), by counter
inline constexpr const char *kLinks = "links";
inline constexpr const char *kUp = "up";
inline constexpr const char *kDown = "down";
inline constexpr const char *kErrorsPerLink = "errors_per_link";
inline constexpr const char *kCrcFlit = "crc_flit";
inline constexpr const char *kCrcData = "crc_data";
inline constexpr const char *kReplay = "replay";
inline constexpr const char *kRecovery = "recovery";

// A GPU's compute_processes[]: each one's pid and GPU memory (and name)
inline constexpr const char *kPid = "pid";
inline constexpr const char *kUsedMemoryBytes = "used_memory_bytes";

// inventory.verbs.devices[]: a device's name, node GUID, firmware and ports, or why it could not
// be opened (error); a port's number, state, link, speed, width, rate, MTUs, LIDs and GIDs, or
// why it could not be queried; a GID's index, value, type and netdev
inline constexpr const char *kNodeGuid = "node_guid";
inline constexpr const char *kFwVersion = "fw_version";
inline constexpr const char *kPorts = "ports";
inline constexpr const char *kError = "error";
inline constexpr const char *kState = "state";
inline constexpr const char *kPhysicalState = "physical_state";
inline constexpr const char *kLinkLayer = "link_layer";
inline constexpr const char *kActiveSpeed = "active_speed";
inline constexpr const char *kActiveWidthLanes = "active_width_lanes";
inline constexpr const char *kRateGbitsPerS = "rate_gbits_per_s";
inline constexpr const char *kActiveMtuBytes = "active_mtu_bytes";
inline constexpr const char *kMaxMtuBytes = "max_mtu_bytes";
inline constexpr const char *kLid = "lid";
inline constexpr const char *kSmLid = "sm_lid";
inline constexpr const char *kGids = "gids";
inline constexpr const char *kGid = "gid";
inline constexpr const char *kNetdev = "netdev";

// inventory.port_counters.ports[] (port_counters.h), and a point's deltas of them: the device
// and port, sysfs's counters and hw_counters, the netdev's ethtool counters, and the files that
// could not be read
inline constexpr const char *kCounters = "counters";
inline constexpr const char *kHwCounters = "hw_counters";
inline constexpr const char *kNetdevCounters = "netdev_counters";
inline constexpr const char *kUnreadable = "unreadable";

// A TCP point's counter deltas (tcp_counters.h): /proc/net/snmp's Tcp and /proc/net/netstat's
// TcpExt, and the netdev's statistics (also netdev, unreadable)
inline constexpr const char *kHostTcp = "host_tcp";
inline constexpr const char *kHostTcpExt = "host_tcp_ext";
inline constexpr const char *kNetdevStatistics = "netdev_statistics";

// A link's pcie_aer (pcie_aer.h): the kernel's aer_dev_* files by kind (also correctable), each
// with the kernel's own counter names, of which the health delta reads the totals
inline constexpr const char *kNonfatal = "nonfatal";
inline constexpr const char *kFatal = "fatal";
inline constexpr const char *kTotalErrCor = "TOTAL_ERR_COR";
inline constexpr const char *kTotalErrNonfatal = "TOTAL_ERR_NONFATAL";
inline constexpr const char *kTotalErrFatal = "TOTAL_ERR_FATAL";

} // namespace railgauge::inventory_field
