// Slurm's topology.conf for the topology/tree plugin (man 5 topology.conf): one line a switch
// and its children, nodes or switches, in Slurm's hostlist expressions,
//
//   SwitchName=s0 Nodes=dev[0-5]
//   SwitchName=s3 Switches=s[0-2]
//
// Keys are case-insensitive and '#' starts a comment. Slurm names no NIC and no port: each node
// is one link ("link") to its switch, and each parent-child pair of switches one uplink. A
// switch line with Nodes= is a leaf; a switch whose children are switches that are themselves
// parents (a third tier) gives cables that build_topology sets aside, said. Other lines
// (LinkSpeed, topology/block's BlockName=) are noted where they are.
#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool number(const std::string &s) {
  return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
}

// The most one hostlist may name, and the most bytes of names a whole file may expand to: the
// largest clusters have tens of thousands of nodes, and one line of "[0-999999]" over long names
// once expanded to 180 MB (over 10 s under the sanitizers, found by fuzz_topology_readers).
constexpr std::size_t kMostNamesPerHostlist = 100000;
constexpr std::size_t kMostNameBytesPerFile = std::size_t{64} << 20;

// "tux[0-3,12]" -> tux0 tux1 tux2 tux3 tux12; "a,b[01-02]" -> a b01 b02 (zero padding kept).
std::vector<std::string> expand_hostlist(const std::string &text, const std::string &here) {
  std::vector<std::string> out;
  std::size_t start = 0;
  int depth = 0;
  std::vector<std::string> parts;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      if (i > start)
        parts.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (text[i] == '[') {
      ++depth;
    } else if (text[i] == ']') {
      --depth;
    }
  }
  for (const auto &part : parts) {
    const auto open = part.find('['), close = part.find(']');
    if (open == std::string::npos) {
      out.push_back(part);
      continue;
    }
    if (close == std::string::npos || close < open)
      throw InputError(fmt::format("hostlist '{}' has an unclosed '['", part), here,
                       "write ranges as prefix[0-3,7]");
    const auto prefix = part.substr(0, open), rest = part.substr(close + 1);
    const auto tails = rest.empty() ? std::vector<std::string>{""} : expand_hostlist(rest, here);
    std::istringstream ranges(part.substr(open + 1, close - open - 1));
    for (std::string range; std::getline(ranges, range, ',');) {
      const auto dash = range.find('-');
      const auto lo_text = range.substr(0, dash);
      const auto hi_text = dash == std::string::npos ? lo_text : range.substr(dash + 1);
      if (!number(lo_text) || !number(hi_text))
        throw InputError(fmt::format("hostlist range '{}' in '{}' is not N or N-M", range, part),
                         here, "write ranges as prefix[0-3,7]");
      const long lo = std::stol(lo_text), hi = std::stol(hi_text);
      if (hi < lo || hi - lo > 1000000)
        throw InputError(fmt::format("hostlist range '{}' runs backwards or past a million", range),
                         here, "write ranges low-high, as prefix[0-3]");
      for (long n = lo; n <= hi; ++n)
        for (const auto &tail : tails) {
          // A host name is at most 255 characters (RFC 1123): so is a million of them bounded.
          if (prefix.size() + lo_text.size() + 9 + tail.size() > 255)
            throw InputError(fmt::format("hostlist '{}' makes names over 255 characters", part),
                             here, "give host names as Slurm's slurm.conf has them");
          out.push_back(prefix + fmt::format("{:0>{}}", n, lo_text.size()) + tail);
          if (out.size() > kMostNamesPerHostlist)
            throw InputError(
                fmt::format("hostlist '{}' names over {} nodes", part, kMostNamesPerHostlist), here,
                "give the fabric's own topology.conf");
        }
    }
  }
  return out;
}
} // namespace

std::vector<RawCable> read_slurm_topology(const std::string &text, const std::string &where,
                                          ReadNotes *notes) {
  std::vector<RawCable> cables;
  std::istringstream in(text);
  // Slurm itself caps a line at 1024 characters (man 5 topology.conf).
  LineReader lines(in, where, "give Slurm's topology.conf (SwitchName= lines)");
  std::string line;
  int switches = 0;
  std::size_t name_bytes = 0;
  while (lines.next(line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string sw, field;
    std::vector<std::pair<std::string, std::string>> children; // key, value
    while (fields >> field) {
      const auto eq = field.find('=');
      const auto key = lower(field.substr(0, eq));
      const auto value = eq == std::string::npos ? "" : field.substr(eq + 1);
      if (key == "switchname")
        sw = value;
      else if (key == "nodes" || key == "switches")
        children.emplace_back(key, value);
      else if (key != "linkspeed" && notes)
        notes->unread.push_back(
            fmt::format("{}: '{}': not a key of topology/tree's lines", lines.here(), field));
    }
    if (sw.empty()) {
      if (notes && line.find_first_not_of(" \t") != std::string::npos)
        notes->unread.push_back(fmt::format("{}: '{}': no SwitchName=", lines.here(), line));
      continue;
    }
    ++switches;
    for (const auto &[key, value] : children)
      for (const auto &child : expand_hostlist(value, lines.here())) {
        if ((name_bytes += child.size()) > kMostNameBytesPerFile)
          throw InputError(fmt::format("the hostlists expand to over {} MiB of names",
                                       kMostNameBytesPerFile >> 20),
                           lines.here(), "give the fabric's own topology.conf");
        if (key == "nodes")
          cables.push_back({child, "link", sw, "", true, 0});
        else
          cables.push_back({sw, "", child, "", false, -1});
      }
  }
  if (cables.empty())
    throw InputError("no SwitchName= line with Nodes= or Switches=", where,
                     "give Slurm's topology.conf for topology/tree");
  if (notes)
    notes->switches = switches;
  return cables;
}

} // namespace railgauge::rdma::fabric
