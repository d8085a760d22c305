#include "analysis/import/launcher_text.h"
#include "analysis/import/nccl_tests_import.h"
#include "analysis/import/nccl_tests_text_failures.h"
#include "analysis/import/nccl_tests_text_rows.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "harness/number_text.h"

// nccl-tests' text output read line by line: its runs (sections), comment lines, failure lines,
// result rows, and what a launcher wrote into the same file.
namespace railgauge::importers {
namespace {

// A result row's first column, the size: digits, or a number in any notation (a malformed size
// such as 1e30 is then reported, not skipped). A host name ("node01:41001:41001 [0] NCCL INFO",
// "10-0-0-1:...") has other characters.
bool looks_numeric(const std::string &word) {
  return !word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) &&
         word.find_first_not_of("0123456789.eE+-") == std::string::npos;
}

} // namespace

namespace {

constexpr const char *kSplitTheLog = "import each run on its own: split the file where the next "
                                     "run starts ('# Collective test starting' or '# nThread')";

// At a section's first row, its rank lines all read: a log whose runs name other hosts was one
// node of them all, the healthy pair drained with the broken one.
void check_section_hosts(TextSection &section, const std::string &where) {
  auto hosts = rank_hosts(section.ranks);
  if (hosts.empty())
    return;
  std::sort(hosts.begin(), hosts.end());
  if (section.file_hosts.empty())
    section.file_hosts = hosts;
  else if (hosts != section.file_hosts)
    throw InputError(fmt::format("the log holds runs on different nodes ({}, then {}), read as "
                                 "one they were one node of them all",
                                 fmt::join(section.file_hosts, "+"), fmt::join(hosts, "+")),
                     where, kSplitTheLog);
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
  const auto colon = text.find(':');
  std::istringstream rest(colon == std::string::npos ? "" : text.substr(colon + 1));
  std::string count;
  rest >> count;
  const auto counted = integer(count);
  if (!section.layout.max_error) {
    // A count of wrong elements per row fails its own rows; nccl-tests' own count stands where
    // no row it kept holds one (a row lost, the failure lines with it).
    if (section.wrong_halves > 0 || (counted == 0 && text.find("FAILED") == std::string::npos))
      return;
    failures.add(out,
                 fmt::format("{}: nccl-tests counted {} out-of-bounds value(s) in this run, and "
                             "no row it printed holds one",
                             where, counted ? std::to_string(*counted) : "'" + count + "'"),
                 section.first_record);
    return;
  }
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

// nccl-tests' "Avg bus bandwidth" is the mean of every half's busbw it printed above, each to two
// decimals: the 87 runs that print one, in the 64 logs under tests/fixtures and results/ and in
// the corpus, all agree within that rounding. A run whose rows were edited or lost in the middle
// (a copy that dropped a size, another process's text glued before a row) imported the rows left
// as the whole sweep, and a rule of the largest size judged the largest left: the real 8 x H100
// log whose 16 GiB all_reduce, under its floor, was lost that way PASSed. It is the run's failure,
// as a log cut short is.
void check_average(NcclTestsImport &out, const TextSection &section, FailureLines &failures,
                   const std::string &where) {
  constexpr double kAverageDigits = 6e-6; // %g prints six significant digits
  const auto printed = out.avg_busbw_gbytes_per_s;
  if (!printed || section.printed_busbw.halves == 0)
    return;
  const auto halves = static_cast<double>(section.printed_busbw.halves);
  const double mean = section.printed_busbw.sum / halves;
  // Each row rounded to its last printed digit: two decimals, and from nccl-tests 2.17 fewer
  // where the figure is wider (1234.6, 12346, 1e+06).
  const double rounding = section.printed_busbw.rounding_sum / halves;
  if (std::fabs(mean - *printed) <= rounding * 1.02 + kAverageDigits * std::fabs(*printed))
    return;
  failures.add(
      out,
      fmt::format("{}: nccl-tests printed an average bus bandwidth of {} GB/s, and the {} result "
                  "row(s) above it average {:.4f}: rows are missing or were changed, so the sweep "
                  "is not whole as nccl-tests printed it",
                  where, *printed, section.printed_busbw.halves / 2, mean),
      section.first_record);
}

// A "#" line's text after the '#': a new run's start, the version, the -I 1 header, a rank
// line or the average bus bandwidth.
void read_comment_line(const std::string &body, std::optional<Kind> kind, NcclTestsImport &out,
                       TextSection &section, FailureLines &failures, const std::string &where) {
  if (const auto at = body.find("Collective test starting: "); at != std::string::npos) {
    end_section(out, section, failures, where, true);
    section.per_iteration = false;
    section.header_seen = true;
    std::string name = body.substr(at + 26);
    name = name.substr(0, name.find_first_of(" \t\r"));
    // all_reduce_perf, or a renamed build such as all_reduce_perf_mpi
    if (const auto perf = name.find("_perf"); perf != std::string::npos && perf > 0)
      name.resize(perf);
    if (!kind)
      out.kind = parse_kind(name);
    else if (const auto named = parse_kind(name); named && *named != *kind)
      throw InputError(fmt::format("the log's header names {}_perf, and --kind names {}: its rows "
                                   "would be recorded as another collective's",
                                   to_string(*named), to_string(*kind)),
                       where, "leave --kind out: the header names the collective");
  }
  if (const auto at = body.find("nccl-tests version "); at != std::string::npos)
    out.about["version_line"] = std::string(trimmed(body.substr(at)));
  std::istringstream words(body);
  std::string w;
  words >> w;
  // Every run prints "# nThread ..." first after its "Collective test starting" (when it has
  // one): a second in a section is another run, appended to the same log.
  if (w == "nThread") {
    if (section.nthread_seen) {
      end_section(out, section, failures, where, true);
      section.per_iteration = false;
      // Another run with no header or echoed command to name its collective: --kind or the
      // file's name named the first run's, and the next run's rows (all_gather's after
      // all_reduce's) were judged as that collective's.
      if (!section.next_kind && out.kind)
        throw InputError(fmt::format("another run starts here (a second '# nThread' line) and "
                                     "nothing names its collective: no 'Collective test "
                                     "starting' line nor echoed command; {}, given by --kind "
                                     "or the file's name, names one collective, not each run's",
                                     to_string(*out.kind)),
                         where, kSplitTheLog);
      if (!kind && section.next_kind)
        out.kind = section.next_kind;
    }
    section.next_kind.reset();
    section.nthread_seen = true;
    section.header_seen = true;
    if (const auto at = body.find("validation: "); at != std::string::npos) {
      std::string value;
      std::istringstream(body.substr(at + std::string_view("validation: ").size())) >> value;
      section.validation_off = integer(value) == 0;
    }
  }
  if (body.find("i_min") != std::string::npos)
    section.per_iteration = true;
  if (auto layout = row_layout_of_header(body)) {
    section.layout = *layout;
    section.header_seen = true;
  }
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
    section.warnings = section.warnings_at_last_row = {}; // the next warnings are the next run's
    // "# Avg bus bandwidth    : 475.782 " (a space after the figure in most logs), and with
    // NCCL_TESTS_MIN_BW set, "475.782 OK" or "... FAILED" (nccl-tests then exits non-zero).
    std::istringstream after(body.substr(body.find(':', at) + 1));
    std::string figure, said;
    after >> figure >> said;
    out.avg_busbw_gbytes_per_s = finite_number(figure);
    check_average(out, section, failures, where);
    if (said == "FAILED")
      failures.add(out,
                   fmt::format("{}: nccl-tests' average bus bandwidth {} is below the "
                               "NCCL_TESTS_MIN_BW it was given: it FAILED the run",
                               where, figure),
                   section.first_record);
    // A run's average is of its own rows: the next run's start may not be recognised (a log
    // whose first run lost its header), and its rows were averaged with these.
    section.printed_busbw = {};
  }
}

// "node01: Test CUDA failure common.cu:891 'out of memory'" and the " .. node01 pid 4242:
// Test failure common.cu:1454" after it: nccl-tests stopped here.
bool is_failure_line(const std::string &line) {
  return line.find("Test failure") != std::string::npos ||
         line.find("Test CUDA failure") != std::string::npos ||
         line.find("Test NCCL failure") != std::string::npos;
}

// Whether a '#' line's text starts a run: its "Collective test starting", or its "nThread" line
// in a log without that.
bool starts_a_run(const std::string &body) {
  std::istringstream words(body);
  std::string w;
  words >> w;
  return w == "nThread" || body.find("Collective test starting: ") != std::string::npos;
}

// A line that is not nccl-tests' table (NCCL_DEBUG's "host:pid:tid [0] NCCL INFO ..." lines, a
// launcher's messages): counted, and read for what it tells of the run.
void note_other_line(const std::string &line, const std::vector<std::string> &words,
                     NcclTestsImport &out, TextSection &section) {
  ++out.other_lines;
  if (section.kill_notice.empty() && is_kill_notice(line)) {
    section.kill_notice = std::string(trimmed(line));
    section.warnings_at_kill = section.warnings;
  }
  if (line.find(" NCCL WARN ") != std::string::npos)
    section.warnings = {std::string(trimmed(line)), section.warnings.count + 1};
  // A shell's echo of the command ("[root@test ~]# ./build/all_reduce_perf -b 8 ...") names
  // the collective of a log that stops before nccl-tests' own header names it, and, after a
  // run's end, the next run's in a log without "Collective test starting" lines.
  if ((!out.kind && !section.header_seen) || section.end_seen)
    for (const auto &w : words)
      if (const auto named = kind_of_binary(w)) {
        (section.end_seen ? section.next_kind : out.kind) = named;
        break;
      }
  // An IB or RoCE device wins over the socket NCCL names when it found none.
  if (const auto net = network_of_nccl_line(line);
      !net.empty() && (out.network.empty() || out.network == "socket")) {
    out.network = net;
    out.network_line = std::string(trimmed(line));
  }
}

// Before a result row: the collective its records are of, or why it cannot be told.
void require_kind(const NcclTestsImport &out, const TextSection &section, const std::string &where,
                  int line_no) {
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
}

// A row read: the warnings so far are the run's (TextSection::warnings_at_last_row). One point
// twice: two runs of one collective in one log, whose records would be one point
// measured twice (which check refuses), or, read in one order, the rerun hidden behind it.
// Runs of other types or reductions (-d, -o) at the same sizes are other points.
void note_point(Kind kind, const std::vector<std::string> &f, TextSection &section,
                const std::string &here) {
  section.warnings_at_last_row = section.warnings;
  const auto size = integer(f[0]);
  if (!size || *size <= 0)
    return;
  const auto &at = section.layout;
  const std::string redop = at.redop ? f[*at.redop] : "", root = at.root ? f[*at.root] : "";
  const auto point = fmt::format("{} {} {} {} {}", to_string(kind), *size, f[2], redop, root);
  if (section.earlier_points.contains(point))
    throw InputError(fmt::format("{} {}{} at {} bytes again: an earlier run in this log "
                                 "measured it, so the log holds two runs of it",
                                 to_string(kind), f[2], redop.empty() ? "" : " " + redop, *size),
                     here, kSplitTheLog);
  section.points.insert(point);
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
  section.kind_from_caller = kind.has_value();
  FailureLines failures;
  std::optional<InputError> cut_row; // a result row that could not be read, and its line
  int cut_row_line = 0;
  std::string after_cut; // the launcher's first words after the cut row
  LineReader lines(in, where, kGiveTextOutput);
  std::string line;
  while (lines.next(line)) {
    const int line_no = lines.line_number();
    line = without_launcher_tag(line);
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos)
      continue;
    // A row that could not be read is the log cut mid-line only where nothing of nccl-tests'
    // follows it (a launcher's message may): anywhere else, the file is not nccl-tests' output
    // as it printed it.
    if (cut_row && after_cut.empty() && line[first] != '#')
      after_cut = launcher_words(line);
    if (line[first] == '#') {
      // A script's next run after one its launcher cut (a per-step time limit): the cut ends
      // its run as that run's failure, and the next is read. Any other '#' line after a cut
      // row is not nccl-tests' output as it printed it.
      if (cut_row && !starts_a_run(line.substr(first + 1)))
        throw *cut_row;
      if (cut_row) {
        failures.add(out,
                     cut_row_failure(*cut_row, fmt::format("{}:{}", where, cut_row_line), section,
                                     after_cut),
                     section.first_record);
        cut_row.reset();
        after_cut.clear();
        section.kill_notice.clear();
      }
      read_comment_line(line.substr(first + 1), kind, out, section, failures,
                        fmt::format("{}:{}", where, line_no));
      continue;
    }
    if (is_failure_line(line)) {
      const auto at = fmt::format("{}:{}: {}", where, line_no, trimmed(line));
      failures.add(out, at + nccl_warned(section, section.warnings), section.first_record);
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
      note_other_line(line, f, out, section);
      continue;
    }
    require_kind(out, section, where, line_no);
    if (cut_row)
      throw *cut_row;
    const std::string here = fmt::format("{}:{}", where, line_no);
    // A row with a launcher's message glued to it is cut wherever the message starts: even its
    // last value before the message may be a number cut short.
    if (const auto glued = glued_launcher_text(line)) {
      ++out.other_lines;
      cut_row = InputError(fmt::format("a launcher's message follows it on its line: '{}'",
                                       trimmed(line.substr(*glued))),
                           here, kGiveTextOutput);
      cut_row_line = line_no;
      continue;
    }
    if (out.record_count == section.first_record)
      check_section_hosts(section, here);
    try {
      read_result_row(f, here, section, out, run, host, sink);
    } catch (const ShortResultRow &e) {
      cut_row = e;
      cut_row_line = line_no;
      continue;
    }
    note_point(*out.kind, f, section, here);
  }
  if (cut_row)
    failures.add(
        out,
        cut_row_failure(*cut_row, fmt::format("{}:{}", where, cut_row_line), section, after_cut),
        section.first_record);
  end_section(out, section, failures, where, false);
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
