#pragma once
// nvbandwidth's text output (its default form, nvbandwidth_import.h) read into a document, and
// the readers of its cells, captions and device names that its JSON form shares.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/import/nvbandwidth_import.h"

namespace railgauge::importers::nvb {

// The text form, line by line; `where` names the source in problems.
NvbDocument parse_text(const std::string &text, const std::string &where);

bool starts_with(std::string_view s, std::string_view prefix);
std::vector<std::string> split_words(std::string_view s);
std::optional<double> parse_cell(const std::string &text, bool &ok);
std::string variant_of(const std::string &caption);
std::string pci_from_display(const std::string &text, std::string *name);
void note_run_error(NvbDocument &doc, const std::string &at, const std::string &message);
std::string after_colon(const std::string &line);

} // namespace railgauge::importers::nvb
