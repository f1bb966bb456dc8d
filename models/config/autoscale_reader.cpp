// `autoscale:` (see autoscale_reader.hpp).
#include "models/config/autoscale_reader.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "models/config/calendar_reader.hpp"
#include "sim/config/reader.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

std::string_view trigger_name(TriggerKind kind) {
  switch (kind) {
    case TriggerKind::WaitingGpus: return "waiting_gpus";
    case TriggerKind::GpuUtilization: return "gpu_utilization";
    case TriggerKind::GpuMemory: return "gpu_memory";
    case TriggerKind::Idle: return "idle";
    case TriggerKind::Schedule: return "schedule";
    case TriggerKind::Fallback: return "fallback";
    case TriggerKind::Budget: return "budget";
  }
  return "?";
}

std::optional<TriggerSpec> parse_trigger(std::string_view text, std::string& error, std::size_t& at) {
  const auto fail = [&](std::size_t offset, std::string why) -> std::optional<TriggerSpec> {
    error = std::move(why);
    at = offset;
    return std::nullopt;
  };
  std::size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  skip();
  const std::size_t name_at = i;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
  const std::string name(text.substr(name_at, i - name_at));
  TriggerSpec t;
  t.text = std::string(text);
  static const std::vector<std::string> NAMES = {"waiting_gpus", "gpu_utilization", "gpu_memory", "idle"};
  if (name == "idle") {
    t.kind = TriggerKind::Idle;
    skip();
    if (i != text.size()) return fail(i, "`idle` takes no comparison (a node with no job, held for `for`)");
    return t;
  }
  if (name == "waiting_gpus") t.kind = TriggerKind::WaitingGpus;
  else if (name == "gpu_utilization") t.kind = TriggerKind::GpuUtilization;
  else if (name == "gpu_memory") t.kind = TriggerKind::GpuMemory;
  else {
    const std::string near = did_you_mean(name, NAMES);
    return fail(name_at, (name.empty() ? std::string("a trigger starts with its measure") : "unknown measure '" + name + "'") +
                             (near.empty() ? "" : "; did you mean '" + near + "'?") +
                             " (waiting_gpus, gpu_utilization, gpu_memory or idle)");
  }
  skip();
  const std::size_t op_at = i;
  if (i < text.size() && (text[i] == '>' || text[i] == '<')) {
    const bool greater = text[i] == '>';
    ++i;
    const bool equal = i < text.size() && text[i] == '=';
    if (equal) ++i;
    t.op = greater ? (equal ? Comparison::GreaterEqual : Comparison::Greater)
                   : (equal ? Comparison::LessEqual : Comparison::Less);
  } else {
    return fail(op_at, "expected a comparison (>, >=, <, <=) after '" + name + "'");
  }
  skip();
  const std::size_t value_at = i;
  std::size_t end = text.size();
  while (end > value_at && text[end - 1] == ' ') --end;
  const std::string value(text.substr(value_at, end - value_at));
  if (value.empty()) return fail(value_at, "expected a value after the comparison");
  const bool percent = value.back() == '%';
  const std::string number = percent ? value.substr(0, value.size() - 1) : value;
  char* stop = nullptr;
  const double v = number.empty() ? NAN : std::strtod(number.c_str(), &stop);
  if (number.empty() || stop != number.c_str() + number.size() || !std::isfinite(v) ||
      number.find_first_of("xXnNiI") != std::string::npos)
    return fail(value_at, "'" + value + "' is not a number");
  if (t.kind == TriggerKind::WaitingGpus) {
    if (percent) return fail(value_at, "waiting_gpus counts GPUs: write a whole number, not '" + value + "'");
    if (v < 0 || v != std::floor(v) || v > 2147483647.0)
      return fail(value_at, "waiting_gpus counts GPUs: a whole number >= 0, not '" + value + "'");
    t.threshold = v;
  } else {
    if (!percent) return fail(value_at, "missing unit in '" + value + "': write a share of the pool as a percentage (e.g. 80%)");
    if (v < 0 || v > 100) return fail(value_at, "'" + value + "' is out of range: a share runs 0%..100%");
    t.threshold = v / 100.0;
  }
  return t;
}

namespace {

// A `when:` value: an error inside it points at the offending part (the value's column plus
// the offset, past an opening quote).
TriggerSpec read_trigger(const ConfigNode& n) {
  const std::string text = config::read_string(n);
  std::string error;
  std::size_t offset = 0;
  std::optional<TriggerSpec> t = parse_trigger(text, error, offset);
  if (t) return *t;
  SourceMark mark = n.mark();
  if (mark.column > 0) mark.column += static_cast<int>(offset) + (n.quoted() ? 1 : 0);
  const ErrorCode code = error.rfind("missing unit", 0) == 0 ? ErrorCode::BadUnit
                         : error.find("out of range") != std::string::npos || error.find(">= 0") != std::string::npos
                             ? ErrorCode::OutOfRange
                         : error.rfind("unknown measure", 0) == 0 ? ErrorCode::UnknownName
                                                                   : ErrorCode::Syntax;
  throw ConfigError(code, mark, n.path(), "in '" + text + "': " + error);
}

ScaleRuleSpec read_rule(const ConfigNode& n, bool scale_out) {
  MapReader r(n, SCALE_RULE_KEYS);
  ScaleRuleSpec rule;
  const ConfigNode& when = r.required("when");
  rule.when = read_trigger(when);
  if (scale_out && rule.when.kind == TriggerKind::Idle)
    when.fail(ErrorCode::Conflict, "`idle` is a scale-in trigger (a node with no job): scale out on waiting_gpus, "
                                   "gpu_utilization or gpu_memory");
  rule.hold = r.value<sim::SimTime>("for");
  rule.by = static_cast<int>(r.value<std::int64_t>("by"));
  r.finish();
  return rule;
}

}  // namespace

AutoscaleSpec read_autoscale(const ConfigNode& node, int count, bool bill_provisioning) {
  MapReader r(node, AUTOSCALE_KEYS);
  AutoscaleSpec a;
  a.mark = node.mark();
  a.min = static_cast<int>(r.value<std::int64_t>("min"));
  a.max = static_cast<int>(r.need<std::int64_t>("max"));
  if (a.max < a.min)
    r.where("max")->fail(ErrorCode::OutOfRange, "max (" + std::to_string(a.max) + ") is below min (" + std::to_string(a.min) + ")");
  if (count < a.min || count > a.max)
    node.fail(ErrorCode::OutOfRange, "the node type's count (" + std::to_string(count) + ", its size at the start) must be within "
                                         "min..max (" + std::to_string(a.min) + ".." + std::to_string(a.max) + ")");
  if (const ConfigNode* out = r.optional("scale_out")) a.scale_out = read_rule(*out, true);
  if (const ConfigNode* in = r.optional("scale_in")) a.scale_in = read_rule(*in, false);
  a.cooldown = r.value<sim::SimTime>("cooldown");
  a.provisioning = r.value<sim::SimTime>("provisioning");
  a.bill_provisioning = r.get<bool>("bill_provisioning").value_or(bill_provisioning);
  if (const ConfigNode* schedule = r.optional("schedule")) {
    if (!schedule->is_sequence() || schedule->size() == 0)
      schedule->fail(ErrorCode::WrongType, "schedule is a list of windows: [{days: mon-fri, from: \"09:00\", to: \"18:00\", count: 4}]");
    for (const ConfigNode& item : schedule->items()) {
      MapReader w(item, SCHEDULE_WINDOW_KEYS);
      ScheduleWindowSpec window;
      window.calendar = read_week_window(w);
      window.count = static_cast<int>(w.need<std::int64_t>("count"));
      if (window.count < a.min || window.count > a.max)
        w.where("count")->fail(ErrorCode::OutOfRange, "a window's count (" + std::to_string(window.count) +
                                                          ") must be within min..max (" + std::to_string(a.min) + ".." +
                                                          std::to_string(a.max) + ")");
      w.finish();
      a.schedule.push_back(std::move(window));
    }
  }
  if (const ConfigNode* fallback = r.optional("fallback")) a.fallback = config::read_string(*fallback);
  if (!a.scale_out && !a.scale_in && a.schedule.empty())
    node.fail(ErrorCode::MissingKey, "autoscale needs scale_out, scale_in or schedule: without one the pool never changes");
  r.finish();
  return a;
}

}  // namespace gcsim::models
