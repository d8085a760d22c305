#include "records/coverage_ledger_file.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"

namespace railgauge::records {

void append_ledger_lines(const std::string &path, const std::vector<LedgerLine> &lines) {
  std::ofstream out(path, std::ios::app);
  if (!out)
    throw InputError("cannot append to the coverage ledger", path,
                     "give a run directory this process can write to");
  for (const auto &l : lines) {
    nlohmann::json j{{"link", l.link},   {"kind", l.kind},   {"time_s", l.time_s},
                     {"round", l.round}, {"phase", l.phase}, {"flows", l.flows},
                     {"bad", l.bad}};
    if (!l.via.empty())
      j["via"] = l.via;
    out << j.dump() << '\n';
  }
  if (!out)
    throw InputError("could not write the coverage ledger", path, "free space on its disk");
}

std::vector<LedgerLine> read_ledger_lines(const std::string &path) {
  std::vector<LedgerLine> lines;
  std::ifstream in(path);
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (text.empty())
      continue;
    try {
      const auto j = nlohmann::json::parse(text);
      lines.push_back({j.at("link").get<std::string>(), j.value("kind", ""), j.value("phase", ""),
                       j.at("time_s").get<double>(), j.value("round", 0), j.value("flows", 0),
                       j.value("bad", 0), j.value("via", "")});
    } catch (const nlohmann::json::exception &e) {
      throw InputError(fmt::format("not a coverage ledger line: {}", e.what()),
                       fmt::format("{}:{}", path, number),
                       "remove or repair the line (each is one JSON object with link and "
                       "time_s)");
    }
  }
  return lines;
}

} // namespace railgauge::records
