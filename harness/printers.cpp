#include "harness/printers.h"

#include <algorithm>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge {
namespace {

// Headline metrics, most specific first. Each is a scalar metric whose name carries its unit.
constexpr const char *kHeadlines[] = {
    "busbw_gbytes_per_s", "bandwidth_gbytes_per_s", "tflops", "bandwidth_gbits_per_s",
    "latency_s",          "message_rate_per_s",
};

std::string time_text(const Record &r) {
  if (!r.metrics.contains("time_s") || !r.metrics["time_s"].contains("median"))
    return "";
  const double t = r.metrics["time_s"]["median"].get<double>();
  if (t < 1e-6)
    return fmt::format("{:.1f} ns", t * 1e9);
  if (t < 1e-3)
    return fmt::format("{:.2f} us", t * 1e6);
  if (t < 1)
    return fmt::format("{:.3f} ms", t * 1e3);
  return fmt::format("{:.3f} s", t);
}

std::string noise_text(const Record &r) {
  if (!r.metrics.contains("time_s"))
    return "";
  const auto &t = r.metrics["time_s"];
  if (!t.contains("stdev") || !t.contains("mean") || t["mean"].get<double>() == 0)
    return "";
  return fmt::format("{:.1f}%", 100.0 * t["stdev"].get<double>() / t["mean"].get<double>());
}

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
  void on_record(const Record &record) override { out_ << record.to_json().dump() << '\n'; }

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

// One row per record; nested metrics are flattened with '.' (time_s.median). The columns are
// fixed by the first record of each key, so a header is printed when the key changes.
class CsvPrinter final : public RecordPrinter {
public:
  explicit CsvPrinter(std::ostream &out) : out_(out) {}
  void on_record(const Record &record) override {
    const auto flat = flatten(record);
    if (record.key != last_key_) {
      columns_.clear();
      for (const auto &[name, value] : flat)
        columns_.push_back(name);
      std::string header;
      for (const auto &c : columns_)
        header += (header.empty() ? "" : ",") + csv_field(c);
      out_ << header << '\n';
      last_key_ = record.key;
    }
    std::string line;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      auto it = std::find_if(flat.begin(), flat.end(),
                             [&](const auto &kv) { return kv.first == columns_[i]; });
      line += (i ? "," : "") + csv_field(it == flat.end() ? "" : it->second);
    }
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
  std::string last_key_;
  std::vector<std::string> columns_;
};

class TablePrinter final : public RecordPrinter {
public:
  explicit TablePrinter(std::ostream &out) : out_(out) {}
  void on_record(const Record &record) override { records_.push_back(record); }
  void finish() override {
    if (records_.empty())
      return;
    std::vector<std::vector<std::string>> rows;
    std::map<std::string, int> counts;
    for (const auto &r : records_) {
      const auto head = headline_metric(r);
      ++counts[std::string(to_string(r.status))];
      rows.push_back({r.key, params_text(r.params), std::string(to_string(r.status)), time_text(r),
                      noise_text(r), head.name.empty() ? "" : fmt::format("{:.4g}", head.value),
                      head.name, r.reason.value_or("")});
    }
    std::string tally;
    for (const auto &[status, n] : counts)
      tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", n, status);
    out_ << render_table(fmt::format("Summary: one row per point ({}). time = median per "
                                     "call; noise = stdev/mean of the samples; GB = 1e9 bytes",
                                     tally),
                         {"key", "point", "status", "time", "noise", "value", "metric", "reason"},
                         rows);
  }

private:
  std::ostream &out_;
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
std::unique_ptr<RecordPrinter> make_table_printer(std::ostream &out) {
  return std::make_unique<TablePrinter>(out);
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
