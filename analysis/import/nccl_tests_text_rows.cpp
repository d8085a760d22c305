#include "analysis/import/nccl_tests_text_rows.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/error.h"
#include "harness/number_text.h"
#include "records/bus_bandwidth.h"
#include "records/collective_point_fields.h"

namespace railgauge::importers {
namespace {

// -I 1 columns after a half's four: i_min, i_max, i_p99 (us; CUDA events, max over processes)
// and i_cv% (util.cu writePerIterReport).
void add_text_per_iteration(const std::vector<std::string> &f, std::size_t first,
                            const std::string &here, nlohmann::json &metrics) {
  const auto min_us = finite_number(f[first]), max_us = finite_number(f[first + 1]),
             p99_us = finite_number(f[first + 2]), cv = finite_number(f[first + 3]);
  if (!min_us || !max_us || !p99_us || !cv)
    throw InputError(fmt::format("i_min/i_max/i_p99/i_cv% '{} {} {} {}' are not numbers", f[first],
                                 f[first + 1], f[first + 2], f[first + 3]),
                     here, "give the unmodified text output of an nccl-tests *_perf binary");
  namespace c = collectives::record;
  metrics[c::kIterationMinS] = *min_us * 1e-6;
  metrics[c::kIterationMaxS] = *max_us * 1e-6;
  metrics[c::kIterationP99S] = *p99_us * 1e-6;
  metrics[c::kIterationCvPercent] = *cv;
  metrics[c::kIterationTimer] = "nccl-tests per-iteration CUDA events (-I 1), max over processes";
}

// The half of a result row whose four columns start at c (out of place, then in place).
NcclTestsHalf read_half(const std::vector<std::string> &f, std::size_t c, std::int64_t size,
                        std::int64_t count, int half, const TextSection &section,
                        const std::string &here) {
  const RowLayout &at = section.layout;
  NcclTestsHalf h{.size_bytes = size,
                  .count = count,
                  .type = f[2],
                  .redop = at.redop ? f[*at.redop] : "none",
                  .root = at.root ? f[*at.root] : "-1",
                  .in_place = half == 1,
                  .wrong = std::nullopt,
                  .check_off = section.validation_off,
                  .max_error = std::nullopt,
                  .max_error_bound = std::nullopt};
  const auto time_us = finite_number(f[c]), algbw = finite_number(f[c + 1]),
             busbw = finite_number(f[c + 2]);
  if (!time_us || !algbw || !busbw)
    throw InputError(
        fmt::format("time/algbw/busbw '{} {} {}' are not numbers", f[c], f[c + 1], f[c + 2]), here,
        kGiveTextOutput);
  h.time_us = *time_us;
  h.algbw_gbytes_per_s = *algbw;
  h.busbw_gbytes_per_s = *busbw;
  const std::string &wrong = f[c + 3];
  if (wrong == "N/A")
    return h; // nccl-tests ran with its data check off (-c 0)
  auto checked = finite_number(wrong);
  // nccl-tests keeps an inf or nan deviation (an element with a flipped exponent) and prints it
  // as %5.0le does: the worst error there is, out of every bound, never unreadable input.
  if (!checked && at.max_error && is_inf_or_nan_text(wrong))
    checked = std::numeric_limits<double>::infinity();
  if (!checked)
    throw InputError(
        fmt::format("{} '{}' is not a number or N/A", at.max_error ? "error" : "#wrong", wrong),
        here, kGiveTextOutput);
  if (at.max_error) {
    h.max_error = checked;
    h.max_error_bound = max_error_bound(h.type, section.ranks.size());
  } else {
    h.wrong = checked;
  }
  return h;
}

// nccl-tests prints its rates with two decimals: under 1 GB/s that is fewer than three
// significant digits, and under 0.005 GB/s it is 0.00. A small size's rates are taken from the
// row's time instead (four significant digits), where the rank count is known and what they give
// rounds to what was printed: a 256-byte all_reduce that printed busbw 0.00 against another's
// 0.01 was a total loss (ratio 0, and its family's geometric mean 0), and 0.01 against 0.01 a
// ratio of 1 where the times (126.6 and 66.49 us) give 0.525.
void rates_from_time(NcclTestsHalf &h, collectives::Kind kind, std::size_t ranks) {
  constexpr double kLeastThreeDigitRate = 1.0; // GB/s at two decimals
  constexpr double kHalfPrintStep = 0.005;     // GB/s: what the print rounded away, at most
  if (ranks == 0 || h.time_us <= 0 || h.size_bytes <= 0 ||
      (h.algbw_gbytes_per_s >= kLeastThreeDigitRate &&
       h.busbw_gbytes_per_s >= kLeastThreeDigitRate))
    return;
  const auto b = collectives::bandwidth(kind, static_cast<std::uint64_t>(h.size_bytes),
                                        static_cast<int>(ranks), h.time_us * 1e-6);
  const auto rounds_to = [&](double derived, double printed) {
    return std::fabs(derived - printed) <= kHalfPrintStep * 1.01; // the time's own rounding
  };
  if (!rounds_to(b.algbw_gbytes_per_s, h.algbw_gbytes_per_s) ||
      !rounds_to(b.busbw_gbytes_per_s, h.busbw_gbytes_per_s))
    return; // another rank count or formula than the row's: the printed figures stand
  h.algbw_gbytes_per_s = b.algbw_gbytes_per_s;
  h.busbw_gbytes_per_s = b.busbw_gbytes_per_s;
}

// nccl-tests' busbw is its algbw times the collective's bus factor at the run's rank count:
// 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and alltoall, 1 for the rest.
// nccl-tests before ec1b5e2 (2020-06) printed all_gather's algbw with the (n-1) already in it and
// its busbw equal (the 12-V100 DGX-2 all_gather of tests/fixtures/nccl-tests/old-layouts): 1 fits.
bool bus_factor_fits(collectives::Kind kind, int ranks, double seen) {
  constexpr double kPrintTolerance = 0.02; // two rates each rounded to 0.005 of >= 1
  const auto near = [&](double factor) { return std::fabs(seen / factor - 1) <= kPrintTolerance; };
  const bool older_print = kind == collectives::Kind::all_gather ||
                           kind == collectives::Kind::reduce_scatter ||
                           kind == collectives::Kind::alltoall;
  return near(collectives::bus_factor(kind, ranks)) || (older_print && near(1.0));
}

// The ranks of one communicator: those of rank 0's group. nccl-tests prints a line for every rank
// of the job and computes busbw over its group alone (NCCL_TESTS_SPLIT: "MOD 2" makes pairs of
// 4 ranks, "DIV 8" a node each), so 16 rank lines can be two all_reduces of 8.
std::size_t ranks_of_one_group(const std::vector<std::string> &rank_lines) {
  const auto group_of = [](const std::string &line) -> std::string {
    std::istringstream words(line);
    std::string w, previous;
    while (words >> w) {
      if (previous == "Group")
        return w;
      previous = w;
    }
    return ""; // nccl-tests before its Group column: one group
  };
  if (rank_lines.empty())
    return 0;
  const std::string first = group_of(rank_lines.front());
  return static_cast<std::size_t>(std::count_if(
      rank_lines.begin(), rank_lines.end(), [&](const auto &l) { return group_of(l) == first; }));
}

// A log of no header named by --kind (or a file name) the wrong collective gave records of one
// kind with another's bus bandwidth: an all_gather imported as all_reduce read half its busbw
// beside a real all_reduce. Rows printed to three digits or more are held to the factor. A log
// that names its collective itself is not: there, a factor off is a rank count off.
void require_bus_factor(const NcclTestsHalf &h, collectives::Kind kind, TextSection &section,
                        const std::string &here) {
  constexpr double kLeastThreeDigitRate = 1.0; // GB/s at two decimals
  if (!section.kind_from_caller || h.algbw_gbytes_per_s < kLeastThreeDigitRate ||
      h.busbw_gbytes_per_s < kLeastThreeDigitRate)
    return;
  // Counted once per run's rank lines, not at every row: a job of 16,000 ranks lists as many.
  if (section.group_ranks_of != section.ranks.size()) {
    section.group_ranks = ranks_of_one_group(section.ranks);
    section.group_ranks_of = section.ranks.size();
  }
  const std::size_t ranks = section.group_ranks;
  if (ranks < 2)
    return;
  const int n = static_cast<int>(ranks);
  const double seen = h.busbw_gbytes_per_s / h.algbw_gbytes_per_s;
  if (bus_factor_fits(kind, n, seen))
    return;
  std::vector<std::string> fitting;
  for (const auto other : collectives::all_kinds())
    if (bus_factor_fits(other, n, seen))
      fitting.emplace_back(collectives::to_string(other));
  const auto name = collectives::to_string(kind);
  throw InputError(
      fmt::format("busbw {} over algbw {} is {:.4g}, and {}'s bus factor at the {} ranks listed "
                  "is {:.4g}: the rows are {}",
                  h.busbw_gbytes_per_s, h.algbw_gbytes_per_s, seen, name, n,
                  collectives::bus_factor(kind, n),
                  fitting.empty()
                      ? std::string("no collective's at that rank count")
                      : fmt::format("{}'s, not {}'s", fmt::join(fitting, "'s or "), name)),
      here,
      fitting.empty()
          ? std::string("give the log as nccl-tests printed it, with all its rank lines")
          : fmt::format("name the collective the log ran with --kind {}", fitting[0]));
}

} // namespace

double half_last_digit(const std::string &number) {
  // "52.43": 0.005; "1234.6": 0.05; "12346": 0.5; "1e+06": 0.5e6 (nccl-tests 2.17's getFloatStr)
  const auto exponent_at = number.find_first_of("eE");
  const std::string mantissa = number.substr(0, exponent_at);
  const auto point = mantissa.find('.');
  const int decimals =
      point == std::string::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
  const int exponent =
      exponent_at == std::string::npos ? 0 : std::atoi(number.c_str() + exponent_at + 1);
  return 0.5 * std::pow(10.0, exponent - decimals);
}

std::optional<RowLayout> row_layout_of_header(const std::string &body) {
  std::istringstream in(body);
  std::vector<std::string> words;
  for (std::string w; in >> w;)
    words.push_back(w);
  const auto at = [&](const char *name) -> std::optional<std::size_t> {
    const auto it = std::find(words.begin(), words.end(), name);
    return it == words.end() ? std::nullopt : std::optional<std::size_t>(it - words.begin());
  };
  const auto time = at("time");
  if (words.size() < 3 || words[0] != "size" || words[1] != "count" || words[2] != "type" ||
      !time || !at("busbw"))
    return std::nullopt;
  return RowLayout{.first_half = *time,
                   .redop = at("redop"),
                   .root = at("root"),
                   .max_error = !at("#wrong") && at("error")};
}

std::optional<double> max_error_bound(const std::string &type, std::size_t ranks) {
  if (ranks == 0)
    return std::nullopt; // no rank lines: the bound is not known
  const double scale = static_cast<double>(ranks - 1);
  if (type == "half" || type == "bfloat16")
    return 1e-2 * scale;
  if (type == "float")
    return 1e-5 * scale;
  if (type == "double")
    return 1e-12 * scale;
  return 1e-200 * scale; // the integer types: any error is out of bounds
}

std::optional<std::int64_t> integer(const std::string &s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0)
    return std::nullopt;
  return v;
}

void read_result_row(const std::vector<std::string> &f, const std::string &here,
                     TextSection &section, NcclTestsImport &out, const std::string &run,
                     const std::string &host, const RecordSink &sink) {
  const std::size_t first = section.layout.first_half, per_half = section.per_iteration ? 8 : 4,
                    columns = first + 2 * per_half;
  if (f.size() < columns)
    throw ShortResultRow(fmt::format("a result row needs {} columns{}, this one has {}{}", columns,
                                     section.per_iteration ? " (-I 1 output)" : "", f.size(),
                                     section.header_seen ? ""
                                                         : ", and no nccl-tests header is above it "
                                                           "(perftest's output: railgauge import "
                                                           "perftest)"),
                         here, kGiveTextOutput);
  const auto size = integer(f[0]), count = integer(f[1]);
  if (!size || !count)
    throw InputError(fmt::format("size '{}' or count '{}' is not a whole number", f[0], f[1]), here,
                     kGiveTextOutput);
  for (std::size_t half = 0; half < 2; ++half) {
    const std::string &text = f[first + per_half * half + 2];
    if (const auto busbw = finite_number(text)) {
      section.printed_busbw.sum += *busbw;
      section.printed_busbw.rounding_sum += half_last_digit(text);
      ++section.printed_busbw.halves;
    }
  }
  if (*size == 0) {
    if (section.zero_row_seen) {
      ++out.repeated_zero_rows; // one point of 0 bytes, not several records alike
      return;
    }
    section.zero_row_seen = true;
  }
  for (int half = 0; half < 2; ++half) {
    const std::size_t c = first + per_half * static_cast<std::size_t>(half);
    NcclTestsHalf h = read_half(f, c, *size, *count, half, section, here);
    require_bus_factor(h, *out.kind, section, here);
    rates_from_time(h, *out.kind, section.ranks.size());
    section.out_of_bounds += h.max_error && h.max_error_bound && *h.max_error > *h.max_error_bound;
    section.wrong_halves += h.wrong && *h.wrong > 0;
    Record r = nccl_tests_record(h, *out.kind, run, host);
    if (section.per_iteration)
      add_text_per_iteration(f, c + 4, here, r.metrics);
    add_rank_layout(std::span(&r, 1), section.ranks);
    ++out.record_count;
    sink(std::move(r));
  }
}

} // namespace railgauge::importers
