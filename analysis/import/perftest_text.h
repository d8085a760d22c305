#pragma once
// The words of perftest's text output: its header's "name : value" fields (two a line), a
// field's value, and its table's column names and values.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::importers {

// " Number of qps   : 1\t\tTransport type : IB" -> two fields, added to `fields`.
void parse_fields(const std::string &line, std::map<std::string, std::string> &fields);

// "1024[B]" -> 1024; "ON" (or a number too large for a 64-bit integer) -> text.
nlohmann::json field_value(const std::string &value);

// The line's words, split at blanks.
std::vector<std::string> split_ws(const std::string &line);

// The header row, tokenised into column names: "#bytes", "#iterations", "BW peak[Gb/sec]",
// "t_min[usec]", "99% percentile[usec]"; a name ends at "]" or is a single "#word".
std::vector<std::string> header_columns(const std::string &line);

} // namespace railgauge::importers
