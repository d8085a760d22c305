#include "cli/printers.h"

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/metric_names.h"
#include "records/per_gpu_parts.h"

namespace railgauge {
namespace {

// Headline metrics, most specific first. Each is a scalar metric whose name carries its unit.
constexpr const char *kHeadlines[] = {
    "busbw_gbytes_per_s", "bandwidth_gbytes_per_s", "tflops", "bandwidth_gbits_per_s",
    "latency_s",          "message_rate_per_s",
};

std::string params_text(const nlohmann::json &params) {
  std::string out;
  for (const auto &[name, value] : params.items())
    out += (out.empty() ? "" : " ") + name + "=" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  return out;
}

class JsonlPrinter final : public RecordPrinter {
public:
  explicit JsonlPrinter(std::ostream &out) : out_(out) {}
  void on_record(const Record &record) override { out_ << record.json_line() << '\n'; }

private:
  std::ostream &out_;
};

std::string csv_field(const std::string &text) {
  if (text.find_first_of(",\"\n") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// One row per record; nested metrics are flattened with '.' (time_s.median). A header line is
// printed whenever the columns change (a new key, or a measured point after a waived one), so
// no record loses a column to the header of another.
class CsvPrinter final : public RecordPrinter {
public:
  explicit CsvPrinter(std::ostream &out) : out_(out) {}
  void on_record(const Record &record) override {
    const auto flat = flatten(record);
    std::vector<std::string> names;
    for (const auto &[name, value] : flat)
      names.push_back(name);
    if (names != columns_) {
      columns_ = std::move(names);
      std::string header;
      for (const auto &c : columns_)
        header += (header.empty() ? "" : ",") + csv_field(c);
      out_ << header << '\n';
    }
    std::string line;
    for (const auto &[name, value] : flat)
      line += (line.empty() ? "" : ",") + csv_field(value);
    out_ << line << '\n';
  }

private:
  static std::vector<std::pair<std::string, std::string>> flatten(const Record &r) {
    std::vector<std::pair<std::string, std::string>> out = {
        {"key", r.key},
        {"status", std::string(to_string(r.status))},
        {"host", r.host},
        {"rank", std::to_string(r.rank)}};
    const auto add = [&](const std::string &prefix, const nlohmann::json &j, auto &self) -> void {
      if (j.is_object()) {
        for (const auto &[k, v] : j.items())
          self(prefix.empty() ? k : prefix + "." + k, v, self);
      } else {
        out.emplace_back(prefix, j.is_string() ? j.get<std::string>() : j.dump());
      }
    };
    add("params", r.params, add);
    add("metrics", r.metrics, add);
    out.emplace_back("reason", r.reason.value_or(""));
    return out;
  }
  std::ostream &out_;
  std::vector<std::string> columns_;
};

std::string shorten(const std::string &text, std::size_t max_chars) {
  return text.size() <= max_chars ? text : text.substr(0, max_chars - 3) + "...";
}

// The end-of-run summary: one row per benchmark key (how many points ended how, the range of
// its headline metric, the worst sampling noise, why points were waived), then every failed
// or broken point in full, so that no problem hides in a long run. The records have the rest.
class TablePrinter final : public RecordPrinter {
public:
  TablePrinter(std::ostream &out, const std::vector<NoisyPoint> *noisy)
      : out_(out), noisy_(noisy) {}
  void on_record(const Record &record) override { records_.push_back(record); }
  void finish() override {
    if (records_.empty())
      return;
    struct KeySummary {
      std::map<Status, int> counts;
      std::string metric;
      double lo = 0, hi = 0;
      std::optional<double> worst_noise; // of the ok points timed, with or without a headline
      bool any_value = false;
      std::string first_reason;
    };
    std::vector<std::string> order;
    std::map<std::string, KeySummary> by_key;
    std::map<Status, int> totals;
    for (const auto &r : records_) {
      auto [it, added] = by_key.try_emplace(r.key);
      if (added)
        order.push_back(r.key);
      KeySummary &k = it->second;
      ++k.counts[r.status];
      ++totals[r.status];
      if (r.status != Status::ok) {
        if (k.first_reason.empty() && r.reason)
          k.first_reason = *r.reason;
        continue;
      }
      // A point on every GPU at once has its figure per GPU: the range is over the GPUs.
      std::vector<Headline> heads = {headline_metric(r)};
      if (heads.front().name.empty()) {
        heads.clear();
        for (const auto &part : records::per_gpu_parts(r))
          if (part.status == Status::ok)
            heads.push_back(headline_metric(part));
      }
      for (const auto &head : heads) {
        if (head.name.empty())
          continue;
        k.metric = head.name;
        k.lo = k.any_value ? std::min(k.lo, head.value) : head.value;
        k.hi = k.any_value ? std::max(k.hi, head.value) : head.value;
        k.any_value = true;
      }
      if (const auto noise = relative_noise(r))
        k.worst_noise = std::max(k.worst_noise.value_or(0), *noise);
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto &key : order) {
      const KeySummary &k = by_key[key];
      const auto count = [&](Status s) {
        auto it = k.counts.find(s);
        return std::to_string(it == k.counts.end() ? 0 : it->second);
      };
      rows.push_back({key, count(Status::ok), count(Status::waived), count(Status::failed),
                      count(Status::error),
                      k.any_value ? fmt::format("{:.4g} .. {:.4g}", k.lo, k.hi) : "", k.metric,
                      k.worst_noise ? fmt::format("{:.1f}%", 100 * *k.worst_noise) : "",
                      shorten(k.first_reason, 90)});
    }
    std::string tally;
    for (const auto &[status, n] : totals)
      tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", n, to_string(status));
    out_ << render_table(fmt::format("Summary: one row per benchmark ({} points: {}). range = "
                                     "lowest .. highest value of the metric over its ok points "
                                     "(median time each); noise = the worst half-width of a "
                                     "point's samples' p10..p90 over their median; GB = 1e9 "
                                     "bytes",
                                     records_.size(), tally),
                         {"key", "ok", "waived", "failed", "error", "range", "metric", "noise",
                          "why not ok (first)"},
                         rows);
    std::vector<std::vector<std::string>> problems;
    for (const auto &r : records_)
      if (r.status == Status::failed || r.status == Status::error)
        problems.push_back({r.key, params_text(r.params), std::string(to_string(r.status)),
                            r.reason.value_or("")});
    if (!problems.empty())
      out_ << "\n"
           << render_table("Points that failed (wrong data) or broke (error), in full",
                           {"key", "point", "status", "reason"}, problems);
    print_noisy();
  }

private:
  void print_noisy() {
    const auto remeasured = std::count_if(records_.begin(), records_.end(), [](const Record &r) {
      return r.metrics.contains(metric::kNoiseBeforeRemeasure);
    });
    if (remeasured)
      out_ << fmt::format("\n{} point(s) past their noise_bound were measured again "
                          "(noise_retries); each record keeps the noise of its earlier "
                          "measurements (metrics.noise_before_remeasure)\n",
                          remeasured);
    if (!noisy_ || noisy_->empty())
      return;
    std::vector<std::vector<std::string>> rows;
    for (const auto &n : *noisy_)
      rows.push_back({n.key, n.point, fmt::format("{:.1f}%", 100 * n.noise),
                      fmt::format("{:.1f}%", 100 * n.bound)});
    out_ << "\n"
         << render_table(fmt::format("NOISY: {} point(s) whose noise (p10..p90 half-width over "
                                     "the median) exceeds the suite's noise_bound; the run exits 1",
                                     rows.size()),
                         {"key", "point", "noise", "bound"}, rows);
  }

  std::ostream &out_;
  const std::vector<NoisyPoint> *noisy_;
  std::vector<Record> records_;
};

class CollectingPrinter final : public RecordPrinter {
public:
  explicit CollectingPrinter(std::function<void(const std::vector<Record> &)> at_finish)
      : at_finish_(std::move(at_finish)) {}
  void on_record(const Record &record) override { records_.push_back(record); }
  void finish() override { at_finish_(records_); }

private:
  std::function<void(const std::vector<Record> &)> at_finish_;
  std::vector<Record> records_;
};

} // namespace

std::unique_ptr<RecordPrinter>
make_collecting_printer(std::function<void(const std::vector<Record> &)> at_finish) {
  return std::make_unique<CollectingPrinter>(std::move(at_finish));
}

OutputFormat parse_output_format(const std::string &text, const std::string &where) {
  if (text == "table")
    return OutputFormat::table;
  if (text == "jsonl")
    return OutputFormat::jsonl;
  if (text == "csv")
    return OutputFormat::csv;
  throw InputError(fmt::format("unknown output format '{}'", text), where,
                   "use one of: table, jsonl, csv");
}

std::unique_ptr<RecordPrinter> make_jsonl_printer(std::ostream &out) {
  return std::make_unique<JsonlPrinter>(out);
}
std::unique_ptr<RecordPrinter> make_csv_printer(std::ostream &out) {
  return std::make_unique<CsvPrinter>(out);
}
std::unique_ptr<RecordPrinter> make_table_printer(std::ostream &out,
                                                  const std::vector<NoisyPoint> *noisy) {
  return std::make_unique<TablePrinter>(out, noisy);
}

void PrinterMultiplex::on_record(const Record &record) {
  for (auto &p : printers_)
    p->on_record(record);
}

void PrinterMultiplex::finish() {
  for (auto &p : printers_)
    p->finish();
}

Headline headline_metric(const Record &record) {
  for (const char *name : kHeadlines)
    if (record.metrics.contains(name) && record.metrics[name].is_number())
      return {name, record.metrics[name].get<double>()};
  return {};
}

std::string render_table(const std::string &caption, const std::vector<std::string> &header,
                         const std::vector<std::vector<std::string>> &rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c)
    width[c] = header[c].size();
  for (const auto &row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  const auto line = [&](const std::vector<std::string> &cells) {
    std::string out;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      out += (c ? "  " : "") + cell + std::string(width[c] - cell.size(), ' ');
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    return out + "\n";
  };
  std::string out = caption + "\n" + line(header);
  std::vector<std::string> rule;
  for (auto w : width)
    rule.emplace_back(w, '-');
  out += line(rule);
  for (const auto &row : rows)
    out += line(row);
  return out;
}

} // namespace railgauge
