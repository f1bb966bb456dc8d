// Alerting rules: reading (Prometheus' rules-file shape) and evaluation with Prometheus
// 2.42's alert states (see alert_rules.hpp and docs/alerts.md).
#include "analysis/alert_rules.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
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

std::vector<Firing> evaluate_trace_alerts(const MetricsData& data, const std::vector<AlertGroup>& groups) {
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

}  // namespace gcsim::analysis
