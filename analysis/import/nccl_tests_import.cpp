#include "analysis/import/nccl_tests_import.h"
#include "analysis/import/launcher_text.h"
#include "analysis/import/nccl_tests_text_rows.h"

#include <algorithm>

#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "harness/metric_names.h"
#include "harness/number_text.h"
#include "records/collective_point_fields.h"
#include "records/peer_record.h"

namespace railgauge::importers {
namespace {

std::string dtype_name(const std::string &t) {
  if (t == "float")
    return "float32";
  if (t == "double")
    return "float64";
  if (t == "half")
    return "fp16";
  if (t == "bfloat16")
    return "bf16";
  return t; // int8, int32, uint64, f8e4m3, ... as nccl-tests names them
}

} // namespace

Record nccl_tests_record(const NcclTestsHalf &half, Kind kind, const std::string &run,
                         const std::string &host) {
  Record r;
  r.run = run;
  r.host = host;
  namespace c = collectives::record;
  r.key = c::keys_of(kind).nccl;
  r.params = {{c::kSizeBytes, half.size_bytes},
              {peer::record::kCount, half.count},
              {c::kDtype, dtype_name(half.type)},
              {c::kInPlace, half.in_place ? "in_place" : "out_of_place"},
              {c::kSource, c::kSourceNcclTests}};
  // nccl-tests prints a redop for sendrecv too ("sum"): only the kinds that reduce take one,
  // as railgauge's own records have it, so that `railgauge compare` pairs them.
  if (half.redop != "none" && collectives::reduces(kind))
    r.params[c::kOp] = half.redop;
  // An integer, as railgauge's own records have it, so that `railgauge compare` matches the two.
  if (half.root != "-1") {
    if (const auto root = integer(half.root))
      r.params[c::kRoot] = *root;
    else
      r.params[c::kRoot] = half.root;
  }
  c::CollectiveFields figures;
  if (half.cpu_time) // -C: the process's CPU time, not the wall clock
    figures.cpu_time_s = half.time_us * 1e-6;
  else
    figures.wall_time_s = half.time_us * 1e-6;
  figures.algbw_gbytes_per_s = half.algbw_gbytes_per_s;
  figures.busbw_gbytes_per_s = half.busbw_gbytes_per_s;
  r.status = Status::ok;
  if (half.max_error && half.max_error_bound) {
    if (*half.max_error > *half.max_error_bound) {
      r.status = Status::failed;
      r.reason = fmt::format("nccl-tests' largest error {:g} is above its bound {:g} for {} over "
                             "these ranks: out of bounds",
                             *half.max_error, *half.max_error_bound, half.type);
    } else {
      figures.verified = true;
    }
  }
  // -c 0: no element was compared, which check says of the node (data-check), never a pass
  // on figures a wrong result would not have failed.
  if (!half.wrong && !half.max_error && half.check_off)
    figures.verified = false;
  if (half.wrong) {
    figures.wrong_elements = c::WrongCount(*half.wrong);
    if (*half.wrong > 0) {
      r.status = Status::failed;
      r.reason = fmt::format("nccl-tests counted {} wrong elements", *half.wrong);
    } else {
      figures.verified = true;
    }
  }
  r.metrics = {{metric::kTimer, half.cpu_time
                                    ? "nccl-tests process CPU time (-C), mean over iterations"
                                    : "nccl-tests host wall clock, mean over iterations"}};
  figures.write(r.metrics);
  r.time_utc = utc_timestamp_now();
  return r;
}

Record nccl_tests_failure_record(const NcclTestsImport &import, const std::string &run,
                                 const std::string &host) {
  Record r;
  r.run = run;
  r.host = host;
  const auto kind = import.failed_kind ? import.failed_kind : import.kind;
  r.key = kind ? collectives::record::keys_of(*kind).nccl : collectives::record::kNcclUnknown;
  r.params = {{collectives::record::kSource, collectives::record::kSourceNcclTests}};
  r.status = Status::error;
  r.reason = fmt::format(
      "nccl-tests failed after {} result row(s){}: {}",
      import.failures.empty() ? import.record_count / 2 : import.failed_after_rows,
      kind ? fmt::format(" of {}", to_string(*kind)) : "", fmt::join(import.failures, " | "));
  r.time_utc = utc_timestamp_now();
  return r;
}

namespace {

// The host a rank line names ("... on node01 device 0 ..."), "" where it names none.
std::string rank_host(const std::string &line) {
  std::istringstream words(line);
  for (std::string w; words >> w;)
    if (w == "on" && words >> w)
      return w;
  return "";
}

} // namespace

std::vector<std::string> rank_hosts(const std::vector<std::string> &rank_lines) {
  std::vector<std::string> hosts;
  for (const auto &line : rank_lines)
    if (auto host = rank_host(line);
        !host.empty() && std::find(hosts.begin(), hosts.end(), host) == hosts.end())
      hosts.push_back(std::move(host));
  return hosts;
}

std::vector<std::string> failure_hosts(const std::vector<std::string> &failures) {
  std::vector<std::string> hosts;
  for (const auto &failure : failures) {
    // The text after "WHERE:LINE: ", then "HOST: Test ..."
    constexpr std::string_view kTest = ": Test ";
    const auto test = failure.find(kTest);
    if (test == std::string::npos)
      continue;
    const auto start = failure.rfind(": ", test - 1);
    if (start == std::string::npos)
      continue;
    const std::string host = failure.substr(start + 2, test - start - 2);
    if (!host.empty() && host.find_first_of(" \t") == std::string::npos &&
        std::find(hosts.begin(), hosts.end(), host) == hosts.end())
      hosts.push_back(host);
  }
  return hosts;
}

// "Rank  0 Group  0 Pid 25 on node01 device  0 [0x53] NVIDIA H100 80GB HBM3" -> the text after
// the device's bus id; "" when a line has none.
std::string rank_gpu_name(const std::string &line) {
  const auto device = line.find(" device ");
  if (device == std::string::npos)
    return "";
  const auto close = line.find(']', device);
  return close == std::string::npos ? "" : std::string(trimmed(line.substr(close + 1)));
}

// The GPU model every rank line names, or "" when they name none or differ.
std::string one_gpu_name(const std::vector<std::string> &rank_lines) {
  std::string name;
  for (const auto &line : rank_lines) {
    const auto n = rank_gpu_name(line);
    if (n.empty() || (!name.empty() && n != name))
      return "";
    name = n;
  }
  return name;
}

void add_rank_layout(std::span<Record> records, const std::vector<std::string> &rank_lines) {
  if (rank_lines.empty())
    return;
  const auto hosts = rank_hosts(rank_lines);
  const auto gpu_name = one_gpu_name(rank_lines);
  // Ranks per host where they differ: the 8-GPU floors select ranks_per_host 8, which check
  // derives from an even layout alone, so a pair of 8 + 7 ranks was judged by no floor at all.
  std::map<std::string, std::size_t> per_host;
  for (const auto &line : rank_lines)
    if (auto host = rank_host(line); !host.empty())
      ++per_host[std::move(host)];
  std::size_t most = 0, least = rank_lines.size();
  for (const auto &[host, n] : per_host) {
    most = std::max(most, n);
    least = std::min(least, n);
  }
  for (auto &r : records) {
    if (r.status == Status::error)
      continue;
    // The names railgauge's own collective records use for the group a point ran on: the log's
    // ranks are one group, the world.
    r.params[collectives::record::kWorldSize] = rank_lines.size();
    r.params[collectives::record::kGroupSize] = rank_lines.size();
    if (!hosts.empty())
      r.params[collectives::record::kGroupHosts] = hosts.size();
    if (per_host.size() > 1 && most != least)
      r.params[collectives::record::kRanksPerHost] = most;
    if (!gpu_name.empty())
      r.params[collectives::record::kGpuName] = gpu_name;
  }
}

NcclTestsImport import_nccl_tests(const std::string &text, const std::string &where,
                                  std::optional<Kind> kind, const std::string &run,
                                  const std::string &host) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{')
    return import_nccl_tests_json(text, where, kind, run, host);
  std::istringstream in(text);
  return import_nccl_tests_text(in, where, kind, run, host);
}

} // namespace railgauge::importers
