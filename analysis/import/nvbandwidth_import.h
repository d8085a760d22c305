#pragma once
// nvbandwidth (github.com/NVIDIA/nvbandwidth, v0.8 output code) read into records, so that
// existing nvbandwidth runs can be checked and compared with railgauge's own offload figures.
//
// Both of its output forms:
//   text  "Running <testcase>." then a caption ("memcpy CE CPU(row) -> GPU(column) bandwidth
//         (GB/s)"), a header of column labels, one line per row (a label, then %.2f values or
//         N/A), a blank line and "SUM <testcase> <sum>" ("&&&& PERF <testcase> <sum> +GB/s" with
//         --perfFormatter). One testcase may print several matrices (Read1, Read2, Total).
//   JSON  (-j) {"nvbandwidth": {"version", "Driver Version", "CUDA Runtime Version",
//         "GPU Device list": ["0: <name> (<bus>): (<host>)"], "testcases": [{"name", "status",
//         "bandwidth_description", "bandwidth_matrix": [["26.03", "N/A", ...]], "sum",
//         "error"}]}}. Its writer appends every matrix of a testcase to the same
//         bandwidth_matrix and keeps the last caption and sum, so a GPU x GPU testcase with k
//         matrices arrives as one k*n x n matrix; it is split back into k parts here.
//
// One record per measured cell: key import.nvbandwidth.<testcase>, params {testcase, matrix,
// variant, caption, row, column, row_kind, column_kind, direction, engine, source}, metrics
// bandwidth_gbytes_per_s (GB = 1e9, as nvbandwidth) or latency_s, and the matrix's sum; device.pci
// is the GPU's bus id, or device.gpu its CUDA ordinal where the output printed none. N/A cells
// (a GPU with itself) are not records. A waived testcase is a waived record; one that printed an
// error is an error record. A run that stopped outside any testcase (run_error) adds one error
// record, key import.nvbandwidth, with nvbandwidth's message; unnamed waived testcases (text
// form) one waived record of that key.
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge::importers {

struct NvbMatrix {
  std::string caption;
  std::string variant; // "Read1", "Total", "part 2 of 3"; empty for the only matrix
  std::vector<std::string> column_labels;
  std::vector<std::string> row_labels;
  std::vector<std::vector<std::optional<double>>> values; // [row][column]
  std::optional<double> sum;
};

struct NvbTestcase {
  std::string name;
  std::string status; // "Passed", "Waived", "Error", "Running" (the text form's only status)
  std::string error;
  std::vector<NvbMatrix> matrices;
};

struct NvbDocument {
  std::string format; // "text" or "json"
  std::string version, driver_version, cuda_runtime_version, host;
  std::vector<std::string> device_pci; // by CUDA ordinal, "0000:19:00.0"; may be empty
  std::vector<std::string> device_names;
  std::vector<NvbTestcase> testcases;
  // Why nvbandwidth stopped outside any testcase: the JSON form's top-level "error" (cuInit or
  // nvmlInit failed, bad arguments), or a text output with its header and no testcase (the text
  // form prints such errors on standard error). Empty when it did not stop early.
  std::string run_error;
  // The text form's "Waived:" lines: it prints them without the testcase's name.
  int unnamed_waived = 0;
  std::vector<std::string> problems; // "<where>:<line>: <what>" for what could not be read
};

// Reads either form (JSON when the first non-blank character is '{'). `where` names the input in
// messages. Throws InputError when the input is neither form or holds no testcase, no run error
// and no waived line;
// anything readable is kept and the rest listed in problems (a run killed half way still
// imports its complete matrices).
NvbDocument parse_nvbandwidth(const std::string &text, const std::string &where);

// The records of a document, for run `run_id` on `host` (the document's own host when empty).
std::vector<Record> nvbandwidth_records(const NvbDocument &doc, const std::string &run_id,
                                        const std::string &host);

// `railgauge import nvbandwidth FILE`: the file parsed and written as a run directory
// <out>/<run-id>/ that every analysis command reads like a measured run; returns where, and how
// many records and problems (printed to `warnings`; the records that could be read are written
// all the same).
struct ImportResult {
  std::string run_dir;
  std::size_t records = 0;
  std::size_t problems = 0;
};
ImportResult import_nvbandwidth_file(const std::string &file, const std::string &out_dir,
                                     const std::string &host, const std::vector<std::string> &argv,
                                     std::ostream &warnings);

} // namespace railgauge::importers
