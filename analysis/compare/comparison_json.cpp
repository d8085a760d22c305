// A comparison as JSON (railgauge compare --json) and back (railgauge report), refusing a file
// whose shape the renderers could not index.
#include <fmt/format.h>

#include "analysis/compare/compare.h"
#include "analysis/compare/verdicts.h"
#include "harness/error.h"
#include "harness/json_integer.h"

namespace railgauge::compare {

using json = nlohmann::json;

namespace {

json side_json(const std::optional<Side> &s) {
  if (!s)
    return nullptr;
  json out = {{"value", s->value},
              {"noise", s->noise ? json(*s->noise) : json(nullptr)},
              {"records", s->records}};
  // A fleet's tails (compare.h), only where compared.
  if (s->p10 && s->p90) {
    out["p10"] = *s->p10;
    out["p90"] = *s->p90;
  }
  return out;
}

} // namespace

json to_json(const Comparison &c) {
  json points = json::array();
  for (const auto &p : c.points) {
    json sides = json::array();
    for (const auto &s : p.sides)
      sides.push_back(side_json(s));
    json ratios = json::array();
    for (const auto &r : p.ratio)
      ratios.push_back(r ? json(*r) : json(nullptr));
    json point = {{"key", p.key},
                  {"params", p.params},
                  {"device", p.device},
                  {"metric", p.metric},
                  {"higher_is_better", p.higher_is_better},
                  {"sides", sides},
                  {"ratio", ratios},
                  {"verdict", p.verdict},
                  {"counted", p.counted}};
    if (!p.interpolated.empty()) {
      json read = json::array();
      for (const auto &s : p.interpolated)
        read.push_back(side_json(s));
      point["interpolated"] = read;
    }
    points.push_back(point);
  }
  const auto summaries = [](const std::vector<Summary> &list) {
    json out = json::array();
    for (const auto &s : list)
      out.push_back({{"group", s.group},
                     {"input", s.input},
                     {"points", s.points},
                     // None over no point: the 1.0 of an empty mean reads as parity.
                     {"geomean_speedup", s.points > 0 ? json(s.geomean_speedup) : json(nullptr)},
                     {"better", s.better},
                     {"worse", s.worse},
                     {"within_noise", s.within_noise},
                     {"single_sample", s.single_sample},
                     {"read_off_curve", s.read_off_curve},
                     {"failed", s.failed},
                     {"missing", s.missing},
                     {"added", s.added},
                     {"unrated", s.unrated}});
    return out;
  };
  json context = json::array();
  for (const auto &d : c.context)
    context.push_back({{"param", d.param}, {"values", d.values}});
  return {{"schema", kCompareSchema},
          {"labels", c.labels},
          {"inputs", c.inputs},
          {"context", context},
          {"matched", c.matched},
          {"hint", c.hint},
          {"problems", c.problems},
          {"points", points},
          {"families", summaries(c.families)},
          {"keys", summaries(c.keys)},
          {"single_sample_tolerance", c.single_sample_tolerance}};
}

namespace {

const char *const kComparisonFix = "regenerate it with railgauge compare --json FILE";

// A count in a comparison file.
int count_of(const json &j) {
  const auto count = json_integer<int>(j);
  if (!count || *count < 0)
    throw InputError(fmt::format("malformed comparison: {} is not a count", j.dump()), "report",
                     kComparisonFix);
  return *count;
}

// A value, ratio or noise.
double number_of(const json &j) {
  if (!j.is_number())
    throw InputError(fmt::format("malformed comparison: {} is not a number", j.dump()), "report",
                     kComparisonFix);
  return j.get<double>();
}

std::optional<Side> side_from_json(const json &s) {
  if (s.is_null())
    return std::nullopt;
  Side side;
  side.value = number_of(s.at("value"));
  if (!s.at("noise").is_null())
    side.noise = number_of(s.at("noise"));
  side.records = count_of(s.at("records"));
  if (s.contains("p10") && s.contains("p90")) {
    side.p10 = number_of(s.at("p10"));
    side.p90 = number_of(s.at("p90"));
  }
  return side;
}

// The shape the renderers index by: one input per label, one side per input, one ratio and one
// verdict per input after the first, summaries against an input that exists.
std::string shape_problem(const Comparison &c) {
  if (c.labels.size() < 2 || c.inputs.size() != c.labels.size())
    return fmt::format("{} labels for {} inputs (at least 2, one each)", c.labels.size(),
                       c.inputs.size());
  for (const auto &p : c.points)
    if (p.sides.size() != c.labels.size() || p.ratio.size() + 1 != c.labels.size() ||
        p.verdict.size() + 1 != c.labels.size() ||
        (!p.interpolated.empty() && p.interpolated.size() != c.labels.size()))
      return fmt::format("point {} has {} sides, {} ratios, {} verdicts and {} interpolated "
                         "sides for {} inputs",
                         p.key, p.sides.size(), p.ratio.size(), p.verdict.size(),
                         p.interpolated.size(), c.labels.size());
  for (const auto *list : {&c.families, &c.keys})
    for (const auto &s : *list)
      if (s.input < 1 || static_cast<std::size_t>(s.input) >= c.labels.size())
        return fmt::format("summary {} compares input {}, which is not one after the first",
                           s.group, s.input);
      else if (s.failed < 0 || s.failed > s.worse)
        return fmt::format("summary {} counts {} failed of {} worse: the failed are among the "
                           "worse",
                           s.group, s.failed, s.worse);
  return "";
}

} // namespace

Comparison comparison_from_json(const json &j, const std::string &where) {
  if (!j.is_object() || !j.contains("schema") || j.at("schema") != kCompareSchema)
    throw InputError(fmt::format("not a comparison (its schema is not {})", kCompareSchema), where,
                     "give the JSON that `railgauge compare --json FILE` wrote, or run "
                     "directories");
  Comparison c;
  try {
    c.labels = j.at("labels").get<std::vector<std::string>>();
    c.inputs = j.at("inputs").get<std::vector<std::vector<std::string>>>();
    for (const auto &pj : j.at("points")) {
      PointComparison p;
      p.key = pj.at("key").get<std::string>();
      p.params = pj.at("params");
      p.device = pj.at("device").get<std::string>();
      p.metric = pj.at("metric").get<std::string>();
      p.higher_is_better = pj.at("higher_is_better").get<bool>();
      for (const auto &s : pj.at("sides"))
        p.sides.push_back(side_from_json(s));
      // Files of before interpolation have none.
      for (const auto &s : pj.value("interpolated", json::array()))
        p.interpolated.push_back(side_from_json(s));
      for (const auto &r : pj.at("ratio"))
        p.ratio.push_back(r.is_null() ? std::nullopt : std::optional<double>(number_of(r)));
      p.verdict = pj.at("verdict").get<std::vector<std::string>>();
      p.counted = pj.value("counted", true); // files of before it counted every point
      c.points.push_back(std::move(p));
    }
    // Files of before read_off_curve or failed were written: each counted again from the
    // points, as verdicts.cpp counts it (a ratio where one of the two sides was not measured; a
    // verdict that the input failed).
    const auto count_of_points = [&c](const std::string &group, int input, bool family,
                                      const auto &counted) {
      if (input < 1 || static_cast<std::size_t>(input) >= c.labels.size())
        return 0;
      const auto k = static_cast<std::size_t>(input);
      int n = 0;
      for (const auto &p : c.points)
        n += (family ? family_of(p.key) : p.key) == group && k <= p.ratio.size() &&
             k < p.sides.size() && k <= p.verdict.size() && p.counted && counted(p, k);
      return n;
    };
    const auto read_off = [](const PointComparison &p, std::size_t k) {
      return p.ratio[k - 1] && (!p.sides[0] || !p.sides[k]);
    };
    const auto failed = [&c](const PointComparison &p, std::size_t k) {
      return p.verdict[k - 1] == "failed in " + c.labels[k] ||
             p.verdict[k - 1] == "error in " + c.labels[k];
    };
    const auto missing = [&c](const PointComparison &p, std::size_t k) {
      return p.verdict[k - 1] == "only in " + c.labels[0];
    };
    const auto added = [&c](const PointComparison &p, std::size_t k) {
      return p.verdict[k - 1] == "only in " + c.labels[k];
    };
    const auto unrated = [](const PointComparison &p, std::size_t k) {
      return p.verdict[k - 1] == "baseline is zero" || p.verdict[k - 1].starts_with("moves no");
    };
    const auto read = [&](const json &list, std::vector<Summary> &out, bool family) {
      for (const auto &s : list) {
        const auto group = s.at("group").get<std::string>();
        const int input = count_of(s.at("input"));
        out.push_back(
            {group, input, count_of(s.at("points")),
             s.at("geomean_speedup").is_null() ? 1.0 : number_of(s.at("geomean_speedup")),
             count_of(s.at("better")), count_of(s.at("worse")), count_of(s.at("within_noise")),
             s.contains("single_sample") ? count_of(s.at("single_sample")) : 0,
             s.contains("read_off_curve") ? count_of(s.at("read_off_curve"))
                                          : count_of_points(group, input, family, read_off),
             s.contains("failed") ? count_of(s.at("failed"))
                                  : count_of_points(group, input, family, failed),
             s.contains("missing") ? count_of(s.at("missing"))
                                   : count_of_points(group, input, family, missing),
             s.contains("added") ? count_of(s.at("added"))
                                 : count_of_points(group, input, family, added),
             s.contains("unrated") ? count_of(s.at("unrated"))
                                   : count_of_points(group, input, family, unrated)});
      }
    };
    read(j.at("families"), c.families, true);
    read(j.at("keys"), c.keys, false);
    // Files of before the context and hint were recorded have neither.
    for (const auto &d : j.value("context", json::array()))
      c.context.push_back(
          {d.at("param").get<std::string>(), d.at("values").get<std::vector<std::string>>()});
    c.matched = j.contains("matched") ? count_of(j.at("matched")) : 0;
    c.hint = j.value("hint", "");
    c.problems = j.value("problems", std::vector<std::string>{});
    c.single_sample_tolerance = j.value("single_sample_tolerance", kSingleSampleTolerance);
  } catch (const json::exception &e) {
    throw InputError(fmt::format("malformed comparison: {}", e.what()), "report", kComparisonFix);
  }
  if (const auto problem = shape_problem(c); !problem.empty())
    throw InputError(fmt::format("malformed comparison: {}", problem), "report", kComparisonFix);
  return c;
}

} // namespace railgauge::compare
