#include "analysis/import/nvbandwidth_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/bounded_input.h"
#include "harness/number_text.h"

namespace railgauge::importers::nvb {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> words;
  std::istringstream in{std::string(s)};
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

// "26.03" -> 26.03, "N/A" -> nullopt (a cell nvbandwidth did not measure); anything else
// ("inf", "nan", "12abc") is not a value (nullopt through `ok`).
std::optional<double> parse_cell(const std::string &text, bool &ok) {
  ok = true;
  if (text == "N/A")
    return std::nullopt;
  char *end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) {
    ok = false;
    return std::nullopt;
  }
  return v;
}

// The word before "bandwidth" when it is one of nvbandwidth's matrix names (Read1, Write2, Total).
std::string variant_of(const std::string &caption) {
  const auto words = split_words(caption);
  for (std::size_t i = 1; i < words.size(); ++i)
    if (words[i] == "bandwidth" && (words[i - 1] == "Total" || starts_with(words[i - 1], "Read") ||
                                    starts_with(words[i - 1], "Write")))
      return words[i - 1];
  return "";
}

// "NVIDIA H100 80GB HBM3 (00000000:19:00)" -> "0000:19:00.0" (nvbandwidth prints domain, bus and
// device; a GPU is function 0). Empty when the text has no such suffix.
std::string pci_from_display(const std::string &text, std::string *name) {
  const auto open = text.rfind('(');
  const auto close = text.rfind(')');
  // nvbandwidth before v0.5 prints the name alone ("Device 0: NVIDIA H100 80GB HBM3").
  if (name)
    *name = std::string(trimmed(text));
  if (open == std::string::npos || close == std::string::npos || close < open)
    return "";
  const std::string inside = text.substr(open + 1, close - open - 1);
  unsigned domain = 0, bus = 0, dev = 0;
  char tail = 0;
  if (std::sscanf(inside.c_str(), "%x:%x:%x%c", &domain, &bus, &dev, &tail) != 3)
    return "";
  if (name)
    *name = std::string(trimmed(text.substr(0, open)));
  return fmt::format("{:04x}:{:02x}:{:02x}.0", domain & 0xffffu, bus, dev);
}

// Why nvbandwidth stopped outside any testcase (the first reason given is kept), and a warning.
void note_run_error(NvbDocument &doc, const std::string &at, const std::string &message) {
  if (doc.run_error.empty())
    doc.run_error = message;
  doc.problems.push_back(fmt::format("{}: nvbandwidth reported an error: {}", at, message));
}

std::string after_colon(const std::string &line) {
  const auto colon = line.find(':');
  return colon == std::string::npos ? "" : std::string(trimmed(line.substr(colon + 1)));
}

namespace {

// A caption: "... bandwidth (GB/s)" or "... (ns)".
bool is_caption(std::string_view line) {
  const std::string t = std::string(trimmed(line));
  return t.size() > 6 && (t.ends_with("(GB/s)") || t.ends_with("(ns)"));
}

// The testcase of "ERROR: Testcase <id> not found!" or "ERROR: Testcase index <id> out of
// bound!", which nvbandwidth prints instead of running an unknown -t; nullopt for other lines.
std::optional<std::string> unknown_testcase(const std::string &line) {
  static const std::regex pattern(R"(^ERROR: Testcase (index )?(\S+) (not found|out of bound)!$)");
  std::smatch m;
  if (!std::regex_match(line, m, pattern))
    return std::nullopt;
  return m[2].str();
}

// Bounded before the regex above sees a line (harness/bounded_input.h): an "ERROR: Testcase"
// line of 30,000 characters overflowed the stack.
std::vector<std::string> text_lines(const std::string &text, const std::string &where) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  LineReader reader(in, where, "give nvbandwidth's own output (text, or JSON with -j)");
  for (std::string line; reader.next(line);)
    lines.push_back(line);
  return lines;
}

// "<source>:<line>" of the line at index i.
std::string line_at(const std::string &where, std::size_t i) {
  return fmt::format("{}:{}", where, i + 1);
}

// "Device 0: NVIDIA H100 80GB HBM3 (00000000:19:00)"; the host name is the line above the
// first device.
void read_device_line(NvbDocument &doc, const std::vector<std::string> &lines, std::size_t i,
                      const std::string &line) {
  const auto words = split_words(line);
  const int ordinal = std::atoi(words[1].c_str());
  if (ordinal == 0 && i > 0 && doc.host.empty())
    doc.host = std::string(trimmed(lines[i - 1]));
  std::string name;
  const std::string pci = pci_from_display(after_colon(line), &name);
  if (ordinal >= 0 && static_cast<std::size_t>(ordinal) == doc.device_pci.size()) {
    doc.device_pci.push_back(pci);
    doc.device_names.push_back(name);
  }
}

// The testcase named by the "SUM <testcase>" line after the caption at i, before the next
// testcase or matrix; empty when there is none.
std::string testcase_from_sum_line(const std::vector<std::string> &lines, std::size_t i) {
  std::string named;
  for (std::size_t j = i + 1; j < lines.size() && named.empty(); ++j) {
    const auto words = split_words(lines[j]);
    if (starts_with(lines[j], "Running ") || is_caption(lines[j]))
      break;
    if (words.size() >= 3 && words[0] == "SUM")
      named = words[1];
  }
  return named;
}

// The matrix's rows from line i on, up to the blank line after them (i is left there); whether
// any row was malformed.
bool read_matrix_rows(NvbDocument &doc, const std::vector<std::string> &lines, std::size_t &i,
                      NvbMatrix &m, const std::string &where) {
  bool broken = m.column_labels.empty();
  for (++i; i < lines.size() && !trimmed(lines[i]).empty(); ++i) {
    const auto cells = split_words(lines[i]);
    if (cells.size() != m.column_labels.size() + 1) {
      doc.problems.push_back(fmt::format("{}: a row with {} values under {} columns",
                                         line_at(where, i), cells.size() - 1,
                                         m.column_labels.size()));
      broken = true;
      continue;
    }
    std::vector<std::optional<double>> row;
    for (std::size_t c = 1; c < cells.size(); ++c) {
      bool ok = true;
      row.push_back(parse_cell(cells[c], ok));
      if (!ok) {
        doc.problems.push_back(
            fmt::format("{}: '{}' is neither a number nor N/A", line_at(where, i), cells[c]));
        broken = true;
      }
    }
    m.row_labels.push_back(cells[0]);
    m.values.push_back(std::move(row));
  }
  return broken;
}

// The blank line, then "SUM <key> <sum>" or "&&&& PERF <key> <sum> +GB/s": i is left on it.
void read_matrix_sum(const std::vector<std::string> &lines, std::size_t &i, NvbMatrix &m) {
  for (std::size_t j = i; j < lines.size() && j <= i + 2; ++j) {
    const auto words = split_words(lines[j]);
    std::size_t value_at = 0;
    if (words.size() >= 3 && words[0] == "SUM")
      value_at = 2;
    else if (words.size() >= 4 && words[0] == "&&&&" && words[1] == "PERF")
      value_at = 3;
    if (value_at == 0)
      continue;
    bool ok = true;
    m.sum = parse_cell(words[value_at], ok);
    i = j;
    break;
  }
}

// The matrix whose caption is line i, into the current testcase (i is left on its last line);
// false when the text ends before it does.
bool read_captioned_matrix(NvbDocument &doc, const std::vector<std::string> &lines, std::size_t &i,
                           const std::string &line, NvbTestcase *&current,
                           const std::string &where) {
  if (!current) {
    // An excerpt (an issue, a chat) may keep the matrix and its "SUM <testcase>" line and
    // drop the "Running <testcase>." line above it: the SUM line names it.
    const std::string named = testcase_from_sum_line(lines, i);
    if (named.empty()) {
      doc.problems.push_back(
          fmt::format("{}: a matrix outside any 'Running' testcase", line_at(where, i)));
      return true;
    }
    doc.problems.push_back(fmt::format("{}: a matrix without its 'Running {}.' line: named "
                                       "from the SUM line after it",
                                       line_at(where, i), named));
    doc.testcases.push_back({named, "Running", "", {}});
    current = &doc.testcases.back();
  }
  NvbMatrix m;
  m.caption = line;
  m.variant = variant_of(line);
  if (i + 1 >= lines.size()) {
    doc.problems.push_back(fmt::format("{}: the matrix ends after its caption", line_at(where, i)));
    return false;
  }
  m.column_labels = split_words(lines[++i]);
  bool broken = read_matrix_rows(doc, lines, i, m, where);
  // A GPU x GPU matrix has a row per column, labelled alike: a text cut at a line's end, or a
  // row lost, left one that read as complete, the GPUs below the cut never judged. Not the one
  // row of all_to_one_* and one_to_all_* (captioned GPU(row) by v0.8: allToOneHelper).
  const bool one_row_by_design =
      current->name.starts_with("all_to_one") || current->name.starts_with("one_to_all");
  const bool gpu_by_gpu = line.find("GPU(row)") != std::string::npos &&
                          line.find("GPU(column)") != std::string::npos && !one_row_by_design;
  if (!broken && gpu_by_gpu && m.row_labels != m.column_labels) {
    doc.problems.push_back(fmt::format("{}: the GPU x GPU matrix has rows {} under columns {} (a "
                                       "row lost, or the output cut)",
                                       line_at(where, i), fmt::join(m.row_labels, " "),
                                       fmt::join(m.column_labels, " ")));
    broken = true;
  }
  read_matrix_sum(lines, i, m);
  if (broken || m.values.empty()) {
    doc.problems.push_back(
        fmt::format("{}: the matrix of {} is incomplete or malformed and was not imported",
                    line_at(where, i), current->name));
    return true;
  }
  current->status = "Passed";
  current->matrices.push_back(std::move(m));
  return true;
}

// An "Error:" line: the current testcase's error, or the run's before any testcase.
void read_error_line(NvbDocument &doc, NvbTestcase *current, const std::string &at,
                     const std::string &line) {
  if (current) {
    current->status = "Error";
    current->error = after_colon(line);
  } else if (doc.run_error.empty()) {
    note_run_error(doc, at, line); // before any testcase: "ERROR: Invalid Arguments", ...
  }
}

} // namespace

NvbDocument parse_text(const std::string &text, const std::string &where) {
  NvbDocument doc;
  doc.format = "text";
  const std::vector<std::string> lines = text_lines(text, where);
  NvbTestcase *current = nullptr;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string line = std::string(trimmed(lines[i]));
    if (starts_with(line, "nvbandwidth Version:")) {
      doc.version = after_colon(line);
    } else if (starts_with(line, "Driver Version:")) {
      doc.driver_version = after_colon(line);
    } else if (starts_with(line, "CUDA Runtime Version:")) {
      doc.cuda_runtime_version = after_colon(line);
    } else if (starts_with(line, "Device ") && line.find(':') != std::string::npos) {
      read_device_line(doc, lines, i, line);
    } else if (starts_with(line, "Running ") && line.ends_with(".")) {
      doc.testcases.push_back({line.substr(8, line.size() - 9), "Running", "", {}});
      current = &doc.testcases.back();
    } else if (const auto unknown = unknown_testcase(line)) {
      // "-t" named a testcase this nvbandwidth does not have: it says so and goes on.
      doc.testcases.push_back({*unknown, "ERROR", after_colon(line), {}});
      current = nullptr;
    } else if (starts_with(line, "Error:") || starts_with(line, "ERROR:")) {
      read_error_line(doc, current, line_at(where, i), line);
    } else if (line.find(" in expression ") != std::string::npos) {
      // Its CU_ASSERT / CUDA_ASSERT / NVML_ASSERT message ("[<name>] <text> in expression
      // cuInit(0) in ... : <file>:<line>"), printed on standard error before it exits.
      note_run_error(doc, line_at(where, i), line);
    } else if (starts_with(line, "Waived:")) {
      ++doc.unnamed_waived;
      doc.problems.push_back(
          fmt::format("{}: a testcase was waived; nvbandwidth's text output does not name it "
                      "(its JSON output does)",
                      line_at(where, i)));
    } else if (is_caption(line) && !read_captioned_matrix(doc, lines, i, line, current, where)) {
      break;
    }
  }
  // nvbandwidth's header and nothing after it: its reason went to standard error.
  if (doc.testcases.empty() && doc.run_error.empty() && doc.unnamed_waived == 0 &&
      !doc.version.empty()) {
    doc.run_error = "nvbandwidth printed its header and no testcase: it stopped before the first "
                    "(the text form prints why on standard error)";
    doc.problems.push_back(fmt::format("{}: {}", where, doc.run_error));
  }
  return doc;
}

} // namespace railgauge::importers::nvb
