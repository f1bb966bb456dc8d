// The `alerts:` section (see alerts_reader.hpp).
#include "models/config/alerts_reader.hpp"

#include <vector>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"
#include "sim/rules/alert_rules_file.hpp"

namespace gcsim::models {

std::string read_alerts(const config::ConfigNode& node, config::SourceResolver& sources) {
  const promql::SeriesNames* names = &promql::exported_series_names();
  std::vector<promql::AlertGroup> groups;
  if (node.is_sequence()) {
    promql::AlertGroup group;
    group.name = SCENARIO_ALERT_GROUP;
    for (const config::ConfigNode& rule : node.items()) group.rules.push_back(promql::read_alert_rule(rule, names));
    groups.push_back(std::move(group));
  } else {
    config::MapReader r(node, ALERTS_KEYS);
    const config::ConfigNode* file = r.optional("file");
    const config::ConfigNode* inline_groups = r.optional("groups");
    r.finish();
    if ((file == nullptr) == (inline_groups == nullptr))
      node.fail(ErrorCode::Conflict, "give either `file:` (a rules file) or `groups:`, or a list of rules");
    if (file) {
      const std::string& text = sources.read(*file, "alert rules");
      const config::ConfigDocument doc =
          config::load_yaml_string(text, config::SourceResolver::resolve(file->mark().file, file->scalar()));
      groups = promql::read_alert_groups(doc.root, names);
    } else {
      groups = promql::read_alert_groups(node, names);
    }
  }
  std::size_t rules = 0;
  for (const promql::AlertGroup& g : groups) rules += g.rules.size();
  if (rules == 0) node.fail(ErrorCode::OutOfRange, "no alerting rule: give at least one (docs/alerts.md)");
  return promql::rules_yaml(groups);
}

}  // namespace gcsim::models
