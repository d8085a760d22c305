// A rules file read: its schema and profile fields, its rules (rule_yaml.h) and the base it
// builds on.
#include "analysis/check/rules.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "analysis/check/rule_yaml.h"
#include "harness/error.h"
#include "harness/yaml_input.h"

namespace railgauge::check {
namespace {

RuleSet parse_rules_in(const std::string &yaml_text, const std::string &file,
                       std::set<std::string> &chain);

// A rules file's text; an InputError at `where` with `fix` when it cannot be read.
std::string rules_text(const std::string &path, const std::string &what, const std::string &where,
                       const std::string &fix) {
  std::ifstream in(path);
  if (!in)
    throw InputError(fmt::format("cannot read {} '{}'", what, path), where, fix);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The rules file `base` names, relative to the file that names it, read and parsed; `chain` holds
// the files on the way here, so that a file which bases itself on itself is refused.
RuleSet load_base(const YAML::Node &base, const std::string &file, std::set<std::string> &chain) {
  const std::string name = yaml_scalar(base, file, "base");
  const auto path = (std::filesystem::path(file).parent_path() / name).lexically_normal().string();
  if (chain.contains(path))
    throw InputError(fmt::format("'base: {}' leads back to {} itself", name, path), at(file, base),
                     "base a profile on a file that does not base itself on this one");
  return parse_rules_in(
      rules_text(path, "the base rules file", at(file, base),
                 "give base: the file name of another profile, relative to this file"),
      path, chain);
}

} // namespace

RuleSet parse_rules(const std::string &yaml_text, const std::string &file) {
  std::set<std::string> chain;
  return parse_rules_in(yaml_text, file, chain);
}

namespace {

RuleSet parse_rules_in(const std::string &yaml_text, const std::string &file,
                       std::set<std::string> &chain) {
  chain.insert(std::filesystem::path(file).lexically_normal().string());
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception &e) {
    throw InputError(fmt::format("not valid YAML: {}", e.msg),
                     e.mark.line >= 0 ? fmt::format("{}:{}", file, e.mark.line + 1) : file,
                     "fix the YAML syntax at that line (indentation, a missing ':' or quote)");
  }
  if (!root.IsMap())
    throw InputError("a rules file must be a mapping", file,
                     "start with 'schema: railgauge.rules/1', 'name: NAME' and a 'rules:' list");
  expect_keys(root, file, "a rules file",
              {"schema", "name", "description", "suite", "gpu", "base", "rules", "incomplete_runs",
               "unreadable_inputs", "unjudged_nodes", "unverified_records", "history"});
  if (!root["schema"] || !root["schema"].IsScalar() ||
      root["schema"].as<std::string>() != kRulesSchema)
    throw InputError("missing or unknown 'schema'",
                     root["schema"] ? at(file, root["schema"]) : file,
                     fmt::format("start the file with 'schema: {}'", kRulesSchema));
  RuleSet set;
  set.file = file;
  if (!root["name"])
    throw InputError("a rules file has no 'name'", file, "add name: PROFILE-NAME");
  set.name = yaml_scalar(root["name"], file, "name");
  if (root["description"])
    set.description = yaml_scalar(root["description"], file, "description");
  if (root["suite"])
    set.suite = yaml_scalar(root["suite"], file, "suite");
  if (root["gpu"])
    set.gpu = yaml_scalar(root["gpu"], file, "gpu");
  if (root["incomplete_runs"])
    set.incomplete_runs = yaml_level(root["incomplete_runs"], file, "incomplete_runs", true);
  if (root["unreadable_inputs"])
    set.unreadable_inputs = yaml_level(root["unreadable_inputs"], file, "unreadable_inputs", true);
  if (root["unjudged_nodes"])
    set.unjudged_nodes = yaml_level(root["unjudged_nodes"], file, "unjudged_nodes", true);
  if (root["unverified_records"])
    set.unverified_records =
        yaml_level(root["unverified_records"], file, "unverified_records", true);
  if (root["history"])
    read_history_thresholds(root["history"], file, set.history);
  const auto list = root["rules"];
  if (!list || !list.IsSequence() || list.size() == 0)
    throw InputError("a rules file needs a non-empty 'rules:' list", list ? at(file, list) : file,
                     "add rules: with entries starting '- id:'");
  std::set<std::string> ids;
  for (const auto &item : list) {
    auto rule = parse_rule(item, file);
    if (!ids.insert(rule.id).second)
      throw InputError(fmt::format("duplicate rule id '{}'", rule.id), rule.where,
                       "give every rule its own id: verdicts and dashboards name rules by id");
    set.rules.push_back(std::move(rule));
  }
  if (!root["base"])
    return set;
  // A profile on a base: the base's rules, each replaced by this file's rule of the same id, in
  // the base's order; this file's other rules after them. Name, description and suite are this
  // file's (the suite the base's unless given).
  RuleSet based = load_base(root["base"], file, chain);
  for (auto &rule : set.rules) {
    const auto same = std::find_if(based.rules.begin(), based.rules.end(),
                                   [&](const Rule &r) { return r.id == rule.id; });
    if (same != based.rules.end())
      *same = std::move(rule);
    else
      based.rules.push_back(std::move(rule));
  }
  based.name = set.name;
  based.description = set.description;
  based.file = set.file;
  if (root["gpu"])
    based.gpu = set.gpu;
  if (root["incomplete_runs"])
    based.incomplete_runs = set.incomplete_runs;
  if (root["unreadable_inputs"])
    based.unreadable_inputs = set.unreadable_inputs;
  if (root["unjudged_nodes"])
    based.unjudged_nodes = set.unjudged_nodes;
  if (root["unverified_records"])
    based.unverified_records = set.unverified_records;
  if (root["history"]) // the fields given replace the base's, the others stay the base's
    read_history_thresholds(root["history"], file, based.history);
  if (!set.suite.empty())
    based.suite = set.suite;
  return based;
}

} // namespace

RuleSet load_rules_file(const std::string &path) {
  return parse_rules(rules_text(path, "rules file", "--rules",
                                "give a YAML rules file, e.g. results/rules/host-only.yaml"),
                     path);
}

} // namespace railgauge::check
