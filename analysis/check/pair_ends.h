#pragma once
// The two ends of a pair's point run across ranks (rdma.<verb>_lat and _bw with mode=ranks: rank 0
// measures against rank 1, docs/rdma.md). The measuring end's record holds the pair's figure; the
// other end's says role "server" and holds its own port counters only. A rule on the figure does
// not apply to the server end (it once failed a healthy pair's second node for "no such metric"),
// and a violation of the figure, or a failed measuring end, is the pair's: either end, or the path
// between them, may be at fault, so it is charged to the server end's NIC too. Pure: check over
// run directories and over the fleet history judge with it.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "harness/record.h"

namespace railgauge::check {

// The record is the server end of a pair's point (metrics.role "server").
bool is_pair_server_end(const Record &r);

// A rule's figure the server end `r` holds none of by design: a pair's figure, not the end's own
// port counters (metrics.port_counter_deltas...), which it holds and which are judged there.
bool pair_figure_on_server_end(const Record &r, const std::string &metric);

// Why a rule's figure does not apply to a server end, for its not-applicable note.
std::string pair_server_end_detail();

// A pair point's measuring end: its key is rdma.*, its mode "ranks", and it is no server end.
bool is_pair_measuring_end(const Record &r);

class PairEnds {
public:
  // A server end of run `run_id` in directory `dir`, judged on `part`.
  void add_server_end(const std::string &run_id, const std::string &dir, const Record &r,
                      const PartKey &part);
  // A measuring end of run `run_id` (ok or not): its server end's pair was run.
  void add_measuring_end(const std::string &run_id, const Record &r);
  bool empty() const { return ends_.empty(); }

  // The server end's part and `f` restated there, filed in the server end's run, where `f` is a
  // violation of the pair's figure (not of the measuring end's own port counters) or a failed
  // record of a pair point's measuring end in run `run_id` on `part`, and its server end is on
  // another part; nullopt otherwise.
  std::optional<std::pair<PartKey, Finding>>
  charged_to_server_end(const std::string &run_id, const PartKey &part, const Finding &f) const;

  // A missing finding at fail on each server end whose measuring end left no record of the
  // point: the pair was not measured, and the server end's not-applicable figures must not pass
  // it.
  std::vector<std::pair<PartKey, Finding>> unmeasured_server_ends() const;

private:
  struct End {
    nlohmann::json params;
    PartKey part;
    std::string dir;
  };
  std::map<std::pair<std::string, std::string>, std::vector<End>> ends_; // (run id, key)
  std::map<std::pair<std::string, std::string>, std::vector<nlohmann::json>> measured_;
};

} // namespace railgauge::check
