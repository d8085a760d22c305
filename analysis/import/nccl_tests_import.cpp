#include "analysis/import/nccl_tests_import.h"
#include "analysis/import/nccl_tests_text_rows.h"

#include <algorithm>

#include <cctype>
#include <charconv>
#include <cmath>
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

// A result row's first column, the size: digits, or a number in any notation (a malformed size
// such as 1e30 is then reported, not skipped). A host name ("node01:41001:41001 [0] NCCL INFO",
// "10-0-0-1:...") has other characters.
bool looks_numeric(const std::string &word) {
  return !word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) &&
         word.find_first_not_of("0123456789.eE+-") == std::string::npos;
}

// A launcher's prefix on each line of a captured log: Open MPI's --tag-output "[1,0]<stdout>:"
// and Slurm's srun --label "0: ". Removed so the line reads as nccl-tests printed it.
std::string without_launcher_tag(const std::string &line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos)
    return line;
  if (line[first] == '[') {
    for (const char *tag : {"]<stdout>:", "]<stderr>:"})
      if (const auto at = line.find(tag, first); at != std::string::npos) {
        // mpirun --tag-output also tags each flush, so a row can hold the tag again mid-row
        // ("-1[1,0]<stdout>:    85.70 ..."): every further copy is a separator.
        const std::string whole = line.substr(first, at + std::string_view(tag).size() - first);
        std::string rest = line.substr(at + std::string_view(tag).size());
        for (auto again = rest.find(whole); again != std::string::npos;
             again = rest.find(whole, again + 1))
          rest.replace(again, whole.size(), " ");
        return rest;
      }
    return line;
  }
  std::size_t digits = first;
  while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits])))
    ++digits;
  if (digits > first && digits + 1 < line.size() && line[digits] == ':' && line[digits + 1] == ' ')
    return line.substr(digits + 2);
  return line;
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

std::vector<std::string> rank_hosts(const std::vector<std::string> &rank_lines) {
  std::vector<std::string> hosts;
  for (const auto &line : rank_lines) {
    std::istringstream words(line);
    for (std::string w; words >> w;)
      if (w == "on" && words >> w) {
        if (std::find(hosts.begin(), hosts.end(), w) == hosts.end())
          hosts.push_back(w);
        break;
      }
  }
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
  for (auto &r : records) {
    if (r.status == Status::error)
      continue;
    // The names railgauge's own collective records use for the group a point ran on: the log's
    // ranks are one group, the world.
    r.params[collectives::record::kWorldSize] = rank_lines.size();
    r.params[collectives::record::kGroupSize] = rank_lines.size();
    if (!hosts.empty())
      r.params[collectives::record::kGroupHosts] = hosts.size();
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

namespace {

// Every failure line counts; at most kMaxFailuresKept are kept, the last of them, once there
// are more, saying how many more (a log of nothing but failure lines must not fill the memory).
struct FailureLines {
  std::size_t seen = 0;

  // `first_record`: the record count where the failed run's rows began.
  void add(NcclTestsImport &out, std::string line, std::size_t first_record) {
    if (seen == 0) {
      out.failed_kind = out.kind;
      out.failed_after_rows = (out.record_count - first_record) / 2;
    }
    if (++seen <= kMaxFailuresKept)
      out.failures.push_back(std::move(line));
    else
      out.failures.back() =
          fmt::format("... and {} more failure line(s)", seen - kMaxFailuresKept + 1);
  }
};

void end_section(NcclTestsImport &out, TextSection &section, FailureLines &failures,
                 const std::string &where) {
  const auto of_kind = out.kind ? fmt::format(" of {}", to_string(*out.kind)) : "";
  if (section.header_seen && out.record_count == section.first_record &&
      failures.seen == section.first_failure)
    failures.add(out,
                 fmt::format("{}: nccl-tests printed the header of a run{} but no "
                             "result row: the run ended before its first size",
                             where, of_kind),
                 section.first_record);
  // Rows and no end of the sweep after them, and no failure line to say why: the log was cut off
  // (or the run killed) before its last size, so the sizes it never reached are not a pass.
  else if (out.record_count > section.first_record && !section.end_seen &&
           failures.seen == section.first_failure)
    failures.add(out,
                 fmt::format("{}: {} result row(s){} and no '# Avg bus bandwidth' line "
                             "after them: the log ends before nccl-tests' last size (cut "
                             "off, or the run was killed)",
                             where, (out.record_count - section.first_record) / 2, of_kind),
                 section.first_record);
  section.first_record = out.record_count;
  section.first_failure = failures.seen;
  section.ranks.clear();
  section.header_seen = false;
  section.zero_row_seen = false;
  section.end_seen = false;
  section.layout = {};
  section.out_of_bounds = 0;
}

} // namespace

std::string network_of_nccl_line(std::string_view line) {
  const auto has = [&](std::string_view part) { return line.find(part) != line.npos; };
  if (!has("NCCL INFO"))
    return {};
  if (const auto at = line.find("NET/IB : Using"); at != line.npos) {
    const auto devices = line.substr(at);
    return devices.find("/RoCE") != devices.npos ? "roce"
           : devices.find("/IB") != devices.npos ? "ib"
                                                 : "";
  }
  if (has("NET/Socket : Using"))
    return "socket";
  if (has("NET/AWS Libfabric") || has("NET/OFI"))
    return "libfabric";
  return {};
}

namespace {

// "Out of bounds values : 4 FAILED" in a log of the `error` layout: nccl-tests' own count, beside
// the halves the rows' errors put above its bound. Each thread of each process judges its own
// largest error and the counts are summed (src/common.cu at 8274cb4), while a row prints the
// largest of all: a half out of bounds counts once to as many times as there are threads, so the
// two agree when both are zero or nccl-tests' is at least the rows'. The rows print their error
// to one digit (and cannot be judged without rank lines): where the two disagree, nccl-tests'
// count stands and the run is not a pass.
void check_out_of_bounds(const std::string &text, NcclTestsImport &out, const TextSection &section,
                         FailureLines &failures, const std::string &where) {
  if (!section.layout.max_error)
    return; // a count of wrong elements per row says it all
  const auto colon = text.find(':');
  std::istringstream rest(colon == std::string::npos ? "" : text.substr(colon + 1));
  std::string count;
  rest >> count;
  const auto counted = integer(count);
  if (counted && (*counted == 0) == (section.out_of_bounds == 0) &&
      *counted >= section.out_of_bounds)
    return;
  failures.add(out,
               fmt::format("{}: nccl-tests counted {} out-of-bounds value(s) in this run, its "
                           "rows' printed errors give {}{}",
                           where, counted ? std::to_string(*counted) : "'" + count + "'",
                           section.out_of_bounds,
                           section.ranks.empty() ? " (no rank lines to bound them by)" : ""),
               section.first_record);
}

// A "#" line's text after the '#': a new run's start, the version, the -I 1 header, a rank
// line or the average bus bandwidth.
void read_comment_line(const std::string &body, std::optional<Kind> kind, NcclTestsImport &out,
                       TextSection &section, FailureLines &failures, const std::string &where) {
  if (const auto at = body.find("Collective test starting: "); at != std::string::npos) {
    end_section(out, section, failures, where);
    section.per_iteration = false;
    section.header_seen = true;
    std::string name = body.substr(at + 26);
    name = name.substr(0, name.find_first_of(" \t\r"));
    // all_reduce_perf, or a renamed build such as all_reduce_perf_mpi
    if (const auto perf = name.find("_perf"); perf != std::string::npos && perf > 0)
      name.resize(perf);
    if (!kind)
      out.kind = parse_kind(name);
  }
  if (const auto at = body.find("nccl-tests version "); at != std::string::npos)
    out.about["version_line"] = std::string(trimmed(body.substr(at)));
  if (body.find("i_min") != std::string::npos)
    section.per_iteration = true;
  if (auto layout = row_layout_of_header(body))
    section.layout = *layout;
  std::istringstream words(body);
  std::string w;
  words >> w;
  if (w == "Rank") {
    out.ranks.push_back(body.substr(body.find("Rank")));
    section.ranks.push_back(out.ranks.back());
  }
  if (const auto at = body.find("Out of bounds values"); at != std::string::npos) {
    section.end_seen = true;
    check_out_of_bounds(body.substr(at), out, section, failures, where);
  }
  if (const auto at = body.find("Avg bus bandwidth"); at != std::string::npos) {
    section.end_seen = true;
    // "# Avg bus bandwidth    : 475.782 " (a space after the figure in most logs)
    out.avg_busbw_gbytes_per_s =
        finite_number(std::string(trimmed(body.substr(body.find(':', at) + 1))));
  }
}

// "node01: Test CUDA failure common.cu:891 'out of memory'" and the " .. node01 pid 4242:
// Test failure common.cu:1454" after it: nccl-tests stopped here.
bool is_failure_line(const std::string &line) {
  return line.find("Test failure") != std::string::npos ||
         line.find("Test CUDA failure") != std::string::npos ||
         line.find("Test NCCL failure") != std::string::npos;
}

} // namespace

NcclTestsImport import_nccl_tests_text(std::istream &in, const std::string &where,
                                       std::optional<Kind> kind, const std::string &run,
                                       const std::string &host) {
  std::vector<Record> records;
  auto out = import_nccl_tests_text(in, where, kind, run, host,
                                    [&records](Record r) { records.push_back(std::move(r)); });
  out.records = std::move(records);
  return out;
}

NcclTestsImport import_nccl_tests_text(std::istream &in, const std::string &where,
                                       std::optional<Kind> kind, const std::string &run,
                                       const std::string &host, const RecordSink &sink) {
  NcclTestsImport out;
  out.kind = kind;
  TextSection section;
  FailureLines failures;
  std::optional<InputError> cut_row; // a result row that could not be read, and its line
  int cut_row_line = 0;
  LineReader lines(in, where, kGiveTextOutput);
  std::string line;
  while (lines.next(line)) {
    const int line_no = lines.line_number();
    line = without_launcher_tag(line);
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos)
      continue;
    // A row that could not be read is the log cut mid-line only where it is the file's last
    // line: anywhere else, the file is not nccl-tests' output as it printed it.
    if (cut_row)
      throw *cut_row;
    if (line[first] == '#') {
      read_comment_line(line.substr(first + 1), kind, out, section, failures, where);
      continue;
    }
    if (is_failure_line(line)) {
      failures.add(out, fmt::format("{}:{}: {}", where, line_no, trimmed(line)),
                   section.first_record);
      continue;
    }
    std::istringstream cols(line);
    std::vector<std::string> f;
    for (std::string w; cols >> w;)
      f.push_back(w);
    // A result row starts with its size in bytes. Anything else in a captured log (NCCL_DEBUG's
    // "host:pid:tid [0] NCCL INFO ..." lines, a launcher's messages) is not nccl-tests' table.
    // A line of other blanks only (form feed, vertical tab, '\r') has no words at all.
    if (f.empty() || !looks_numeric(f[0])) {
      ++out.other_lines;
      // A shell's echo of the command ("[root@test ~]# ./build/all_reduce_perf -b 8 ...") names
      // the collective of a log that stops before nccl-tests' own header names it.
      if (!out.kind && !section.header_seen)
        for (const auto &w : f)
          if (const auto named = kind_of_binary(w)) {
            out.kind = named;
            break;
          }
      // An IB or RoCE device wins over the socket NCCL names when it found none.
      if (const auto net = network_of_nccl_line(line);
          !net.empty() && (out.network.empty() || out.network == "socket")) {
        out.network = net;
        out.network_line = std::string(trimmed(line));
      }
      continue;
    }
    if (!out.kind && !section.header_seen)
      throw InputError(fmt::format("line {} is a row of numbers with no nccl-tests header "
                                   "('#  size  count  type ...') nor 'Collective test starting' "
                                   "line above it: this may not be nccl-tests output",
                                   line_no),
                       where,
                       "give the output of an nccl-tests *_perf binary (perftest's ib_*_bw and "
                       "ib_*_lat output: railgauge import perftest); for a log cut below its "
                       "header, name the collective with --kind (e.g. --kind all_reduce)");
    if (!out.kind)
      throw InputError("cannot tell which collective this nccl-tests output measured", where,
                       "name it with --kind (e.g. --kind all_reduce): the file has no "
                       "'Collective test starting' line");
    try {
      read_result_row(f, fmt::format("{}:{}", where, line_no), section, out, run, host, sink);
    } catch (const ShortResultRow &e) {
      cut_row = e;
      cut_row_line = line_no;
    }
  }
  if (cut_row)
    failures.add(out,
                 fmt::format("{}:{}: the last line is a result row cut short ({}): the log was "
                             "cut off mid-line, or the run killed",
                             where, cut_row_line,
                             // the problem less its guess at another tool's file: a cut last
                             // line is nccl-tests' own, header or not
                             cut_row->problem().substr(0, cut_row->problem().find(", and no "))),
                 section.first_record);
  end_section(out, section, failures, where);
  if (out.record_count == 0 && out.failures.empty())
    throw InputError(
        fmt::format("no nccl-tests result row found{}",
                    out.other_lines > 0
                        ? fmt::format(" ({} line(s) that are not nccl-tests' were skipped)",
                                      out.other_lines)
                        : ""),
        where, "give the text output of an nccl-tests *_perf binary, or its JSON from -J");
  return out;
}

} // namespace railgauge::importers
