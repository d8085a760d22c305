#include "analysis/import/perftest_import.h"
#include "analysis/import/launcher_text.h"
#include "analysis/import/perftest_text.h"
#include "analysis/import/perftest_units.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "harness/bounded_input.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/metric_names.h"
#include "harness/number_text.h"
#include "records/peer_record.h"
#include "records/rdma_point_fields.h"
#include "records/rdma_record.h"

namespace railgauge::importers {
namespace {

struct TestKind {
  std::string verb; // write, read, send, atomic
  bool latency = false;
  // -b: both sides send at once, and each side prints the sum of its own and its peer's
  // figures (perftest_parameters.c print_report_bw adds rem_bw_rep), never one direction's.
  bool bidirectional = false;
};

// The key of a perftest test: the railgauge benchmark it measures the same way.
const char *perftest_key(const TestKind &kind) {
  namespace rr = rdma::record;
  if (kind.verb == "write")
    return kind.latency ? rr::kWriteLat : rr::kWriteBw;
  if (kind.verb == "read")
    return kind.latency ? rr::kReadLat : rr::kReadBw;
  if (kind.verb == "send")
    return kind.latency ? rr::kSendLat : rr::kSendBw;
  return kind.latency ? rr::kAtomicLat : rr::kAtomicBw;
}

// "RDMA_Write BW Test", "Send Latency Test", "RDMA_Read BW Test", "Atomic FETCH_AND_ADD ...",
// "RDMA_Write Bidirectional BW Test" (-b)
bool parse_title(const std::string &line, TestKind &kind) {
  static const std::regex title(
      R"(^\s*(RDMA_Write(?:_imm)?|RDMA_Read|Send(?:_imm)?|Atomic\S*(?: \S+)?) )"
      R"((Bidirectional )?(?:Post List )?(BW|Latency) (?:forwarding )?(?:Multicast )?Test\s*$)");
  // std::regex matches recursively, a frame per character: a long line (a binary file, a log
  // without newlines) would overflow the stack. A title is a few dozen characters.
  constexpr std::size_t kLongestTitle = 256;
  std::smatch m;
  if (line.size() > kLongestTitle || !std::regex_match(line, m, title))
    return false;
  const std::string verb = m[1];
  // With immediate data (_imm) the verbs are still a WRITE and a SEND.
  kind.verb = verb.rfind("RDMA_Write", 0) == 0 ? "write"
              : verb == "RDMA_Read"            ? "read"
              : verb.rfind("Send", 0) == 0     ? "send"
                                               : "atomic";
  kind.bidirectional = m[2].matched;
  kind.latency = m[3] == "Latency";
  return true;
}

// Where the buffers were: perftest's CUDA lines (--use_cuda) come before the title. Its
// "Picking device No. N" is the CUDA device index, as railgauge's memory=gpu:N.
struct BufferPlace {
  std::string memory = "host", gpu_name, gpu_registration;
  std::optional<int> gpu_index;
};

// One line before the title: what it says about where the buffers are.
void note_buffer_line(const std::string &t, BufferPlace &place) {
  if (t.find("GPU buffer") != std::string::npos)
    place.memory = "gpu";
  if (t.rfind("Picking device No. ", 0) == 0)
    place.gpu_index = std::atoi(t.c_str() + std::strlen("Picking device No. "));
  if (const auto at = t.find("device name = ["); at != std::string::npos)
    place.gpu_name = t.substr(at + 15, t.find(']', at) - (at + 15));
  if (t.find("DMA-BUF") != std::string::npos || t.find("ibv_reg_dmabuf_mr") != std::string::npos)
    place.gpu_registration = "dmabuf";
}

bool is_error_line(const std::string &t) {
  return t.rfind("Couldn't", 0) == 0 || t.rfind("Unable", 0) == 0 || t.rfind("Failed", 0) == 0 ||
         t.find("error") != std::string::npos || t.find("ERROR") != std::string::npos;
}

// perftest's own words when the two sides never met (its connect and handshake steps, in
// perftest_communication.c and each test's main): the link, the peer's server or the address
// given is down. Local setup failures (a device that cannot be opened) are not among them.
bool is_connect_failure(const std::string &t) {
  for (const char *said :
       {"Unable to init the socket connection", "Unable to perform rdma_client function",
        "Unable to perform rdma_server function", "Unexpected CM event", "Couldn't connect to",
        // perftest has printed "data" since 2013; "date" is kept for the versions before
        "Failed to exchange data between server and clients",
        "Failed to exchange date between server and clients",
        // the QP could not be brought up to the peer (a wrong GID, a port down)
        "to RTR", "Unable to Connect the HCA's through the link"})
    if (t.find(said) != std::string::npos)
      return true;
  return false;
}

// The test a log names in its file name ("..._ib_write_bw_client.log"), for a client that failed
// before perftest printed its title.
std::optional<TestKind> kind_from_file_name(const std::string &source) {
  static const std::regex test(R"(ib_(write|read|send|atomic)_(bw|lat))");
  const auto slash = source.find_last_of('/');
  const std::string name = slash == std::string::npos ? source : source.substr(slash + 1);
  std::smatch m;
  if (name.size() > 4096 || !std::regex_search(name, m, test))
    return std::nullopt;
  return TestKind{m[1], m[2] == "lat"};
}

// A record of the test `kind` from the log `source`: its key, the tool and the log, before any
// figure or status.
Record test_record(TestKind kind, const std::string &source) {
  Record r;
  r.key = perftest_key(kind);
  r.params = {{peer::record::kTool,
               fmt::format("perftest ib_{}_{}", kind.verb, kind.latency ? "lat" : "bw")},
              {peer::record::kSource, source}};
  if (kind.bidirectional)
    r.params[rdma::record::kDirection] = "bidir";
  return r;
}

// A client (or server) that never met its peer: not bad input but a link that did not come up,
// so one failed record of the test, which check fails and drains like any failed point. The test
// is the title's, or the file name's when perftest failed before printing its title.
Record never_connected(bool have_title, TestKind kind, const std::string &failure,
                       const std::string &first_error, const std::string &source) {
  std::string named_by = "its title";
  if (!have_title) {
    const auto from_name = kind_from_file_name(source);
    if (!from_name)
      throw InputError(
          fmt::format("perftest never connected to its peer ({}), and neither the log nor its "
                      "file name says which test it was",
                      failure),
          source,
          "keep perftest's test in the file name (e.g. ib_write_bw_client.log), as the record "
          "needs its key");
    kind = *from_name;
    named_by = "the file name";
  }
  Record r = test_record(kind, source);
  r.params[peer::record::kConnected] = false;
  r.status = Status::failed;
  r.reason = fmt::format("perftest never connected to its peer: {}{} (the link, the peer's "
                         "server or the address given is down; the test is named by {})",
                         failure,
                         first_error.empty() || first_error.find(failure) != std::string::npos
                             ? ""
                             : "; then " + first_error,
                         named_by);
  r.time_utc = utc_timestamp_now();
  return r;
}

// The test broke after `rows` rows (an error line after them: a completion error, a QP in error),
// or its log ends without the dashed line perftest closes its table with (cut off, or killed):
// the sizes it never reached are an error, never a pass on the rows before them.
Record broke_after_rows(TestKind kind, std::size_t rows, const std::string &error,
                        const std::string &source, const std::string &kill_notice) {
  Record r = test_record(kind, source);
  r.status = Status::error;
  r.reason = error.empty()
                 ? fmt::format("the log ends after {} row(s) without the dashed line perftest "
                               "closes its table with: cut off, or the test was killed",
                               rows)
                 : fmt::format("perftest failed after {} row(s): {}", rows, error);
  if (!kill_notice.empty())
    *r.reason += fmt::format("; the launcher said: '{}'", kill_notice);
  r.time_utc = utc_timestamp_now();
  return r;
}

// A record for one table row, before its columns: the test, the header's fields and the buffers.
Record row_record(const TestKind &kind, const std::string &source,
                  const std::map<std::string, std::string> &fields, const BufferPlace &place) {
  Record r = test_record(kind, source);
  for (const auto &[name, value] : fields) {
    static const std::map<std::string, std::string> known = {{"Device", "device"},
                                                             {"Number of qps", "qps"},
                                                             {"Connection type", "connection"},
                                                             {"TX depth", "tx_depth"},
                                                             {"CQ Moderation", "cq_moderation"},
                                                             {"Mtu", "mtu_bytes"},
                                                             {"Link type", "link_layer"},
                                                             {"GID index", "gid_index"},
                                                             {"Max inline data", "inline_bytes"},
                                                             {"Post List", "post_list"},
                                                             {"rdma_cm QPs", "rdma_cm"},
                                                             {"Data ex. method", "exchange"}};
    if (const auto it = known.find(name); it != known.end())
      r.params[it->second] = field_value(value);
  }
  r.params[rdma::record::kMemory] = place.memory == "gpu" && place.gpu_index
                                        ? fmt::format("gpu:{}", *place.gpu_index)
                                        : place.memory;
  if (!place.gpu_name.empty())
    r.params[metric::kGpuName] = place.gpu_name;
  if (place.memory == "gpu")
    r.params[peer::record::kGpuRegistration] =
        place.gpu_registration.empty() ? "peermem" : place.gpu_registration;
  // The NIC measured is the part a finding names, as in railgauge's own rdma records.
  if (r.params.contains(rdma::record::kDevice) && r.params[rdma::record::kDevice].is_string())
    r.device[device::kNic] = r.params[rdma::record::kDevice];
  return r;
}

// One figure of a row, by its column's name, into the record's params, its bandwidth figures or
// its latency summary.
void store_column(const TestKind &kind, const std::string &c, double v, const nlohmann::json &count,
                  Record &r, rdma::record::BandwidthFields &bandwidth,
                  rdma::record::LatencyFields &latency) {
  const bool gbits = c.find("[Gb/sec]") != std::string::npos;
  const double to_gbits = gbits ? 1.0 : 8.0 * 1048576.0 / 1e9; // MB/sec is MiB/s
  if (c == "#bytes")
    r.params[metric::kSizeBytes] = count;
  else if (c == "#iterations")
    r.params[metric::kIterations] = count;
  else if (kind.bidirectional && (c.rfind("BW peak", 0) == 0 || c.rfind("MsgRate", 0) == 0))
    return; // sums of both directions, which no railgauge figure is; the average's sum is below
  else if (c.rfind("BW average", 0) == 0 && kind.bidirectional)
    bandwidth.bidirectional_gbits_per_s = v * to_gbits; // one direction's is not printed
  else if (c.rfind("BW peak", 0) == 0) {
    // The server side of ib_send_bw prints a peak of 0.00 beside a real average: it does
    // not time single completions. A peak that was not measured is left out, not a zero.
    if (v > 0)
      bandwidth.gbits_peak_per_s = v * to_gbits;
  } else if (c.rfind("BW average", 0) == 0) {
    bandwidth.gbits_per_s = v * to_gbits;
    bandwidth.gbytes_per_s = v * to_gbits / 8.0;
  } else if (c.rfind("MsgRate", 0) == 0)
    bandwidth.message_rate_per_s = v * 1e6;
  else if (c.rfind("t_min", 0) == 0)
    latency.min_s = v * 1e-6;
  else if (c.rfind("t_max", 0) == 0)
    latency.max_s = v * 1e-6;
  else if (c.rfind("t_typical", 0) == 0)
    latency.p50_s = v * 1e-6;
  else if (c.rfind("t_avg", 0) == 0)
    latency.mean_s = v * 1e-6;
  else if (c.rfind("t_stdev", 0) == 0)
    latency.stdev_s = v * 1e-6; // perftest computes it with integer deviations
  else if (c.rfind("99% percentile", 0) == 0)
    latency.p99_s = v * 1e-6;
  else if (c.rfind("99.9% percentile", 0) == 0)
    latency.p99_9_s = v * 1e-6;
}

// A table row's values, column by column, into the record; its status from what was computed.
void read_row_values(const TestKind &kind, const std::vector<std::string> &columns,
                     const std::vector<std::string> &values, const std::string &where, Record &r) {
  rdma::record::BandwidthFields bandwidth;
  rdma::record::LatencyFields latency;
  std::vector<std::string> not_computed;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::string &c = columns[i];
    const auto number = finite_number(values[i]);
    const bool whole = c == "#bytes" || c == "#iterations";
    // perftest prints inf and -nan where it computed nothing (seen: the server side of
    // ib_write_lat on Soft-RoCE, every statistic): no figure, named, never a number.
    if (!whole && !number && is_inf_or_nan_text(values[i])) {
      not_computed.push_back(c);
      continue;
    }
    const auto count = whole ? field_value(values[i]) : nlohmann::json();
    if (!number || (whole && (!count.is_number_integer() || count.get<long long>() < 0)))
      throw InputError(fmt::format("'{}' in column '{}' is not a {}", values[i], c,
                                   whole ? "whole number" : "number"),
                       where, "pass the complete, unmodified output of one perftest run");
    store_column(kind, c, *number, count, r, bandwidth, latency);
  }
  bool header_gbits = false;
  for (const auto &c : columns)
    if (c.rfind("BW average", 0) == 0)
      header_gbits = c.find("[Gb/sec]") != std::string::npos;
  const auto size = r.params.value(metric::kSizeBytes, nlohmann::json());
  bool contradicts = false;
  const auto unit = unit_by_message_rate(
      header_gbits, size.is_number() ? std::optional(size.get<double>()) : std::nullopt, bandwidth,
      contradicts);
  if (unit && !contradicts)
    r.params[peer::record::kPerftestUnitRead] = *unit;
  bandwidth.write(r.metrics);
  if (!latency.empty()) {
    latency.write(r.metrics, rdma::record::kLatency);
    r.metrics[rdma::record::kLatencyDefinition] =
        // perftest halves the round trip of WRITE and SEND only (rtt_factor: READ and ATOMIC 1)
        kind.verb == "read" || kind.verb == "atomic" ? "round trip (perftest)"
                                                     : "round trip / 2 (perftest)";
  }
  r.status = Status::ok;
  if (contradicts) {
    r.status = Status::error;
    r.reason = fmt::format("{}: {}: the row is not as perftest computes it", where, *unit);
  }
  if (!not_computed.empty()) {
    r.params[peer::record::kPerftestNotComputed] = not_computed;
    if (r.metrics.empty()) {
      r.status = Status::failed;
      r.reason = fmt::format("perftest printed inf or nan for every figure ({})", where);
    }
  }
}

// A log that yielded no record: why, as precisely as the log tells.
[[noreturn]] void throw_no_records(bool have_title, bool connected, const TestKind &kind,
                                   const std::string &first_error, const std::string &source) {
  if (!have_title)
    throw InputError("not perftest output: no 'RDMA_Write BW Test'-style title line", source,
                     first_error.empty() ? "pass the output of ib_write_bw, ib_read_lat, ..."
                                         : "perftest said: " + first_error);
  // ib_read_lat's server only lends its memory to the client's READs: it prints no table.
  if (connected && kind.verb == "read" && kind.latency && first_error.empty())
    throw InputError("the server side of ib_read_lat: perftest prints its results on the client "
                     "only",
                     source, "import the client's output (the side given the server's address)");
  throw InputError("perftest output without a result table (the run failed or was cut off)", source,
                   first_error.empty() ? "rerun perftest and keep its whole output"
                                       : "perftest said: " + first_error);
}

// A loop over NICs or GPUs appended to one file: every record took the first run's device and
// GPU, and the far pair's slow figure was named on the near pair's NIC.
void refuse_another_run(const std::string &line, int line_no, const std::string &source) {
  if (TestKind again; parse_title(line, again))
    throw InputError(fmt::format("line {} starts another perftest run (its title again): the file "
                                 "holds several runs, of devices and GPUs each its own",
                                 line_no),
                     source,
                     "import each run on its own: split the file at each title line (\"" +
                         std::string(trimmed(line)) + "\")");
}

// A table row cut short: with a launcher's message glued to it (cut wherever the message starts)
// or short of its columns. nullopt for a whole row; a row of more values than columns is refused.
std::optional<InputError> cut_of_row(const std::string &t, const std::vector<std::string> &values,
                                     std::size_t columns, const std::string &where,
                                     int header_line) {
  constexpr const char *kWhole = "pass the complete, unmodified output of one perftest run";
  if (const auto glued = glued_launcher_text(t))
    return InputError(
        fmt::format("a launcher's message follows it on its line: '{}'", trimmed(t.substr(*glued))),
        where, kWhole);
  if (values.size() == columns)
    return std::nullopt;
  InputError wrong(fmt::format("{} values for {} columns (header at line {})", values.size(),
                               columns, header_line),
                   where, kWhole);
  if (values.size() > columns)
    throw wrong;
  return wrong;
}

} // namespace

std::vector<Record> import_perftest(const std::string &text, const std::string &source) {
  std::stringstream in(text);
  LineReader lines(in, source, "give perftest's own output (client or server)");
  std::string line;
  int line_no = 0;
  TestKind kind;
  bool have_title = false;
  bool connected = false; // the peer's address was printed: the two sides met
  std::map<std::string, std::string> fields;
  std::vector<std::string> columns;
  int header_line = 0;
  std::string first_error, connect_failure;
  std::string error_in_table; // the first error line once the table has rows: the test broke
  bool table_closed = false;  // perftest's dashed line after the rows: the test ran to its end
  std::optional<InputError> cut_row; // a row short of its columns, and its line
  int cut_row_line = 0;
  std::string after_cut;   // the launcher's first words after the cut row
  std::string kill_notice; // the launcher's word of why the test ended (launcher_text.h)
  std::vector<Record> records;
  BufferPlace place;
  while (lines.next(line)) {
    ++line_no;
    if (!have_title && parse_title(line, kind)) {
      have_title = true;
      continue;
    }
    if (have_title)
      refuse_another_run(line, line_no, source);
    const std::string t = std::string(trimmed(line));
    // A row short of its columns is the log cut mid-line only where no row and no header follows
    // it (a launcher's message may): anywhere else, a file that is not one perftest run's output.
    if (cut_row && !t.empty() &&
        (std::isdigit(static_cast<unsigned char>(t.front())) || t.rfind("#bytes", 0) == 0))
      throw *cut_row;
    if (cut_row && after_cut.empty())
      after_cut = launcher_words(t);
    // A row's glued message is the cut row's own words already.
    if (kill_notice.empty() && !t.empty() && !std::isdigit(static_cast<unsigned char>(t.front())) &&
        is_kill_notice(t))
      kill_notice = t;
    if (!have_title)
      note_buffer_line(t, place);
    if (first_error.empty() && is_error_line(t))
      first_error = fmt::format("{}:{}: {}", source, line_no, t);
    // After a cut row, an error line is the launcher's account of the kill (then: ...).
    if (!records.empty() && error_in_table.empty() && !cut_row && is_error_line(t))
      error_in_table = fmt::format("{}:{}: {}", source, line_no, t);
    if (!records.empty() && t.rfind("-----", 0) == 0)
      table_closed = true;
    if (connect_failure.empty() && !connected && is_connect_failure(t))
      connect_failure = fmt::format("{}:{}: {}", source, line_no, t);
    if (!have_title)
      continue;
    connected = connected || t.rfind("remote address", 0) == 0;
    if (t.rfind("#bytes", 0) == 0) {
      columns = header_columns(t);
      header_line = line_no;
      continue;
    }
    if (columns.empty()) {
      if (t.find(':') != std::string::npos && t.rfind("local address", 0) != 0 &&
          t.rfind("remote address", 0) != 0 && t.rfind("GID:", 0) != 0)
        parse_fields(line, fields);
      continue;
    }
    const auto values = split_ws(t);
    if (values.empty() || t.front() == '-' || !std::isdigit(static_cast<unsigned char>(t.front())))
      continue;
    const std::string where = fmt::format("{}:{}", source, line_no);
    if ((cut_row = cut_of_row(t, values, columns.size(), where, header_line))) {
      cut_row_line = line_no;
      continue;
    }
    Record r = row_record(kind, source, fields, place);
    read_row_values(kind, columns, values, where, r);
    r.time_utc = utc_timestamp_now();
    records.push_back(std::move(r));
  }
  if (records.empty() && !connected && !connect_failure.empty())
    return {never_connected(have_title, kind, connect_failure, first_error, source)};
  if (cut_row && error_in_table.empty())
    error_in_table = fmt::format(
        "{}:{}: the last row is cut short ({}): the log was cut off "
        "mid-line, or the test killed{}",
        source, cut_row_line, cut_row->problem(),
        kill_notice.empty() && !after_cut.empty() ? fmt::format("; then: '{}'", after_cut) : "");
  // A test killed in its first row measured nothing, and failed: a record that says so, never
  // a file refused as bad input, which would drop the node's failure from the verdict.
  if (!have_title || (records.empty() && !cut_row))
    throw_no_records(have_title, connected, kind, first_error, source);
  if (!error_in_table.empty() || !table_closed)
    records.push_back(broke_after_rows(kind, records.size(), error_in_table, source, kill_notice));
  return records;
}

} // namespace railgauge::importers
