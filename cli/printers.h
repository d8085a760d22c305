#pragma once
// Console output of records, behind one interface so several run at once (nvbench's
// printer_multiplex): JSON Lines or CSV streamed to stdout as points finish, and a summary
// table at the end. records.jsonl on disk is written separately and always.
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "harness/noise_bound.h"
#include "harness/record.h"
#include "harness/record_printer.h"

namespace railgauge {

enum class OutputFormat { table, jsonl, csv };
// Throws InputError for anything but table|jsonl|csv.
OutputFormat parse_output_format(const std::string &text, const std::string &where);

std::unique_ptr<RecordPrinter> make_jsonl_printer(std::ostream &out);
std::unique_ptr<RecordPrinter> make_csv_printer(std::ostream &out);
// `noisy`, when given, is filled by the runner (RunnerOutput::noisy) before finish(): the
// summary ends with those points.
std::unique_ptr<RecordPrinter> make_table_printer(std::ostream &out,
                                                  const std::vector<NoisyPoint> *noisy = nullptr);

// Keeps every record and hands them to `at_finish` (a family's own summary, e.g. the GEMM TP
// table).
std::unique_ptr<RecordPrinter>
make_collecting_printer(std::function<void(const std::vector<Record> &)> at_finish);

class PrinterMultiplex final : public RecordPrinter {
public:
  void add(std::unique_ptr<RecordPrinter> printer) { printers_.push_back(std::move(printer)); }
  void on_record(const Record &record) override;
  void finish() override;

private:
  std::vector<std::unique_ptr<RecordPrinter>> printers_;
};

// The one figure a table shows for a record: the first of the headline metrics it has
// (bandwidth, TFLOP/s, bus bandwidth, ...), named with its unit. Empty name when none.
struct Headline {
  std::string name;
  double value = 0;
};
Headline headline_metric(const Record &record);

// Renders rows as an aligned text table with a caption line above it.
std::string render_table(const std::string &caption, const std::vector<std::string> &header,
                         const std::vector<std::vector<std::string>> &rows);

} // namespace railgauge
