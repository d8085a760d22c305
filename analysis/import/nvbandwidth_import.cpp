#include "analysis/import/nvbandwidth_import.h"

#include "analysis/import/imported_run.h"
#include "analysis/import/nvbandwidth_text.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/bounded_input.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/metric_names.h"
#include "harness/number_text.h"
#include "records/offload_record.h"
#include "records/peer_record.h"

namespace railgauge::importers {
namespace {

using nvb::after_colon;
using nvb::note_run_error;
using nvb::parse_cell;
using nvb::parse_text;
using nvb::pci_from_display;
using nvb::starts_with;
using nvb::variant_of;

std::string json_string(const nlohmann::json &j, const char *field) {
  if (!j.contains(field))
    return "";
  const auto &v = j.at(field);
  return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
}

// The variant of part p of n stacked JSON matrices. The JSON writer keeps only the last caption,
// so the earlier parts are named as nvbandwidth v0.8 writes them to text (testcases_ce.cpp,
// testcases_sm.cpp): a bidirectional "...Total bandwidth" testcase is preceded by Read1 and Read2,
// or by Write1 and Write2 for its *_write_* testcases. Anything else stays "part p of n".
std::string stacked_variant(const std::string &testcase, const std::string &caption, std::size_t p,
                            std::size_t parts) {
  const std::string last = variant_of(caption);
  if (p + 1 == parts)
    return parts == 1 || !last.empty() ? last : fmt::format("part {} of {}", p + 1, parts);
  if (parts == 3 && last == "Total")
    return fmt::format("{}{}", testcase.find("write") != std::string::npos ? "Write" : "Read",
                       p + 1);
  return fmt::format("part {} of {}", p + 1, parts);
}

// A testcase's bandwidth_matrix, split into the matrices it stacks; a malformed one is a problem
// of the document, not a matrix.
void parse_json_matrices(const nlohmann::json &tc, NvbTestcase &t, NvbDocument &doc,
                         const std::string &where) {
  NvbMatrix all;
  all.caption = json_string(tc, "bandwidth_description");
  bool broken = false;
  for (const auto &row : tc.at("bandwidth_matrix")) {
    std::vector<std::optional<double>> values;
    for (const auto &cell : row) {
      bool ok = true;
      values.push_back(
          cell.is_number()
              ? std::optional<double>(cell.get<double>())
              : parse_cell(cell.is_string() ? cell.get<std::string>() : cell.dump(), ok));
      broken = broken || !ok;
    }
    if (!all.values.empty() && values.size() != all.values.front().size())
      broken = true;
    all.values.push_back(std::move(values));
  }
  // A matrix without a column (rows that are empty lists) has nothing to import and no
  // shape to split by.
  if (broken || all.values.empty() || all.values.front().empty()) {
    doc.problems.push_back(fmt::format(
        "{}: the bandwidth_matrix of {} is malformed and was not imported", where, t.name));
  } else {
    const std::size_t columns = all.values.front().size();
    for (std::size_t c = 0; c < columns; ++c)
      all.column_labels.push_back(std::to_string(c));
    // Testcases with several matrices arrive stacked (see the header): GPU x GPU ones as
    // square blocks, CPU(row) ones (multinode bidirectional) as one row each.
    std::size_t parts = 1;
    if (all.caption.find("GPU(row)") != std::string::npos && all.values.size() > columns &&
        all.values.size() % columns == 0)
      parts = all.values.size() / columns;
    else if (all.caption.find("CPU(row)") != std::string::npos)
      parts = all.values.size();
    const std::size_t rows = all.values.size() / parts;
    for (std::size_t p = 0; p < parts; ++p) {
      NvbMatrix m;
      m.caption = all.caption;
      m.column_labels = all.column_labels;
      m.variant = stacked_variant(t.name, all.caption, p, parts);
      for (std::size_t r = 0; r < rows; ++r) {
        m.row_labels.push_back(std::to_string(r));
        m.values.push_back(all.values[p * rows + r]);
      }
      if (p + 1 == parts && tc.contains("sum") && tc.at("sum").is_number())
        m.sum = tc.at("sum").get<double>();
      t.matrices.push_back(std::move(m));
    }
  }
}

NvbDocument parse_json(const std::string &text, const std::string &where) {
  nlohmann::json root;
  try {
    root = parse_bounded_json(text, where, "give the output of `nvbandwidth -j`");
  } catch (const nlohmann::json::exception &e) { // parse_error, or out_of_range for 1E800
    throw InputError(fmt::format("not valid JSON: {}", e.what()), where,
                     "give the complete output of `nvbandwidth -j`, or its text output");
  }
  if (!root.is_object() || !root.contains("nvbandwidth") || !root.at("nvbandwidth").is_object())
    throw InputError("a JSON document without the top-level \"nvbandwidth\" object", where,
                     "give the output of `nvbandwidth -j`");
  const auto &nvb = root.at("nvbandwidth");
  NvbDocument doc;
  doc.format = "json";
  doc.version = json_string(nvb, "version");
  doc.driver_version = json_string(nvb, "Driver Version");
  doc.cuda_runtime_version = json_string(nvb, "CUDA Runtime Version");
  if (nvb.contains("GPU Device list") && nvb.at("GPU Device list").is_array()) {
    for (const auto &entry : nvb.at("GPU Device list")) {
      // "0: NVIDIA H100 80GB HBM3 (00000000:19:00): (node017)"
      const std::string s = entry.is_string() ? entry.get<std::string>() : "";
      const auto last_open = s.rfind(": (");
      const std::string display =
          last_open == std::string::npos ? after_colon(s) : after_colon(s.substr(0, last_open));
      if (last_open != std::string::npos && doc.host.empty() && s.ends_with(")"))
        doc.host = s.substr(last_open + 3, s.size() - last_open - 4);
      std::string name;
      doc.device_pci.push_back(pci_from_display(display, &name));
      doc.device_names.push_back(name);
    }
  }
  if (nvb.contains("error"))
    note_run_error(doc, where, std::string(trimmed(json_string(nvb, "error"))));
  if (!nvb.contains("testcases") || !nvb.at("testcases").is_array())
    return doc;
  std::size_t index = 0;
  for (const auto &tc : nvb.at("testcases")) {
    ++index;
    NvbTestcase t;
    t.name = json_string(tc, "name");
    t.status = json_string(tc, "status");
    t.error = json_string(tc, "error");
    if (t.name.empty()) {
      doc.problems.push_back(fmt::format("{}: testcases[{}] has no name", where, index - 1));
      continue;
    }
    if (tc.contains("bandwidth_matrix") && tc.at("bandwidth_matrix").is_array())
      parse_json_matrices(tc, t, doc, where);
    doc.testcases.push_back(std::move(t));
  }
  return doc;
}

// What a caption says about rows, columns and the direction of the traffic.
struct CaptionMeaning {
  std::string row_kind, column_kind, direction, engine;
  bool latency = false;
};

// What the number of a bidirectional testcase is. nvbandwidth times one stream while the reverse
// copy runs as interference; newer versions print each direction (Read1, Write2, ...) and their
// Total as separate matrices, older ones only the measured stream's matrix (no variant). Only a
// Total compares with offload.bidir's sum_gbytes_per_s; the others with its h2d/d2h figures.
std::string bidirectional_figure(const std::string &variant) {
  if (variant.empty())
    return "one_direction_under_reverse_traffic";
  return variant.starts_with("Total") ? "sum_of_both_directions" : "one_direction";
}

CaptionMeaning meaning_of(const std::string &caption) {
  CaptionMeaning m;
  m.row_kind = caption.find("CPU(row)") != std::string::npos   ? "cpu"
               : caption.find("GPU(row)") != std::string::npos ? "gpu"
                                                               : "";
  m.column_kind = caption.find("GPU(column)") != std::string::npos ? "gpu" : "";
  // nvbandwidth's JSON ends the latency captions with a space ("... (ns) "), its text not.
  const auto end = caption.find_last_not_of(" \t\r\n");
  m.latency = end != std::string::npos && caption.substr(0, end + 1).ends_with("(ns)");
  // A latency testcase's "<->" names the pair chased between, not traffic both ways.
  if (m.latency)
    m.direction = "pointer_chase";
  else if (caption.find("<->") != std::string::npos)
    m.direction = "bidirectional";
  else if (caption.find("->") != std::string::npos)
    m.direction = "row_to_column";
  else if (caption.find("<-") != std::string::npos)
    m.direction = "column_to_row";
  else
    m.direction = "local";
  m.engine = caption.find(" CE ") != std::string::npos   ? "ce"
             : caption.find(" SM ") != std::string::npos ? "sm"
                                                         : "";
  return m;
}

// A matrix label that is a CUDA ordinal ("0", "7"), as nvbandwidth labels GPU rows and columns.
bool is_ordinal(const std::string &label) {
  return !label.empty() && label.find_first_not_of("0123456789") == std::string::npos;
}

std::string key_of(const std::string &testcase) {
  std::string key = peer::record::kNvbandwidthKeyPrefix;
  for (char c : testcase)
    key += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
               : '_';
  return key;
}

} // namespace

NvbDocument parse_nvbandwidth(const std::string &text, const std::string &where) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    throw InputError("the file is empty", where, "give nvbandwidth's text or JSON (-j) output");
  NvbDocument doc = text[first] == '{' ? parse_json(text, where) : parse_text(text, where);
  if (doc.testcases.empty() && doc.run_error.empty() && doc.unnamed_waived == 0)
    throw InputError(fmt::format("no nvbandwidth testcase found ({} form){}", doc.format,
                                 doc.problems.empty() ? "" : ": " + doc.problems.front()),
                     where,
                     "give the output of nvbandwidth (text, with its 'Running <testcase>.' lines, "
                     "or JSON from -j)");
  return doc;
}

namespace {

// The record every other one of an import starts from: its run, host, key and source.
struct RecordBase {
  const NvbDocument &doc;
  const std::string &run_id, &host;
  std::string time;

  Record operator()(const NvbTestcase &t) const {
    Record r;
    r.run = run_id;
    r.host = !host.empty() ? host : !doc.host.empty() ? doc.host : "unknown";
    r.key = key_of(t.name);
    r.time_utc = time;
    namespace p = peer::record;
    r.params = {{p::kTestcase, t.name},
                {p::kSource, "nvbandwidth"},
                {p::kSourceFormat, doc.format},
                {p::kToolVersion, doc.version},
                {p::kDriverVersion, doc.driver_version}};
    return r;
  }
};

std::string pci_of(const NvbDocument &doc, const std::string &label) {
  char *end = nullptr;
  const long ordinal = std::strtol(label.c_str(), &end, 10);
  if (end == label.c_str() || *end != '\0' || ordinal < 0 ||
      static_cast<std::size_t>(ordinal) >= doc.device_pci.size())
    return "";
  return doc.device_pci[static_cast<std::size_t>(ordinal)];
}

// One record per measured cell of matrix mi of testcase t.
void append_matrix_records(const RecordBase &base, const NvbTestcase &t, std::size_t mi,
                           std::vector<Record> &records) {
  const NvbMatrix &m = t.matrices[mi];
  const CaptionMeaning meaning = meaning_of(m.caption);
  namespace p = peer::record;
  for (std::size_t ri = 0; ri < m.values.size(); ++ri) {
    for (std::size_t ci = 0; ci < m.values[ri].size(); ++ci) {
      const auto &value = m.values[ri][ci];
      // N/A on a GPU x GPU matrix's diagonal is a GPU with itself, never measured. Anywhere else
      // nvbandwidth left the cell unset because it could not copy there: peer access that could
      // not be enabled (testcases_ce.cpp: `if (!srcBuffer.enablePeerAcess(peerBuffer))
      // continue;`), a GPU that lost its NVLink. Skipped, that GPU passed with no peer figure.
      const bool diagonal = meaning.row_kind == "gpu" && meaning.column_kind == "gpu" &&
                            m.values.size() > 1 && m.row_labels[ri] == m.column_labels[ci];
      if (!value && diagonal)
        continue;
      Record r = base(t);
      r.params.update({{p::kMatrix, mi},
                       {p::kVariant, m.variant},
                       {p::kCaption, m.caption},
                       {p::kRow, m.row_labels[ri]},
                       {p::kColumn, m.column_labels[ci]},
                       {p::kRowKind, meaning.row_kind},
                       {p::kColumnKind, meaning.column_kind},
                       {metric::kDirection, meaning.direction},
                       {offload::record::kEngine, meaning.engine}});
      // The GPU a cell belongs to: the row's in a GPU x GPU matrix; the column's for CPU(row)
      // and local matrices, and for the single-row GPU(row) matrices of all_to_one_* and
      // one_to_all_*, whose column is the GPU measured (testcase.cpp, allToOneHelper).
      // A multinode testcase's rows and columns are MPI processes (PeerValueMatrix(worldSize,
      // worldSize), multinode_testcases.cpp): process 4 of a 2 x 4 job is GPU 0 of the second
      // node, once read as GPU 4 of this one. Its cells name processes, never a GPU here.
      const bool processes = t.name.rfind("multinode", 0) == 0;
      if (processes)
        r.params.update({{p::kRowKind, "process"}, {p::kColumnKind, "process"}});
      const bool by_row = meaning.row_kind == "gpu" && m.values.size() > 1;
      const std::string &gpu_label = by_row ? m.row_labels[ri] : m.column_labels[ci];
      const std::string pci = processes ? "" : pci_of(base.doc, gpu_label);
      if (!pci.empty())
        r.device[device::kPci] = pci;
      else if (!processes && is_ordinal(gpu_label))
        r.device[device::kGpu] = gpu_label; // no bus id printed (before v0.5): the CUDA ordinal
      if (meaning.direction == "bidirectional")
        r.params[p::kBidirectionalFigure] = bidirectional_figure(m.variant);
      if (!value) {
        r.status = Status::failed;
        r.reason = fmt::format("nvbandwidth printed N/A for row {}, column {} of '{}': it could "
                               "not copy there (peer access not enabled, a link down)",
                               m.row_labels[ri], m.column_labels[ci], m.caption);
      } else if (meaning.latency) {
        r.metrics[peer::record::kLatencyS] = *value * 1e-9;
      } else {
        r.metrics[metric::kBandwidthGbytesPerS] = *value;
        if (m.sum)
          r.metrics[peer::record::kMatrixSumGbytesPerS] = *m.sum;
      }
      records.push_back(std::move(r));
    }
  }
}

// What concerns no named testcase: one record, key import.nvbandwidth.
void append_run_records(const RecordBase &base, std::vector<Record> &records) {
  const NvbDocument &doc = base.doc;
  const auto about_the_run = [&](Status status, std::string reason) {
    Record r = base(NvbTestcase{});
    r.key = peer::record::kNvbandwidthRunKey;
    r.params.erase(peer::record::kTestcase);
    r.status = status;
    r.reason = std::move(reason);
    records.push_back(std::move(r));
  };
  if (doc.unnamed_waived > 0)
    about_the_run(Status::waived,
                  fmt::format("nvbandwidth waived {} testcase(s) that cannot run on that machine; "
                              "its text output does not name them (its JSON output does)",
                              doc.unnamed_waived));
  if (!doc.run_error.empty()) {
    // The testcase that was running when it stopped printed no result: name it.
    const bool during =
        !doc.testcases.empty() && doc.testcases.back().matrices.empty() &&
        (doc.testcases.back().status == "Running" || doc.testcases.back().status.empty());
    const std::size_t finished = doc.testcases.size() - (during ? 1 : 0);
    about_the_run(Status::error,
                  during ? fmt::format("nvbandwidth stopped during testcase {} (after {} "
                                       "finished): {}",
                                       doc.testcases.back().name, finished, doc.run_error)
                         : fmt::format("nvbandwidth stopped after {} testcase(s): {}", finished,
                                       doc.run_error));
  }
}

} // namespace

std::vector<Record> nvbandwidth_records(const NvbDocument &doc, const std::string &run_id,
                                        const std::string &host) {
  std::vector<Record> records;
  const RecordBase base{doc, run_id, host, utc_timestamp_now()};
  for (const auto &t : doc.testcases) {
    // A testcase "Passed" in JSON with no matrix it could read (none, or one of no rows) measured
    // nothing here: an error, as the text's testcase with no matrix is.
    if (t.status == "Waived" || t.status == "Error" || t.status == "ERROR" || t.matrices.empty()) {
      Record r = base(t);
      const bool waived = t.status == "Waived";
      r.status = waived ? Status::waived : Status::error;
      r.reason = waived ? "nvbandwidth waived this testcase (it cannot run on that machine)"
                 : !t.error.empty() ? "nvbandwidth reported: " + t.error
                 : t.status == "Passed"
                     ? "nvbandwidth said it passed but gave no matrix that could be read"
                     : fmt::format("nvbandwidth printed no result for it (status {})", t.status);
      records.push_back(std::move(r));
      continue;
    }
    for (std::size_t mi = 0; mi < t.matrices.size(); ++mi)
      append_matrix_records(base, t, mi, records);
  }
  append_run_records(base, records);
  return records;
}

ImportResult import_nvbandwidth_file(const std::string &file, const std::string &out_dir,
                                     const std::string &host, const std::vector<std::string> &argv,
                                     std::ostream &warnings) {
  const NvbDocument doc = parse_nvbandwidth(
      analysis::read_text_file(file, "give the path of a saved nvbandwidth output"), file);
  const std::string run_host = !host.empty() ? host : doc.host;
  const nlohmann::json imported = {{"format", doc.format},
                                   {"version", doc.version},
                                   {"driver_version", doc.driver_version},
                                   {"cuda_runtime_version", doc.cuda_runtime_version},
                                   {"host", doc.host},
                                   {"devices", doc.device_names},
                                   {"device_pci", doc.device_pci},
                                   {"problems", doc.problems}};
  const auto run = analysis::write_imported_run(
      out_dir, run_host, argv, "nvbandwidth", file, imported,
      [&](const RunIdentity &id) { return nvbandwidth_records(doc, id.run_id, id.host); });
  for (const auto &p : doc.problems)
    warnings << "railgauge: warning: " << p << '\n';
  return {run.dir, run.records, doc.problems.size()};
}

} // namespace railgauge::importers
