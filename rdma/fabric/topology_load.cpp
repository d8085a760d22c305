// load_topology: a topology file or directory read by its form (topology_readers.h), with what
// the reader could not use kept on the Topology for `railgauge fabric show` to say.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {
namespace {

// Bounded (harness/bounded_input.h): a FIFO, a device or a file of no end is refused by name.
std::string slurp(const std::filesystem::path &path) {
  return read_bounded_file(path.string(),
                           "give a readable YAML file, ibnetdiscover output, topology.conf, "
                           "NetQ or lldpctl JSON, or an lldpctl directory (a regular file: not a "
                           "FIFO, a device or a process substitution)");
}

std::vector<LldpTable> lldp_tables(const std::filesystem::path &dir) {
  std::vector<LldpTable> tables;
  for (const auto &[sub, is_host] : {std::pair{"hosts", true}, std::pair{"switches", false}}) {
    if (!std::filesystem::is_directory(dir / sub))
      continue;
    std::vector<std::filesystem::path> files;
    for (const auto &f : std::filesystem::directory_iterator(dir / sub))
      if (f.path().extension() == ".json")
        files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto &f : files)
      tables.push_back({f.stem().string(), is_host, slurp(f), f.string()});
  }
  if (tables.empty())
    throw InputError("no lldpctl tables", dir.string(),
                     "put each host's `lldpctl -f json` output in hosts/<host>.json (and each "
                     "leaf's in switches/<leaf>.json)");
  return tables;
}

bool json_text(const std::string &text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && (text[first] == '{' || text[first] == '[');
}

bool lldp_json(const std::string &text) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  return doc.is_object() && doc.contains("lldp");
}

// Slurm's file: a SwitchName= line (keys are case-insensitive) among its first hundred.
bool slurm_text(const std::string &text) {
  std::istringstream in(text);
  std::string line;
  for (int n = 0; n < 100 && std::getline(in, line); ++n) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos)
      continue;
    std::string head = line.substr(first, 11);
    std::transform(head.begin(), head.end(), head.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (head == "switchname=")
      return true;
  }
  return false;
}

std::vector<RawCable> read_file(const std::filesystem::path &path, const std::string &where,
                                const LoadOptions &options, ReadNotes &notes) {
  const auto ext = path.extension().string();
  if (ext == ".yaml" || ext == ".yml")
    return read_topology_yaml(slurp(path), where);
  const auto text = slurp(path);
  if (json_text(text)) {
    if (!lldp_json(text))
      return read_netq_topology(text, where, &notes);
    const auto host = options.host.empty() ? path.stem().string() : options.host;
    return read_lldpctl_json({{host, true, text, where}}, &notes);
  }
  if (slurm_text(text))
    return read_slurm_topology(text, where, &notes);
  auto map_path = options.guid_map.empty() ? path : std::filesystem::path(options.guid_map);
  if (options.guid_map.empty())
    map_path.replace_extension(".map");
  else if (!std::filesystem::exists(map_path))
    throw InputError("no such GUID map", options.guid_map,
                     "give a file of 'H-<guid> <hostname>' lines");
  const auto names = std::filesystem::exists(map_path) ? read_guid_map(slurp(map_path))
                                                       : std::map<std::string, std::string>();
  return read_ibnetdiscover(text, where, names, &notes);
}

} // namespace

Topology load_topology(const std::string &path_text, const LoadOptions &options) {
  const std::filesystem::path path(path_text);
  ReadNotes notes;
  const auto cables = std::filesystem::is_directory(path)
                          ? read_lldpctl_json(lldp_tables(path), &notes)
                          : read_file(path, path_text, options, notes);
  auto t = build_topology(cables, path_text);
  t.unread = std::move(notes.unread);
  // In the file's order: a reader notes some lines as it reads and others when it names hosts.
  const auto line_of = [&](const std::string &note) {
    const auto prefix = path_text + ":";
    if (note.rfind(prefix, 0) != 0)
      return 0L;
    return std::strtol(note.c_str() + prefix.size(), nullptr, 10);
  };
  std::stable_sort(t.unread.begin(), t.unread.end(),
                   [&](const auto &x, const auto &y) { return line_of(x) < line_of(y); });
  t.unresolved = std::move(notes.unresolved);
  t.switches_read = notes.switches;
  return t;
}

} // namespace railgauge::rdma::fabric
