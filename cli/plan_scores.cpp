// gcsim plan's five scores (see plan_scores.hpp).
#include "cli/plan_scores.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>
#include <utility>

#include "analysis/report.hpp"
#include "sim/units.hpp"

namespace gcsim::cli {

std::vector<MeasuredScores> measure_scores(const std::vector<PlanCandidate>& candidates, const std::vector<std::size_t>& order) {
  std::vector<MeasuredScores> measured(candidates.size());
  double fastest = std::numeric_limits<double>::infinity();
  for (const std::size_t k : order) fastest = std::min(fastest, candidates[k].time_s);
  for (const std::size_t k : order) {
    const PlanCandidate& cand = candidates[k];
    MeasuredScores& m = measured[k];
    m.relative_speed = fastest / cand.time_s;
    // Scaling: against the same instance and market on its fewest listed nodes.
    const PlanCandidate* smallest = nullptr;
    for (const std::size_t j : order)
      if (candidates[j].instance == cand.instance && candidates[j].market == cand.market &&
          (smallest == nullptr || candidates[j].nodes < smallest->nodes))
        smallest = &candidates[j];
    if (smallest != nullptr && smallest->nodes < cand.nodes) {
      m.scaling_from_nodes = smallest->nodes;
      m.scaling_efficiency = smallest->time_s * smallest->nodes / (cand.time_s * cand.nodes);
    }
    if (cand.market != "spot") continue;
    const std::string base_ref = cand.instance.substr(0, cand.instance.find('@'));
    for (const PlanCandidate& o : candidates)
      if (o.market == "on-demand" && o.instance == base_ref && o.nodes == cand.nodes && o.excluded.empty() && o.finishes) {
        m.interruption_delay_s = cand.time_s - o.time_s;
        break;
      }
  }
  return measured;
}

void append_scores_json(analysis::JsonObject& entry, const PlanCandidate& c, const MeasuredScores& scores,
                        const std::vector<ProviderAttribute>& attributes) {
  analysis::JsonObject m(entry.depth() + 1);
  m.number("relative_speed", scores.relative_speed);
  m.number("network_bytes_per_s", c.network_bytes_per_s > 0 ? c.network_bytes_per_s : NAN);
  m.number("communication_share", c.comm_share);
  m.number("scaling_efficiency", scores.scaling_efficiency);
  if (scores.scaling_from_nodes > 0) m.integer("scaling_from_nodes", scores.scaling_from_nodes);
  m.number("interruptions_mean", c.interruptions);
  m.number("gpu_hours_lost_mean", c.gpu_hours_lost);
  m.number("interruption_delay_s", scores.interruption_delay_s);
  entry.raw("measured", m.finish());
  analysis::JsonObject a(entry.depth() + 1);
  for (const std::string_view name : PROVIDER_ATTRIBUTES) {
    const ProviderAttribute* p = find_attribute(attributes, c.provider, name);
    analysis::JsonObject v(entry.depth() + 2);
    v.string("value", p != nullptr ? p->value : "unknown");
    v.string("source", p != nullptr ? p->source : "not in provider_attributes.csv");
    a.raw(std::string(name), v.finish());
  }
  entry.raw("attributes", a.finish());
}

void print_scores(const std::vector<PlanCandidate>& candidates, const std::vector<std::size_t>& order,
                  const std::vector<MeasuredScores>& measured, const std::vector<ProviderAttribute>& attributes) {
  std::printf("\nscores (docs/plan.md, \"The five scores\"): measured by the simulation:\n");
  std::printf("  %-44s %-9s %5s  %8s  %-12s %-6s %-13s %s\n", "instance", "market", "nodes", "hardware", "network",
              "comm", "scaling", "interruptions");
  std::printf("  %-44s %-9s %5s  %8s  %-12s %-6s %-13s %s\n", "", "", "", "(speed)", "(per node)", "share",
              "(vs fewest)", "(per run; lost GPU-h; delay vs on-demand)");
  for (const std::size_t k : order) {
    const PlanCandidate& cand = candidates[k];
    const MeasuredScores& m = measured[k];
    char speed[32], scaling[48] = "-";
    std::snprintf(speed, sizeof speed, "%.2f", m.relative_speed);
    if (std::isfinite(m.scaling_efficiency))
      std::snprintf(scaling, sizeof scaling, "%.0f%% from x%d", m.scaling_efficiency * 100, m.scaling_from_nodes);
    const std::string network =
        cand.network_bytes_per_s > 0 ? units::shortest_text(cand.network_bytes_per_s * 8 / 1e9) + " Gb/s" : "not given";
    std::string interrupts = "-";
    if (cand.market == "spot") {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%.2f; %.2f", cand.interruptions, cand.gpu_hours_lost);
      interrupts = buf;
      interrupts += "; " + (std::isfinite(m.interruption_delay_s) ? analysis::format_duration(m.interruption_delay_s) : "-");
    }
    char share[16] = "-";
    if (std::isfinite(cand.comm_share)) std::snprintf(share, sizeof share, "%.1f%%", cand.comm_share * 100);
    std::printf("  %-44s %-9s %5d  %8s  %-12s %-6s %-13s %s\n", cand.instance.c_str(), cand.market.c_str(), cand.nodes, speed,
                network.c_str(), share, scaling, interrupts.c_str());
  }
  std::printf("not measured: attributes of the providers (scenarios/catalog/provider_attributes.csv), each with its source:\n");
  std::set<std::string> providers;
  for (const std::size_t k : order) providers.insert(candidates[k].provider);
  const std::pair<const char*, const char*> groups[] = {{"vm_sla", "incident handling"},
                                                        {"spot_notice", "incident handling"},
                                                        {"ml_platform", "software ecosystem"},
                                                        {"dl_images", "software ecosystem"},
                                                        {"certifications", "data security"}};
  for (const std::string& p : providers) {
    std::printf("  %s\n", p.c_str());
    for (const auto& [name, score] : groups) {
      const ProviderAttribute* a = find_attribute(attributes, p, name);
      std::printf("    %-18s %-15s %s\n      source: %s\n", score, name, a != nullptr ? a->value.c_str() : "unknown",
                  a != nullptr ? a->source.c_str() : "not in provider_attributes.csv");
    }
  }
}

}  // namespace gcsim::cli
