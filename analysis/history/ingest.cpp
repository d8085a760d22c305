#include "analysis/history/ingest.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/history/ledger_rows.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/inventory/pci_tree.h"
#include "records/per_gpu_parts.h"

namespace railgauge::history {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string text(const json &j, const char *field) {
  if (!j.is_object())
    return "";
  const auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A part as the run saw it: the slot it sits in and what identifies the part itself.
struct Part {
  std::string kind, slot, uuid, serial, guid, firmware;
  std::string identity() const {
    for (const auto *id : {&serial, &uuid, &guid})
      if (!id->empty())
        return *id;
    return "";
  }
};
using PartKey = std::tuple<std::string, std::string, std::string>; // kind, slot, identity

// What the run's inventory says of its GPUs (by bus id) and NICs (by name).
struct Inventory {
  std::map<std::string, json> gpu_by_pci;
  std::map<std::string, std::string> pci_by_uuid;
  std::map<std::string, json> nic_by_name;

  explicit Inventory(const json &manifest) {
    const json inv = manifest.is_object() ? manifest.value("inventory", json()) : json();
    if (!inv.is_object())
      return;
    if (inv.contains("nvml") && inv["nvml"].is_object() &&
        inv["nvml"].value("gpus", json()).is_array())
      for (const auto &g : inv["nvml"]["gpus"])
        if (const auto bus = text(g, "pci_bus_id"); !bus.empty()) {
          gpu_by_pci[normalize_bus_id(bus)] = g;
          if (const auto uuid = text(g, "uuid"); !uuid.empty())
            pci_by_uuid[uuid] = normalize_bus_id(bus);
        }
    if (inv.contains("verbs") && inv["verbs"].is_object() &&
        inv["verbs"].value("devices", json()).is_array())
      for (const auto &d : inv["verbs"]["devices"])
        if (const auto name = text(d, "name"); !name.empty())
          nic_by_name[name] = d;
  }

  // The part a record measured: its NIC for an RDMA point, else its GPU, else its NIC.
  std::optional<Part> part_of(const Record &r) const {
    const auto pci = text(r.device, device::kPci), uuid = text(r.device, device::kGpu),
               nic = text(r.device, device::kNic);
    const bool network = r.key.rfind("rdma.", 0) == 0 || r.key.rfind("import.perftest", 0) == 0;
    if (!nic.empty() && (network || (pci.empty() && uuid.empty()))) {
      Part p;
      p.kind = "nic";
      p.slot = nic;
      if (const auto it = nic_by_name.find(nic); it != nic_by_name.end()) {
        p.guid = text(it->second, "node_guid");
        p.firmware = text(it->second, "fw_version");
      }
      return p;
    }
    std::string slot = pci.empty() ? "" : normalize_bus_id(pci);
    if (slot.empty())
      if (const auto it = pci_by_uuid.find(uuid); it != pci_by_uuid.end())
        slot = it->second;
    if (slot.empty())
      return std::nullopt; // a GPU named by nothing that stays in its slot
    Part p;
    p.kind = "gpu";
    p.slot = slot;
    p.uuid = uuid;
    if (const auto it = gpu_by_pci.find(slot); it != gpu_by_pci.end()) {
      if (p.uuid.empty())
        p.uuid = text(it->second, "uuid");
      p.serial = text(it->second, "serial");
    }
    return p;
  }
};

std::int64_t id_of(Database &db, const std::string &select, const Row &key) {
  const auto rows = db.query(select, key);
  if (rows.empty() || !as_int(rows.front().at(0)))
    throw std::logic_error("history: a row just inserted is not there: " + select);
  return *as_int(rows.front().at(0));
}

std::int64_t host_id(Database &db, const std::string &host) {
  db.execute("INSERT INTO hosts (name) VALUES (?) ON CONFLICT (name) DO NOTHING", {host});
  return id_of(db, "SELECT id FROM hosts WHERE name = ?", {host});
}

std::int64_t part_id(Database &db, std::int64_t host, const Part &p) {
  const auto none = [](const std::string &s) { return s.empty() ? Value(nullptr) : Value(s); };
  db.execute("INSERT INTO parts (host_id, kind, slot, identity, uuid, serial, guid, firmware) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
             "ON CONFLICT (host_id, kind, slot, identity) DO NOTHING",
             {host, p.kind, p.slot, p.identity(), none(p.uuid), none(p.serial), none(p.guid),
              none(p.firmware)});
  return id_of(db,
               "SELECT id FROM parts WHERE host_id = ? AND kind = ? AND slot = ? AND identity = ?",
               {host, p.kind, p.slot, p.identity()});
}

struct RunFacts {
  std::string run_id, host, suite, source, start, end, status;
  std::int64_t rank = 0;

  explicit RunFacts(const analysis::LoadedRun &run) {
    const auto &m = run.manifest;
    const Record *first = run.records.empty() ? nullptr : &run.records.front();
    run_id = text(m, "run");
    host = text(m, "host");
    if (run_id.empty())
      run_id = first ? first->run : fs::path(run.dir).filename().string();
    if (host.empty())
      host = first ? first->host : "unknown-host";
    if (m.is_object() && m.value("rank", json()).is_number_integer())
      rank = m["rank"].get<std::int64_t>();
    else if (first)
      rank = first->rank;
    suite = m.is_object() ? text(m.value("suite", json()), "name") : "";
    source = suite.rfind("import.", 0) == 0 ? suite.substr(7) : "railgauge";
    start = text(m, "start_utc");
    if (start.empty() && first)
      start = first->time_utc; // an import or a bare records.jsonl: its first point's time
    end = text(m, "end_utc");
    status = text(m, "status");
  }
};

Row record_row(std::int64_t run, std::optional<std::int64_t> part, const Record &r, bool per_gpu) {
  const auto metric = r.status == Status::ok ? figure_metric(r.metrics) : "";
  Value figure = nullptr, series = nullptr;
  if (!metric.empty() && part) {
    figure = r.metrics.at(metric).get<double>();
    series = fmt::format("{} {} {}", r.key, r.params.dump(), metric);
  }
  return {run,
          part ? Value(*part) : Value(nullptr),
          std::int64_t{r.rank},
          r.key,
          r.params.dump(-1, ' ', false, json::error_handler_t::replace),
          r.device.dump(-1, ' ', false, json::error_handler_t::replace),
          r.metrics.dump(-1, ' ', false, json::error_handler_t::replace),
          std::string(to_string(r.status)),
          r.reason ? Value(*r.reason) : Value(nullptr),
          r.time_utc,
          std::int64_t{per_gpu},
          series,
          metric.empty() ? Value(nullptr) : Value(metric),
          figure};
}

const std::vector<std::string> kRecordColumns = {
    "run_id", "part_id", "rank",     "key",     "params", "device",        "metrics",
    "status", "reason",  "time_utc", "per_gpu", "series", "figure_metric", "figure"};

} // namespace

std::string figure_metric(const json &metrics) {
  for (const char *m :
       {"tflops", "busbw_gbytes_per_s", "bandwidth_gbytes_per_s", "bandwidth_gbits_per_s"}) {
    const auto it = metrics.find(m);
    if (it != metrics.end() && it->is_number())
      return m;
  }
  return "";
}

IngestOutcome ingest_run(Database &db, const analysis::LoadedRun &run) {
  const RunFacts facts(run);
  const Inventory inventory(run.manifest);
  IngestOutcome out{.run_id = facts.run_id, .host = facts.host};
  long long failed = 0;
  for (const auto &r : run.records)
    failed += r.status == Status::failed || r.status == Status::error;
  const auto ledger = read_run_ledger(run.dir); // a bad line refuses the run before it is claimed
  in_transaction(db, [&] {
    out = IngestOutcome{.run_id = facts.run_id, .host = facts.host};
    const auto host = host_id(db, facts.host);
    const auto claimed = db.query(
        "INSERT INTO runs (run_id, host_id, rank, suite, source, start_utc, end_utc, status, dir, "
        "records, failed_records, ingested_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (run_id, host_id, rank) DO NOTHING RETURNING id",
        {facts.run_id, host, facts.rank, facts.suite, facts.source, facts.start, facts.end,
         facts.status, run.dir, static_cast<std::int64_t>(run.records.size()),
         static_cast<std::int64_t>(failed), utc_timestamp_now()});
    if (claimed.empty())
      return; // already there: ingested before, or by another process this moment
    const auto run_row = *as_int(claimed.front().at(0));
    std::map<PartKey, std::int64_t> parts; // sorted: every ingest takes the rows in one order
    std::vector<std::pair<const Record *, std::optional<PartKey>>> planned;
    std::vector<Record> per_gpu;
    for (const auto &r : run.records)
      for (auto &p : records::per_gpu_parts(r))
        per_gpu.push_back(std::move(p));
    std::map<PartKey, Part> seen;
    const auto plan = [&](const Record &r) {
      const auto part = inventory.part_of(r);
      std::optional<PartKey> key;
      if (part) {
        key = PartKey{part->kind, part->slot, part->identity()};
        seen.emplace(*key, *part);
      }
      planned.emplace_back(&r, key);
    };
    std::for_each(run.records.begin(), run.records.end(), plan);
    std::for_each(per_gpu.begin(), per_gpu.end(), plan);
    for (const auto &[key, part] : seen)
      parts[key] = part_id(db, host, part);
    std::vector<Row> rows;
    rows.reserve(planned.size());
    for (std::size_t i = 0; i < planned.size(); ++i) {
      const auto &[r, key] = planned[i];
      const auto part = key ? std::optional(parts.at(*key)) : std::nullopt;
      rows.push_back(record_row(run_row, part, *r, i >= run.records.size()));
      out.figures += !std::holds_alternative<std::nullptr_t>(rows.back().back());
    }
    db.insert_rows("records", kRecordColumns, rows);
    if (!ledger.empty())
      db.insert_rows("ledger", kLedgerColumns, ledger_rows(ledger, run_row, host));
    out.ledger_lines = static_cast<long long>(ledger.size());
    out.added = true;
    out.records = static_cast<long long>(run.records.size());
  });
  return out;
}

std::vector<std::string> run_directories(const std::vector<std::string> &paths) {
  std::set<std::string> dirs;
  for (const auto &given : paths) {
    std::error_code ec;
    const fs::path path(given);
    std::size_t found = 0;
    const auto add = [&](const fs::path &dir) {
      dirs.insert(dir.string());
      ++found;
    };
    if (fs::is_regular_file(path, ec) && path.filename() == "records.jsonl")
      add(path.parent_path());
    else if (fs::is_directory(path, ec)) {
      if (fs::exists(path / "records.jsonl", ec))
        add(path);
      const auto options = fs::directory_options::follow_directory_symlink |
                           fs::directory_options::skip_permission_denied;
      for (fs::recursive_directory_iterator it(path, options, ec), end; !ec && it != end;
           it.increment(ec))
        if (it->is_regular_file(ec) && it->path().filename() == "records.jsonl")
          add(it->path().parent_path());
    } else {
      throw InputError("no such run directory", given,
                       "give run directories (holding records.jsonl) or directories of runs");
    }
    if (found == 0)
      throw InputError("holds no run (no records.jsonl at or under it)", given,
                       "give run directories (holding records.jsonl) or directories of runs");
  }
  return {dirs.begin(), dirs.end()};
}

} // namespace railgauge::history
