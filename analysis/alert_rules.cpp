// Alerting rules: reading (Prometheus' rules-file shape) and evaluation with Prometheus
// 2.42's alert states (see alert_rules.hpp and docs/alerts.md).
#include "analysis/alert_rules.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/metrics_series.hpp"
#include "sim/errors.hpp"

namespace gcsim::analysis {

struct AlertEvaluator::State {
  // Per group and rule, its active alerts by their labels: pending (start_ms < 0) or firing.
  std::vector<std::vector<std::map<promql::Labels, Firing>>> active;
  std::vector<Firing> done;
};

AlertEvaluator::AlertEvaluator(const std::vector<AlertGroup>& groups) : groups_(groups), state_(std::make_unique<State>()) {
  for (const AlertGroup& g : groups_) state_->active.emplace_back(g.rules.size());
}

AlertEvaluator::~AlertEvaluator() = default;

std::int64_t AlertEvaluator::lookback_ms() const {
  std::int64_t most = 0;
  for (const AlertGroup& g : groups_)
    for (const AlertRule& r : g.rules) most = std::max(most, r.expr.lookback_ms());
  return most;
}

void AlertEvaluator::evaluate(const std::vector<promql::Series>& series, std::int64_t from_ms, std::int64_t to_ms) {
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    const AlertGroup& g = groups_[gi];
    // The group's first evaluation time at or after from_ms.
    const std::int64_t first = from_ms <= 0 ? 0 : (from_ms + g.interval_ms - 1) / g.interval_ms * g.interval_ms;
    for (std::size_t ri = 0; ri < g.rules.size(); ++ri) {
      const AlertRule& rule = g.rules[ri];
      std::map<promql::Labels, Firing>& active = state_->active[gi][ri];
      rule.expr.forget_series();
      for (std::int64_t t = first; t < to_ms; t += g.interval_ms) {
        std::map<promql::Labels, double> now;
        for (promql::Sample& s : rule.expr.evaluate(series, t)) {
          promql::Labels l;
          for (auto& kv : s.labels)
            if (kv.first != promql::NAME_LABEL && std::none_of(rule.labels.begin(), rule.labels.end(),
                                                               [&](const auto& r) { return r.first == kv.first; }))
              l.push_back(std::move(kv));
          for (const auto& kv : rule.labels)
            if (kv.first != "alertname") l.push_back(kv);
          l.emplace_back("alertname", rule.name);
          std::sort(l.begin(), l.end());
          now[std::move(l)] = s.value;
        }
        for (auto it = active.begin(); it != active.end();) {
          if (now.count(it->first) == 0) {
            if (it->second.start_ms >= 0) {
              it->second.end_ms = t;
              it->second.resolved = true;
              state_->done.push_back(std::move(it->second));
            }
            it = active.erase(it);
          } else {
            ++it;
          }
        }
        for (auto& [labels, value] : now) {
          auto [it, fresh] = active.try_emplace(labels);
          Firing& f = it->second;
          if (fresh) {
            f.group = g.name;
            f.rule = rule.name;
            f.labels = labels;
            f.active_ms = t;
            f.start_ms = -1;
          }
          if (f.start_ms < 0 && t - f.active_ms >= rule.for_ms) {
            f.start_ms = t;
            f.peak = value;
          }
          if (f.start_ms >= 0) f.peak = std::max(f.peak, value);
          f.end_ms = t;
        }
      }
      rule.expr.forget_series();
    }
  }
}

std::vector<Firing> AlertEvaluator::finish() {
  std::vector<Firing> done = std::move(state_->done);
  for (auto& group : state_->active)
    for (auto& rule : group)
      for (auto& [labels, f] : rule)
        if (f.start_ms >= 0) done.push_back(std::move(f));
  state_ = std::make_unique<State>();
  for (const AlertGroup& g : groups_) state_->active.emplace_back(g.rules.size());
  std::sort(done.begin(), done.end(), [](const Firing& a, const Firing& b) {
    return std::tie(a.start_ms, a.group, a.rule, a.labels) < std::tie(b.start_ms, b.group, b.rule, b.labels);
  });
  return done;
}

std::vector<Firing> evaluate_alerts(const std::vector<AlertGroup>& groups, const std::vector<promql::Series>& series,
                                    std::int64_t end_ms) {
  AlertEvaluator e(groups);
  e.evaluate(series, 0, end_ms + 1);
  return e.finish();
}

std::vector<const Firing*> firing_at(const std::vector<Firing>& firings, std::int64_t t_ms) {
  std::vector<const Firing*> out;
  for (const Firing& f : firings)
    if (f.start_ms <= t_ms && (f.resolved ? t_ms < f.end_ms : t_ms <= f.end_ms)) out.push_back(&f);
  return out;
}

std::vector<promql::Series> metrics_as_promql(const MetricsData& data, double from_s, double to_s) {
  std::vector<promql::Series> out;
  for_each_series(
      data,
      [&out](const Series& s) {
        promql::Series p;
        std::string name(s.family->name);
        if (s.family->type == "counter") name += "_total";  // as exported (write_openmetrics)
        p.labels.emplace_back(promql::NAME_LABEL, name);
        for (const auto& kv : s.labels) p.labels.push_back(kv);
        std::sort(p.labels.begin(), p.labels.end());
        p.t_ms.reserve(s.samples.size());
        p.values.reserve(s.samples.size());
        for (const Sample& x : s.samples) {
          p.t_ms.push_back(std::llround(x.time_s * 1000));
          p.values.push_back(x.value);
        }
        out.push_back(std::move(p));
      },
      SampleWindow{from_s, to_s});
  return out;
}

std::vector<Firing> evaluate_trace_alerts_by_window(const MetricsData& data, const std::vector<AlertGroup>& groups) {
  AlertEvaluator evaluator(groups);
  constexpr std::int64_t WINDOW_MS = 3'600'000;
  const std::int64_t end_ms = std::llround(data.end_s * 1000);
  const std::int64_t back_ms = evaluator.lookback_ms();
  for (std::int64_t from = 0; from <= end_ms; from += WINDOW_MS) {
    const std::int64_t to = std::min(from + WINDOW_MS, end_ms + 1);
    const auto series = metrics_as_promql(data, static_cast<double>(std::max<std::int64_t>(0, from - back_ms)) / 1000,
                                          static_cast<double>(to) / 1000);
    evaluator.evaluate(series, from, to);
  }
  return evaluator.finish();
}

namespace {

bool by_start(const Firing& a, const Firing& b) {
  return std::tie(a.start_ms, a.group, a.rule, a.labels) < std::tie(b.start_ms, b.group, b.rule, b.labels);
}

constexpr std::uint32_t NO_ALERT = std::numeric_limits<std::uint32_t>::max();

// One rule's alerts over its evaluations, the states as AlertEvaluator keeps them.
void rule_by_change(const AlertGroup& g, const AlertRule& rule, const std::vector<promql::RunSeries>& series,
                    std::int64_t step_ms, std::int64_t end_ms, std::vector<Firing>& done) {
  promql::GridEvaluation expr(rule.expr, series, step_ms, g.interval_ms);
  // An alert's labels by the id of the result's labels, then by an alert id.
  std::vector<std::uint32_t> alert_of;
  std::map<promql::Labels, std::uint32_t> alert_ids;
  std::vector<const promql::Labels*> alert_labels;
  struct Active {
    std::uint32_t alert;
    double value;
    Firing f;
  };
  std::vector<Active> active;
  std::vector<std::uint32_t> active_pos;  // by alert id
  std::vector<std::uint64_t> now_epoch;   // by alert id
  std::vector<std::uint32_t> now_index;   // by alert id
  std::vector<std::pair<std::uint32_t, double>> now;
  std::uint64_t epoch = 0;
  for (std::int64_t t = 0; t <= end_ms; t += g.interval_ms) {
    if (expr.advance(t)) {
      ++epoch;
      now.clear();
      for (const promql::IdSample& s : expr.result()) {
        if (s.labels >= alert_of.size()) alert_of.resize(s.labels + 1, NO_ALERT);
        if (alert_of[s.labels] == NO_ALERT) {
          promql::Labels l;
          for (const auto& kv : expr.labels(s.labels))
            if (kv.first != promql::NAME_LABEL && std::none_of(rule.labels.begin(), rule.labels.end(),
                                                               [&](const auto& r) { return r.first == kv.first; }))
              l.push_back(kv);
          for (const auto& kv : rule.labels)
            if (kv.first != "alertname") l.push_back(kv);
          l.emplace_back("alertname", rule.name);
          std::sort(l.begin(), l.end());
          auto [it, fresh] = alert_ids.try_emplace(std::move(l), static_cast<std::uint32_t>(alert_labels.size()));
          if (fresh) {
            alert_labels.push_back(&it->first);
            active_pos.push_back(NO_ALERT);
            now_epoch.push_back(0);
            now_index.push_back(0);
          }
          alert_of[s.labels] = it->second;
        }
        const std::uint32_t a = alert_of[s.labels];
        if (now_epoch[a] == epoch) {
          now[now_index[a]].second = s.value;  // the same alert twice: the last value, as a map keeps it
        } else {
          now_epoch[a] = epoch;
          now_index[a] = static_cast<std::uint32_t>(now.size());
          now.emplace_back(a, s.value);
        }
      }
      for (std::size_t k = 0; k < active.size();) {
        const std::uint32_t a = active[k].alert;
        if (now_epoch[a] == epoch) {
          ++k;
          continue;
        }
        Firing& f = active[k].f;
        if (f.start_ms >= 0) {
          f.end_ms = t;
          f.resolved = true;
          done.push_back(std::move(f));
        }
        active_pos[a] = NO_ALERT;
        if (k + 1 != active.size()) {
          active[k] = std::move(active.back());
          active_pos[active[k].alert] = static_cast<std::uint32_t>(k);
        }
        active.pop_back();
      }
      for (const auto& [a, value] : now) {
        if (active_pos[a] != NO_ALERT) {
          active[active_pos[a]].value = value;
          continue;
        }
        Firing f;
        f.group = g.name;
        f.rule = rule.name;
        f.labels = *alert_labels[a];
        f.active_ms = t;
        f.start_ms = -1;
        active_pos[a] = static_cast<std::uint32_t>(active.size());
        active.push_back(Active{a, value, std::move(f)});
      }
    }
    // `for` advances at every evaluation, whether or not the result changed.
    for (Active& x : active) {
      Firing& f = x.f;
      if (f.start_ms < 0 && t - f.active_ms >= rule.for_ms) {
        f.start_ms = t;
        f.peak = x.value;
      }
      if (f.start_ms >= 0) f.peak = std::max(f.peak, x.value);
      f.end_ms = t;
    }
  }
  for (Active& x : active)
    if (x.f.start_ms >= 0) done.push_back(std::move(x.f));
}

}  // namespace

std::vector<Firing> evaluate_alerts_by_change(const std::vector<AlertGroup>& groups,
                                              const std::vector<promql::RunSeries>& series, std::int64_t step_ms,
                                              std::int64_t end_ms) {
  std::vector<Firing> done;
  for (const AlertGroup& g : groups)
    for (const AlertRule& rule : g.rules) rule_by_change(g, rule, series, step_ms, end_ms, done);
  std::sort(done.begin(), done.end(), by_start);
  return done;
}

std::optional<std::vector<promql::RunSeries>> metrics_as_runs(const MetricsData& data,
                                                              const std::vector<AlertGroup>& groups,
                                                              std::int64_t step_ms, std::size_t max_runs) {
  const auto exported_name = [](const MetricFamily& f) {
    std::string name(f.name);
    if (f.type == "counter") name += "_total";  // as exported (write_openmetrics)
    return name;
  };
  const auto any_rule = [&groups](const auto& test) {
    for (const AlertGroup& g : groups)
      for (const AlertRule& r : g.rules)
        if (test(r.expr)) return true;
    return false;
  };
  const auto wanted_family = [&](const MetricFamily& f) {
    const std::string name = exported_name(f);
    return any_rule([&](const promql::Expr& e) { return e.may_select_name(name); });
  };
  const auto labels_of = [&](const MetricFamily& family, const std::vector<std::pair<std::string, std::string>>& labels) {
    promql::Labels l;
    l.emplace_back(promql::NAME_LABEL, exported_name(family));
    for (const auto& kv : labels) l.push_back(kv);
    std::sort(l.begin(), l.end());
    return l;
  };
  std::vector<promql::RunSeries> out;
  bool on_grid = step_ms > 0;
  std::size_t total = 0;
  if (on_grid && data.every_s == std::floor(data.every_s) && data.every_s * 1000 == static_cast<double>(step_ms) &&
      data.every_s < 1e6) {
    // A whole number of seconds: every sample time k x every x 1000 is exact, k x step_ms.
    for_each_series_runs(data, wanted_family, [&](const RunsSeries& s) {
      if (total > max_runs) return;
      promql::RunSeries p;
      p.labels = labels_of(*s.family, s.labels);
      if (!any_rule([&](const promql::Expr& e) { return e.selects(p.labels); })) return;
      p.runs.reserve(s.runs.size());
      for (const SampleRun& r : s.runs) p.runs.push_back(promql::Run{r.first_k * step_ms, r.count, r.value});
      total += p.runs.size();
      out.push_back(std::move(p));
    });
    if (total > max_runs) return std::nullopt;
    return out;
  }
  for_each_series_of(data, wanted_family, [&](const Series& s) {
    if (!on_grid || total > max_runs) return;
    promql::RunSeries p;
    p.labels = labels_of(*s.family, s.labels);
    if (!any_rule([&](const promql::Expr& e) { return e.selects(p.labels); })) return;
    for (const Sample& x : s.samples) {
      const std::int64_t t = std::llround(x.time_s * 1000);
      if (!on_grid || t % step_ms != 0) {
        on_grid = false;
        return;
      }
      if (!p.runs.empty()) {
        promql::Run& last = p.runs.back();
        if (last.first_ms + last.count * step_ms == t && promql::same_bits(last.value, x.value)) {
          ++last.count;
          continue;
        }
      }
      p.runs.push_back(promql::Run{t, 1, x.value});
    }
    total += p.runs.size();
    out.push_back(std::move(p));
  });
  if (!on_grid || total > max_runs) return std::nullopt;
  return out;
}

std::vector<Firing> evaluate_trace_alerts(const MetricsData& data, const std::vector<AlertGroup>& groups) {
  const std::int64_t step_ms = std::llround(data.every_s * 1000);
  bool divides = step_ms > 0;
  for (const AlertGroup& g : groups) divides = divides && g.interval_ms % step_ms == 0;
  if (divides) {
    const auto runs = metrics_as_runs(data, groups, step_ms);
    if (runs) return evaluate_alerts_by_change(groups, *runs, step_ms, std::llround(data.end_s * 1000));
  }
  return evaluate_trace_alerts_by_window(data, groups);
}

}  // namespace gcsim::analysis
