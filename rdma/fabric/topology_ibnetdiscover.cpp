// ibnetdiscover's topology file (infiniband-diags, man ibnetdiscover(8)): blocks of
//
//   switchguid=0x8f10500200b50(8f10500200b50)
//   Switch  36 "S-0008f10500200b50"   # "Voltaire 4036 - 36 QDR ports switch" enhanced port 0 lid 9
//   [4]     "H-003048c749cd0000"[1](3048c749cd0001)   # "MT25408 ConnectX Mellanox ..." lid 72
//   4xDDR [16]    "S-0008f10500108098"[8]                   # "Voltaire 4036 ..." lid 20 4xQDR
//
// and "Ca" blocks for the hosts. Every cable appears in a switch block, so those are read;
// a Ca block is read for the host's NodeDescription only. Lines are split by hand rather than
// by std::regex: a million-line dump of a large subnet is read in seconds this way, where
// libstdc++'s regex took several microseconds a line. Tabs lost to a terminal capture are
// spaces here, and CRLF line ends are read as LF (harness/bounded_input.h).
#include <algorithm>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "rdma/fabric/ibnetdiscover_names.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {
namespace {

// A cursor over one line.
struct Cursor {
  std::string_view s;
  void skip_space() {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
      s.remove_prefix(1);
  }
  bool eat(char c) {
    if (s.empty() || s.front() != c)
      return false;
    s.remove_prefix(1);
    return true;
  }
  std::string_view until(char c) { // up to c, which is eaten; empty and unmoved if absent
    const auto at = s.find(c);
    if (at == std::string_view::npos)
      return {};
    const auto out = s.substr(0, at);
    s.remove_prefix(at + 1);
    return out;
  }
  std::string_view digits() {
    std::size_t n = 0;
    while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n])))
      ++n;
    const auto out = s.substr(0, n);
    s.remove_prefix(n);
    return out;
  }
  bool skip_paren() { // "(hex)" when there is one
    if (!eat('('))
      return true;
    return !until(')').empty();
  }
};

bool node_id(std::string_view id) {
  return id.size() > 2 && (id[0] == 'S' || id[0] == 'H' || id[0] == 'R') && id[1] == '-' &&
         std::all_of(id.begin() + 2, id.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// `# "desc"` (after an optional "lid N lmc N "), or nothing.
std::string comment_description(Cursor c) {
  c.skip_space();
  if (!c.eat('#'))
    return "";
  const auto open = c.s.find('"');
  if (open == std::string_view::npos)
    return "";
  c.s.remove_prefix(open + 1);
  return std::string(c.until('"'));
}

struct NodeLine {
  std::string kind, id, description;
};

// `Switch 36 "S-..." # "desc" ...`, `Ca 2 "H-..." # "desc"`, `Rt ...`.
bool read_node_line(std::string_view line, NodeLine &out) {
  Cursor c{line};
  for (const char *kind : {"Switch", "Ca", "Rt"})
    if (line.rfind(kind, 0) == 0) {
      out.kind = kind;
      c.s.remove_prefix(std::string_view(kind).size());
      break;
    }
  if (out.kind.empty())
    return false;
  c.skip_space();
  if (c.digits().empty())
    return false;
  c.skip_space();
  if (!c.eat('"'))
    return false;
  out.id = std::string(c.until('"'));
  if (!node_id(out.id))
    return false;
  out.description = comment_description(c);
  return true;
}

struct PortLine {
  std::string port, far, far_port, description;
};

// `[4](portguid) "H-..."[1](portguid) # "desc" lid 72 4xQDR`.
bool read_port_line(std::string_view line, PortLine &out) {
  Cursor c{line};
  if (!c.eat('['))
    return false;
  out.port = std::string(c.digits());
  if (out.port.empty() || !c.eat(']') || !c.skip_paren())
    return false;
  c.skip_space();
  if (!c.eat('"'))
    return false;
  out.far = std::string(c.until('"'));
  if (!node_id(out.far) || !c.eat('['))
    return false;
  out.far_port = std::string(c.digits());
  if (out.far_port.empty() || !c.eat(']') || !c.skip_paren())
    return false;
  out.description = comment_description(c);
  return true;
}

// The lines ibnetdiscover prints that hold no cable: its header comments and each node's ids.
bool known_other_line(std::string_view line) {
  for (const char *prefix :
       {"#", "vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "routerguid="})
    if (line.rfind(prefix, 0) == 0)
      return true;
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

bool ports_form(const std::string &text) {
  std::istringstream in(text);
  LineReader lines(in, "", "");
  std::string line;
  while (lines.next(line) && lines.line_number() < 50) {
    if (line.rfind("Switch", 0) == 0 || line.rfind("Ca", 0) == 0 || line.rfind("[", 0) == 0)
      return false;
    if (line.rfind("CA ", 0) == 0 || line.rfind("SW ", 0) == 0)
      return true;
  }
  return false;
}

void unreadable(const std::string &line, const std::string &here, ReadNotes *notes) {
  if (!notes)
    throw InputError(fmt::format("unreadable port line '{}'", line), here,
                     "give ibnetdiscover's own output (no -l or -g listings)");
  notes->unread.push_back(
      fmt::format("{}: '{}': not a port line ibnetdiscover prints", here, line));
}

} // namespace

std::vector<RawCable> read_ibnetdiscover(const std::string &text, const std::string &where,
                                         const std::map<std::string, std::string> &guid_names,
                                         ReadNotes *notes) {
  if (ports_form(text))
    return read_ibnetdiscover_ports(text, where, guid_names, notes);
  IbNames names(guid_names);
  std::vector<SeenPort> seen;
  std::istringstream in(text);
  LineReader lines(in, where,
                   "give ibnetdiscover's own output (its lines are a few hundred "
                   "characters at most)");
  std::string line, current, current_kind;
  NodeLine node;
  PortLine port;
  while (lines.next(line)) {
    if (node = NodeLine{}; read_node_line(line, node)) {
      current_kind = node.kind, current = node.id;
      if (node.kind == "Switch")
        names.add_switch(node.id, node.description);
      continue;
    }
    if (line.empty() || line[0] != '[') {
      if (!known_other_line(line) && notes)
        notes->unread.push_back(
            fmt::format("{}: '{}': not a line of ibnetdiscover's", lines.here(), line));
      continue;
    }
    if (current.empty())
      throw InputError("a port line before any Switch or Ca line", lines.here(),
                       "give the whole output of ibnetdiscover, from its first line");
    if (!read_port_line(line, port)) {
      unreadable(line, lines.here(), notes);
      continue;
    }
    if (current_kind != "Switch")
      continue;
    if (port.far[0] == 'S')
      names.add_switch(port.far, port.description, false);
    seen.push_back({current, port.port, port.far, port.far_port, port.description, lines.here()});
  }
  if (seen.empty())
    throw InputError("no switch with a cabled port", where,
                     "give the output of `ibnetdiscover` run on a node of the fabric");
  return names.cables(seen, notes);
}

} // namespace railgauge::rdma::fabric
